"""Another framework's policy as a planner: the messages it sends, and a decision per original message.

The policy runs on the chat's Chat Completions items (``wire.Conversation``) when first asked; the way
back gives the stored messages sent, each with the original index it stands for, and each original
message's tier follows: not sent (dropped), sent as the policy's placeholder (cleared), sent as it was
(full) or with part of its text (truncated).
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Callable, Iterator, Mapping
from itertools import chain, compress, repeat
from operator import attrgetter, is_, itemgetter
from typing import Any, cast

from inspector.core.errors import ScoutError
from inspector.core.model import Message
from inspector.core.peers.outcome import Outcome, PolicyRaises
from inspector.core.peers.registry import PolicySettings
from inspector.core.peers.wire import Conversation, Item
from inspector.core.policies import decision as d
from inspector.core.policies.planner import PlannerBase, Sizes


class PeerPlan(PlannerBase):
    """The plan of one policy with one set of settings on one chat (computed on first use)."""

    def __init__(self, conversation: Conversation, settings: PolicySettings, cache: Any = None):
        self.conversation = conversation
        self.settings = settings
        self._cache = cache
        self._outcome: Outcome | None = None
        self._error: ScoutError | None = None
        self._sent: list[tuple[int, Message]] | None = None
        self._decisions: list[d.Decision] | None = None
        self._columns: d.DecisionColumns | None = None
        self._visible: dict[int, Any] | None = None
        self._extras = (0, 0)  # characters and messages sent beyond the chat's messages (set with the columns)

    # -- running it ------------------------------------------------------------------------
    @property
    def error(self) -> ScoutError | None:
        self._run()
        return self._error

    @error.setter
    def error(self, value: ScoutError | None) -> None:
        self._error = value

    @property
    def spec_label(self) -> str:
        return self.settings.label()

    def outcome(self) -> Outcome | None:
        """What the library did (None when it raised)."""
        self._run()
        return self._outcome

    def _run(self) -> None:
        if self._outcome is not None or self._error is not None:
            return
        spec = self.settings.spec
        try:
            self._outcome = spec.run(list(self.conversation.items), self.settings.as_dict(), self._cache)
        except PolicyRaises as exc:
            self._error = ScoutError(-1, None, None, None, exc.exception, exc.why, raiser=spec.library)
            self._sent = []

    def wire_items(self) -> list[Item]:
        """What is sent, in the Chat Completions shape (``prepare --format openai``)."""
        outcome = self.outcome()
        if outcome is None:
            return []
        empty = self.settings.spec.empty_content
        if empty is None:
            return list(outcome.items)
        return [i.with_content(empty) if i.role == "assistant" and i.content is None else i for i in outcome.items]

    # -- the planner interface ----------------------------------------------------------------
    def _stored(self) -> list[tuple[int, Message]]:
        """The stored messages sent, each with its original index: built when first asked (the app's list
        reads the decision columns; prepare, explain and why read these)."""
        self._run()
        if self._sent is None:
            assert self._outcome is not None
            self._sent = self.conversation.stored(self._outcome.items)
        return self._sent

    def messages(self) -> list[Message]:
        return [m for _, m in self._stored()]

    def origins(self) -> list[int]:
        return [o for o, _ in self._stored()]

    def decisions(self) -> list[d.Decision]:
        if self._decisions is None:
            columns = self.decision_columns()
            self._decisions = [columns.decision(i) for i in range(len(columns))]
        return self._decisions

    def decision(self, index: int) -> d.Decision:
        return self.decision_columns().decision(index)

    def tier_of(self, index: int) -> d.Tier:
        return d.TIERS[self.decision_columns().tiers[index]]

    def visible_content(self, index: int) -> Any:
        if self._visible is None:
            found: dict[int, Any] = {}
            for origin, message in self._stored():
                if origin >= 0:
                    found.setdefault(origin, message.fields.get("content"))
            self._visible = found
        return self._visible.get(index)

    def tier_counts(self) -> dict[d.Tier, int]:
        tiers = self.decision_columns().tiers
        counts = {t: 0 for t in (d.FULL, d.TRUNCATED, d.DROPPED, d.CLEARED, d.ERROR, d.UNDECIDED)}
        for tier in d.TIERS:
            n = tiers.count(d.TIER_CODE[tier])
            if n or tier in counts:
                counts[tier] = n
        return counts

    def sizes(self, chars_before: int | None = None) -> Sizes:
        facts = self.conversation.facts()
        before = chars_before if chars_before is not None else facts.total
        outcome = self.outcome()
        if outcome is None:
            return before, facts.tool_total, 0, 0, 0
        columns = self.decision_columns()
        visible, tiers = columns.visible, columns.tiers
        items = outcome.items
        if len(set(items)) == len(items):  # each message sent once (items hash by identity): the columns' sums
            extra_chars, extra_sent = self._extras
            after = sum(visible) + extra_chars
            tool_after = sum(compress(visible, facts.kinds))
            sent = len(tiers) - tiers.count(d.TIER_CODE[d.DROPPED]) + extra_sent
            return before, facts.tool_total, after, tool_after, sent
        after = tool_after = sent = 0  # a message sent twice (OpenHands' recent events on a short view)
        for item in items:
            for origin in _origins(item):
                n = visible[origin]
                after += n
                sent += 1
                if facts.kinds[origin]:
                    tool_after += n
            if item.inserted or (item.origin < 0 and item.role == "assistant" and item.content not in (None, "", [])):
                after += len(item.text())
                sent += 1
        return before, facts.tool_total, after, tool_after, sent

    # -- the decisions, as columns ---------------------------------------------------------------
    def decision_columns(self) -> d.DecisionColumns:
        if self._columns is None:
            self._columns = self._decide()
        return self._columns

    def _decide(self) -> d.DecisionColumns:
        self._run()
        facts = self.conversation.facts()
        size = len(self.conversation.messages)
        outcome = self._outcome
        code, reason = d.TIER_CODE, d.REASON_CODE
        if outcome is None:
            error = self._error
            why = f"{error.raiser} raises {error.exception}: {error.why}" if error is not None else ""
            return d.DecisionColumns(
                bytearray([code[d.UNDECIDED]]) * size,
                bytearray([reason[d.Reason.POLICY_RAISED]]) * size,
                array("q", [d.NO_COUNT]) * size,
                array("q", [d.NO_COUNT]) * size,
                array("q", facts.chars),
                array("q", [0]) * size,
                list(facts.kinds),
                _Details(size, lambda i: why),
            )
        # Each item's writes are looked up (made once per chat), then written in the items' order (the last one
        # per message stays). A write is one int (tier, reason, visible characters): each column is then bytes
        # of their array, taken in C.
        items, cleared = outcome.items, outcome.cleared
        memo = self._memo()
        if cleared:  # each item looked up in the records of its flag, in one pass
            flags = map(cleared.__contains__, map(_ORIGIN, items))
            known = list(map(dict.get, map(memo.by_flag.__getitem__, flags), items))
        else:
            known = list(map(memo.plain.get, items))
        if None in known:
            for n in compress(range(len(known)), map(is_, known, repeat(None))):
                item = items[n]
                in_cleared = bool(cleared) and item.origin in cleared
                known[n] = memo.add(item, in_cleared, self._record(item, in_cleared))
        records = cast(list[_Record], known)
        writes = list(chain.from_iterable(map(_WRITES, records)))
        if len(writes) == size and list(map(_WRITTEN_AT, writes)) == list(range(size)):
            packed = array("q", map(_WRITTEN, writes))  # one write per message, in order (most plans): in C
        else:
            packed = array("q", [_packed(code[d.DROPPED], reason[d.Reason.POLICY_DROPPED], 0)]) * size
            for origin, write in writes:
                packed[origin] = write
        self._extras = divmod(sum(map(_EXTRA, records)), _EXTRA_UNIT)
        unit, who, default = outcome.unit, self.settings.spec.who, outcome.default
        notes, by_origin, tokens = outcome.notes, outcome.by_origin, outcome.tokens
        position, first = facts.position, facts.first

        def detail(i: int) -> str:
            at = position[i]
            note = by_origin.get(i) or notes.get(at, default)
            if tokens is None or at < 0 or at >= len(tokens) or not first[i]:
                return note
            count = tokens[at]
            return f"{note} ({count:,} {unit[:-1] if count == 1 and unit.endswith('s') else unit} as {who} counts it)"

        raw = bytearray(packed.tobytes())
        tiers, reasons = raw[_TIER_BYTE::8], raw[_REASON_BYTE::8]
        raw[_TIER_BYTE::8] = raw[_REASON_BYTE::8] = bytes(size)
        visible = array("q")
        visible.frombytes(raw)
        return d.DecisionColumns(
            tiers,
            reasons,
            array("q", [d.NO_COUNT]) * size,
            array("q", [d.NO_COUNT]) * size,
            memo.chars(facts.chars),
            visible,
            list(facts.kinds),
            _Details(size, detail),
        )

    def _memo(self) -> _Records:
        """The items' records, kept per chat when the plan has the chat's cache (a sweep looks each up)."""
        items = self.conversation.items
        found = self._cache.get(items, _Records) if self._cache is not None else None
        if found is None:
            found = _Records(len(items))
            if self._cache is not None:
                self._cache.put(items, found)
        return found

    def _record(self, item: Item, in_cleared: bool) -> _Record:
        """What one sent item decides (its messages' tiers, reasons and visible characters, in the order
        written), and what it adds to the sizes beyond its messages (text no message holds)."""
        conv = self.conversation
        code, reason, chars = d.TIER_CODE, d.REASON_CODE, conv.facts().chars
        writes: list[_Write]
        mine = conv.owners().get(id(item))
        if mine is not None:  # the chat's own item, sent as it was
            full, kept = code[d.FULL], reason[d.Reason.POLICY_KEPT]
            writes = [(origin, (full, kept, chars[origin])) for origin in mine]
        elif item.role == "tool" and in_cleared:  # the common change: a placeholder
            writes = [(item.origin, (code[d.CLEARED], reason[d.Reason.POLICY_CLEARED], conv.output_chars(item)))]
        else:
            writes = self._changed(item, in_cleared)
        extra = item.inserted or (item.origin < 0 and item.role == "assistant" and item.content not in (None, "", []))
        packed = tuple((origin, _packed(*write)) for origin, write in writes)
        return packed, len(item.text()) * _EXTRA_UNIT + 1 if extra else 0

    def _changed(self, item: Item, in_cleared: bool) -> list[_Write]:
        """The tiers of what a changed item stands for: its text and each of its calls."""
        code, reason, conv = d.TIER_CODE, d.REASON_CODE, self.conversation
        writes: list[_Write] = []
        origin = item.origin
        if origin >= 0 and not item.inserted:
            original = conv.original_item(origin)
            if in_cleared:
                shown = conv.output_chars(item) if item.role == "tool" else len(item.text())
                writes.append((origin, (code[d.CLEARED], reason[d.Reason.POLICY_CLEARED], shown)))
            elif original is not None and item.content is original.content and item.role == original.role:
                writes.append((origin, (code[d.FULL], reason[d.Reason.POLICY_KEPT], conv.facts().chars[origin])))
            else:
                shown = conv.output_chars(item) if item.role == "tool" else len(item.text())
                before = conv.messages[origin].fields.get("content")
                keeps = isinstance(before, str) and before != "" and item.text().startswith(before)
                if keeps and item.role == original_role(conv, origin):
                    writes.append((origin, (code[d.FULL], reason[d.Reason.POLICY_KEPT], shown)))
                else:
                    writes.append((origin, (code[d.TRUNCATED], reason[d.Reason.POLICY_CHANGED], shown)))
        for call in item.calls:
            at = call.origin
            if at < 0:
                continue
            if conv.is_original_call(call):
                writes.append((at, (code[d.FULL], reason[d.Reason.POLICY_KEPT], conv.facts().chars[at])))
            else:
                shown = len(str(conv.call_message(call).fields.get("content")))
                writes.append((at, (code[d.TRUNCATED], reason[d.Reason.POLICY_CHANGED], shown)))
        return writes


_Write = tuple[int, tuple[int, int, int]]  # original index, (tier code, reason code, visible characters)
# an item's writes (original index, ``_packed``), and the characters and messages it adds to the sizes as
# characters * _EXTRA_UNIT + messages (a sum of them is one pass)
_Record = tuple[tuple[tuple[int, int], ...], int]
_EXTRA_UNIT = 1 << 32
_ORIGIN = attrgetter("origin")
_WRITES, _EXTRA = itemgetter(0), itemgetter(1)
_WRITTEN_AT, _WRITTEN = itemgetter(0), itemgetter(1)  # of one write: the message, the packed int
# where the tier and the reason codes sit in the bytes of an array of ``_packed`` values
_TIER_BYTE, _REASON_BYTE = (7, 6) if sys.byteorder == "little" else (0, 1)


def _packed(tier: int, reason: int, visible: int) -> int:
    """A write as one int: the visible characters in the low 6 bytes, the reason and the tier codes above."""
    if not 0 <= visible < 1 << 48:
        raise ValueError(f"{visible} visible characters do not fit a column's write")
    return visible | reason << 48 | tier << 56


class _Records:
    """Each sent item's record, by the item (items hash by identity) and whether the plan cleared its text;
    items made afresh by every plan (not kept by the policy) would pile up, so past a few times the chat's
    items they are all let go. And the chat's characters per message, as a column."""

    def __init__(self, size: int):
        self.limit = 4 * size + 64
        self.plain: dict[Item, _Record] = {}
        self.flagged: dict[Item, _Record] = {}
        self.by_flag = (self.plain, self.flagged)
        self._chars: array[int] | None = None

    def add(self, item: Item, in_cleared: bool, record: _Record) -> _Record:
        if len(self.plain) + len(self.flagged) >= self.limit:
            self.plain.clear()
            self.flagged.clear()
        self.by_flag[in_cleared][item] = record
        return record

    def chars(self, chars: list[int]) -> array[int]:
        """A copy of the chat's characters column (copied, not converted, after the first plan)."""
        if self._chars is None or len(self._chars) != len(chars):
            self._chars = array("q", chars)
        return self._chars[:]


def original_role(conv: Conversation, origin: int) -> Any:
    return conv.messages[origin].fields.get("role")


def _origins(item: Item) -> list[int]:
    """The original messages an item stands for: its text's, then each call's."""
    out = [item.origin] if item.origin >= 0 and not item.inserted else []
    out.extend(c.origin for c in item.calls if c.origin >= 0)
    return out


class _Details(Mapping[int, str]):
    """Every row's detail, written when read (a re-plan of 20,000 rows writes none)."""

    def __init__(self, size: int, make: Callable[[int], str]):
        self.size, self.make = size, make

    def __getitem__(self, index: int) -> str:
        if not 0 <= index < self.size:
            raise KeyError(index)
        return self.make(index)

    def __contains__(self, index: object) -> bool:
        return isinstance(index, int) and 0 <= index < self.size

    def __iter__(self) -> Iterator[int]:
        return iter(range(self.size))

    def __len__(self) -> int:
        return self.size
