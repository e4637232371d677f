"""`why` under another framework's policy: the smallest change of each numeric setting that keeps a text.

A setting either keeps more as it grows (``keep``, ``trigger``, ``max_tokens``, ``recent_turns``, ...)
or, for ``clear_at_least``, as it shrinks towards 1 (it stops clearing sooner; 0 clears every
candidate). Each is searched by doubling, then halving the gap, on whole re-plans of the chat: a
value is a fix when the occurrence is sent with its text intact (and, for the pair, its call or output
is sent too).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from inspector.core.analysis.fixes import LOWER, RAISE, Fix, FixReport
from inspector.core.analysis.trace import Occurrence
from inspector.core.analysis.visibility import survives
from inspector.core.inspection import Inspection
from inspector.core.peers import inspect_ai
from inspector.core.peers.registry import Kind, Param, PolicySettings
from inspector.core.policies import decision as d
from inspector.core.scout.prepare import Prompt

LIMIT = 1 << 40  # no setting is searched beyond this (a trigger above any chat's size)
SHRINKS = frozenset({"clear_at_least"})  # keeps more as it gets smaller (down to 1)


@dataclass(frozen=True, slots=True)
class PolicyFix:
    key: str
    now: Any
    value: int
    direction: str  # ">=" or "<="
    chars: int  # the prompt's characters with the fix
    chars_now: int
    pair: bool  # its call (or output) is sent too
    tool_chars: int = 0  # tool characters sent with the fix

    def describe(self) -> str:
        delta = self.chars - self.chars_now
        text = (
            f"{self.key} {self.direction} {self.value:,} (now {_shown(self.now)}; set {self.key}={self.value}): "
            f"shown, prompt {self.chars:,} characters ({delta:+,})"
        )
        return text if self.pair else text + "; but its call or output is not sent: the pair is split"

    def as_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "now": self.now,
            "value": self.value,
            "direction": self.direction,
            "chars": self.chars,
            "pair": self.pair,
        }


def _shown(value: Any) -> str:
    return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else str(value)


@dataclass(slots=True)
class PolicyFixReport:
    fixes: list[PolicyFix]
    without: list[str]  # numeric settings no single value of which shows it
    partner: int | None = None  # the occurrence's call (for an output) or output (for a call)

    def as_fix_report(self, occurrence: Occurrence, settings: PolicySettings) -> FixReport:
        """As the why dialog lists scout-ai's fixes: those that keep the pair first, the others after."""
        converted = [
            Fix(
                f.key,
                f.value,
                f.now if isinstance(f.now, int) else 0,
                LOWER if f.direction == "<=" else RAISE,
                f.chars,
                f.chars - f.chars_now,
                d.FULL,
                None,
                tool_chars=f.tool_chars,
                partner=self.partner,
                partner_tier=d.FULL if f.pair else d.DROPPED,
                message=occurrence.message,
            )
            for f in sorted(self.fixes, key=lambda f: f.chars)
        ]
        keys = tuple(p.name for p in settings.spec.numeric())
        report = FixReport(
            occurrence,
            [f for f in converted if f.breaks_pair],
            [f for f in converted if not f.breaks_pair],
            keys=keys,
        )
        if self.without:
            report.notes.append(f"no value of {', '.join(self.without)} alone shows it")
        return report

    def lines(self) -> list[str]:
        out = []
        if self.fixes:
            ordered = sorted(self.fixes, key=lambda f: (not f.pair, f.chars))
            out.append("single changes that show it (pair-keeping first):")
            out.extend(f"  {n}. {f.describe()}" for n, f in enumerate(ordered, 1))
        if self.without:
            out.append(f"no value of {', '.join(self.without)} alone shows it")
        return out


