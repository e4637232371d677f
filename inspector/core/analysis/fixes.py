"""What would keep it: for a hidden occurrence, the smallest change of each single threshold that shows it.

With shorten_tools as the only strategy, whether a message is sent is a closed form in the five
thresholds (fix_model.py): it changes only where one comparison flips, for the message itself or
for a message whose shortening raises. The search evaluates that form at those few values, then
checks what it found against real plans (the fix works, the value next to it does not, and the
same at the end of its working run); should a check ever disagree it walks every distinct plan of
that threshold instead, as it does for other strategy lists:

* the four count thresholds are compared with output counts, so every integer in
  [0, outputs + 1] is tried (beyond that range every value plans the same);
* max_tool_chars is compared with running character totals, so the plan stays the
  same between two consecutive totals; the walk jumps from one such interval to the next.

A fix found going up is exact in the sense "value works, value - 1 does not"; going
down, "value works, value + 1 does not". A tool call and its output are a pair: a fix
that sends one while dropping the other says so, and ``pair_fixes`` holds the smallest
changes that send both. Costs are given as the header gives them: characters, tool
characters and estimated tokens, and whether the prompt would exceed a context window.

With shorten_tools_epoch or shorten_tools_epoch_increment in force, the settings searched are
the integer ones those strategies read (the four epoch keys, and the increment's five integer
keys; not its growth ratio), each from 0 to the number of tool messages plus one (every larger
value plans as that one: the settings are compared with counts of tool messages). Whether the
message is seen depends on them only through the strategy's two windows (epoch_model.py), so
every value is read off that closed form in microseconds, and what it finds is checked on real
plans as above. Where it does not apply (a chain, or 1.2.6's exact walk where it raises) or a
check disagrees, real plans are walked, each value in turn, at most EPOCH_SPAN values each way;
a note says when a range was capped. No pair-keeping search there: a fix that splits a pair says so.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from inspector.core.analysis import fix_model
from inspector.core.analysis.epoch_model import WindowOutcome
from inspector.core.analysis.replan import Replanner, output_count, prompt_chars
from inspector.core.analysis.trace import Occurrence, Trace
from inspector.core.analysis.visibility import survives
from inspector.core.inspection import Inspection
from inspector.core.numbering import RowNumbers
from inspector.core.policies import decision as d
from inspector.core.scout.prepare import Prompt
from inspector.core.scout.settings import EPOCH_KEYS, INCREMENT_KEYS, KEYS, STRATEGY_KEYS, keys_for
from inspector.core.scout.strategies.shorten_tools import CUT, KEEP
from inspector.core.scout.strategies.shorten_tools_epoch_increment import IncrementSettings
from inspector.core.scout.tool_facts import CALL, OUTPUT, ToolFacts, tool_identity
from inspector.core.scout.totals import estimate_tokens
from inspector.core.yielding import pause_if_due, stops_when

RAISE, LOWER = "raise", "lower"
EPOCH_SPAN = 400  # values tried each way per epoch setting: under a second at 2 ms a plan
RATIO = "epoch_increment_compacted_growth_ratio"  # a float: no "smallest change" to search


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
    tool_chars: int = 0  # tool characters sent with the fix applied (the header's "tool chars")
    partner: int | None = None  # the message's call (for an output) or output (for a call), when it has one
    partner_tier: d.Tier | None = None  # the partner's tier with the fix applied
    context_window: int | None = None  # tokens, when the user set one
    message: int | None = None  # the message the fix shows
    partner_row: int | None = None  # the partner's `#` row, as every view numbers rows

    @property
    def tokens(self) -> int:
        """Estimated tokens sent with the fix applied (as the header estimates them)."""
        return estimate_tokens(self.prompt_chars)

    @property
    def breaks_pair(self) -> bool:
        """The message is sent while its call (or output) is not: the model sees half of the exchange."""
        return self.partner is not None and self.partner_tier not in (d.FULL, d.TRUNCATED)

    @property
    def exceeds_window(self) -> bool | None:
        """Whether the estimated tokens would exceed the context window (None: no window set)."""
        return None if self.context_window is None else self.tokens > self.context_window

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
            "tool_chars": self.tool_chars,
            "tokens": self.tokens,
            "partner": self.partner,
            "partner_tier": self.partner_tier,
            "partner_row": self.partner_row,
            "breaks_pair": self.breaks_pair,
            "context_window": self.context_window,
            "exceeds_window": self.exceeds_window,
        }

    def describe(self) -> str:
        sign = ">=" if self.direction == RAISE else "<="
        if self.holds_to is not None:
            lo, hi = sorted((self.value, self.holds_to))
            span = f"{self.key} in {lo:,}..{hi:,}" if lo != hi else f"{self.key} = {lo:,}"
            span += " only"
        else:
            span = f"{self.key} {sign} {self.value:,}"
        text = (
            f"{span} (now {self.current:,}; set {self.key}={self.value}): shown {self.tier}, "
            f"prompt {self.prompt_chars:,} characters ({self.delta_chars:+,}), "
            f"tool chars {self.tool_chars:,}, ~{self.tokens:,} tokens"
        )
        if self.exceeds_window:
            text += f", would exceed the {self.context_window:,}-token context window"
        if self.breaks_pair:
            other = "its call" if self.partner is not None and self.partner < (self.message or 0) else "its output"
            where = f"#{self.partner_row}" if self.partner_row is not None else f"message {self.partner}"
            text += f"; but {other} ({where}) is {self.partner_tier}: the pair is split"
        return text


@dataclass(slots=True)
class FixReport:
    occurrence: Occurrence
    fixes: list[Fix] = field(default_factory=list)
    pair_fixes: list[Fix] = field(default_factory=list)  # the smallest changes that send the call and output both
    blocked: str | None = None  # why no single threshold can, when none does
    notes: list[str] = field(default_factory=list)
    keys: tuple[str, ...] = KEYS  # the settings searched

    def fixes_for(self, key: str) -> list[Fix]:
        return [f for f in self.fixes if f.key == key]

    def keys_without_fix(self) -> list[str]:
        """Thresholds no single value of which shows the text (those a note already explains left out)."""
        return [k for k in self.keys if not self.fixes_for(k) and not any(n.startswith(k) for n in self.notes)]

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


def _raising(rp: Replanner) -> list[int]:
    """Positions whose shortening raises, should a plan put them in the middle band (few: only the
    messages whose first reading saw an odd type are shortened to find out)."""
    return rp.inspection.facts.raising_positions()


PAIR_REACH = 64  # tool positions looked through for a message's call or output


def partner_of(facts: ToolFacts, p: int) -> int | None:
    """The tool position of the call answered by the output at ``p`` (or the output answering the call)."""
    kind = facts.kinds[p]
    if kind not in (CALL, OUTPUT):
        return None
    ident = tool_identity(facts.parsed[p])[1]
    want, step = (CALL, 1) if kind == OUTPUT else (OUTPUT, -1)  # positions run newest first
    q = p + step
    for _ in range(PAIR_REACH):
        if not 0 <= q < len(facts.order):
            break
        if facts.kinds[q] == want and (ident is None or tool_identity(facts.parsed[q])[1] == ident):
            return q
        q += step
    return None


Found = list[tuple[str, int, int | None]]


def _closed_form(
    key: str,
    current: int,
    floor: int,
    visible: Callable[[int], bool],
    starts: set[int],
    check: Callable[[int], bool],
) -> Found | None:
    """The fixes the closed form gives, each checked on real plans; None when a check disagrees."""
    if visible(current):
        return None  # the occurrence is hidden now: the form must say so too
    up, down = fix_model.search(visible, current, floor, starts)
    counts = key != "max_tool_chars"
    if down is not None and counts and down[0] < 0:
        down = None  # a negative count is never a sensible suggestion
    found: Found = []
    for direction, result in ((RAISE, up), (LOWER, down)):
        if result is None:
            continue
        value, holds = result
        step = 1 if direction == RAISE else -1
        if not check(value):
            return None
        beside = value - step
        if (beside > max(current, floor) if step > 0 else beside < current) and check(beside):
            return None
        if holds is not None:
            if not check(holds):
                return None
            past = holds + step
            if past >= floor and check(past):
                return None
            if direction == LOWER and holds < 0:
                holds = 0
        found.append((direction, value, holds))
    return found


def _walk(
    rp: Replanner,
    key: str,
    current: int,
    floor: int,
    top: int,
    limit: int,
    settle: int | None,
    check: Callable[[int], bool],
) -> Found:
    """Every distinct plan of ``key`` walked outwards from ``current`` (the general search)."""
    if key == "max_tool_chars":
        up = _scan(_budget_up(rp, key, current, limit), check, +1)
        down = _scan(_budget_down(rp, key, current, limit), check, -1)
    else:
        up = (
            (None, None)
            if current >= top
            else _scan(_count_candidates(max(current, floor) + 1, top, +1, settle), check, +1)
        )
        if current <= floor:
            down = (None, None)
        else:
            down = _scan(_count_candidates(min(current, top) - 1, floor, -1, None), check, -1)
        if down[0] is not None and down[0] < 0:
            down = (None, None)  # a negative count is never a sensible suggestion
    found: Found = []
    for direction, (value, holds) in ((RAISE, up), (LOWER, down)):
        if value is None:
            continue
        if direction == LOWER and holds is not None and holds < 0:
            holds = 0
        found.append((direction, value, holds))
    return found


def searched_keys(spec: object) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(the five thresholds searched, the epoch settings searched) for the strategies in force.

    The epoch strategies do not read the five; shorten_tools (alone, in a chain, or an unknown
    list: the search's old default) does.
    """
    names = [n for n in spec if isinstance(n, str)] if isinstance(spec, list) else []
    epoch = tuple(k for k in keys_for(names) if k not in KEYS and k != RATIO)
    if not epoch:
        return KEYS, ()
    return (KEYS if any(STRATEGY_KEYS.get(n) == KEYS for n in names) else ()), epoch


