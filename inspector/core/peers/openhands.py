"""OpenHands' deterministic condensers (legacy ``openhands-ai`` 0.62, openhands/memory/condenser/impl/).

They count *events*: one per action or observation. A chat's events here: each system, user and plain
assistant message is one; each tool call is one action (an assistant message's text travels with its
first call, as OpenHands attaches a response's thought to its first action); each tool output is one
observation. Stateless condensers run on the whole view; ``amortized_forgetting`` is a rolling
condenser (what it forgot stays forgotten), replayed before every assistant message as the agent steps.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
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


def _emit(items: list[Item], view: list[Event], masked: set[int] = frozenset()) -> list[Item]:  # type: ignore[assignment]
    """Items for a view of events: calls of one assistant message regrouped, masked observations as a
    user message and their calls left out."""
    masked_ids = {items[e.position].call_id for e in view if e.position in masked}
    out: list[Item] = []
    for event in view:
        item = items[event.position]
        if event.call < 0:
            if event.position in masked:
                out.append(Item("user", MASKED, item.origin, inserted=False, extra={"cleared": True}))
            else:
                out.append(item)
            continue
        call = item.calls[event.call]
        if call.id in masked_ids:
            continue
        last = out[-1] if out else None
        if last is not None and last.role == "assistant" and last.extra.get("from") == event.position:
            out[-1] = replace(last, calls=(*last.calls, call))
        else:
            content = item.content if event.call == 0 else None
            origin = item.origin if event.call == 0 else -1
            out.append(Item("assistant", content, origin, (call,), extra={"from": event.position}))
    return [_plain(i, items) for i in out]


def _plain(item: Item, items: list[Item]) -> Item:
    """The original item itself when a regrouped one holds all of it unchanged."""
    source = item.extra.get("from")
    if source is not None:
        original = items[source]
        if item.calls == original.calls and item.content is original.content:
            return original  # type: ignore[no-any-return]
    return item


def recent_events(items: list[Item], s: dict[str, Any]) -> Outcome:
    view = events_of(items)
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


def observation_masking(items: list[Item], s: dict[str, Any]) -> Outcome:
    view = events_of(items)
    window = s["attention_window"]
    masked = {e.position for i, e in enumerate(view) if items[e.position].role == "tool" and i < len(view) - window}
    result = _emit(items, view, masked)
    outcome = _outcome(
        items, view, result, f"{len(masked)} observation(s) outside the last {window} events masked", "kept"
    )
    for k in masked:
        outcome.notes[k] = f"an observation older than the last {window} events (attention_window): sent as {MASKED!r}"
        outcome.cleared.add(items[k].origin)
    for k in masked:
        for item in items:
            for call in item.calls:
                if call.id == items[k].call_id:
                    outcome.by_origin[call.origin] = "its observation was masked, so the call is not sent"
    return outcome


def amortized_forgetting(items: list[Item], s: dict[str, Any]) -> Outcome:
    max_size, keep_first = s["max_size"], s["keep_first"]
    events = events_of(items)
    forgotten: set[int] = set()
    times = 0
    steps = [k for k, i in enumerate(items) if i.role == "assistant" and k > 0] + [len(items)]
    for stop in steps:
        while True:
            view = [e for n, e in enumerate(events) if e.position < stop and n not in forgotten]
            if len(view) <= max_size:
                break
            target = max_size // 2
            head = view[:keep_first]
            tail = view[-(target - len(head)) :]
            keep = {id(e) for e in head + tail}
            ids = [n for n, e in enumerate(events) if e.position < stop and n not in forgotten and id(e) not in keep]
            if not ids:
                break
            forgotten.update(range(min(ids), max(ids) + 1))
            times += 1
    view = [e for n, e in enumerate(events) if n not in forgotten]
    result = _emit(items, view)
    summary = (
        f"forgot {times} time(s): {len(forgotten)} event(s) forgotten, {len(view)} in the view (max_size={max_size})"
        if times
        else f"{len(view)} events <= max_size {max_size}: nothing forgotten"
    )
    return _outcome(items, events, result, summary, "in the condensed view")


def _outcome(items: list[Item], view: list[Event], result: list[Item], summary: str, default: str) -> Outcome:
    sent_positions = {id(i) for i in result}
    notes = {}
    for k, item in enumerate(items):
        if id(item) not in sent_positions and not any(r.extra.get("from") == k for r in result):
            notes[k] = "forgotten: outside the events the condenser keeps"
    per = [len(item.calls) if item.role == "assistant" and item.calls else 1 for item in items]
    return Outcome(result, summary, default, notes, tokens=per, total=len(view), unit="events")
