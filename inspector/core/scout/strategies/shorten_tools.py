"""``Chat.shorten_tools`` as a planner: the prepared messages and a decision per message.

A plan reads only the integers in ToolFacts, so re-planning after a threshold change
is one pass; long stretches (all kept under the budget, all dropped past the max)
are filled with slice operations rather than walked.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from itertools import compress
from typing import Any, NamedTuple

from inspector.core.errors import ScoutError
from inspector.core.model import Message
from inspector.core.policies import decision as d
from inspector.core.policies.decision import ToolKind
from inspector.core.policies.planner import Planner, Sizes
from inspector.core.scout.roles import tool_kind
from inspector.core.scout.tool_facts import CALL, FAIL, NOTHING_TO_SHORTEN, OUTPUT, BandSums, ToolFacts, chars_of

KEEP, CUT, DROP, RAISE, UNREACHED = 0, 1, 2, 3, 4
_TIER = {KEEP: d.FULL, CUT: d.TRUNCATED, DROP: d.DROPPED, RAISE: d.ERROR, UNREACHED: d.UNDECIDED}


class ShortenToolsPlan:
    """The outcome of one shorten_tools pass over ``facts`` with the five thresholds."""

    __slots__ = (
        "chars_before",
        "counts",
        "error",
        "facts",
        "final_chars",
        "state",
        "thresholds",
        "tool_chars_after",
    )

    def __init__(self, facts: ToolFacts, thresholds: tuple[int, int, int, int, int]):
        self.facts = facts
        self.thresholds = thresholds
        full_calls, full_outputs, max_calls, max_outputs, budget = thresholds
        kinds, raw, outs = facts.kinds, facts.raw, facts.outs
        size = len(kinds)
        stop = facts.first_failure
        state = bytearray(size)  # KEEP everywhere to start with
        # Phase 1: while the tool characters are under the budget every message is kept.
        start = facts.keep_prefix_end(budget, stop)
        chars_before = facts.prefix[:start]
        chars = facts.prefix[start]
        kept_extra = 0  # middle-band messages kept whole because nothing was long enough
        error: ScoutError | None = None
        # Phase 3 starts where every message is past both full limits and both max limits.
        drop_from = bisect_right(outs, max(max_calls, max_outputs, full_calls - 1, full_outputs - 1))
        drop_from = min(max(drop_from, start), stop)
        p = start
        while p < size:
            if p == drop_from and p < stop:
                tail = stop - p
                chars_before.extend([chars] * tail)
                state[p:stop] = bytes([DROP]) * tail
                p = stop
                continue
            kind = kinds[p]
            chars_before.append(chars)
            if kind == FAIL:
                error = facts.failures[p]
                state[p] = RAISE
                break
            counted = outs[p]
            if kind == OUTPUT:
                full_limit, max_limit = full_outputs, max_outputs
            else:
                full_limit, max_limit = full_calls, max_calls
            if counted < full_limit or chars < budget:
                chars += raw[p]
            elif counted > max_limit:
                state[p] = DROP
            else:
                length = facts.shortened(p)
                if length == NOTHING_TO_SHORTEN:
                    if p in facts.band_errors:
                        error = facts.band_errors[p]
                        state[p] = RAISE
                        break
                    kept_extra += raw[p]
                else:
                    chars += length
                    state[p] = CUT
            p += 1
        if error is not None:
            rest = size - p - 1
            state[p + 1 :] = bytes([UNREACHED]) * rest
            chars_before.extend([chars] * rest)
        self.state = state
        self.chars_before = chars_before
        self.error = error
        self.final_chars = chars
        self.tool_chars_after = chars + kept_extra
        self.counts: dict[d.Tier, int] | None = None

    # -- per message ---------------------------------------------------------------------
    def position_of(self, index: int) -> int | None:
        return self.facts.position.get(index)

    def decision(self, index: int) -> d.Decision:
        facts = self.facts
        message = facts.messages[index]
        original = chars_of(message.fields.get("content"))
        p = facts.position.get(index)
        if p is None:
            kind = tool_kind(message.fields.get("role"))
            tool = kind is not ToolKind.NONE
            reached = self.error is None or index > self.error.index
            counters = self._counters_at(index)
            if not reached:
                return d.Decision(index, d.UNDECIDED, d.NOT_REACHED, *counters, original, 0, kind)
            return d.Decision(index, d.FULL, d.NO_CONTENT if tool else d.NOT_TOOL, *counters, original, original, kind)
        state = self.state[p]
        kind_code = facts.kinds[p]
        kind = tool_kind(message.fields.get("role"))  # a walked message is a call or an output
        counted = facts.outs[p]
        before = self.chars_before[p]
        if state == RAISE:
            return d.Decision(
                index,
                d.ERROR,
                d.SCOUT_ERROR,
                counted,
                before,
                original,
                0,
                kind,
                self.error.describe() if self.error else "",
            )
        if state == UNREACHED:
            return d.Decision(index, d.UNDECIDED, d.NOT_REACHED, counted, before, original, 0, kind)
        if state == DROP:
            return d.Decision(index, d.DROPPED, d.BEYOND_MAX, counted, before, original, 0, kind)
        if state == CUT:
            return d.Decision(index, d.TRUNCATED, d.MIDDLE, counted, before, original, facts.shortened(p), kind)
        full_calls, full_outputs, _, _, budget = self.thresholds
        full_limit = full_outputs if kind_code == OUTPUT else full_calls
        reason = d.RECENT if counted < full_limit else d.BUDGET if before < budget else d.NOTHING
        return d.Decision(index, d.FULL, reason, counted, before, original, original, kind)

    def _counters_at(self, index: int) -> tuple[int, int]:
        """Counters seen by a message outside the tool walk: those left by the next newer tool message."""
        order = self.facts.order
        lo, hi = 0, len(order)
        while lo < hi:  # order is newest first: count the positions newer than ``index``
            mid = (lo + hi) // 2
            if order[mid] > index:
                lo = mid + 1
            else:
                hi = mid
        if lo == 0:
            return 0, 0
        chars = self.chars_before[lo] if lo < len(self.chars_before) else self.final_chars
        return self.facts.outs[lo - 1], chars

    def decisions(self) -> list[d.Decision]:
        """Every message's decision as objects, in one pass over the plan's arrays."""
        facts = self.facts
        originals, kind_names, newer_tools = facts.message_columns()
        state, chars_before, outs, raw, short, kinds, order = (
            self.state,
            self.chars_before,
            facts.outs,
            facts.raw,
            facts.short,
            facts.kinds,
            facts.order,
        )
        full_calls, full_outputs, _, _, budget = self.thresholds
        new, D = tuple.__new__, d.Decision
        FULL, TRUNCATED, DROPPED, ERROR, UNDECIDED = d.FULL, d.TRUNCATED, d.DROPPED, d.ERROR, d.UNDECIDED
        RECENT, BUDGET, NOTHING = d.RECENT, d.BUDGET, d.NOTHING
        detail = self.error.describe() if self.error is not None else ""
        out: list[Any] = [None] * facts.count
        after = []  # tool characters left behind by each tool position, for the messages around it
        for p, index in enumerate(order):
            code, counted, before, original = state[p], outs[p], chars_before[p], originals[index]
            if code == KEEP:
                limit = full_outputs if kinds[p] == OUTPUT else full_calls
                if counted < limit:
                    out[index] = new(
                        D, (index, FULL, RECENT, counted, before, original, original, kind_names[index], "")
                    )
                    after.append(before + raw[p])
                elif before < budget:
                    out[index] = new(
                        D, (index, FULL, BUDGET, counted, before, original, original, kind_names[index], "")
                    )
                    after.append(before + raw[p])
                else:
                    out[index] = new(
                        D, (index, FULL, NOTHING, counted, before, original, original, kind_names[index], "")
                    )
                    after.append(before)
            elif code == CUT:
                out[index] = new(
                    D, (index, TRUNCATED, d.MIDDLE, counted, before, original, short[p], kind_names[index], "")
                )
                after.append(before + short[p])
            elif code == DROP:
                out[index] = new(D, (index, DROPPED, d.BEYOND_MAX, counted, before, original, 0, kind_names[index], ""))
                after.append(before)
            elif code == RAISE:
                out[index] = new(
                    D, (index, ERROR, d.SCOUT_ERROR, counted, before, original, 0, kind_names[index], detail)
                )
                after.append(before)
            else:
                out[index] = new(
                    D, (index, UNDECIDED, d.NOT_REACHED, counted, before, original, 0, kind_names[index], "")
                )
                after.append(before)
        failed_at = self.error.index if self.error is not None else -1
        for index, p in newer_tools:  # messages outside the walk: the counters left by the newer tool messages
            counted, chars = (outs[p - 1], after[p - 1]) if p else (0, 0)
            original, kind = originals[index], kind_names[index]
            if index < failed_at:
                out[index] = new(D, (index, UNDECIDED, d.NOT_REACHED, counted, chars, original, 0, kind, ""))
            else:
                reason = d.NO_CONTENT if kind else d.NOT_TOOL
                out[index] = new(D, (index, FULL, reason, counted, chars, original, original, kind, ""))
        return out

    def decision_columns(self) -> d.DecisionColumns:
        """``decisions()`` as columns: the same values, without an object per message (`explain` on a
        million messages). Walks the tool positions newest first; the messages between two of them
        (outside the walk) see the counters the newer one left."""
        facts = self.facts
        messages, n = facts.messages, facts.count
        order, kinds, outs, raw, short = facts.order, facts.kinds, facts.outs, facts.raw, facts.short
        state, chars_before = self.state, self.chars_before
        full_calls, full_outputs, _, _, budget = self.thresholds
        code = d.TIER_CODE
        full, truncated, dropped, error, undecided = (
            code[d.FULL],
            code[d.TRUNCATED],
            code[d.DROPPED],
            code[d.ERROR],
            code[d.UNDECIDED],
        )
        why = d.REASON_CODE
        recent, under, nothing, middle, beyond = (
            why[d.RECENT],
            why[d.BUDGET],
            why[d.NOTHING],
            why[d.MIDDLE],
            why[d.BEYOND_MAX],
        )
        not_tool, no_content, not_reached, scout_error = (
            why[d.NOT_TOOL],
            why[d.NO_CONTENT],
            why[d.NOT_REACHED],
            why[d.SCOUT_ERROR],
        )
        tiers, reasons = bytearray([full]) * n, bytearray([recent]) * n  # until set otherwise
        zeros = bytes(8 * n)
        counted_col, before_col = array("q", zeros), array("q", zeros)
        original_col, visible_col = array("q", zeros), array("q", zeros)
        kind_col = [ToolKind.NONE] * n
        details: dict[int, str] = {}
        failed_at = self.error.index if self.error is not None else -1
        CALL_KIND, OUTPUT_KIND = ToolKind.CALL, ToolKind.OUTPUT

        def outside(start: int, stop: int, counted: int, chars: int) -> None:
            for i in range(start, stop):
                fields = messages[i].fields
                content = fields.get("content")
                original = len(content) if type(content) is str else 0
                kind = tool_kind(fields.get("role"))
                kind_col[i] = kind
                counted_col[i], before_col[i], original_col[i] = counted, chars, original
                if i < failed_at:
                    tiers[i], reasons[i] = undecided, not_reached
                else:
                    reasons[i] = no_content if kind else not_tool
                    visible_col[i] = original

        newer, counted, chars = n, 0, 0  # the last tool message walked, the counters it left
        for p, index in enumerate(order):
            if newer - index > 1:
                outside(index + 1, newer, counted, chars)
            newer = index
            counted, before, original = outs[p], chars_before[p], raw[p]
            counted_col[index], before_col[index], original_col[index] = counted, before, original
            kind_code = kinds[p]
            kind_col[index] = (
                OUTPUT_KIND
                if kind_code == OUTPUT
                else CALL_KIND
                if kind_code != FAIL
                else tool_kind(messages[index].fields.get("role"))
            )
            s = state[p]
            if s == KEEP:
                visible_col[index] = original
                if counted < (full_outputs if kind_code == OUTPUT else full_calls):
                    chars = before + original  # tier FULL, reason RECENT: already there
                elif before < budget:
                    reasons[index] = under
                    chars = before + original
                else:
                    reasons[index] = nothing
                    chars = before
            elif s == CUT:
                tiers[index], reasons[index] = truncated, middle
                length = short[p]
                assert length is not None  # a cut message's shortened length is known
                visible_col[index] = length
                chars = before + length
            else:
                if s == DROP:
                    tiers[index], reasons[index] = dropped, beyond
                elif s == RAISE:
                    tiers[index], reasons[index] = error, scout_error
                    details[index] = self.error.describe() if self.error is not None else ""
                else:
                    tiers[index], reasons[index] = undecided, not_reached
                chars = before
        if newer > 0:
            outside(0, newer, counted, chars)
        details = {i: text for i, text in details.items() if text}
        return d.DecisionColumns(tiers, reasons, counted_col, before_col, original_col, visible_col, kind_col, details)

    def tier_of(self, index: int) -> d.Tier:
        p = self.facts.position.get(index)
        if p is None:
            if self.error is not None and index < self.error.index:
                return d.UNDECIDED
            return d.FULL
        return _TIER[self.state[p]]

    def tier_counts(self) -> dict[d.Tier, int]:
        """Messages per tier (non-tool messages count as full)."""
        if self.counts is None:
            states = self.state
            counts = {
                d.FULL: self.facts.count - len(states) + states.count(KEEP),
                d.TRUNCATED: states.count(CUT),
                d.DROPPED: states.count(DROP),
                d.ERROR: states.count(RAISE),
                d.UNDECIDED: states.count(UNREACHED),
            }
            if self.error is not None:
                # messages outside the walk that are older than the failure were never reached
                skipped = sum(1 for i in range(self.error.index) if i not in self.facts.position)
                counts[d.FULL] -= skipped
                counts[d.UNDECIDED] += skipped
            self.counts = counts
        return self.counts

    def visible_content(self, index: int) -> Any:
        """The content the model sees for message ``index`` (None when dropped)."""
        p = self.facts.position.get(index)
        message = self.facts.messages[index]
        if p is None:
            return message.fields.get("content")
        state = self.state[p]
        if state == CUT:
            return self.facts.short_text[p]
        if state == KEEP:
            return message.fields.get("content")
        return None

    def messages(self) -> list[Message]:
        """The prepared messages, oldest first (empty when scout-ai raises)."""
        if self.error is not None:
            return []
        facts = self.facts
        state, order = self.state, facts.order
        # every message as it was, then the cut ones replaced and the dropped ones left out: passes in C over
        # the tool positions' states (a prompt of 20,000 messages is written after this)
        out = list(facts.messages)
        for p in compress(range(len(state)), map(CUT.__eq__, state)):
            out[order[p]] = out[order[p]].with_content(facts.short_text[p])
        if DROP in state:
            keep = bytearray(b"\x01") * len(out)
            for index in compress(order, map(DROP.__eq__, state)):
                keep[index] = 0
            out = list(compress(out, keep))
        return out

    def origins(self) -> list[int]:
        """For each prepared message, the index of the message it came from."""
        return [i for i in range(self.facts.count) if self.tier_of(i) in (d.FULL, d.TRUNCATED)]

    def inserted(self) -> list[tuple[int, Message]]:
        return []  # shorten_tools only keeps, cuts and drops

    def sizes(self, chars_before: int | None = None) -> Sizes:
        facts = self.facts
        tool_before = facts.tool_chars()
        nontool = facts.nontool_chars() if chars_before is None else chars_before - tool_before
        if self.error is not None:
            return nontool + tool_before, tool_before, 0, 0, 0
        counts = self.tier_counts()
        sent = counts[d.FULL] + counts[d.TRUNCATED]
        return nontool + tool_before, tool_before, nontool + self.tool_chars_after, self.tool_chars_after, sent

    def changed_from(self, other: Planner) -> list[int] | None:
        """Over the same facts, only the tool messages whose state differs can differ."""
        if not isinstance(other, ShortenToolsPlan) or other.facts is not self.facts:
            return None
        if self.error is not None or other.error is not None:
            return None
        mine, theirs, order = self.state, other.state, self.facts.order
        return sorted(order[p] for p in range(len(mine)) if mine[p] != theirs[p])


class PrefixCounts(NamedTuple):
    """What a plan of a chat's first messages sends, in numbers (``prefix_counts``)."""

    counts: dict[d.Tier, int]
    visible: int  # messages sent (0 when scout-ai raises)
    chars_after: int  # characters sent (0 when scout-ai raises)
    error: ScoutError | None


