"""One message, or one text, over every model call: when it was sent full, cut, or not at all.

A message exists from the first call after it was written. At each call its tier is what that call's
plan decided. For a plain chat under shorten_tools alone (the cut chats are prefixes of the whole one,
with the same thresholds) the tier at a call is computed straight from the whole chat's tool facts,
re-based to the cut: the walk only has to cover the band between the budget and the max limits.
Anything else asks the history for each call's inspection.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from weakref import WeakKeyDictionary

from inspector.core.analysis.trace import Occurrence, trace
from inspector.core.analysis.visibility import survives
from inspector.core.calls.history import ChatHistory
from inspector.core.model import Message
from inspector.core.policies import decision as d
from inspector.core.scout.settings import Thresholds
from inspector.core.scout.strategies import parse_spec
from inspector.core.scout.tool_facts import FAIL, NOTHING_TO_SHORTEN, OUTPUT, ToolFacts
from inspector.core.yielding import pause_if_due


@dataclass(frozen=True, slots=True)
class CallSettings:
    """What every call is planned under; a field left None is each call's own (its chat's config lines,
    its chat's choice of strategies), as scout-ai ran it. The app passes its edits here."""

    thresholds: Thresholds | None = None
    strategies: str | None = None

    def key(self) -> tuple[object, ...]:
        """The values it stands for: two settings plan alike when their keys are equal."""
        return (self.thresholds.key() if self.thresholds is not None else None, self.strategies)


@dataclass(frozen=True, slots=True)
class Span:
    """Consecutive calls with one outcome."""

    first: int
    last: int
    tier: str
    visible: bool  # the text (or, for a message timeline, the message) was in what the model was sent

    def as_dict(self) -> dict[str, object]:
        return {"from": self.first, "to": self.last, "tier": self.tier, "visible": self.visible}


@dataclass(slots=True)
class Timeline:
    """Per call (1-based, from ``first``) the message's tier and whether the text was sent, kept as runs of
    calls with one outcome: a message seen at 20,000 calls is a few runs, not 20,000 entries (a timeline of
    every occurrence of a frequent text was quadratic in memory). ``tiers`` and ``visible`` give the lists."""

    index: int  # the message in the whole chat
    first: int | None  # the first call that could send it (None: it was written after the last call)
    runs: list[list[Any]] = field(default_factory=list)  # [count, tier, visible], oldest first

    def add(self, tier: str, visible: bool, count: int = 1) -> None:
        if count <= 0:
            return
        last = self.runs[-1] if self.runs else None
        if last is not None and last[1] == tier and last[2] == visible:
            last[0] += count
        else:
            self.runs.append([count, tier, visible])

    def __len__(self) -> int:
        return sum(run[0] for run in self.runs)

    @property
    def tiers(self) -> list[str]:
        return [tier for count, tier, _ in self.runs for _ in range(count)]

    @property
    def visible(self) -> list[bool]:
        return [seen for count, _, seen in self.runs for _ in range(count)]

    @property
    def last_seen(self) -> int | None:
        """The last call whose prompt held it (None: never)."""
        if self.first is None:
            return None
        number, found = self.first, None
        for count, _, seen in self.runs:
            if seen:
                found = number + count - 1
            number += count
        return found

    @property
    def hidden_from(self) -> int | None:
        """The call from which on it is never sent again (None: still sent at the last call)."""
        if self.first is None or not self.runs:
            return None
        seen = self.last_seen
        if seen is None:
            return self.first
        return None if seen == self.first + len(self) - 1 else seen + 1

    def at(self, number: int) -> tuple[str, bool] | None:
        if self.first is None or number < self.first:
            return None
        k = number - self.first
        for count, tier, seen in self.runs:
            if k < count:
                return tier, seen
            k -= count
        raise IndexError(number)

    def spans(self) -> list[Span]:
        out: list[Span] = []
        if self.first is None:
            return out
        number = self.first
        for count, tier, seen in self.runs:
            out.append(Span(number, number + count - 1, tier, seen))
            number += count
        return out


def message_tiers(
    history: ChatHistory,
    index: int,
    cancelled: Callable[[], bool] | None = None,
    settings: CallSettings | None = None,
) -> Timeline:
    """The tier of message ``index`` of the whole chat at every call that could send it, under
    ``settings`` (None: each call under its own chat's, as scout-ai ran it).

    An old message of a large chat is decided at tens of thousands of calls (a few hundred ms): the
    loop pauses now and then for the app's keys, and stops when ``cancelled()`` says so (the line is
    then incomplete: the caller drops it).
    """
    return _message_walk(history, index, cancelled, settings, None)[0]


