"""OpenHands' deterministic condensers (legacy ``openhands-ai`` 0.62, openhands/memory/condenser/impl/).

They count *events*: one per action or observation. A chat's events here: each system, user and plain
assistant message is one; each tool call is one action (an assistant message's text travels with its
response: every call of it carries the whole model response); each tool output one observation. The
events are in the order the AgentController makes them: the actions of one response are returned one
per step, and each waits for its observation, so parallel calls give call 1, its output, call 2, its
output, ... (outputs no call of the response answers come after them). Stateless condensers run on the
whole view; ``amortized_forgetting`` is a rolling condenser (what it forgot stays forgotten), replayed
before every assistant message as the agent steps (a CondensationAction, then the agent steps again).

What is sent is what CodeActAgent sends for the condensed view: ``ConversationMemory.process_events``.
It puts the system prompt first when no system event is in the view and the first user message second
when the event there is not a user message; it sends a response's assistant message (its text unless
blank, all its calls) and the outputs of its calls only once every call of it has an output in the view,
at the place of the last one (so an output without its call, or a call without its output, sends
neither); a masked observation is a user message ``<MASKED>``; a user message right after another gets
two newlines before its text. (The library also names every tool message after its function; the
items keep the name the chat gave.)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from inspector.core.peers.outcome import Outcome, PolicyRaises
from inspector.core.peers.wire import Item

MASKED = "<MASKED>"
NO_USER = "Initial user message not found in history. Please report this issue."


@dataclass(frozen=True, slots=True)
class Event:
    position: int  # the input item it comes from
    call: int = -1  # the call's rank in that item (-1: the whole item)


def events_of(items: list[Item]) -> list[Event]:
    """The events in the controller's order: each call then its output, the outputs no call answers after."""
    out: list[Event] = []
    k, size = 0, len(items)
    while k < size:
        item = items[k]
        if item.role != "assistant" or not item.calls:
            out.append(Event(k))
            k += 1
            continue
        end = k + 1
        while end < size and items[end].role == "tool":
            end += 1
        answered: set[int] = set()
        for rank, call in enumerate(item.calls):
            out.append(Event(k, rank))
            found = next((j for j in range(k + 1, end) if j not in answered and items[j].call_id == call.id), None)
            if found is not None:
                answered.add(found)
                out.append(Event(found))
        out.extend(Event(j) for j in range(k + 1, end) if j not in answered)
        k = end
    return out


class EventFacts:
    """A chat's events (one per action or observation), kept per chat, and the items made for it."""

    def __init__(self, items: list[Item]):
        self.events = events_of(items)
        self.made: dict[tuple[Any, ...], Item] = {}  # a changed copy of an item, made once per chat


def _facts(items: list[Item], cache: Any) -> EventFacts:
    found = cache.get(items, EventFacts) if cache is not None else None
    if found is None:
        found = EventFacts(items)
        if cache is not None:
            cache.put(items, found)
    return found


def _made(facts: EventFacts, key: tuple[Any, ...], make: Any) -> Item:
    found = facts.made.get(key)
    if found is None:
        found = facts.made[key] = make()
    return found


def _blank(content: Any) -> bool:
    return not isinstance(content, str) or not content.strip()


def _send(items: list[Item], view: list[Event], masked: set[int], facts: EventFacts) -> list[Item]:
    """``ConversationMemory.process_events`` on the view (masked: positions of masked observations)."""

    def kind(event: Event) -> str:
        if event.call >= 0:
            return "action"
        if event.position in masked:
            return "masked"
        return str(items[event.position].role)

    events = list(view)
    if items and items[0].role == "system" and not any(kind(e) == "system" for e in events):
        events.insert(0, Event(0))  # _ensure_system_message: the agent's system prompt
    first_user = next((k for k, i in enumerate(items) if i.role == "user"), None)
    if first_user is None:
        raise PolicyRaises("ValueError", NO_USER)  # CodeActAgent._get_initial_user_message
    if len(events) == 1 or (len(events) > 1 and kind(events[1]) != "user"):
        events.insert(1, Event(first_user))  # _ensure_initial_user_message
    sent: list[Item] = []
    pending: dict[int, Item] = {}  # response (its item's position) -> its assistant message
    results: dict[Any, Item] = {}  # tool_call_id_to_message
    # The library looks at every pending response after every event; one completes only when its own
    # action or one of its outputs arrives, so those are the ones looked at (in the library's order: by
    # position). A masked output leaves its response pending for good, and there can be thousands.
    waiting: dict[Any, list[int]] = {}  # call id -> the pending responses that made it
    for event in events:
        item = items[event.position]
        what = kind(event)
        check: list[int] = []
        if what == "action":
            if event.position not in pending:
                for call in item.calls:
                    waiting.setdefault(call.id, []).append(event.position)
            if item.content is None or not _blank(item.content):
                pending[event.position] = item
            else:  # blank text: the message holds the calls only
                pending[event.position] = _made(facts, ("calls", event.position), lambda i=item: i.with_content(None))
            check = [event.position]
        elif what == "masked":
            sent.append(
                _made(
                    facts,
                    ("masked", event.position),
                    lambda i=item: Item("user", MASKED, i.origin, extra={"cleared": True}),
                )
            )
        elif what == "tool":
            results[item.call_id] = item
            check = waiting.get(item.call_id, [])
        elif what == "assistant" and item.content is None:
            sent.append(_made(facts, ("empty", event.position), lambda i=item: i.with_content("")))
        else:
            sent.append(item)
        for position in sorted(set(check)) if len(check) > 1 else check:
            message = pending.get(position)
            if message is not None and all(c.id in results for c in message.calls):
                sent.append(message)
                sent.extend(results.pop(c.id) for c in message.calls)
                del pending[position]
    # _filter_unmatched_tool_calls
    called = {c.id for i in sent if i.role == "assistant" for c in i.calls if c.id}
    answered = {i.call_id for i in sent if i.role == "tool" and i.call_id}
    kept: list[Item] = []
    for i in sent:
        if i.role == "tool" and i.call_id:
            if i.call_id in called:
                kept.append(i)
        elif i.role == "assistant" and i.calls:
            calls = tuple(c for c in i.calls if c.id in answered)
            if len(calls) == len(i.calls):
                kept.append(i)
            elif calls:
                kept.append(Item("assistant", i.content, i.origin, calls))
        else:
            kept.append(i)
    # _apply_user_message_formatting
    out: list[Item] = []
    previous = None
    for i in kept:
        if i.role == "user" and previous == "user":
            i = _made(facts, ("after_user", id(i)), lambda i=i: i.with_content(_two_newlines(i.content), extra=i.extra))
        out.append(i)
        previous = i.role
    return out


