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

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from itertools import chain, compress, filterfalse
from operator import and_, attrgetter, gt, itemgetter
from typing import Any

from inspector.core.peers.outcome import Outcome, PolicyRaises, chat_facts
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
    """A chat's events (one per action or observation) and what every plan reads of them, kept per chat,
    and the items made for it."""

    def __init__(self, items: list[Item]):
        self.events = events_of(items)
        self.positions = [e.position for e in self.events]
        self.every_position = set(self.positions)
        self.made: dict[tuple[Any, ...], Item] = {}  # a changed copy of an item, made once per chat
        self.messages: list[Item | None] = [None] * len(items)  # a response's assistant message, when made
        self.formatted: dict[int, Item] = {}  # by id (of a user item the chat or this keeps): after another
        self.first_user = next((k for k, i in enumerate(items) if i.role == "user"), None)
        self.systems = {k for k, i in enumerate(items) if i.role == "system"}
        self.call_ids = [tuple(c.id for c in i.calls) for i in items]
        # each observation of a tool output, by its event's rank (what observation_masking masks)
        self.observations = [
            (n, e.position) for n, e in enumerate(self.events) if e.call < 0 and items[e.position].role == "tool"
        ]
        # the events seen before each assistant message (amortized_forgetting steps the agent there)
        self.steps: list[int] = []
        seen = 0
        for stop in [k for k, i in enumerate(items) if i.role == "assistant" and k > 0] + [len(items)]:
            while seen < len(self.events) and self.events[seen].position < stop:
                seen += 1
            self.steps.append(seen)
        # _outcome: the original messages each item stands for (flat), and its note when it is not sent
        self.owner_origins: list[int] = []
        self.owner_items: list[int] = []
        for k, item in enumerate(items):
            mine = ([item.origin] if item.origin >= 0 else []) + [c.origin for c in item.calls]
            self.owner_origins.extend(mine)
            self.owner_items.extend([k] * len(mine))
        self.ownerless = [k for k, i in enumerate(items) if i.origin < 0 and not i.calls]
        self.unsent = [_unsent(i) for i in items]
        self.put_back = [PUT_BACK.get(i.role, "sent") for i in items]
        self.per = [len(item.calls) if item.role == "assistant" and item.calls else 1 for item in items]
        self.items = items
        self._masked_start: MaskedStart | None = None

    def masked_start(self) -> MaskedStart:
        if self._masked_start is None:
            self._masked_start = MaskedStart(self.items, self)
        return self._masked_start


class MaskedStart:
    """``_send`` over events that are all before observation_masking's edge, per chat: each event's item
    sent (``sends``: not an action's, as no output of its response is sent before the edge), each response's
    position by the rank of its first action, with its assistant message, and, by call id, the responses
    that wait on it (rank of the first action, position)."""

    def __init__(self, items: list[Item], facts: EventFacts):
        self.sent: list[Item] = []
        self.sends: list[bool] = []
        self.first_ranks: list[int] = []
        self.positions: list[int] = []
        self.messages: dict[int, Item] = {}
        self.waiting: dict[Any, list[tuple[int, int]]] = {}
        made, messages = facts.made, facts.messages
        for rank, event in enumerate(facts.events):
            position = event.position
            item = items[position]
            self.sends.append(event.call < 0)
            if event.call >= 0:
                self.sent.append(item)
                if position not in self.messages:
                    message = messages[position]
                    if message is None:  # as _send makes it
                        message = messages[position] = (
                            item if item.content is None or not _blank(item.content) else item.with_content(None)
                        )
                    self.messages[position] = message
                    self.first_ranks.append(rank)
                    self.positions.append(position)
                    for ident in facts.call_ids[position]:
                        self.waiting.setdefault(ident, []).append((rank, position))
            elif item.role == "tool":
                found = made.get(("masked", position))
                if found is None:
                    found = made[("masked", position)] = Item("user", MASKED, item.origin, extra={"cleared": True})
                self.sent.append(found)
            elif item.role == "assistant" and item.content is None:
                self.sent.append(_made(facts, ("empty", position), lambda i=item: i.with_content("")))
            else:
                self.sent.append(item)
        self.owners: dict[int, int] = {}
        self.tail = _simple_tail(items, facts, self)