def _message_walk(
    history: ChatHistory,
    index: int,
    cancelled: Callable[[], bool] | None,
    settings: CallSettings | None,
    cut: dict[int, Any] | None,
) -> tuple[Timeline, ToolFacts | None]:
    """``message_tiers``; with ``cut`` a dict, the text sent at each call that truncated the message is put
    in it (by call number) where the plans differ call by call; the facts returned (not None) give the one
    shortened text of the other calls (plain shorten_tools: the same at every call)."""
    first = history.first_call_after(index)
    line = Timeline(index, first)
    if first is None:
        return line, None
    settings = settings or CallSettings()
    walker = _fast_walker(history, settings)
    fast, facts = walker if walker is not None else (None, None)
    if fast is not None and facts is not None and _monotone(history, facts):
        _search_transitions(line, first, len(history), lambda number: fast(number, index)[0])
        return line, facts
    for number in range(first, len(history) + 1):
        if not number & 255:
            pause_if_due()
            if cancelled is not None and cancelled():
                return line, facts
        if fast is not None:
            tier, raises = fast(number, index)
        else:
            tier, raises, shown = _decide_slow(history, number, index, settings)
            if cut is not None and tier == d.TRUNCATED:
                cut[number] = shown
        # a call at which scout-ai raises sends nothing at all, whatever the message's own tier (as `why` says)
        line.add(tier, tier in (d.FULL, d.TRUNCATED) and not raises)
    return line, facts


RANK: dict[str, int] = {d.FULL: 0, d.TRUNCATED: 1, d.DROPPED: 2}


def _monotone(history: ChatHistory, facts: ToolFacts) -> bool:
    """Whether, call after call, every message only goes full -> truncated -> dropped: nothing in the chat
    can raise (no tool message that fails to parse, none whose shortening may raise) and every call's chat is
    the whole chat's first messages. Then a message's tiers are three runs, found by bisection."""
    if facts.failures or facts.risky():
        return False
    known = _PREFIX_CALLS.get(history)
    if known is None:
        known = _PREFIX_CALLS[history] = all(history.response_index(n) is not None for n in range(1, len(history) + 1))
    return known


_PREFIX_CALLS: WeakKeyDictionary[ChatHistory, bool] = WeakKeyDictionary()


def _search_transitions(line: Timeline, first: int, last: int, tier_at: Callable[[int], str]) -> None:
    """Fill ``line`` from ``first`` to ``last`` with the tiers of a message whose rank never goes down: the
    first call at each rank is found by bisection (a few plans instead of one per call)."""

    def first_at(rank: int, lo: int) -> int:
        hi = last + 1
        while lo < hi:
            mid = (lo + hi) // 2
            if RANK[tier_at(mid)] >= rank:
                hi = mid
            else:
                lo = mid + 1
        return lo

    cut = first_at(1, first)
    dropped = first_at(2, cut)
    line.add(d.FULL, True, cut - first)
    line.add(d.TRUNCATED, True, dropped - cut)
    line.add(d.DROPPED, False, last + 1 - dropped)


def text_timelines(
    history: ChatHistory,
    text: str,
    *,
    regex: bool = False,
    ignore_case: bool = False,
    settings: CallSettings | None = None,
    limit: int | None = None,
) -> tuple[list[Occurrence], list[Timeline]]:
    """Every occurrence of ``text`` in the whole chat's messages (the first ``limit``), and per occurrence
    whether each call was sent it."""
    occurrences = _in_messages(history, text, regex, ignore_case)[:limit]
    walks: dict[int, Walk] = {}  # a message holding the text many times is walked over the calls once
    return occurrences, [occurrence_timeline(history, o, settings, walks) for o in occurrences]


def occurrences_in_messages(history: ChatHistory, text: str, *, regex: bool = False, ignore_case: bool = False) -> int:
    return len(_in_messages(history, text, regex, ignore_case))


def _in_messages(history: ChatHistory, text: str, regex: bool, ignore_case: bool) -> list[Occurrence]:
    key = (text, regex, ignore_case)
    found = _TRACED.get(history)
    if found is None or found[0] != key:
        result = trace(history.whole, text, regex=regex, ignore_case=ignore_case)
        found = _TRACED[history] = (key, [o for o in result.occurrences if o.message is not None])
    return found[1]


_TRACED: WeakKeyDictionary[ChatHistory, tuple[tuple[str, bool, bool], list[Occurrence]]] = WeakKeyDictionary()


Walk = tuple[Timeline, ToolFacts | None, dict[int, Any]]  # a message's tiers, its facts, the cut texts sent


