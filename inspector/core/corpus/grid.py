"""The settings a corpus is scored under: the current one (``--set``, environment, config files) and the grid
of ``--vary KEY=START:STOP:STEP`` (repeatable): their cartesian product, in the order given (the first
``--vary`` varies slowest).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from inspector.core.analysis.sweep import MAX_VALUES, parse_range
from inspector.core.errors import UsageError
from inspector.core.scout import versions
from inspector.core.scout.settings import (
    FLOAT_KEYS,
    SETTING_KEYS,
    Thresholds,
    keys_for,
    resolve,
    strategies_setting,
)
from inspector.core.scout.strategies import parse_spec
from inspector.core.setup import Setup, policy_name

if TYPE_CHECKING:
    from inspector.core.peers.registry import PolicySettings

Value = int | float


@dataclass(frozen=True, slots=True)
class Setting:
    """The values one point of the grid sets, on top of the current setting (``()``: the current one)."""

    varied: tuple[tuple[str, Value | str], ...] = ()

    def label(self) -> str:
        return " ".join(f"{k}={_text(v)}" for k, v in self.varied) or "(current)"

    def setup(self, base: Setup) -> Setup:
        """``base`` with these values as --set overrides (they win over base's own). A ``policy`` value
        (``--vary policy=A,B``) switches the policy; base's --set values go with it where it has them."""
        if not self.varied:
            return base
        varied = dict(self.varied)
        named = varied.pop("policy", None)
        target = base.policy if named is None else policy_name(str(named))
        merged = {k: v for k, v in base.overrides if _known(target, k)}
        merged.update((k, _text(v)) for k, v in varied.items())
        return replace(base, policy=target, overrides=tuple(merged.items()))


def _known(policy: str | None, key: str) -> bool:
    if policy is None:
        return key in SETTING_KEYS
    from inspector.core.peers.registry import get

    return get(policy).param(key) is not None


def _text(value: Value | str) -> str:
    return repr(float(value)) if isinstance(value, float) else str(value)


def parse_grid(specs: list[str] | tuple[str, ...], policy: str | None = None) -> tuple[Setting, ...]:
    """The settings of one or more ``--vary``; none: just the current setting. ``policy=A,B,...`` varies
    the policy itself (scout: scout-ai's strategies); a numeric key is the policy's own setting."""
    axes: list[tuple[str, list[Value | str]]] = []
    policies = [p.strip() for s in specs if s.startswith("policy=") for p in s[len("policy=") :].split(",")]
    for spec in specs:
        if spec.startswith("policy="):
            values: list[Value | str] = [p for p in (x.strip() for x in spec[len("policy=") :].split(",")) if p]
            if not values:
                raise UsageError("--vary policy= needs one or more policy names (scout for scout-ai's strategies)")
            for name in values:
                if policy_name(str(name)) is not None:
                    from inspector.core.peers.registry import get

                    get(str(name))  # an unknown policy: a usage error naming the known ones
            key = "policy"
        else:
            key, values = _parse_axis(spec, policy, policies)
        if any(key == k for k, _ in axes):
            raise UsageError(f"--vary {key} given twice")
        axes.append((key, values))
    size = 1
    for _, values in axes:
        size *= len(values)
    if size > MAX_VALUES:
        raise UsageError(f"the --vary grid has {size:,} settings; at most {MAX_VALUES:,}")
    return tuple(Setting(tuple(zip((k for k, _ in axes), point))) for point in itertools.product(*(v for _, v in axes)))


def _parse_axis(spec: str, policy: str | None, policies: list[str]) -> tuple[str, list[Value | str]]:
    """A numeric axis: scout-ai's threshold, else the setting of the policy in force (or of a policy the
    grid varies over) that has it."""
    from inspector.core.analysis.sweep import parse_policy_range
    from inspector.core.peers.registry import get

    key = spec.partition("=")[0].strip()
    for name in [*([policy] if policy else []), *policies]:
        if policy_name(name) is not None and get(name).param(key) is not None:
            found_key, values = parse_policy_range(spec, name)
            return found_key, list(values)
    found_key, scout_values = parse_range(spec)
    return found_key, list(scout_values)


AROUND = (0.25, 0.5, 0.75, 1, 1.5, 2, 4)  # the factors of a large value charted around it


def around(key: str, current: Value, count: int = 7) -> tuple[Value, ...]:
    """A few values of ``key`` around ``current``, ascending, ``current`` among them: a small count steps by
    one from a little below it, a larger value (or a ratio) is scaled by ``AROUND``."""
    if key in FLOAT_KEYS:
        return tuple(sorted({round(float(current) * f, 3) for f in AROUND} | {current}))
    now = int(current)
    if now < 2 * count:
        start = max(0, now - count // 2)
        return tuple(range(start, start + count))
    return tuple(sorted({round(now * f) for f in AROUND}))


@dataclass(frozen=True, slots=True)
class InForce:
    """Every setting the strategies in force read, resolved without a chat (a chat's config lines may differ)."""

    strategies: tuple[str, ...]
    version: str
    thresholds: Thresholds
    keys: tuple[str, ...]
    policy: PolicySettings | None = None  # another framework's policy: its settings are the values

    def values(self) -> tuple[tuple[str, Value | str], ...]:
        if self.policy is not None:
            shown: list[tuple[str, Value | str]] = [("policy", self.policy.spec.name)]
            for param in self.policy.spec.params:
                value = self.policy.as_dict()[param.name]
                keep = isinstance(value, (int, float)) and not isinstance(value, bool)
                shown.append((param.name, value if keep else param.show(value)))
            return tuple(shown)
        return tuple((key, self.thresholds.setting(key)) for key in self.keys)


def in_force(setup: Setup) -> InForce:
    """As ``thresholds`` lists them: the strategies given (else the version's default) and their keys; under
    another framework's policy, its settings."""
    policy = setup.policy_settings()
    if policy is not None:
        values = resolve({}, env=setup.env_dict(), config_files=setup.config_list())
        params = tuple(p.name for p in policy.spec.params)
        return InForce((policy.spec.name,), policy.spec.library, values, params, policy)
    version = setup.scout_version()
    spec = setup.strategies
    if spec is not None:
        parse_spec(spec)  # a name nothing knows is a usage error
    if version is None:
        found = parse_spec(spec, validate=False) if spec is not None else None
        version = versions.infer(None if found is None or callable(found) else found)
    if spec is None and version.strategies_from_config:
        spec = strategies_setting(env=setup.env_dict(), config_files=setup.config_list())
    found_names = parse_spec(spec, version.default, validate=False)
    names: list[str] = [] if callable(found_names) else list(found_names)
    # scout-ai's keys only: with --vary policy=..., --set also carries the other policies' settings (a typo in
    # a scout key is refused where the command line is read, when no policy is named)
    values = resolve(setup.scout_only().overrides_dict(), env=setup.env_dict(), config_files=setup.config_list())
    return InForce(tuple(names), version.name, values, tuple(keys_for(names)))