def policy_fixes(
    inspection: Inspection, occurrences: list[Occurrence], limit: int | None = None
) -> list[PolicyFixReport]:
    """Per occurrence, each numeric setting's smallest fix; ``limit``: only the newest that many hidden
    occurrences are searched (the others get an empty report)."""
    settings = inspection.policy
    assert settings is not None
    partner = _partners(inspection)
    now = inspection.prompt()
    chars_now = _chars(now)
    cache: dict[tuple[str, int], Prompt] = {}

    def plan(key: str, value: int) -> Prompt:
        found = cache.get((key, value))
        if found is None:
            found = cache[(key, value)] = inspection.policy_prompt(settings.with_value(key, value))
        return found

    hidden = [k for k, o in enumerate(occurrences) if not o.visible and o.message is not None]
    searched = set(sorted(hidden, key=lambda k: (-occurrences[k].row, k))[:limit]) if limit is not None else None
    reports = []
    for k, o in enumerate(occurrences):
        if o.visible or o.message is None or (searched is not None and k not in searched):
            reports.append(PolicyFixReport([], []))
            continue
        index = o.message
        content = inspection.chat.messages[index].fields.get("content")

        def shows(prompt: Prompt, index: int = index, content: Any = content, o: Occurrence = o) -> bool:
            if prompt.error is not None:
                return False
            return survives(o.spot, content, prompt.visible_content(index))

        fixes: list[PolicyFix] = []
        without: list[str] = []
        for param in settings.spec.numeric():
            current = _current(param, settings, inspection)
            if current is None:
                continue
            key = param.name
            found = _search(key, current, lambda v, key=key: shows(plan(key, v)))  # type: ignore[misc]
            if found is None:
                without.append(param.name)
                continue
            trial = plan(param.name, found)
            other = partner.get(index)
            pair = other is None or trial.tier_of(other) not in (d.DROPPED, d.UNDECIDED)
            direction = "<=" if param.name in SHRINKS else ">="
            tool = trial.planner.sizes()[3] if trial.error is None else 0
            fixes.append(PolicyFix(param.name, current, found, direction, _chars(trial), chars_now, pair, tool))
        reports.append(PolicyFixReport(fixes, without, partner.get(index)))
    return reports


def _current(param: Param, settings: PolicySettings, inspection: Inspection) -> int | None:
    value = settings.as_dict()[param.name]
    if param.kind is Kind.THRESHOLD:
        if value == "always":
            return None
        return inspect_ai.threshold_tokens(value, settings.as_dict()["context_window"])
    if value is None:
        return 0
    return int(value)


def _search(key: str, current: int, shows: Callable[[int], bool]) -> int | None:
    """The value nearest ``current`` that shows it, in the direction that keeps more (None: none does)."""
    if key in SHRINKS:
        # clear_at_least: 1 stops after the first clear; larger clears more until it stops
        if current == 0:
            return 1 if shows(1) else None
        if not shows(1):
            return None
        return _boundary(1, current, shows)  # the largest value that still shows it, below current
    step = max(1, current)
    bad, good = current, None
    probe = current + 1
    while probe <= LIMIT:
        if shows(probe):
            good = probe
            break
        bad = probe
        step *= 2
        probe = current + step
    if good is None:
        return None
    return _boundary(good, bad, shows)


def _boundary(good: int, bad: int, shows: Callable[[int], bool]) -> int:
    """Between a value that shows it and one that does not (either side), the one that shows it nearest
    the other: halving the gap."""
    while abs(good - bad) > 1:
        mid = (good + bad) // 2
        if shows(mid):
            good = mid
        else:
            bad = mid
    return good


def _partners(inspection: Inspection) -> dict[int, int]:
    """Each tool message's call or output, by original index (the pair a fix should keep together)."""
    out: dict[int, int] = {}
    items = inspection.conversation().items
    calls: dict[Any, int] = {}
    for item in items:
        for call in item.calls:
            calls[call.id] = call.origin
        if item.role == "tool" and item.origin >= 0 and item.call_id in calls:
            out[item.origin] = calls[item.call_id]
            out[calls[item.call_id]] = item.origin
    return out


def _chars(prompt: Prompt) -> int:
    if prompt.error is not None:
        return 0
    return prompt.planner.sizes()[2]