def _raises_between(raising: list[int], start: int, stop: int) -> bool:
    at = bisect_left(raising, start)
    return at < len(raising) and raising[at] < stop


def prefix_counts(
    facts: ToolFacts, count: int, thresholds: tuple[int, int, int, int, int], closed: bool = True
) -> PrefixCounts:
    """Tier counts, messages and characters sent by ``ShortenToolsPlan(facts.prefix_facts(messages[:count]))``
    without cutting the facts: the same walk, read in ``facts``' own positions with the counters re-based.

    A table over every call of a 20,000-message chat plans thousands of prefixes; cutting each one's facts
    costs more than its plan. ``closed``: the band read off the facts' running sums (``band_sums``), unless a
    message there raises (then, and with ``closed=False``, it is walked). Tests compare both with the full
    plan on generated chats and the samples.
    """
    return prefix_counts_grid(facts, count, [thresholds], closed)[0]


def prefix_counts_grid(
    facts: ToolFacts, count: int, grid: list[tuple[int, int, int, int, int]], closed: bool = True
) -> list[PrefixCounts]:
    """``prefix_counts`` under each thresholds of ``grid``: what does not depend on them is read once (a
    corpus scores every call of a chat under each setting of its grid)."""
    kinds, outs = facts.kinds, facts.outs
    size = len(kinds)
    o = facts.newer_than(count)  # the prefix's tool positions are o..size-1 here, 0..size-o-1 in its own facts
    base_out = outs[o - 1] if o else 0
    stop = min((p for p in facts.failures if p >= o), default=size) if facts.failures else size
    band = facts.band_sums() if closed else None
    chars_sums, tool_from = facts.char_sums()
    nontool = chars_sums[count] - tool_from[o]
    return [_prefix_counts(facts, count, t, o, base_out, stop, band, nontool) for t in grid]