def _two_newlines(content: Any) -> Any:
    if isinstance(content, list):
        parts = list(content)
        for n, part in enumerate(parts):
            if isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str):
                parts[n] = {**part, "text": "\n\n" + part["text"]}
                break
        return parts
    return "\n\n" + (content if isinstance(content, str) else "")


def recent_events(items: list[Item], s: dict[str, Any], cache: Any = None) -> Outcome:
    facts = _facts(items, cache)
    view = facts.events
    keep_first, max_events = s["keep_first"], s["max_events"]
    head = view[:keep_first]
    tail_length = max(0, max_events - len(head))
    tail = view[-tail_length:]  # a length of 0 is view[-0:]: the whole view
    kept = head + tail
    result = _send(items, kept, set(), facts)
    summary = f"{len(view)} events: the first {len(head)} and the last {len(tail)} kept (max_events={max_events})"
    if len(head) + len(tail) > len(view):
        summary += "; the view is shorter than that, so the first events are sent twice"
    default = f"within the first {keep_first} or the last {tail_length} events"
    return _outcome(items, view, kept, result, summary, default)


def observation_masking(items: list[Item], s: dict[str, Any], cache: Any = None) -> Outcome:
    facts = _facts(items, cache)
    view = facts.events
    window = s["attention_window"]
    limit = len(view) - window
    masked = {e.position for i, e in enumerate(view) if i < limit and e.call < 0 and items[e.position].role == "tool"}
    result = _send(items, view, masked, facts)
    outcome = _outcome(
        items, view, view, result, f"{len(masked)} observation(s) outside the last {window} events masked", "kept"
    )
    note = f"an observation older than the last {window} events (attention_window): sent as {MASKED!r}"
    for k in masked:
        outcome.notes[k] = note
        outcome.cleared.add(items[k].origin)
    return outcome


def amortized_forgetting(items: list[Item], s: dict[str, Any], cache: Any = None) -> Outcome:
    max_size, keep_first = s["max_size"], s["keep_first"]
    facts = _facts(items, cache)
    events = facts.events
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
    result = _send(items, view, set(), facts)
    summary = (
        f"forgot {times} time(s): {forgotten} event(s) forgotten, {len(view)} in the view (max_size={max_size})"
        if times
        else f"{len(view)} events <= max_size {max_size}: nothing forgotten"
    )
    return _outcome(items, events, view, result, summary, "in the condensed view")


PUT_BACK = {
    "system": "forgotten, but sent first: the agent always sends its system prompt (_ensure_system_message)",
    "user": "forgotten, but sent second: the agent always sends the task (_ensure_initial_user_message)",
}


def _outcome(
    items: list[Item], events: list[Event], view: list[Event], result: list[Item], summary: str, default: str
) -> Outcome:
    sent = {i.origin for i in result if i.origin >= 0} | {c.origin for i in result for c in i.calls}
    sent_items = {id(i) for i in result}
    in_view = {e.position for e in view}
    notes = {}
    for k, item in enumerate(items):
        if (
            id(item) in sent_items
            or (item.origin >= 0 and item.origin in sent)
            or any(c.origin in sent for c in item.calls)
        ):
            if k not in in_view:  # forgotten, yet sent: the agent puts these back at every step
                notes[k] = PUT_BACK.get(item.role, "sent")
            continue
        if k not in in_view:
            notes[k] = "forgotten: outside the events the condenser keeps"
        elif item.role == "tool":
            notes[k] = "in the view, but not sent: ConversationMemory sends an output only with its whole response"
        elif item.calls:
            notes[k] = "in the view, but not sent: a call of it has no output in the view (ConversationMemory)"
        else:
            notes[k] = "not sent"
    per = [len(item.calls) if item.role == "assistant" and item.calls else 1 for item in items]
    return Outcome(result, summary, default, notes, tokens=per, total=len(events), unit="events")
