"""The settings a corpus is scored under: the current one (``--set``, environment, config files) and the grid
of ``--vary KEY=START:STOP:STEP`` (repeatable): their cartesian product, in the order given (the first
``--vary`` varies slowest).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace

from inspector.core.analysis.sweep import MAX_VALUES, parse_range
from inspector.core.errors import UsageError
from inspector.core.scout import versions
from inspector.core.scout.settings import FLOAT_KEYS, Thresholds, keys_for, resolve, strategies_setting
from inspector.core.scout.strategies import parse_spec
from inspector.core.setup import Setup

Value = int | float


@dataclass(frozen=True, slots=True)
class Setting:
    """The values one point of the grid sets, on top of the current setting (``()``: the current one)."""

    varied: tuple[tuple[str, Value], ...] = ()

    def label(self) -> str:
        return " ".join(f"{k}={_text(v)}" for k, v in self.varied) or "(current)"

    def setup(self, base: Setup) -> Setup:
        """``base`` with these values as --set overrides (they win over base's own)."""
        if not self.varied:
            return base
        merged = dict(base.overrides)
        merged.update((k, _text(v)) for k, v in self.varied)
        return replace(base, overrides=tuple(merged.items()))


def _text(value: Value) -> str:
    return repr(float(value)) if isinstance(value, float) else str(value)


def parse_grid(specs: list[str] | tuple[str, ...]) -> tuple[Setting, ...]:
    """The settings of one or more ``--vary``; none: just the current setting."""
    axes: list[tuple[str, list[Value]]] = []
    for spec in specs:
        key, values = parse_range(spec)
        if any(key == k for k, _ in axes):
            raise UsageError(f"--vary {key} given twice")
        axes.append((key, values))
    size = 1
    for _, values in axes:
        size *= len(values)
    if size > MAX_VALUES:
        raise UsageError(f"the --vary grid has {size:,} settings; at most {MAX_VALUES:,}")
    return tuple(Setting(tuple(zip((k for k, _ in axes), point))) for point in itertools.product(*(v for _, v in axes)))


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

    def values(self) -> tuple[tuple[str, Value], ...]:
        return tuple((key, self.thresholds.setting(key)) for key in self.keys)


def in_force(setup: Setup) -> InForce:
    """As ``thresholds`` lists them: the strategies given (else the version's default) and their keys."""
    version = setup.scout_version()
    spec = setup.strategies
    if spec is not None:
        parse_spec(spec)  # a name nothing knows is a usage error
    if version is None:
        found = parse_spec(spec, validate=False) if spec is not None else None
        version = versions.infer(None if found is None or callable(found) else found)
    if spec is None and version.strategies_from_config:
        spec = strategies_setting(env=setup.env_dict(), config_files=setup.config_list())
    names = parse_spec(spec, version.default, validate=False)
    names = [] if callable(names) else names
    values = resolve(setup.overrides_dict(), env=setup.env_dict(), config_files=setup.config_list())
    return InForce(tuple(names), version.name, values, tuple(keys_for(names)))