def _epoch_walk(key: str, current: int, top: int, check: Callable[[int], bool]) -> tuple[Found, list[str]]:
    """Each value of one epoch setting in turn, up to ``top`` and down to 0, EPOCH_SPAN at most each way."""
    found: Found = []
    capped: list[str] = []
    if current < top:  # every value from ``top`` on plans as ``top``
        lo, hi = current + 1, min(top, current + EPOCH_SPAN)
        fix, holds = _run(range(lo, hi + 1), check)
        if hi < top:
            capped.append(f"up to {hi:,}")
        if fix is not None:
            found.append((RAISE, fix, holds))
    start = min(current, top) - 1  # values between top and current plan as current does
    if start >= 0:
        stop = max(0, start - EPOCH_SPAN + 1)
        fix, holds = _run(range(start, stop - 1, -1), check)
        if stop > 0:
            capped.append(f"down to {stop:,}")
        if fix is not None:
            found.append((LOWER, fix, holds))
    notes = []
    if capped:
        notes.append(
            f"{key}: searched {' and '.join(capped)} only ({EPOCH_SPAN} values each way from {current:,}; "
            f"values up to {top:,} can matter): a fix further away is not shown, a run may go on past the end"
        )
    return found, notes


_FIELDS = dict(zip((*EPOCH_KEYS, *INCREMENT_KEYS), IncrementSettings.__dataclass_fields__))  # setting -> field