def occurrence_timeline(
    history: ChatHistory,
    occurrence: Occurrence,
    settings: CallSettings | None = None,
    walks: dict[int, Walk] | None = None,
) -> Timeline:
    """Per call, whether the model was sent this occurrence (a truncated message may have lost it).

    Each truncated call is tested against the text that call really sent: under plain shorten_tools that
    is one shortened text at every call, but the epoch strategies cut differently (a content that is not a
    string, a window's own size), so there each call's own plan is read. ``walks``: the messages walked
    already (by index), for the other occurrences in the same message, under the same settings.
    """
    whole = history.whole
    index = occurrence.message
    if index is None:  # consumed before the strategies: no call was ever sent it
        return Timeline(-1, None)
    walked = walks.get(index) if walks is not None else None
    if walked is None:
        sent_cut: dict[int, Any] = {}
        line, facts = _message_walk(history, index, None, settings, sent_cut)
        walked = (line, facts, sent_cut)
        if walks is not None:
            walks[index] = walked
    line, facts, sent_cut = walked
    content = whole.chat.messages[index].fields.get("content")
    tested: dict[str, bool] = {}  # the same cut text keeps the occurrence or not at every call
    if line.first is None or not any(tier == d.TRUNCATED and seen for _, tier, seen in line.runs):
        return line

    def keeps(shown: Any) -> bool:
        if not isinstance(shown, str):
            return survives(occurrence.spot, content, shown)
        found = tested.get(shown)
        if found is None:
            found = tested[shown] = survives(occurrence.spot, content, shown)
        return found

    out = Timeline(line.index, line.first)
    number = line.first
    for count, tier, seen in line.runs:
        if tier != d.TRUNCATED or not seen:
            out.add(tier, seen, count)
        elif not any(n in sent_cut for n in range(number, number + count)):
            out.add(tier, keeps(_shortened(facts, index)), count)  # one shortened text at every call of the run
        else:
            for n in range(number, number + count):
                out.add(tier, keeps(sent_cut[n] if n in sent_cut else _shortened(facts, index)))
        number += count
    return out


def _shortened(facts: ToolFacts | None, index: int) -> str | None:
    if facts is None:
        return None
    p = facts.position.get(index)
    return facts.shortened_text(p) if p is not None else None


def index_at(history: ChatHistory, number: int, index: int) -> int | None:
    """Where message ``index`` of the whole chat is in the chat at call ``number`` (None: not there)."""
    inspection = history.at(number)
    target = history.whole.chat.messages[index]
    messages = inspection.chat.messages
    if index < len(messages) and (messages[index] is target or messages[index].fields is target.fields):
        return index
    return next((k for k, m in enumerate(messages) if m is target or _same(m, target)), None)


def tiers_before_calls(
    history: ChatHistory, settings: CallSettings | None = None
) -> Callable[[int, int], d.Tier | None]:
    """For the audit: (message, index) -> the tier of message ``index`` of the whole chat in the prompt of the
    call whose response holds message ``message``, planned as that call was (its own chat's config lines,
    unless ``settings`` says otherwise); None when scout-ai raises there or no call holds it. Under plain
    shorten_tools the tier is read from the whole chat's tool facts (``tier_in_prefix``), without a plan."""
    settings = settings or CallSettings()
    numbers = call_numbers(history)
    walker = _fast_walker(history, settings)

    def tier(start: int, index: int) -> d.Tier | None:
        number = numbers.get(start)
        if number is None:
            return None
        if walker is not None:
            found, raises = walker[0](number, index)
            return None if raises else d.Tier(found)
        prompt = history.at(number).prompt(settings.thresholds, settings.strategies)
        at = index_at(history, number, index)
        if prompt.error is not None or at is None:
            return None
        return prompt.tier_of(at)

    return tier


def call_numbers(history: ChatHistory) -> dict[int, int]:
    """Each message of the whole chat that belongs to a call's response -> that call's number."""
    out: dict[int, int] = {}
    for call in history.calls:
        for index in history.response_indices(call.number):
            out[index] = call.number
    return out


def decision_at(history: ChatHistory, number: int, index: int) -> d.Decision | None:
    """The decision for message ``index`` of the whole chat at call ``number``."""
    at = index_at(history, number, index)
    return None if at is None else history.at(number).prompt().decision(at)


def _decide_slow(history: ChatHistory, number: int, index: int, settings: CallSettings) -> tuple[str, bool, Any]:
    """The message's tier at the call, whether scout-ai raises there (then nothing is sent), and the content
    the call sends for it."""
    at = index_at(history, number, index)
    if at is None:
        return d.CONSUMED, False, None
    prompt = history.at(number).prompt(settings.thresholds, settings.strategies)
    raises = prompt.error is not None
    return prompt.tier_of(at), raises, None if raises else prompt.visible_content(at)


def _same(a: Message, b: Message) -> bool:
    return a.line == b.line and a.source == b.source and a.line is not None and a.fields == b.fields


