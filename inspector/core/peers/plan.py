"""Another framework's policy as a planner: the messages it sends, and a decision per original message.

The policy runs on the chat's Chat Completions items (``wire.Conversation``) when first asked; the way
back gives the stored messages sent, each with the original index it stands for, and each original
message's tier follows: not sent (dropped), sent as the policy's placeholder (cleared), sent as it was
(full) or with part of its text (truncated).
"""

from __future__ import annotations

from typing import Any

from inspector.core.errors import ScoutError
from inspector.core.model import Message
from inspector.core.peers.outcome import Outcome, PolicyRaises
from inspector.core.peers.registry import PolicySettings
from inspector.core.peers.wire import Conversation, Item, text_of
from inspector.core.policies import decision as d
from inspector.core.policies.planner import PlannerBase, Sizes
from inspector.core.scout.roles import tool_kind
from inspector.core.scout.tool_facts import chars_of


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
        if self._sent is not None:
            return
        spec = self.settings.spec
        try:
            self._outcome = spec.run(list(self.conversation.items), self.settings.as_dict(), self._cache)
        except PolicyRaises as exc:
            self._error = ScoutError(-1, None, None, None, exc.exception, exc.why, raiser=spec.library)
            self._sent = []
            return
        self._sent = self.conversation.stored(self._outcome.items)

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
    def messages(self) -> list[Message]:
        self._run()
        assert self._sent is not None
        return [m for _, m in self._sent]

    def origins(self) -> list[int]:
        self._run()
        assert self._sent is not None
        return [o for o, _ in self._sent]

    def decisions(self) -> list[d.Decision]:
        if self._decisions is None:
            self._decisions = self._decide()
        return self._decisions

    def decision(self, index: int) -> d.Decision:
        return self.decisions()[index]

    def tier_of(self, index: int) -> d.Tier:
        return self.decisions()[index].tier

    def visible_content(self, index: int) -> Any:
        self._run()
        assert self._sent is not None
        for origin, message in self._sent:
            if origin == index:
                return message.fields.get("content")
        return None

    def tier_counts(self) -> dict[d.Tier, int]:
        counts = {t: 0 for t in (d.FULL, d.TRUNCATED, d.DROPPED, d.CLEARED, d.ERROR, d.UNDECIDED)}
        for decision in self.decisions():
            counts[decision.tier] = counts.get(decision.tier, 0) + 1
        return counts

    def sizes(self, chars_before: int | None = None) -> Sizes:
        original = self.conversation.messages
        before = chars_before if chars_before is not None else sum(chars_of(m.fields.get("content")) for m in original)
        tool_before = sum(chars_of(m.fields.get("content")) for m in original if tool_kind(m.fields.get("role")))
        sent = self.messages()
        after = sum(chars_of(m.fields.get("content")) for m in sent)
        tool_after = sum(chars_of(m.fields.get("content")) for m in sent if tool_kind(m.fields.get("role")))
        return before, tool_before, after, tool_after, len(sent)

    # -- the decisions -------------------------------------------------------------------------
    def _decide(self) -> list[d.Decision]:
        self._run()
        original = self.conversation.messages
        outcome = self._outcome
        if outcome is None:
            error = self._error
            why = f"{error.raiser} raises {error.exception}: {error.why}" if error is not None else ""
            return [
                d.Decision(
                    i, d.UNDECIDED, d.Reason.POLICY_RAISED, None, None, n, 0, tool_kind(m.fields.get("role")), why
                )
                for i, m in enumerate(original)
                for n in (chars_of(m.fields.get("content")),)
            ]
        assert self._sent is not None
        sent: dict[int, Message] = {}
        for origin, message in self._sent:
            if origin >= 0:
                sent.setdefault(origin, message)
        notes, tokens = self._per_original(outcome)
        out = []
        for i, message in enumerate(original):
            kind = tool_kind(message.fields.get("role"))
            n = chars_of(message.fields.get("content"))
            shown = sent.get(i)
            if shown is None:
                tier, reason, visible = d.DROPPED, d.Reason.POLICY_DROPPED, 0
            elif i in outcome.cleared:
                tier, reason, visible = d.CLEARED, d.Reason.POLICY_CLEARED, 0
            elif shown is message or _keeps_text(message, shown):
                tier, reason, visible = d.FULL, d.Reason.POLICY_KEPT, n
            else:
                tier, reason, visible = d.TRUNCATED, d.Reason.POLICY_CHANGED, chars_of(shown.fields.get("content"))
            note = notes.get(i, outcome.default)
            counted = tokens.get(i)
            if counted is not None:
                note = f"{note} ({counted:,} {outcome.unit} as {self.settings.spec.who} counts it)"
            out.append(d.Decision(i, tier, reason, None, None, n, visible, kind, note))
        return out

    def _per_original(self, outcome: Outcome) -> tuple[dict[int, str], dict[int, int]]:
        """The rule and the library's count for each original message (from its item's position)."""
        notes: dict[int, str] = {}
        counts: dict[int, int] = {}
        for position, item in enumerate(self.conversation.items):
            owners = ([item.origin] if item.origin >= 0 else []) + [c.origin for c in item.calls]
            note = outcome.notes.get(position)
            for k, origin in enumerate(owners):
                if note is not None:
                    notes[origin] = note
                if outcome.tokens is not None and k == 0 and position < len(outcome.tokens):
                    counts[origin] = outcome.tokens[position]
        notes.update(outcome.by_origin)
        return notes, counts


def _keeps_text(original: Message, shown: Message) -> bool:
    """Sent with all of its text and something added (Inspect's note after a removed call)."""
    if shown.fields.get("role") != original.fields.get("role"):
        return False
    before, after = original.fields.get("content"), shown.fields.get("content")
    if not isinstance(before, str) or not isinstance(after, str) or before == "":
        return False
    return after.startswith(before) and after != before


def text(item: Item) -> str:
    return text_of(item.content)