def _window_outcome(
    inspection: Inspection, rp: Replanner, target: _Target, prompt: Prompt
) -> tuple[WindowOutcome, Any] | None:
    """The epoch strategies' closed form for the target, when one epoch strategy decides every message."""
    from inspector.core.scout.strategies.windows import WindowPlan

    stage = prompt.planner
    if not isinstance(stage, WindowPlan):
        return None  # a chain, another strategy, or the exact walk 1.2.6 takes where it raises
    model = WindowOutcome(stage.facts, target.index, lambda text: survives(target.spot, target.content, text))
    return model, stage.settings


def _epoch_model_walk(
    seen: Callable[[int], bool],
    settle: int | None,
    current: int,
    top: int,
    check: Callable[[int], bool],
    poll: Callable[[], None],
) -> Found | None:
    """_epoch_walk over every value (no span), read off the closed form, then checked on real plans:
    the fix works and the value before it does not, and the same at the end of its run. None when a
    check disagrees (the caller walks real plans instead). From ``settle`` up every value plans alike.
    """
    last = top if settle is None else min(settle, top)

    def run(values: range) -> tuple[int | None, int | None]:
        fix = None
        for n, value in enumerate(values):
            if not n & 255:
                poll()
            ok = seen(value)
            if fix is None and ok:
                fix = value
            elif fix is not None and not ok:
                return fix, value - values.step
            if value >= last and values.step > 0:
                break  # every value beyond plans as this one
        return fix, None

    found: Found = []
    if current < top:
        fix, holds = run(range(current + 1, top + 1))
        if fix is not None:
            if not check(fix) or (fix - 1 > current and check(fix - 1)):
                return None
            if holds is not None and (not check(holds) or check(holds + 1)):
                return None
            found.append((RAISE, fix, holds))
    start = min(current, top) - 1
    if start >= 0:
        fix, holds = run(range(start, -1, -1))
        if fix is not None:
            if not check(fix) or (fix + 1 <= start and check(fix + 1)):
                return None
            if holds is not None and (not check(holds) or check(holds - 1)):
                return None
            found.append((LOWER, fix, holds))
    return found