def _fast_walker(
    history: ChatHistory, settings: CallSettings
) -> tuple[Callable[[int, int], tuple[str, bool]], ToolFacts] | None:
    """A function (call, index) -> (tier, scout-ai raises at the call) when every cut chat is a prefix under
    the same plain shorten_tools, and the tool facts it reads."""
    whole = history.whole
    if whole.setup.policy is not None:
        return None  # another framework's policy plans every call itself
    spec = settings.strategies if settings.strategies is not None else whole.strategy_spec
    version = whole.version_for(spec)
    if parse_spec(spec, version.default, validate=False) != ["shorten_tools"]:
        return None  # the list as this version reads it (None: its default, not the seed's)
    if whole.chat.format == "scout" and not history.plain:
        return None
    facts = whole.facts_for(version)
    values = (settings.thresholds or whole.thresholds).as_tuple()

    def tier(number: int, index: int) -> tuple[str, bool]:
        count = history.response_index(number)
        if count is None:
            found, raises, _ = _decide_slow(history, number, index, settings)
            return found, raises
        found = tier_in_prefix(facts, count, index, values)
        return found, found in (d.ERROR, d.UNDECIDED)  # undecided: only where scout-ai raises

    return tier, facts


def _may_raise(facts: ToolFacts, s: int) -> bool:
    """Whether a tool message from whole position ``s`` on fails to parse or may raise when shortened."""
    risky = facts.risky()
    return any(p >= s for p in facts.failures) or bool(risky and risky[-1] >= s)


def tier_in_prefix(facts: ToolFacts, count: int, index: int, thresholds: tuple[int, int, int, int, int]) -> str:
    """The tier shorten_tools gives message ``index`` in the chat of the first ``count`` messages.

    The same walk as ShortenToolsPlan over ``facts.prefix_facts``, on the whole list's arrays with the
    counters re-based, stopped at the message's position.
    """
    s = facts.newer_than(count)
    q = facts.position.get(index)
    if _may_raise(facts, s):
        # where scout-ai raises nothing is sent: every message but the one it raises on is undecided
        failed = _walk(facts, s, None, thresholds)
        if isinstance(failed, int):
            return d.ERROR if q == failed else d.UNDECIDED
    if q is None:
        return d.FULL  # outside the walk, and nothing raises
    tier = _walk(facts, s, q, thresholds)
    return tier if isinstance(tier, str) else d.FULL


def _walk(facts: ToolFacts, s: int, q: int | None, thresholds: tuple[int, int, int, int, int]) -> str | int | None:
    """The tier at whole position ``q`` in the cut chat whose tool positions start at ``s``; with ``q``
    None, the whole position where scout-ai raises (None when it does not)."""
    stop_whole = min((p for p in facts.failures if p >= s), default=len(facts.order))
    stop = stop_whole - s
    qq = q - s if q is not None else None
    full_calls, full_outputs, max_calls, max_outputs, budget = thresholds
    base_outs = facts.outs[s - 1] if s else 0
    start = min(bisect_left(facts.prefix, budget + facts.prefix[s], s, s + stop + 1) - s, stop)
    if qq is not None and qq < start:
        return d.FULL
    limit = max(max_calls, max_outputs, full_calls - 1, full_outputs - 1)
    drop_from = bisect_right(facts.outs, limit + base_outs, s, len(facts.outs)) - s
    drop_from = min(max(drop_from, start), stop)
    # from ``start`` on the tool characters are at or over the budget and only grow, so (as in the plan)
    # only the counters decide, and a message in the middle band matters to later ones only if it raises
    p = start
    size = len(facts.order) - s
    if qq is not None and qq < stop:
        risky = facts.risky()
        at = bisect_left(risky, s + start)
        if at == len(risky) or risky[at] >= s + qq:
            p = qq  # nothing between the budget and the message can stop the walk: decide it alone
    kinds, outs = facts.kinds, facts.outs
    while p < size:
        if p >= drop_from and p < stop:
            if qq is not None and qq < stop:
                return d.DROPPED
            p = stop
            continue
        kind = kinds[s + p]
        if kind == FAIL:
            if qq is None:
                return s + p
            return d.ERROR if qq == p else d.UNDECIDED
        counted = outs[s + p] - base_outs
        if kind == OUTPUT:
            full_limit, max_limit = full_outputs, max_outputs
        else:
            full_limit, max_limit = full_calls, max_calls
        if counted < full_limit:
            state = d.FULL
        elif counted > max_limit:
            state = d.DROPPED
        elif p != qq and facts.band_raises(s + p) is False:
            state = d.FULL  # not the message asked about, and it cannot stop the walk
        else:
            length = facts.shortened(s + p)
            if length == NOTHING_TO_SHORTEN:
                if (s + p) in facts.band_errors:
                    if qq is None:
                        return s + p
                    return d.ERROR if qq == p else d.UNDECIDED
                state = d.FULL
            else:
                state = d.TRUNCATED
        if p == qq:
            return state
        p += 1
    return None