class Tail:
    """What ``_send`` sends after observation_masking's edge in a chat whose calls are simple: every call id
    set, none made twice, every call answered once, right after it in its response's block, and no other
    output. Then a response completes at its last output, unless an output of it was before the edge
    (masked: it never completes, and the outputs after the edge stay unsent), sending its message and its
    outputs in its calls' order; any other event sends its item. By rank: what each sends (``sent``, with
    ``offsets``), and each response's rank of its first output and of its last."""

    def __init__(self, items: list[Item], facts: EventFacts, start: MaskedStart):
        self.sent: list[Item] = []
        self.offsets: list[int] = []
        self.first: list[int] = []  # per response, by its last output's rank
        self.last: list[int] = []
        outputs: dict[Any, Item] = {}
        left: dict[int, int] = {}  # response -> outputs still to come
        firsts: dict[int, int] = {}
        for rank, event in enumerate(facts.events):
            self.offsets.append(len(self.sent))
            position = event.position
            if event.call >= 0:
                left.setdefault(position, len(items[position].calls))
                continue
            if items[position].role != "tool":
                self.sent.append(start.sent[rank])
                continue
            owner = start.owners[position]
            outputs[items[position].call_id] = items[position]
            firsts.setdefault(owner, rank)
            left[owner] -= 1
            if not left[owner]:
                message = start.messages[owner]
                self.sent.append(message)
                self.sent.extend(outputs.pop(c.id) for c in message.calls)
                self.first.append(firsts[owner])
                self.last.append(rank)
        self.offsets.append(len(self.sent))

    def after(self, edge: int) -> list[Item]:
        """What the events from ``edge`` on send, the events before it having sent no output."""
        offsets = self.offsets
        n = bisect_left(self.last, edge)  # responses sit one after another: only this one can straddle
        if n < len(self.last) and self.first[n] < edge:
            last = self.last[n]
            return self.sent[offsets[edge] : offsets[last]] + self.sent[offsets[last + 1] :]
        return self.sent[offsets[edge] :]


def _simple_tail(items: list[Item], facts: EventFacts, start: MaskedStart) -> Tail | None:
    """``Tail`` when the chat's calls are simple (see there), else None."""
    owners: dict[int, int] = {}  # output position -> its response's position
    made: set[Any] = set()
    try:
        for position, item in enumerate(items):
            if item.role == "tool" and position not in owners:
                return None  # an output outside the block of the response that called it
            if item.role != "assistant" or not item.calls:
                continue
            ids = [c.id for c in item.calls]
            if not all(ids) or len(set(ids)) < len(ids) or made.intersection(ids):
                return None
            made.update(ids)
            block = range(position + 1, position + 1 + len(ids))
            if block.stop > len(items) or any(items[k].role != "tool" for k in block):
                return None
            if {items[k].call_id for k in block} != set(ids):
                return None
            if block.stop < len(items) and items[block.stop].role == "tool":
                return None  # an output more than the calls
            owners.update(dict.fromkeys(block, position))
    except TypeError:  # an id a set cannot hold
        return None
    start.owners = owners
    return Tail(items, facts, start)


def _unsent(item: Item) -> str:
    """Why an item in the view is not sent."""
    if item.role == "tool":
        return "in the view, but not sent: ConversationMemory sends an output only with its whole response"
    if item.calls:
        return "in the view, but not sent: a call of it has no output in the view (ConversationMemory)"
    return "not sent"


def _facts(items: list[Item], cache: Any) -> EventFacts:
    return chat_facts(items, EventFacts, cache)


def _made(facts: EventFacts, key: tuple[Any, ...], make: Any) -> Item:
    found = facts.made.get(key)
    if found is None:
        found = facts.made[key] = make()
    return found


def _blank(content: Any) -> bool:
    return not isinstance(content, str) or not content.strip()