def _prefix_counts(
    facts: ToolFacts,
    count: int,
    thresholds: tuple[int, int, int, int, int],
    o: int,
    base_out: int,
    stop: int,
    band: BandSums | None,
    nontool: int,
) -> PrefixCounts:
    full_calls, full_outputs, max_calls, max_outputs, budget = thresholds
    kinds, raw, outs, prefix = facts.kinds, facts.raw, facts.outs, facts.prefix
    size = len(kinds)
    walked = size - o
    base_chars = prefix[o]
    start = min(bisect_left(prefix, budget + base_chars, o, stop + 1), stop)
    chars = prefix[start] - base_chars
    kept_extra = cut = drop = raised = unreached = 0
    error: ScoutError | None = None
    limit = max(max_calls, max_outputs, full_calls - 1, full_outputs - 1)
    drop_from = min(max(bisect_right(outs, limit + base_out, o), start), stop)
    if band is not None and not _raises_between(band.raising, start, drop_from):
        # the walk in closed form: per kind, counted (monotone along p) splits the band between the budget and
        # drop_from into kept whole, shortened and dropped, read off running sums
        for kind, full, most in ((OUTPUT, full_outputs, max_outputs), (CALL, full_calls, max_calls)):
            a = bisect_left(outs, full + base_out, start, drop_from)
            b = max(a, bisect_right(outs, most + base_out, start, drop_from))
            chars += band.raw[kind][a] - band.raw[kind][start] + band.short[kind][b] - band.short[kind][a]
            cut += band.cuts[kind][b] - band.cuts[kind][a]
            kept_extra += band.extra[kind][b] - band.extra[kind][a]
            drop += band.tools[kind][drop_from] - band.tools[kind][b]
        drop += stop - drop_from
        p = stop
        if p < size:
            error = facts.failures[p]
            raised += 1
    else:
        p = start
    while p < size and error is None:
        if p == drop_from and p < stop:
            drop += stop - p
            p = stop
            continue
        kind = kinds[p]
        if kind == FAIL:
            error = facts.failures[p]
            raised += 1
            break
        counted = outs[p] - base_out
        if kind == OUTPUT:
            full_limit, max_limit = full_outputs, max_outputs
        else:
            full_limit, max_limit = full_calls, max_calls
        if counted < full_limit or chars < budget:
            chars += raw[p]
        elif counted > max_limit:
            drop += 1
        else:
            length = facts.shortened(p)
            if length == NOTHING_TO_SHORTEN:
                if p in facts.band_errors:
                    error = facts.band_errors[p]
                    raised += 1
                    break
                kept_extra += raw[p]
            else:
                chars += length
                cut += 1
        p += 1
    if error is not None:
        unreached = size - p - 1
    counts = {
        d.FULL: count - walked + (walked - cut - drop - raised - unreached),
        d.TRUNCATED: cut,
        d.DROPPED: drop,
        d.ERROR: raised,
        d.UNDECIDED: unreached,
    }
    if error is not None:
        # nothing is sent: every message but the one scout-ai raises on is undecided (as Prompt reports it)
        return PrefixCounts(d.discarded_counts(counts), 0, 0, error)
    return PrefixCounts(counts, counts[d.FULL] + cut, nontool + chars + kept_extra, None)


