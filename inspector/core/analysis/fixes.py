"""What would keep it: for a hidden occurrence, the smallest change of each single threshold that shows it.

Decisions are not monotone in a threshold: a larger budget keeps a newer message
whole, which uses up characters an older one needed, so a value can work while a
larger one fails again. So nothing here bisects; each key is walked outwards from
its current value, one distinct plan at a time, until the occurrence shows:

* the four count thresholds are compared with output counts, so every integer in
  [0, outputs + 1] is tried (beyond that range every value plans the same), and
  the walk stops early once the counts of the message itself and everything newer
  are settled, unless an older message could still make scout-ai raise;
* max_tool_chars is compared with running character totals, so the plan stays the
  same between two consecutive totals; the walk jumps from one such interval to the
  next, which visits every distinct plan in [0, total tool characters + 1].

A fix found going up is exact in the sense "value works, value - 1 does not"; going
down, "value works, value + 1 does not".
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from inspector.core.analysis.replan import Replanner, output_count, prompt_chars
from inspector.core.analysis.trace import Occurrence, Trace
from inspector.core.analysis.visibility import survives
from inspector.core.inspection import Inspection
from inspector.core.scout import decision as d
from inspector.core.scout.prepare import Prompt
from inspector.core.scout.settings import KEYS
from inspector.core.scout.strategies.shorten_tools import CUT, KEEP
from inspector.core.scout.tool_facts import FAIL

RAISE, LOWER = "raise", "lower"


class FixSearchCancelled(Exception):
    """Raised out of a search when the caller's ``cancelled()`` turns true (the app moved on)."""


@dataclass(frozen=True, slots=True)
class Fix:
    key: str
    value: int
    current: int
    direction: str  # "raise" or "lower"
    prompt_chars: int  # characters sent with the fix applied
    delta_chars: int  # against the current prompt
    tier: d.Tier  # the message's tier with the fix applied
    holds_to: int | None  # the fix works for every value from `value` to this one; None: and every value beyond

    def as_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "value": self.value,
            "prompt_chars": self.prompt_chars,
            "current": self.current,
            "direction": self.direction,
            "delta_chars": self.delta_chars,
            "tier": self.tier,
            "holds_to": self.holds_to,
        }

    def describe(self) -> str:
        sign = ">=" if self.direction == RAISE else "<="
        if self.holds_to is not None:
            lo, hi = sorted((self.value, self.holds_to))
            span = f"{self.key} in {lo:,}..{hi:,}" if lo != hi else f"{self.key} = {lo:,}"
            span += " only"
        else:
            span = f"{self.key} {sign} {self.value:,}"
        return (
            f"{span} (now {self.current:,}; set {self.key}={self.value}): shown {self.tier}, "
            f"prompt {self.prompt_chars:,} characters ({self.delta_chars:+,})"
        )


@dataclass(slots=True)
class FixReport:
    occurrence: Occurrence
    fixes: list[Fix] = field(default_factory=list)
    blocked: str | None = None  # why no single threshold can, when none does
    notes: list[str] = field(default_factory=list)

    def fixes_for(self, key: str) -> list[Fix]:
        return [f for f in self.fixes if f.key == key]

    def cheapest(self) -> Fix | None:
        return min(self.fixes, key=lambda f: f.prompt_chars, default=None)


class _Target:
    """Is one occurrence visible under a given plan? Cheap: a state lookup on the fast path."""

    def __init__(self, inspection: Inspection, occurrence: Occurrence):
        assert occurrence.message is not None  # fixes are looked for in messages the strategies see
        self.index: int = occurrence.message
        self.spot = occurrence.spot
        self.content = inspection.chat.messages[self.index].fields.get("content")
        self.facts = inspection.facts
        self.p = self.facts.position.get(self.index)
        self._cut: bool | None = None  # the shortened text does not depend on the thresholds

    def visible(self, prompt: Prompt) -> bool:
        if prompt.error is not None:
            return False  # scout-ai raises: nothing is sent
        plan = prompt.plan
        if plan is None:
            return survives(self.spot, self.content, prompt.visible_content(self.index))
        if self.p is None:
            return True  # outside the tool walk: passed through untouched
        state = plan.state[self.p]
        if state == KEEP:
            return True
        if state == CUT:
            if self._cut is None:
                self._cut = survives(self.spot, self.content, self.facts.short_text.get(self.p))
            return self._cut
        return False


def _scan(
    candidates: Iterator[tuple[int, bool]], check: Callable[[int], bool], step: int
) -> tuple[int | None, int | None]:
    """First working value along ``candidates`` and the end of its working run.

    Each candidate is (value, settled): settled means every value further on plans as
    this one does for the occurrence. ``step`` is +1 going up, -1 going down.
    """
    fix = None
    for value, settled in candidates:
        ok = check(value)
        if fix is None and ok:
            fix = value
        elif fix is not None and not ok:
            return fix, value - step
        if settled:
            return fix, None
    return fix, None


def _count_candidates(start: int, stop: int, step: int, settle_at: int | None) -> Iterator[tuple[int, bool]]:
    value = start
    while (value <= stop) if step > 0 else (value >= stop):
        yield value, value == stop or (settle_at is not None and value >= settle_at)
        value += step


def _budget_up(rp: Replanner, key: str, current: int, limit: int) -> Iterator[tuple[int, bool]]:
    budget = max(current, 0)  # every budget <= 0 plans the same (no total is below it)
    prompt = rp.at(key, budget)
    while True:
        assert prompt.plan is not None  # budget walks run on the shorten_tools fast path only
        totals = prompt.plan.chars_before  # non-decreasing along the walk
        i = bisect_left(totals, budget, 0, limit)
        if i >= limit:
            return  # no comparison left to flip: every larger budget plans the same
        budget = totals[i] + 1  # the smallest budget under which that total compares differently
        prompt = rp.at(key, budget)
        yield budget, False