def _send(items: list[Item], view: list[Event], masked: set[int], facts: EventFacts, edge: int = 0) -> list[Item]:
    """``ConversationMemory.process_events`` on the view (masked: positions of masked observations). With
    ``edge``, the view is the chat's events and every observation before that rank is masked: nothing before
    it gets an output, so no response completes there, and those events are taken from the chat's facts
    (``MaskedStart``) rather than one by one."""
    events = list(view)
    inserted = 0
    # a system event is a system message's own (never a call) and not masked
    if (
        items
        and items[0].role == "system"
        and all(p in masked for p in facts.systems.intersection(map(_POSITION, events)))
    ):
        events.insert(0, Event(0))  # _ensure_system_message: the agent's system prompt
        inserted += 1
    first_user = facts.first_user
    if first_user is None:
        raise PolicyRaises("ValueError", NO_USER)  # CodeActAgent._get_initial_user_message
    if len(events) == 1 or (len(events) > 1 and _kind(items, events[1], masked) != "user"):
        events.insert(1, Event(first_user))  # _ensure_initial_user_message
        inserted += 1
    sent: list[Item] = []
    replies: list[Item] = []  # the assistant messages with calls sent, and the outputs sent (for the filter)
    outputs: list[Item] = []
    pending: dict[int, Item] = {}  # response (its item's position) -> its assistant message
    results: dict[Any, Item] = {}  # tool_call_id_to_message
    # The library looks at every pending response after every event; one completes only when its own
    # action or one of its outputs arrives, so those are the ones looked at (in the library's order: by
    # position). A masked output leaves its response pending for good, and there can be thousands.
    waiting: dict[Any, list[int]] = {}  # call id -> the pending responses that made it
    call_ids, made, messages = facts.call_ids, facts.made, facts.messages
    # the first two events (where the agent's own may have been put) one by one, then the masked start, then
    # the rest one by one; a response whose actions start before the edge waits on its ids from the facts
    start = 2 - inserted  # the chat's first event after those two
    skipped = max(0, min(edge, len(events) - inserted) - start)
    early: MaskedStart | None = None
    if skipped:
        early = facts.masked_start()
        end = start + skipped
        lo, hi = bisect_left(early.first_ranks, start), bisect_left(early.first_ranks, end)
        order: Sequence[Event | None] = [*events[:2], None, *events[2 + skipped :]]
    else:
        order = events
    for event in order:
        if event is None:  # the masked start
            assert early is not None
            sent.extend(compress(early.sent[start:end], early.sends[start:end]))
            if early.tail is not None:  # the rest as every response completing after the edge sends it
                sent.extend(early.tail.after(end))
                break
            starts = early.positions[lo:hi]
            pending.update(zip(starts, map(early.messages.__getitem__, starts)))
            continue
        position = event.position
        item = items[position]
        check: list[int]
        if event.call >= 0:  # an action
            if position not in pending:
                for ident in call_ids[position]:
                    waiting.setdefault(ident, []).append(position)
            message = messages[position]
            if message is None:  # blank text: the message holds the calls only
                message = messages[position] = (
                    item if item.content is None or not _blank(item.content) else item.with_content(None)
                )
            pending[position] = message
            if not all(map(results.__contains__, call_ids[position])):
                continue
            check = [position]
        elif position in masked:
            found = made.get(("masked", position))
            if found is None:
                found = made[("masked", position)] = Item("user", MASKED, item.origin, extra={"cleared": True})
            sent.append(found)
            continue
        elif item.role == "tool":
            results[item.call_id] = item
            check = waiting.get(item.call_id, [])
            waiters = early.waiting.get(item.call_id) if early is not None else None
            if waiters and waiters[0][0] < end:  # a response started before the edge made this call
                # in the order they started waiting (those of the masked start first): sorted below when many
                check = [p for r, p in waiters if start <= r < end] + check
            if not check:
                continue
        else:
            if item.role == "assistant" and item.content is None:
                item = _made(facts, ("empty", position), lambda i=item: i.with_content(""))
            sent.append(item)
            if item.role == "assistant" and item.calls:
                replies.append(item)
            continue
        for at in sorted(set(check)) if len(check) > 1 else check:
            message = pending.get(at)
            if message is not None and all(map(results.__contains__, call_ids[at])):
                sent.append(message)
                replies.append(message)
                try:
                    answers = [results.pop(c.id) for c in message.calls]
                except KeyError as missing:  # one response calling one id twice: the second pop fails
                    raise PolicyRaises(
                        "KeyError",
                        f"{missing}: a response calls the same id twice, and ConversationMemory takes each "
                        "output once (tool_call_id_to_message.pop)",
                    ) from None
                sent.extend(answers)
                outputs.extend(answers)
                del pending[at]
    # _filter_unmatched_tool_calls: it keeps every item unless an output's call or a call's output is not
    # sent, which only the sent replies and outputs can show (a chat's ``Tail`` sends whole responses only)
    called = {c.id for i in replies for c in i.calls if c.id}
    answered = {i.call_id for i in outputs if i.call_id}
    kept = sent
    if any(i.call_id and i.call_id not in called for i in outputs) or any(
        c.id not in answered for i in replies for c in i.calls
    ):
        kept = []
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
    # _apply_user_message_formatting: a user message right after another
    users = list(map(_USER, map(_ROLE, kept)))
    after = list(compress(range(1, len(kept)), map(and_, users[1:], users)))
    if not after:
        return kept
    out = list(kept)
    formatted = facts.formatted
    for k in after:
        i = kept[k]
        found = formatted.get(id(i))
        if found is None:
            found = formatted[id(i)] = i.with_content(_two_newlines(i.content), extra=i.extra)
        out[k] = found
    return out


