"""OpenHands' deterministic condensers (legacy ``openhands-ai`` 0.62, openhands/memory/condenser/impl/).

They count *events*: one per action or observation. A chat's events here: each system, user and plain
assistant message is one; each tool call is one action (an assistant message's text travels with its
first call, as OpenHands attaches a response's thought to its first action); each tool output is one
observation. Stateless condensers run on the whole view; ``amortized_forgetting`` is a rolling
condenser (what it forgot stays forgotten), replayed before every assistant message as the agent steps.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from inspector.core.peers.outcome import Outcome
from inspector.core.peers.wire import Item

MASKED = "<MASKED>"


@dataclass(frozen=True, slots=True)
class Event:
    position: int  # the input item it comes from
    call: int = -1  # the call's rank in that item (-1: the whole item)


def events_of(items: list[Item]) -> list[Event]:
    out: list[Event] = []
    for k, item in enumerate(items):
        if item.role == "assistant" and item.calls:
            out.extend(Event(k, r) for r in range(len(item.calls)))
        else:
            out.append(Event(k))
    return out


class EventFacts:
    """A chat's events (one per action or observation), kept per chat, and the masked observations made."""

    def __init__(self, items: list[Item]):
        self.events = events_of(items)
        self.masked: dict[int, Item] = {}


def _facts(items: list[Item], cache: Any) -> EventFacts:
    found = cache.get(items, EventFacts) if cache is not None else None
    if found is None:
        found = EventFacts(items)
        if cache is not None:
            cache.put(items, found)
    return found


def _emit(
    items: list[Item],
    view: list[Event],
    masked: set[int] | frozenset[int] = frozenset(),
    facts: EventFacts | None = None,
) -> list[Item]:
    """Items for a view of events: the calls of one assistant message regrouped (the original item when
    all of it is there), masked observations as a user message and their calls left out."""
    masked_ids = {items[k].call_id for k in masked}
    made = facts.masked if facts is not None else {}
    out: list[Item] = []
    n, size = 0, len(view)
    while n < size:
        event = view[n]
        item = items[event.position]
        if event.call < 0:
            if event.position in masked:
                shown = made.get(event.position)
                if shown is None:
                    shown = made[event.position] = Item("user", MASKED, item.origin, extra={"cleared": True})
                out.append(shown)
            else:
                out.append(item)
            n += 1
            continue
        run = n  # the events of this item's calls that follow one another in the view
        while run < size and view[run].position == event.position and view[run].call >= 0:
            run += 1
        ranks = [view[r].call for r in range(n, run)]
        n = run
        calls = [item.calls[r] for r in ranks if item.calls[r].id not in masked_ids]
        if not calls:
            continue
        if len(calls) == len(item.calls) and ranks[0] == 0 and ranks == sorted(ranks):
            out.append(item)
            continue
        first = ranks[0] == 0 and item.calls[0] in calls
        out.append(Item("assistant", item.content if first else None, item.origin if first else -1, tuple(calls)))
    return out


def recent_events(items: list[Item], s: dict[str, Any], cache: Any = None) -> Outcome:
    view = _facts(items, cache).events
    keep_first, max_events = s["keep_first"], s["max_events"]
    head = view[:keep_first]
    tail_length = max(0, max_events - len(head))
    tail = view[-tail_length:]  # a length of 0 is view[-0:]: the whole view
    kept = head + tail
    result = _emit(items, kept)
    summary = f"{len(view)} events: the first {len(head)} and the last {len(tail)} kept (max_events={max_events})"
    if len(head) + len(tail) > len(view):
        summary += "; the view is shorter than that, so the first events are sent twice"
    return _outcome(items, view, result, summary, f"within the first {keep_first} or the last {tail_length} events")


def observation_masking(items: list[Item], s: dict[str, Any], cache: Any = None) -> Outcome:
    facts = _facts(items, cache)
    view = facts.events
    window = s["attention_window"]
    limit = len(view) - window
    masked = {e.position for e in view[: max(0, limit)] if e.call < 0 and items[e.position].role == "tool"}
    result = _emit(items, view, masked, facts)
    outcome = _outcome(
        items, view, result, f"{len(masked)} observation(s) outside the last {window} events masked", "kept"
    )
    note = f"an observation older than the last {window} events (attention_window): sent as {MASKED!r}"
    for k in masked:
        outcome.notes[k] = note
        outcome.cleared.add(items[k].origin)
    masked_ids = {items[k].call_id for k in masked}
    for item in items:
        for call in item.calls:
            if call.id in masked_ids:
                outcome.by_origin[call.origin] = "its observation was masked, so the call is not sent"
    return outcome


def amortized_forgetting(items: list[Item], s: dict[str, Any], cache: Any = None) -> Outcome:
    max_size, keep_first = s["max_size"], s["keep_first"]
    events = _facts(items, cache).events
    forgotten = 0  # events forgotten, in all
    times = 0
    steps = [k for k, i in enumerate(items) if i.role == "assistant" and k > 0] + [len(items)]
    live: list[int] = []  # the view: indices of the events not forgotten, up to the step
    seen = 0
    for stop in steps:
        while seen < len(events) and events[seen].position < stop:
            live.append(seen)
            seen += 1
        while len(live) > max_size:
            target = max_size // 2
            head = live[:keep_first]
            tail = live[-(target - len(head)) :]
            keep = set(head + tail)
            ids = [n for n in live if n not in keep]
            if not ids:
                break
            low, high = min(ids), max(ids)  # forgotten: every event between, by id
            live = [n for n in live if not low <= n <= high]
            forgotten += len(ids)
            times += 1
    view = [events[n] for n in live]
    result = _emit(items, view)
    summary = (
        f"forgot {times} time(s): {forgotten} event(s) forgotten, {len(view)} in the view (max_size={max_size})"
        if times
        else f"{len(view)} events <= max_size {max_size}: nothing forgotten"
    )
    return _outcome(items, events, result, summary, "in the condensed view")


def _outcome(items: list[Item], view: list[Event], result: list[Item], summary: str, default: str) -> Outcome:
    sent = {id(i) for i in result}
    sent_calls = {c.origin for i in result for c in i.calls}
    notes = {}
    forgotten = "forgotten: outside the events the condenser keeps"
    for k, item in enumerate(items):
        if id(item) not in sent and not any(c.origin in sent_calls for c in item.calls):
            notes[k] = forgotten
    per = [len(item.calls) if item.role == "assistant" and item.calls else 1 for item in items]
    return Outcome(result, summary, default, notes, tokens=per, total=len(view), unit="events")