def _budget_down(rp: Replanner, key: str, current: int, limit: int) -> Iterator[tuple[int, bool]]:
    budget = current
    if budget <= 0:
        return
    prompt = rp.at(key, budget)
    while True:
        assert prompt.plan is not None  # budget walks run on the shorten_tools fast path only
        totals = prompt.plan.chars_before
        i = bisect_left(totals, budget, 0, limit)
        if i == 0:
            return  # no total below this budget: every smaller one plans the same
        budget = totals[i - 1]  # the largest budget under which that total is no longer below it
        prompt = rp.at(key, budget)
        yield budget, False


def _band_errors(rp: Replanner) -> list[int]:
    """Positions where shortening would raise, should a plan put them in the middle band."""
    cached = getattr(rp, "_band_error_positions", None)
    if cached is None:
        facts = rp.inspection.facts
        for q in range(len(facts.order)):
            if facts.kinds[q] != FAIL:
                facts.shortened(q)
        cached = sorted(facts.band_errors)
        rp._band_error_positions = cached  # type: ignore[attr-defined]
    return cached


def find_fixes(
    inspection: Inspection,
    occurrence: Occurrence,
    replanner: Replanner | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> FixReport:
    """Every single-threshold fix for one occurrence (an empty list, with the reason, when none exists).

    Cost: one re-plan per distinct value walked, so up to (outputs + 2) plans per count key;
    about 0.1 s on the demo, up to a minute for the oldest message of a 20,000-message chat.
    Run it off the UI thread and pass ``cancelled`` to stop it (FixSearchCancelled).
    """
    report = FixReport(occurrence)
    if occurrence.visible:
        return report
    if occurrence.message is None:
        report.blocked = (
            f"no single threshold can: it was consumed ({occurrence.reason}) before the strategies "
            "ran, and the thresholds only act on what is left"
        )
        return report
    rp = replanner or Replanner(inspection)
    facts = inspection.facts
    if rp.fast and facts.first_failure < len(facts.order):
        failing = facts.order[facts.first_failure]
        report.blocked = (
            f"no single threshold can: scout-ai raises on message {failing} whatever the thresholds "
            f"({facts.failures[facts.first_failure].why})"
        )
        return report
    target = _Target(inspection, occurrence)
    base = rp.base
    current_prompt = rp.current()
    current_chars = prompt_chars(current_prompt)
    top = output_count(inspection) + 1  # count thresholds past this plan as this
    p = target.p
    older_risk = rp.fast and p is not None and any(q > p for q in _band_errors(rp))
    limit = len(facts.order) if (p is None or older_risk) else p + 1

    def check_for(key: str) -> Callable[[int], bool]:
        def check(value: int) -> bool:
            if cancelled is not None and cancelled():
                raise FixSearchCancelled
            return target.visible(rp.at(key, value))

        return check

    for key in KEYS:
        current = base[key]
        check = check_for(key)
        found: list[tuple[str, int, int | None]] = []
        if key == "max_tool_chars":
            if not rp.fast:
                report.notes.append(
                    "max_tool_chars not searched: exact search needs shorten_tools as the only strategy"
                )
                continue
            up = _scan(_budget_up(rp, key, current, limit), check, +1)
            down = _scan(_budget_down(rp, key, current, limit), check, -1)
        else:
            floor = 0 if key.startswith("full_") else -1  # every value below plans as this one
            # past the counts of this message and everything newer, its own decision no longer changes
            settle = None
            if rp.fast and p is not None and not older_risk:
                settle = facts.outs[p] + 1
            if current >= top:
                up = (None, None)
            else:
                up = _scan(_count_candidates(max(current, floor) + 1, top, +1, settle), check, +1)
            if current <= floor:
                down = (None, None)
            else:
                down = _scan(_count_candidates(min(current, top) - 1, floor, -1, None), check, -1)
            if down[0] is not None and down[0] < 0:
                down = (None, None)  # a negative count is never a sensible suggestion
        for direction, (value, holds) in ((RAISE, up), (LOWER, down)):
            if value is None:
                continue
            if direction == LOWER and holds is not None and holds < 0:
                holds = 0
            found.append((direction, value, holds))
        for direction, value, holds in found:
            prompt = rp.at(key, value)
            chars = prompt_chars(prompt)
            report.fixes.append(
                Fix(
                    key,
                    value,
                    current,
                    direction,
                    chars,
                    chars - current_chars,
                    prompt.tier_of(occurrence.message),
                    holds,
                )
            )
    if not report.fixes:
        report.blocked = _why_blocked(occurrence, current_prompt, top)
    return report


def _why_blocked(occurrence: Occurrence, prompt: Prompt, top: int) -> str:
    text = "no single threshold can"
    if occurrence.tier == d.TRUNCATED:
        return (
            f"{text}: every value of each threshold leaves this message truncated or dropped, and the cut "
            "always removes this occurrence (only more than one change at once could keep it whole)"
        )
    if prompt.error is not None:
        return f"{text}: scout-ai raises for every value tried ({prompt.error.why})"
    return f"{text}: tried every distinct plan of each threshold (counts 0..{top}, every max_tool_chars interval)"


def fixes_for_trace(
    inspection: Inspection,
    result: Trace,
    replanner: Replanner | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> list[FixReport]:
    """A report per occurrence (visible ones get an empty report), sharing one plan cache."""
    rp = replanner or Replanner(inspection)
    return [find_fixes(inspection, o, rp, cancelled) for o in result.occurrences]
