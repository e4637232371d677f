"""What changed from one model call to the next: the messages whose tier is not what it was."""

from __future__ import annotations

from dataclasses import dataclass

from inspector.core.calls.history import ChatHistory
from inspector.core.calls.timeline import CallSettings
from inspector.core.policies import decision as d


@dataclass(frozen=True, slots=True)
class TierChange:
    """A message whose tier at a call differs from its tier at the call before."""

    index: int  # in the chat at the call
    before: str  # its tier at the call before
    after: str
    decision: d.Decision  # at the call: the rule that fired, with its counters


def changes_since_previous(history: ChatHistory, number: int, settings: CallSettings | None = None) -> list[TierChange]:
    """The messages of the chat before call ``number`` whose tier differs from the call before (the
    messages both chats hold, by identity; a chat re-read at each call compares by content)."""
    if number <= 1:
        return []
    settings = settings or CallSettings()
    now, then = history.at(number), history.at(number - 1)
    now_prompt = now.prompt(settings.thresholds, settings.strategies)
    then_prompt = then.prompt(settings.thresholds, settings.strategies)
    out = []
    for k, (a, b) in enumerate(zip(then.chat.messages, now.chat.messages)):
        if a is not b and a.fields != b.fields:
            break  # pre-processing took something back: the rest is not the same message
        before, after = then_prompt.tier_of(k), now_prompt.tier_of(k)
        if before != after:
            out.append(TierChange(k, before, after, now_prompt.decision(k)))
    return out