def _run(values: range, check: Callable[[int], bool]) -> tuple[int | None, int | None]:
    """First working value along ``values`` and the last of its run (None: it runs to the end)."""
    fix = None
    for value in values:
        ok = check(value)
        if fix is None and ok:
            fix = value
        elif fix is not None and not ok:
            return fix, value - values.step
    return fix, None


def find_fixes(
    inspection: Inspection,
    occurrence: Occurrence,
    replanner: Replanner | None = None,
    cancelled: Callable[[], bool] | None = None,
    context_window: int | None = None,
) -> FixReport:
    """Every single-threshold fix for one occurrence (an empty list, with the reason, when none exists).

    With shorten_tools alone: a few plans per threshold (the closed form, checked), a fraction of a
    second even for the oldest message of a 100,000-message chat; the epoch settings from their own
    closed form. Other strategy lists walk every distinct plan: up to (outputs + 2) plans per count key,
    EPOCH_SPAN values each way per epoch setting. Run it off the UI thread and pass
    ``cancelled`` to stop it (FixSearchCancelled). ``context_window`` (tokens) marks the fixes that
    would exceed it.
    """
    if cancelled is None:
        return _find_fixes(inspection, occurrence, replanner, cancelled, context_window)

    def stop() -> None:
        if cancelled():
            raise FixSearchCancelled

    with stops_when(stop):  # also deep inside a plan that takes long (a large window compacted)
        return _find_fixes(inspection, occurrence, replanner, cancelled, context_window)


def _find_fixes(
    inspection: Inspection,
    occurrence: Occurrence,
    replanner: Replanner | None,
    cancelled: Callable[[], bool] | None,
    context_window: int | None,
) -> FixReport:
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
    raising = _raising(rp) if rp.fast else []
    older_risk = rp.fast and p is not None and any(q > p for q in raising)
    limit = len(facts.order) if (p is None or older_risk) else p + 1
    partner = partner_of(facts, p) if p is not None else None
    partner_index = facts.order[partner] if partner is not None else None
    partner_row = RowNumbers.message_row(inspection.chat, partner_index) if partner_index is not None else None
    model = fix_model.OutcomeModel(facts, raising) if rp.fast else None
    count_keys, epoch_keys = searched_keys(rp.spec)
    report.keys = count_keys + epoch_keys

    def poll() -> None:
        pause_if_due()  # in the app's worker: let keys through
        if cancelled is not None and cancelled():
            raise FixSearchCancelled

    def shows(prompt: Prompt) -> bool:
        poll()
        return target.visible(prompt)

    def pair_sent(prompt: Prompt) -> bool:
        return (
            partner_index is not None
            and prompt.error is None
            and prompt.tier_of(partner_index) in (d.FULL, d.TRUNCATED)
        )

    def modelled(values: tuple[int, int, int, int, int], with_pair: bool) -> bool:
        assert model is not None
        if model.raises(values):
            return False
        if with_pair and partner is not None and model.state(partner, values) == fix_model.DROP:
            return False
        if p is None:
            return True
        state = model.state(p, values)
        if state == fix_model.CUT:
            return fix_model.shown_when_cut(facts, p, lambda text: survives(target.spot, target.content, text))
        return state == fix_model.KEEP

    def make(key: str, direction: str, value: int, holds: int | None) -> Fix:
        prompt = rp.at(key, value)
        chars = prompt_chars(prompt)
        tool = 0 if prompt.error is not None else prompt.totals().tool_chars_after
        return Fix(
            key,
            value,
            int(base.setting(key)),
            direction,
            chars,
            chars - current_chars,
            prompt.tier_of(target.index),
            holds,
            tool,
            partner_index,
            prompt.tier_of(partner_index) if partner_index is not None else None,
            context_window,
            target.index,
            partner_row,
        )

    windows = _window_outcome(inspection, rp, target, current_prompt) if epoch_keys else None
    for key in epoch_keys:
        current = int(base.setting(key))
        epoch_top = len(facts.order) + 1

        def check_epoch(value: int, key: str = key) -> bool:
            return shows(rp.at(key, value))

        epoch_found: Found | None = None
        epoch_notes: list[str] = []
        if windows is not None:
            outcome, settings = windows
            seen, settle = outcome.evaluator(_FIELDS[key], settings)
            epoch_found = _epoch_model_walk(seen, settle, current, epoch_top, check_epoch, poll)
        if epoch_found is None:
            epoch_found, epoch_notes = _epoch_walk(key, current, epoch_top, check_epoch)
        report.fixes.extend(make(key, direction, value, holds) for direction, value, holds in epoch_found)
        report.notes.extend(epoch_notes)
    for key in count_keys:
        current = base[key]
        if key == "max_tool_chars" and not rp.fast:
            report.notes.append("max_tool_chars not searched: exact search needs shorten_tools as the only strategy")
            continue
        floor = -1 if key in ("max_tool_calls", "max_tool_outputs") else 0  # every value below plans as this

        def check(value: int, key: str = key) -> bool:
            return shows(rp.at(key, value))

        def alone(value: int, key: str = key) -> bool:
            return modelled(rp.thresholds_for(key, value), False)

        def paired(value: int, key: str = key) -> bool:
            return modelled(rp.thresholds_for(key, value), True)

        found: Found | None = None
        if model is not None:
            positions = [p] if p is not None else []
            found = _closed_form(
                key,
                current,
                floor,
                alone,
                model.breakpoints(key, positions),
                check,
            )
        if found is None:
            settle = facts.outs[p] + 1 if rp.fast and p is not None and not older_risk else None
            found = _walk(rp, key, current, floor, top, limit, settle, check)
        report.fixes.extend(make(key, direction, value, holds) for direction, value, holds in found)
        if model is not None and partner is not None and p is not None:

            def check_pair(value: int, key: str = key) -> bool:
                prompt = rp.at(key, value)
                return shows(prompt) and pair_sent(prompt)

            pair = _closed_form(
                key,
                current,
                floor,
                paired,
                model.breakpoints(key, [p, partner]),
                check_pair,
            )
            if pair is None:
                report.notes.append(f"{key}: no pair-keeping fix checked")
            else:
                report.pair_fixes.extend(make(key, direction, value, holds) for direction, value, holds in pair)
    if not report.fixes:
        report.blocked = _why_blocked(occurrence, current_prompt, top, len(facts.order) + 1 if epoch_keys else None)
    return report


