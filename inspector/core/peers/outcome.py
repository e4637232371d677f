"""What a policy run gives back: the items sent and, for each item it was given, the rule that decided it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from inspector.core.peers.wire import Item

Facts = TypeVar("Facts")


def chat_facts(items: list[Item], make: Callable[[list[Item]], Facts], cache: Any) -> Facts:
    """What a policy reads of a chat whatever its settings, made once per chat when the plan has the chat's
    cache (``registry.Counts``; None: made for this run only)."""
    found = cache.get(items, make) if cache is not None else None
    if found is None:
        found = make(items)
        if cache is not None:
            cache.put(items, found)
    return found


class PolicyRaises(Exception):
    """The library itself raises on this chat with these settings (its run ends; nothing is sent)."""

    def __init__(self, exception: str, why: str, position: int = -1):
        super().__init__(f"{exception}: {why}")
        self.exception = exception
        self.why = why
        self.position = position  # the input item it raised on (-1: the run as a whole)


@dataclass(slots=True)
class Outcome:
    items: list[Item]  # what is sent, in order
    summary: str  # one line in the library's own terms: what fired, or why nothing did
    default: str  # the rule for an input item without a note (kept)
    notes: dict[int, str] = field(default_factory=dict)  # input item position -> the rule that decided it
    cleared: set[int] = field(default_factory=set)  # original indices whose text a placeholder replaced
    by_origin: dict[int, str] = field(default_factory=dict)  # original index -> rule (a call inside a message)
    tokens: list[int] | None = None  # per input item, as the library counts it (None: it counts none)
    total: int | None = None  # the library's count of the whole input, compared with its trigger
    unit: str = "tokens"  # what ``tokens``/``total`` count (OpenHands counts events, OpenAI characters)