_POSITION = attrgetter("position")
_ROLE = attrgetter("role")
_USER = "user".__eq__


def _kind(items: list[Item], event: Event, masked: set[int]) -> str:
    if event.call >= 0:
        return "action"
    if event.position in masked:
        return "masked"
    return str(items[event.position].role)


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
    return _outcome(items, facts, set(map(_POSITION, kept)), result, summary, default)


def observation_masking(items: list[Item], s: dict[str, Any], cache: Any = None) -> Outcome:
    facts = _facts(items, cache)
    view = facts.events
    window = s["attention_window"]
    limit = len(view) - window
    observations = facts.observations
    masked = set(map(_SECOND, observations[: bisect_left(observations, (limit,))]))
    # every observation before the edge is masked: what comes before it is the chat's, whatever the window
    result = _send(items, view, masked, facts, edge=limit)
    outcome = _outcome(
        items,
        facts,
        facts.every_position,
        result,
        f"{len(masked)} observation(s) outside the last {window} events masked",
        "kept",
    )
    note = f"an observation older than the last {window} events (attention_window): sent as {MASKED!r}"
    outcome.notes.update(dict.fromkeys(masked, note))
    outcome.cleared.update(map(_ORIGIN, map(items.__getitem__, masked)))
    return outcome


def amortized_forgetting(items: list[Item], s: dict[str, Any], cache: Any = None) -> Outcome:
    max_size, keep_first = s["max_size"], s["keep_first"]
    facts = _facts(items, cache)
    events = facts.events
    forgotten = 0  # events forgotten, in all
    times = 0
    live: list[int] = []  # the view: indices of the events not forgotten, up to the step (ascending)
    seen = 0
    for upto in facts.steps:
        live.extend(range(seen, upto))
        seen = upto
        while len(live) > max_size:
            target = max_size // 2
            head = live[:keep_first]
            newest = target - len(head)
            if newest > 0:  # live ascends: what it forgets is the run between its head and its newest
                if len(head) + newest >= len(live):
                    break
                forgotten += len(live) - len(head) - newest
                live = head + live[-newest:]
                times += 1
                continue
            tail = live[-newest:]
            keep = set(head + tail)
            ids = [n for n in live if n not in keep]
            if not ids:
                break
            low, high = min(ids), max(ids)  # forgotten: every event between, by id
            live = [n for n in live if not low <= n <= high]
            forgotten += len(ids)
            times += 1
    view = list(map(events.__getitem__, live))
    result = _send(items, view, set(), facts)
    summary = (
        f"forgot {times} time(s): {forgotten} event(s) forgotten, {len(view)} in the view (max_size={max_size})"
        if times
        else f"{len(view)} events <= max_size {max_size}: nothing forgotten"
    )
    return _outcome(items, facts, set(map(facts.positions.__getitem__, live)), result, summary, "in the condensed view")


PUT_BACK = {
    "system": "forgotten, but sent first: the agent always sends its system prompt (_ensure_system_message)",
    "user": "forgotten, but sent second: the agent always sends the task (_ensure_initial_user_message)",
}
FORGOTTEN = "forgotten: outside the events the condenser keeps"


def _outcome(
    items: list[Item], facts: EventFacts, in_view: set[int], result: list[Item], summary: str, default: str
) -> Outcome:
    """The note of every item not sent as itself in the view, and the events counted."""
    sent = set(map(_ORIGIN, result))
    sent.difference_update(list(filter(partial(gt, 0), sent)))  # the origins, not the -1 of none
    sent.update(map(_ORIGIN, chain.from_iterable(map(_CALLS, result))))
    # an item is sent when a message it stands for is (one standing for none: when it is itself)
    shown = set(compress(facts.owner_items, map(sent.__contains__, facts.owner_origins)))
    if facts.ownerless:
        sent_items = set(map(id, result))
        shown.update(k for k in facts.ownerless if id(items[k]) in sent_items)
    hidden = list(filterfalse(shown.__contains__, range(len(items))))
    seen = list(filter(in_view.__contains__, hidden))
    notes = dict.fromkeys(filterfalse(in_view.__contains__, hidden), FORGOTTEN)
    notes.update(zip(seen, map(facts.unsent.__getitem__, seen)))
    back = list(filterfalse(in_view.__contains__, shown))  # forgotten, yet sent: the agent puts these back
    notes.update(zip(back, map(facts.put_back.__getitem__, back)))
    return Outcome(result, summary, default, notes, tokens=facts.per, total=len(facts.events), unit="events")


_SECOND = itemgetter(1)
_ORIGIN = attrgetter("origin")
_CALLS = attrgetter("calls")
