"""Another framework's policy as a planner: the messages it sends, and a decision per original message.

The policy runs on the chat's Chat Completions items (``wire.Conversation``) when first asked; the way
back gives the stored messages sent, each with the original index it stands for, and each original
message's tier follows: not sent (dropped), sent as the policy's placeholder (cleared), sent as it was
(full) or with part of its text (truncated).
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterator, Mapping
from itertools import compress
from typing import Any

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
        if len({id(i) for i in items}) == len(items):  # each message sent once: the sums of the columns
            after = sum(visible)
            tool_after = sum(compress(visible, facts.kinds))
            sent = len(tiers) - tiers.count(d.TIER_CODE[d.DROPPED])
            for item in items:
                if item.inserted or (
                    item.origin < 0 and item.role == "assistant" and item.content not in (None, "", [])
                ):
                    after += len(item.text())
                    sent += 1
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
        tiers = bytearray([code[d.DROPPED]]) * size
        reasons = bytearray([reason[d.Reason.POLICY_DROPPED]]) * size
        visible = array("q", [0]) * size
        chars, conv, cleared = facts.chars, self.conversation, outcome.cleared
        full, kept = code[d.FULL], reason[d.Reason.POLICY_KEPT]
        owners = conv.owners()
        clear_tier, clear_reason = code[d.CLEARED], reason[d.Reason.POLICY_CLEARED]
        for item in outcome.items:
            mine = owners.get(id(item))
            if mine is not None:  # the chat's own item, sent as it was
                for origin in mine:
                    tiers[origin], reasons[origin], visible[origin] = full, kept, chars[origin]
            elif item.role == "tool" and item.origin in cleared:  # the common change: a placeholder
                origin = item.origin
                tiers[origin], reasons[origin], visible[origin] = clear_tier, clear_reason, conv.output_chars(item)
            else:
                self._changed(item, tiers, reasons, visible, cleared)
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

        return d.DecisionColumns(
            tiers,
            reasons,
            array("q", [d.NO_COUNT]) * size,
            array("q", [d.NO_COUNT]) * size,
            array("q", chars),
            visible,
            list(facts.kinds),
            _Details(size, detail),
        )

    def _changed(
        self, item: Item, tiers: bytearray, reasons: bytearray, visible: array[int], cleared: set[int]
    ) -> None:
        """The tiers of what a changed item stands for: its text and each of its calls."""
        code, reason, conv = d.TIER_CODE, d.REASON_CODE, self.conversation
        origin = item.origin
        if origin >= 0 and not item.inserted:
            original = conv.original_item(origin)
            if origin in cleared:
                tiers[origin], reasons[origin] = code[d.CLEARED], reason[d.Reason.POLICY_CLEARED]
                visible[origin] = conv.output_chars(item) if item.role == "tool" else len(item.text())
            elif original is not None and item.content is original.content and item.role == original.role:
                tiers[origin], reasons[origin] = code[d.FULL], reason[d.Reason.POLICY_KEPT]
                visible[origin] = conv.facts().chars[origin]
            else:
                shown = conv.output_chars(item) if item.role == "tool" else len(item.text())
                before = conv.messages[origin].fields.get("content")
                keeps = isinstance(before, str) and before != "" and item.text().startswith(before)
                tiers[origin] = (
                    code[d.FULL] if keeps and item.role == original_role(conv, origin) else code[d.TRUNCATED]
                )
                reasons[origin] = reason[
                    d.Reason.POLICY_KEPT if tiers[origin] == code[d.FULL] else d.Reason.POLICY_CHANGED
                ]
                visible[origin] = shown
        for call in item.calls:
            at = call.origin
            if at < 0:
                continue
            if conv.is_original_call(call):
                tiers[at], reasons[at], visible[at] = code[d.FULL], reason[d.Reason.POLICY_KEPT], conv.facts().chars[at]
            else:
                tiers[at], reasons[at] = code[d.TRUNCATED], reason[d.Reason.POLICY_CHANGED]
                visible[at] = len(str(conv.call_message(call).fields.get("content")))


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
