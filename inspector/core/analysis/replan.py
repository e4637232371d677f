"""Re-plan one inspection at many threshold values (fixes, sweeps and comparisons share this).

A shorten_tools plan over the cached ToolFacts costs about a millisecond, so trying
hundreds of values is cheap. One threshold is varied at a time, with scout-ai's rule
that max_tool_outputs follows max_tool_calls unless it is set itself.
"""

from __future__ import annotations

import re
from typing import Any

from inspector.core.errors import UsageError
from inspector.core.inspection import Inspection
from inspector.core.scout.prepare import Prompt, prepare_prompt
from inspector.core.scout.settings import (
    EPOCH_KEYS,
    FLOAT_KEYS,
    KEYS,
    SETTING_KEYS,
    Source,
    Thresholds,
    ruby_to_f,
    ruby_to_i,
    shown,
)
from inspector.core.scout.strategies import parse_spec
from inspector.core.scout.strategies.shorten_tools_epoch import EpochSettings
from inspector.core.scout.strategies.shorten_tools_epoch_increment import IncrementSettings

CACHE_CELLS = 4_000_000  # plans kept x tool messages: each plan holds a byte and a counter per tool message


class Replanner:
    def __init__(self, inspection: Inspection, base: Thresholds | None = None):
        self.inspection = inspection
        self.base = base or inspection.thresholds
        self.spec = parse_spec(inspection.strategy_spec, inspection.version.default, validate=False)
        # the fast path: the plan alone decides every message, and exposes its counters
        self.fast = self.spec == ["shorten_tools"]
        self._cache: dict[tuple[Any, ...], Prompt] = {}

    def rebased(self, base: Thresholds) -> Replanner:
        """The same chat and plan cache around other thresholds in force (the app re-bases on every edit).

        Plans are cached by their five values, so a plan found for one base serves every
        other; sharing the cache is what makes fixes, sweeps and comparisons cheap together.
        """
        other = Replanner.__new__(Replanner)
        other.inspection, other.base, other.spec, other.fast = self.inspection, base, self.spec, self.fast
        other._cache = self._cache
        return other

    def values_for(self, key: str, value: int | float, base: Thresholds | None = None) -> tuple[int | float, ...]:
        """Every setting with ``key`` set to ``value`` (max_tool_outputs following when it does)."""
        return (base or self.base).with_value(key, value).key()

    def thresholds_for(self, key: str, value: int, base: Thresholds | None = None) -> tuple[int, int, int, int, int]:
        """shorten_tools' five values with ``key`` set to ``value``."""
        return (base or self.base).with_value(key, value).as_tuple()

    def prompt(self, values: tuple[int | float, ...], cache: bool = True) -> Prompt:
        """The prompt under ``values`` (the five thresholds, or every setting in SETTING_KEYS order);
        ``cache=False`` for one-pass walks such as a sweep."""
        base = self.base
        every = values if len(values) == len(SETTING_KEYS) else (*values, *base.key()[len(values) :])
        found = self._cache.get(every)
        if found is None:
            inspection = self.inspection
            version = inspection.version_for(self.spec)
            rest = dict(zip(SETTING_KEYS, every))
            found = prepare_prompt(
                inspection.chat.messages,
                self.spec,
                tuple(int(v) for v in every[: len(KEYS)]),  # type: ignore[arg-type]
                inspection.facts_for(version),
                EpochSettings(*(int(rest[k]) for k in EPOCH_KEYS)),
                version,
                IncrementSettings.from_values(rest),
                inspection.injected_for(version),
            )
            if cache:
                limit = max(16, CACHE_CELLS // max(1, len(inspection.facts.order)))
                if len(self._cache) >= limit:
                    self._cache.clear()  # searches revisit recent values; old ones are not worth the memory
                self._cache[every] = found
        return found

    def at(self, key: str, value: int | float, base: Thresholds | None = None, cache: bool = True) -> Prompt:
        return self.prompt(self.values_for(key, value, base), cache)

    def current(self) -> Prompt:
        return self.prompt(self.base.as_tuple())


def prompt_chars(prompt: Prompt) -> int:
    """Characters of every message sent (0 when scout-ai raises)."""
    if prompt.error is not None:
        return 0
    plan = prompt.plan
    if plan is not None:
        chars: int = plan.facts.nontool_chars() + plan.tool_chars_after
        return chars
    return prompt.totals().chars_after


def output_count(inspection: Inspection) -> int:
    """Tool outputs scout-ai counts: past this, the count thresholds change nothing."""
    outs = inspection.facts.outs
    return outs[-1] if outs else 0


def parse_value(key: str, text: str) -> int | float:
    """A threshold value typed for a sweep or a comparison: a plain integer (``_`` and ``,`` allowed), or
    for a ratio read with to_f (FLOAT_KEYS) a decimal number, as ``--set`` takes them."""
    if key not in SETTING_KEYS:
        raise UsageError(f"unknown setting {key!r}; known: {', '.join(SETTING_KEYS)}")
    cleaned = text.strip().replace(",", "").replace("_", "")
    if key in FLOAT_KEYS:
        if not re.fullmatch(r"[+-]?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?", cleaned, re.ASCII):
            raise UsageError(f"{key} needs a number, got {shown(text)}")
        return ruby_to_f(cleaned)
    if not re.fullmatch(r"[+-]?[0-9]+", cleaned, re.ASCII):
        raise UsageError(f"{key} needs an integer, got {shown(text)}")
    return ruby_to_i(cleaned)  # any length (past 4,000 digits: the largest 4,000-digit number, as for --set)


def apply(base: Thresholds, assignments: dict[str, int | float]) -> Thresholds:
    """``base`` with several values changed; max_tool_calls first, so an explicit max_tool_outputs wins."""
    out = base
    for key in sorted(assignments, key=lambda k: k != "max_tool_calls"):
        out = out.with_value(key, assignments[key], Source.OVERRIDE, "--a/--b")
    return out