def _why_blocked(occurrence: Occurrence, prompt: Prompt, top: int, epoch_top: int | None = None) -> str:
    text = "no single threshold can" if epoch_top is None else "no single setting can"
    if occurrence.tier == d.TRUNCATED:
        return (
            f"{text}: every value of each threshold leaves this message truncated or dropped, and the cut "
            "always removes this occurrence (only more than one change at once could keep it whole)"
        )
    if prompt.error is not None:
        return f"{text}: scout-ai raises for every value tried ({prompt.error.why})"
    if epoch_top is not None:
        return f"{text}: tried each epoch setting from 0 to {epoch_top:,} (see the notes for any range capped)"
    return f"{text}: tried every distinct plan of each threshold (counts 0..{top}, every max_tool_chars interval)"


def fixes_for_trace(
    inspection: Inspection,
    result: Trace,
    replanner: Replanner | None = None,
    cancelled: Callable[[], bool] | None = None,
    context_window: int | None = None,
    limit: int | None = None,
) -> list[FixReport]:
    """A report per occurrence (visible ones get an empty report), sharing one plan cache. ``limit``: the
    fixes are searched for the newest ``limit`` hidden occurrences (the copies a model would use); the
    others' reports say they were not searched (a text found thousands of times re-plans per value)."""
    rp = replanner or Replanner(inspection)
    searched: set[int] | None = None
    if limit is not None:
        hidden = [k for k, o in enumerate(result.occurrences) if not o.visible and o.message is not None]
        newest = sorted(hidden, key=lambda k: (-result.occurrences[k].row, k))[:limit]
        searched = set(newest) if len(hidden) > limit else None
    reports = []
    for k, o in enumerate(result.occurrences):
        if searched is not None and k not in searched and not o.visible and o.message is not None:
            report = FixReport(o)
            report.blocked = f"fixes not searched: only the newest {limit:,} hidden occurrences are (--fixes-for)"
            reports.append(report)
            continue
        reports.append(find_fixes(inspection, o, rp, cancelled, context_window))
    return reports