class PrefixSent(NamedTuple):
    """What a plan of a chat's first messages sends, in characters, and where its walk's stretches start in the
    whole chat's tool positions (``PrefixSentGrid``).

    Where it does not raise, a message's tier follows from these by comparisons (``tier_in_sent``): the walk
    keeps everything before ``start``, drops everything from ``drop_from`` on, and in between only a message's
    own counter (``outs[p] - base_out``) and its shortened length decide.
    """

    chars_after: int  # characters sent (0 when scout-ai raises)
    error: ScoutError | None
    start: int  # the first position at or past the budget
    drop_from: int  # the first position past every limit, whatever its kind
    base_out: int  # the outputs newer than the prefix, which its counters leave out


class PrefixSentGrid:
    """``prefix_counts_grid``'s characters and error, and the walk's stretches, of one chat's facts under one
    grid, at any count.

    A corpus asks it at every call of every chat under every setting, so no tier counts are built and the
    middle band is read off ``band_sent`` (shortened plus kept-whole characters, one running sum per kind),
    unless a message there raises (then the walk decides, as in ``prefix_counts``). What the counters decide
    is found once per call for the settings that share their four counts (a grid over max_tool_chars: all),
    as bisections over the whole ``outs``, clamped to each setting's stretch (``outs`` is sorted, so a
    bisection between bounds is the whole one clamped to them). A setting whose budget the prefix's tool
    characters do not pass keeps everything, whatever its counts: one result, shared.
    """

    __slots__ = ("band", "chars", "facts", "grid", "groups", "sent", "tool_from")

    def __init__(self, facts: ToolFacts, grid: list[tuple[int, int, int, int, int]]):
        self.facts, self.grid = facts, grid
        groups: dict[tuple[int, int, int, int], list[tuple[int, int]]] = {}
        for k, (full_calls, full_outputs, max_calls, max_outputs, budget) in enumerate(grid):
            groups.setdefault((full_calls, full_outputs, max_calls, max_outputs), []).append((k, budget))
        self.groups = list(groups.items())
        self.chars, self.tool_from = facts.char_sums()
        self.band: BandSums | None = None  # shortening every tool message: only once a budget is passed
        self.sent: list[list[int]] = []

    def at(self, count: int) -> list[PrefixSent]:
        kept, passed = self.passed(count)
        out = [kept] * len(self.grid)
        for k, sent in passed:
            out[k] = sent
        return out

    def passed(self, count: int) -> tuple[PrefixSent, list[tuple[int, PrefixSent]]]:
        """``at(count)`` as what a setting whose budget is not passed sends (everything kept, whatever its
        counts), and the settings whose budget is passed, with theirs (a corpus adds the first to every
        setting once and only reads the others)."""
        facts = self.facts
        outs, prefix, failures = facts.outs, facts.prefix, facts.failures
        size = len(outs)
        o = facts.newer_than(count)
        base_out = outs[o - 1] if o else 0
        stop = min((p for p in failures if p >= o), default=size) if failures else size
        failure = failures[stop] if stop < size else None
        nontool = self.chars[count] - self.tool_from[o]
        base_chars = prefix[o]
        new = tuple.__new__
        if failure is not None:
            kept = new(PrefixSent, (0, failure, stop, stop, base_out))
        else:
            kept = new(PrefixSent, (nontool + prefix[stop] - base_chars, None, stop, stop, base_out))
        out: list[tuple[int, PrefixSent]] = []
        if stop == o:
            return kept, out
        room = prefix[stop - 1] - base_chars  # a budget over it is reached at stop, if at all: all kept
        for (full_calls, full_outputs, max_calls, max_outputs), members in self.groups:
            found = False
            for k, budget in members:
                if budget > room:
                    continue
                if not found:
                    found = True
                    band = self.band
                    if band is None:
                        band = self.band = facts.band_sums()
                        self.sent = facts.band_sent()
                    (raw_calls, raw_outputs), (sent_calls, sent_outputs), raising = band.raw, self.sent, band.raising
                    limit = max(max_calls, max_outputs, full_calls - 1, full_outputs - 1)
                    dropped = bisect_right(outs, limit + base_out, o)
                    recent_outputs = bisect_left(outs, full_outputs + base_out)
                    kept_outputs = bisect_right(outs, max_outputs + base_out)
                    recent_calls = bisect_left(outs, full_calls + base_out)
                    kept_calls = bisect_right(outs, max_calls + base_out)
                start = bisect_left(prefix, budget + base_chars, o, stop)
                drop_from = dropped if dropped > start else start
                if drop_from > stop:
                    drop_from = stop
                if raising and _raises_between(raising, start, drop_from):
                    walked = _prefix_counts(facts, count, self.grid[k], o, base_out, stop, band, nontool)
                    out.append((k, new(PrefixSent, (walked.chars_after, walked.error, start, drop_from, base_out))))
                    continue
                if failure is not None:
                    out.append((k, new(PrefixSent, (0, failure, start, drop_from, base_out))))
                    continue
                # _prefix_counts' closed form, characters only: per kind, kept whole before a, cut or kept
                # for want of anything to shorten from a to b, dropped from b
                a = start if recent_outputs < start else drop_from if recent_outputs > drop_from else recent_outputs
                b = start if kept_outputs < start else drop_from if kept_outputs > drop_from else kept_outputs
                b = a if b < a else b
                chars = (
                    prefix[start] - base_chars + raw_outputs[a] - raw_outputs[start] + sent_outputs[b] - sent_outputs[a]
                )
                a = start if recent_calls < start else drop_from if recent_calls > drop_from else recent_calls
                b = start if kept_calls < start else drop_from if kept_calls > drop_from else kept_calls
                b = a if b < a else b
                chars += raw_calls[a] - raw_calls[start] + sent_calls[b] - sent_calls[a]
                out.append((k, new(PrefixSent, (nontool + chars, None, start, drop_from, base_out))))
        return kept, out


def tier_in_sent(facts: ToolFacts, index: int, sent: PrefixSent, thresholds: tuple[int, int, int, int, int]) -> str:
    """``timeline.tier_in_prefix`` of message ``index`` in the prefix ``sent`` describes, which must not raise:
    then no failure is left in the prefix (the walk would reach it), and no message in the middle band raises."""
    p = facts.position.get(index)
    if p is None or p < sent.start:
        return d.FULL
    if p >= sent.drop_from:
        return d.DROPPED
    full_calls, full_outputs, max_calls, max_outputs, _ = thresholds
    counted = facts.outs[p] - sent.base_out
    if facts.kinds[p] == OUTPUT:
        full_limit, max_limit = full_outputs, max_outputs
    else:
        full_limit, max_limit = full_calls, max_calls
    if counted < full_limit:
        return d.FULL
    if counted > max_limit:
        return d.DROPPED
    return d.FULL if facts.shortened(p) == NOTHING_TO_SHORTEN else d.TRUNCATED
