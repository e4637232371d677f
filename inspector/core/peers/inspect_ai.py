"""Inspect AI's compaction (inspect-ai 0.3.285, inspect_ai/model/_compaction/): ``CompactionEdit`` and
``CompactionTrim`` under the ``compaction()`` handler, and Inspect's own token count.

The handler is stateful: it keeps the view it sent and appends what is new to it, so the prompt at a
call depends on every call before. It is replayed as ``react()`` drives it: called before every
assistant message with the history up to it, on one handler, and once more with the whole chat. The
usage baseline ``record_output`` takes from the API's reply is not replayed (a chat does not say what
each call's input counted as Inspect counts it): every total is Inspect's own count.
"""

from __future__ import annotations

import json
import unicodedata
from bisect import bisect_left
from collections.abc import Callable
from dataclasses import replace
from itertools import accumulate, chain, compress, count, repeat
from operator import add, attrgetter, is_, is_not, itemgetter, methodcaller, not_
from typing import Any, NamedTuple

from inspector.core import tokens
from inspector.core.peers.outcome import Outcome, PolicyRaises
from inspector.core.peers.wire import Item, WireCall

_FLAGGED = Item("tool", None, -1).cleared(None).extra  # the mark every cleared copy shares

TOOL_RESULT_REMOVED = "(Tool result removed)"
MEMORY_TOOL = "memory"
MEMORY_CONTENT_ARGS = ("file_text", "insert_text", "new_str")
DEFAULT_CONTEXT_WINDOW = 128_000


# -- Model.count_tokens -------------------------------------------------------------------------
def text_parts(item: Item) -> list[str]:
    parts: list[str] = []
    content = item.content
    if content is None:
        parts.append("")
    elif isinstance(content, str):
        parts.append(content)
    else:
        parts.extend(p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
    for call in item.calls:
        parts.append(str(call.name))
        parts.append(json.dumps(call.arguments))
    return parts


def starts_piece(part: str) -> bool:
    """Whether o200k's pre-tokenizer starts a new piece at ``part`` after a newline: the newline is a
    piece of its own (``\\s*[\\r\\n]+``) unless whitespace after it extends that run (``"\\n\\t\\n"``) or a
    slash joins a punctuation run before it (`` ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*``)."""
    return bool(part) and not (part[0] == "/" or part[0].isspace())


class InspectCounter:
    """``Model.count_tokens`` for a model without a tokenizer of its own: every text part joined by
    newlines, counted by o200k_base, times 1.1, floored, at least 1.

    Counted in pieces so that each message's text is tokenized once however many calls count it: a
    newline between two parts never shares an o200k piece with the text after it unless that text is
    empty or starts with whitespace or a slash (see ``starts_piece``), so those are kept together."""

    def __init__(self) -> None:
        self.o200k = tokens.get("o200k")
        self._summaries: dict[int, tuple[Item, Summary]] = {}
        self._single: dict[int, tuple[Item, int]] = {}  # a chat's own messages' counts, each counted alone
        # a piece's count with the newline after it, by the piece itself: a str keeps its hash, so a view
        # counted again after each compaction looks its parts up without writing them out again
        self._closed: dict[str, int] = {}
        self._open: dict[str, int] = {}  # a list's last piece: counted at every call the list ends there
        self._copies: dict[int, tuple[Item, Item]] = {}  # results cleared by CompactionEdit, by original
        self.copy_of: dict[Item, Item] = {}  # the same, by the item itself (and each copy is its own)
        self.chat: list[Item] = []  # the chat replayed, its messages' positions and its state after each
        self.where: dict[Item, int] = {}  # by the item itself: items hash by identity
        self.chat_marks: list[tuple[int, str | None]] = [(0, None)]
        self._calls: tuple[list[int], list[int]] | None = None  # the chat's: see ``calls``
        self._per: list[int] | None = None  # the chat's messages' counts, each counted alone
        self._unsent: tuple[dict[int, str], dict[int, str]] | None = None
        self._trim: TrimFacts | bool | None = None
        self._settles: bool | None = None  # the chat's: see ``edit_settles``
        self._systems: int | None = None
        self._unflagged: bool | None = None
        self._uses: dict[tuple[Any, ...], _ChatUses] = {}  # the chat's: see ``uses_in_run``
        self.cleared_chat: list[Item] = []  # see ``clear_base``
        self.cleared_where: dict[Item, int] = {}
        self.cleared_marks: list[tuple[int, str | None]] = []
        self._ids: dict[Item, frozenset[Any]] = {}  # by the item itself: items hash by identity
        self.plain: set[Item] = set()  # messages clearing the memory tool's content leaves as they are

    def base(self, items: list[Item]) -> None:
        """Keep the chat's running sums: a view is mostly runs of the chat's own messages."""
        if self.is_chat(items):
            return
        self.chat, self.where, self._calls, self._per, self._unsent, self._trim = [], {}, None, None, None, None
        self._settles, self._systems, self._unflagged = None, None, None
        self._uses = {}
        self.cleared_chat, self.cleared_where, self.cleared_marks = [], {}, []
        running = Running(self)
        running.extend(items)
        self.chat, self.where, self.chat_marks = items, {m: k for k, m in enumerate(items)}, running.marks

    def is_chat(self, items: list[Item]) -> bool:
        """Whether ``items`` are the chat ``base`` took: each plan passes a copy of the same messages, compared by
        identity, in C (an equal copy of a message would not be found in ``where``, and ``calls`` takes the
        chat's positions for the plan's)."""
        return items is self.chat or (len(self.chat) == len(items) and all(map(is_, self.chat, items)))

    def unflagged(self) -> bool:
        """Whether no message of the chat ``base`` took is marked cleared: a message the strategies make
        keeps the marks of the one it was made from (``replace``), or is a cleared copy (``Item.cleared``,
        whose mark is one shared dict), so those are then the only ones marked."""
        if self._unflagged is None:
            self._unflagged = not any(map(_CLEARED_FLAG, map(_EXTRA, self.chat)))
        return self._unflagged

    def systems(self) -> int:
        """How many system messages the chat ``base`` took holds."""
        if self._systems is None:
            self._systems = list(map(_ROLE, self.chat)).count("system")
        return self._systems

    def calls(self) -> tuple[list[int], list[int]]:
        """Where react() calls the handler in the chat (before each assistant message but the first
        message, then with the whole chat) and the raw count of the chat up to each of those calls."""
        if self._calls is None:
            chat, marks, open_ = self.chat, self.chat_marks, self.open
            at = [k for k, m in enumerate(chat) if m.role == "assistant" and k > 0]
            at.append(len(chat))
            raws = []
            for k in at:
                closed, chunk = marks[k]
                raws.append(closed if chunk is None else closed + open_(chunk))
            self._calls = at, raws
        return self._calls

    def unsent(self, items: list[Item]) -> tuple[dict[int, str], dict[int, str]] | None:
        """``_outcome``'s notes and calls' notes were nothing sent and nothing cleared, kept for the chat
        ``base`` took (None for another list, or a chat holding one item twice: one position per item)."""
        if len(self.where) != len(items) or not self.is_chat(items):
            return None
        if self._unsent is None:
            notes = dict.fromkeys(range(len(items)), REMOVED)
            notes.update((k, TOOL_NOTES[False]) for k, item in enumerate(items) if item.role == "tool")
            if items and items[-1].role == "assistant":
                notes[len(items) - 1] = TRAILING
            by_origin = dict.fromkeys(map(_ORIGIN, chain.from_iterable(map(_CALLS, items))), CALL_REMOVED)
            self._unsent = notes, by_origin
        return self._unsent

    def clear_base(self) -> None:
        """Keep the running sums of the chat with every result cleared too: CompactionEdit's view is runs of
        its calls and their cleared results, which then count as runs of that chat."""
        if self.cleared_where or not self.chat:
            return
        chat = [self.cleared(m) if m.role == "tool" else m for m in self.chat]
        running = Running(self)
        running.extend(chat)
        self.cleared_chat, self.cleared_where, self.cleared_marks = (
            chat,
            {m: k for k, m in enumerate(chat)},
            running.marks,
        )

    def trim_facts(self) -> TrimFacts | None:
        """``TrimFacts`` of the chat ``base`` took (None: its call ids cannot be looked up in a set)."""
        if self._trim is None:
            try:
                self._trim = TrimFacts(self.chat, self)
            except TypeError:
                self._trim = False
        return self._trim if isinstance(self._trim, TrimFacts) else None

    def edit_settles(self, items: list[Item]) -> bool:
        """``settles(items)``, kept for the chat ``base`` took."""
        if not self.is_chat(items):
            return settles(items)
        if self._settles is None:
            self._settles = len(self.where) == len(items) and settles(items)
        return self._settles

    def uses_in_run(self, view: list[Item], start: int, exclude: Any) -> list[tuple[int, WireCall, int]] | None:
        """``_walk(view, start)`` when ``view[start:]`` is a run of the chat's own messages and the result of
        each call in it is in it too (None: otherwise): the chat's uses there, moved to the view's positions."""
        size = len(view)
        if start >= size:
            return []
        chat = self.chat
        a = self.where.get(view[start])
        n = size - start
        if a is None or a + n > len(chat) or not all(map(is_, view[start:], chat[a : a + n])):
            return None
        key = tuple(exclude) if exclude else ()
        table = self._uses.get(key)
        if table is None:
            if len(self._uses) > 16:
                self._uses.clear()
            table = self._uses[key] = _ChatUses(chat, exclude)
        if not table.sound:
            return None
        low, high = bisect_left(table.at, a), bisect_left(table.at, a + n)
        if high > low and table.reach[high - 1] >= a + n:  # a result past the run: the walk finds none
            return None
        part = table.uses[low:high]
        shift = start - a
        return part if not shift else [(i + shift, call, found + shift) for i, call, found in part]

    def call_ids(self, item: Item) -> frozenset[Any]:
        """The ids an assistant message calls, kept per message (CompactionTrim looks at each at every pass)."""
        found = self._ids.get(item)
        if found is None:
            if len(self._ids) > 1 << 18:
                self._ids.clear()
            found = self._ids[item] = _call_ids(item)
        return found

    def singles(self, items: list[Item]) -> list[int]:
        """``count_one`` of each message, kept for the chat ``base`` took."""
        if not self.is_chat(items):
            return [self.count_one(i) for i in items]
        if self._per is None:
            self._per = [self.count_one(i) for i in items]
        return self._per

    def closed(self, chunk: str) -> int:
        """``count(chunk + "\n")``, remembered per chunk."""
        found = self._closed.get(chunk)
        if found is None:
            if len(self._closed) > 1 << 20:
                self._closed.clear()
            found = self._closed[chunk] = self.o200k.count(chunk + "\n")
        return found

    def open(self, chunk: str) -> int:
        """``count(chunk)``. After a letter or a digit a newline is a piece of its own, one token: a chunk
        counted with its newline (every message but the chat's last) is not tokenized again."""
        found = self._open.get(chunk)
        if found is None:
            if len(self._open) > 1 << 16:
                self._open.clear()
            closed = self._closed.get(chunk)
            if closed is not None and chunk and unicodedata.category(chunk[-1])[0] in "LN":
                found = closed - 1
            else:
                found = self.o200k.count(chunk)
            self._open[chunk] = found
        return found

    def cleared(self, item: Item) -> Item:
        """The item with its result removed, the same copy every time (its count is then remembered)."""
        if item.extra.get("cleared") and item.content == TOOL_RESULT_REMOVED:
            return item
        found = self._copies.get(id(item))
        if found is None or found[0] is not item:
            found = self._copies[id(item)] = (item, item.cleared(TOOL_RESULT_REMOVED))
            if len(self.copy_of) > 1 << 20:
                self.copy_of.clear()
            self.copy_of[item] = self.copy_of[found[1]] = found[1]
        return found[1]

    def summary(self, item: Item) -> Summary:
        found = self._summaries.get(id(item))
        if found is None or found[0] is not item:
            found = (item, self._summarise(text_parts(item)))
            self._summaries[id(item)] = found
        return found[1]

    def _summarise(self, parts: list[str]) -> Summary:
        """What appending a message's parts does to a running count: the parts before the first that
        starts a piece of its own join the open chunk (``head``); the pieces closed inside the message
        (``inner``) and the chunk it leaves open (``tail``; None when every part joins)."""
        first = 0
        while first < len(parts) and not starts_piece(parts[first]):
            first += 1
        head = "\n".join(parts[:first]) if first else None
        if first == len(parts):
            return Summary(head, 0, None)
        inner, chunk = 0, parts[first]
        for part in parts[first + 1 :]:
            if starts_piece(part):
                inner += self.closed(chunk)
                chunk = part
            else:
                chunk = chunk + "\n" + part
        return Summary(head, inner, chunk)

    def raw(self, items: list[Item]) -> int:
        running = Running(self)
        running.extend(items)
        return running.raw()

    def count(self, items: list[Item]) -> int:
        return max(1, int(self.raw(items) * 1.1))

    def count_one(self, item: Item) -> int:
        found = self._single.get(id(item))
        if found is None or found[0] is not item:
            found = self._single[id(item)] = (item, self.count([item]))
        return found[1]

    def running(self, limit: int | None = None) -> Running:
        return Running(self, limit=limit)


class Summary(NamedTuple):
    head: str | None  # the leading parts that join the open chunk, joined by newlines
    inner: int  # the tokens of the pieces closed inside the message
    tail: str | None  # the chunk left open (None: every part joined the open chunk)


class Running:
    """The count of a list that grows at its end, kept as it grows: the chunks closed so far and the one
    still open (the next part may join it), so a call adds only its new messages' counts. The state after
    each of the first ``limit`` messages is kept (``marks``): a list that shares its first messages with
    this one starts there. A run of the chat's own messages, in order, after the chat's own state before
    them, is counted from the chat's running sums (``InspectCounter.base``) without looking at each."""

    def __init__(
        self, counter: InspectCounter, marks: list[tuple[int, str | None]] | None = None, limit: int | None = None
    ) -> None:
        self.counter = counter
        self.marks: list[tuple[int, str | None]] = marks if marks is not None else [(0, None)]
        self.limit = limit
        self.closed, self.chunk = self.marks[-1]

    def extend(self, items: list[Item]) -> None:
        counter = self.counter
        closed_of, summary, marks, limit = counter.closed, counter.summary, self.marks, self.limit
        chat, where, chat_marks = counter.chat, counter.where, counter.chat_marks
        cleared_chat, cleared_where, cleared_marks = counter.cleared_chat, counter.cleared_where, counter.cleared_marks
        total, chunk = self.closed, self.chunk
        j, size, end = 0, len(items), len(chat)
        while j < size:
            item = items[j]
            h = where.get(item)
            run_of: list[Item] | None = None
            if h is not None and chat[h] is item and chunk is chat_marks[h][1]:
                run_of, states = chat, chat_marks
            elif cleared_where:  # CompactionEdit's view: the chat with its older results cleared
                h = cleared_where.get(item)
                if h is not None and cleared_chat[h] is item and chunk is cleared_marks[h][1]:
                    run_of, states = cleared_chat, cleared_marks
            if run_of is not None and h is not None:
                span = min(size - j, end - h)  # how far the run goes: compared in C
                run = next(compress(count(), map(is_not, items[j : j + span], run_of[h : h + span])), span)
                r = h + run
                j += run
                base = total - states[h][0]
                if limit is None or len(marks) <= limit:
                    after = states[h + 1 : r + 1 if limit is None else min(r, h + limit + 1 - len(marks)) + 1]
                    marks.extend(zip(map(add, repeat(base), map(_FIRST, after)), map(_SECOND, after)))
                total, chunk = base + states[r][0], states[r][1]
                continue
            head, inner, tail = summary(item)
            if tail is None:  # every part joins (and there is at least one: head is a str)
                chunk = head if chunk is None else f"{chunk}\n{head}"
            else:
                if chunk is not None:
                    total += closed_of(chunk if head is None else chunk + "\n" + head)
                elif head is not None:
                    total += closed_of(head)
                total += inner
                chunk = tail
            if limit is None or len(marks) <= limit:
                marks.append((total, chunk))
            j += 1
        self.closed, self.chunk = total, chunk

    def start(self, count: int) -> Running:
        """A count for a list whose first ``count`` messages are this list's."""
        if count >= len(self.marks):
            raise ValueError(f"the state after {count} messages was not kept")
        return Running(self.counter, self.marks[: count + 1], self.limit)

    def raw(self) -> int:
        return self.closed + (self.counter.open(self.chunk) if self.chunk is not None else 0)

    def total(self) -> int:
        """``Model.count_tokens`` of the list so far."""
        return max(1, int(self.raw() * 1.1))


TOOL_TOKENS = 1  # count_tool_tokens of no tools: one empty user message, counted as at least 1


# -- the strategies -------------------------------------------------------------------------------
# Each takes the view and ``settled``: a count of leading messages a previous pass of the same strategy left
# as it would leave them again (the handler passes its own result back in); it returns the new view, how
# many of its leading messages are the input's own (their count is kept), and its own ``settled``.
Compacted = tuple[list[Item], int, int]


def _memory_cleared(items: list[Item], counter: InspectCounter | None = None) -> list[Item]:
    if counter is None:
        return list(map(_memory_cleared_one, items))
    # a compaction looks at each message again and again: those found unchanged once are not looked at
    plain = counter.plain
    todo = list(compress(range(len(items)), map(not_, map(plain.__contains__, items))))
    if not todo:
        return items
    if len(plain) > 1 << 18:
        plain.clear()
    out = list(items)
    for k in todo:
        item = out[k] = _memory_cleared_one(items[k])
        if item is items[k]:
            plain.add(item)
    return out


def _memory_cleared_one(item: Item) -> Item:
    if item.role == "assistant" and item.calls:
        calls, changed = [], False
        for call in item.calls:
            args = call.arguments
            if call.name == MEMORY_TOOL and isinstance(args, dict) and any(a in args for a in MEMORY_CONTENT_ARGS):
                cleared = {k: "(content saved to memory)" if k in MEMORY_CONTENT_ARGS else v for k, v in args.items()}
                if cleared != args:
                    call = WireCall(call.id, call.name, cleared, call.origin)
                    changed = True
            calls.append(call)
        if changed:
            return replace(item, calls=tuple(calls))
    return item


def _call_ids(item: Item) -> frozenset[Any]:
    return frozenset(c.id for c in item.calls)


def _placeholder_text(name: Any) -> dict[str, str]:
    return {"type": "text", "text": f"[Tool call: {name} (parameters and results removed from history)]"}


def settles(chat: list[Item]) -> bool:
    """Whether CompactionEdit may start where its last pass settled on every view the handler builds of
    ``chat``: no item twice, no call id twice (an assistant message twice is one too), and each result of a
    call before the next assistant message (the handler is called before each: a view holds a call's result
    whenever it holds the call). Then a call before ``settled`` either had its result in the view that pass
    saw, and was cleared, or never gets one; no result after ``settled`` is found by a call before it. A late
    result, or an id called twice, is found from a call the pass from ``settled`` does not look at, and then
    the newest uses kept and the results cleared differ from a pass over the whole view (the library's)."""
    seen: set[int] = set()
    owner: dict[Any, int] = {}  # the position of the message calling each id
    answered: set[Any] = set()
    turn = -1  # the last assistant message's position
    try:
        for k, item in enumerate(chat):
            if id(item) in seen:
                return False
            seen.add(id(item))
            role = item.role
            if role == "assistant":
                turn = k
                for call in item.calls:
                    if call.id in owner:
                        return False
                    owner[call.id] = k
            elif role == "tool":
                at = owner.get(item.call_id)
                if at is not None:  # a result before its call (or of no call) is never found: it does not count
                    if at != turn or item.call_id in answered:
                        return False
                    answered.add(item.call_id)
    except TypeError:  # an id that cannot be looked up in a set: no shortcut
        return False
    return True


class _ChatUses:
    """``_walk`` over a whole chat: its uses in order (``at``: their messages' positions; ``reach``: the
    furthest result of the uses up to each), found with each call id's results' positions."""

    def __init__(self, chat: list[Item], exclude: Any) -> None:
        self.uses: list[tuple[int, WireCall, int]] = []
        self.sound = True
        results: dict[Any, list[int]] = {}
        try:
            for k, item in enumerate(chat):
                if item.role == "tool":
                    results.setdefault(item.call_id, []).append(k)
            for k in compress(count(), map(_CALLS, chat)):
                if chat[k].role != "assistant":
                    continue
                for call in chat[k].calls:
                    if call.name == "tool_search" or (exclude and call.name in exclude):
                        continue
                    places = results.get(call.id, ())
                    n = bisect_left(places, k + 1)
                    if n < len(places):
                        self.uses.append((k, call, places[n]))
        except TypeError:  # an id that cannot be looked up in a dict
            self.sound, self.uses = False, []
        self.at = list(map(_FIRST, self.uses))
        self.reach = list(accumulate(map(_THIRD, self.uses), max))


class Walked:
    """What CompactionEdit's last pass found from where it settled: the uses there (message, call, result
    positions in its result) and that result's length. The next pass, on that result with messages
    appended, finds the same uses there again (see ``edit``): only the messages appended are walked."""

    def __init__(self) -> None:
        self.uses: list[tuple[int, WireCall, int]] = []
        self.end = 0
        self.settled = 0  # where that pass settled: its uses are those from there on


def _walk(result: list[Item], start: int, exclude: Any, uses: list[tuple[int, WireCall, int]]) -> None:
    """The uses from ``start`` on, as the library finds them: each call (but tool_search and those excluded)
    of each assistant message, with the first result after it that answers it."""
    size = len(result)
    for i in compress(count(start), map(_CALLS, result[start:])):  # the messages with calls, found in C
        item = result[i]
        if item.role != "assistant":
            continue
        after = result[i + 1] if i + 1 < size else None  # mostly the result right after its call
        answers = after is not None and after.role == "tool"
        for call in item.calls:
            if call.name == "tool_search" or (exclude and call.name in exclude):
                continue
            if answers and after.call_id == call.id:  # type: ignore[union-attr]
                found: int | None = i + 1
            else:
                found = next(
                    (j for j in range(i + 1, size) if result[j].role == "tool" and result[j].call_id == call.id),
                    None,
                )
            if found is not None:
                uses.append((i, call, found))


def edit(
    items: list[Item],
    s: dict[str, Any],
    settled: int = 0,
    counter: InspectCounter | None = None,
    walked: Walked | None = None,
    in_place: bool = False,
) -> Compacted:
    """``CompactionEdit.compact``: clear all but the newest ``keep_tool_uses`` tool results.

    Before ``settled`` every tool use is cleared already and none has its result after it: a pass from
    there clears what a pass over the whole view would (the newest uses are all after it) and leaves the
    messages before it as they are, a cleared result being cleared again to the same text. That holds for
    the views of a chat ``settles`` accepts; for any other the handler passes 0.

    ``walked``: what the last pass found from ``settled`` on, when ``items`` is its result with messages
    appended. On those views a message before that result's end keeps its calls and the results it had
    then (each result comes before the next assistant message, and a view ends before one): a walk over
    them would find the same uses at the same positions, a cleared result being found as its copy.
    ``in_place``: ``items`` is the caller's to give away (the handler's view, replaced by the result)."""
    result = items if in_place else list(items)
    exclude = s["exclude_tools"]
    uses: list[tuple[int, WireCall, int]] = []
    size = len(result)
    start = settled
    appended = None
    if walked is not None and settled <= walked.end <= size:
        uses = list(walked.uses) if settled == walked.settled else [use for use in walked.uses if use[0] >= settled]
        start = walked.end
        if counter is not None:
            appended = counter.uses_in_run(result, start, exclude)
    if appended is not None:
        uses.extend(appended)
    else:
        _walk(result, start, exclude, uses)
    keep = s["keep_tool_uses"]
    if keep > 0 and len(uses) > keep:
        clear = uses[:-keep]
    elif keep == 0:
        clear = uses
    else:
        clear = []
    # the next pass starts at the oldest use kept (its message may hold cleared calls too), or past them all
    kept = uses[len(clear) :]
    following = kept[0][0] if kept else max((ti for _, _, ti in uses), default=settled - 1) + 1
    removed = 0
    if counter is not None and s["keep_tool_inputs"] and clear:
        # each result's cleared copy looked up in C (the same copy every time: its count is remembered)
        places = list(map(_THIRD, clear))
        for ti, copy in zip(places, list(map(counter.copy_of.get, map(result.__getitem__, places)))):
            result[ti] = copy if copy is not None else counter.cleared(result[ti])
        clear = []
    for ai, call, ti in reversed(clear):
        if s["keep_tool_inputs"]:
            done = result[ti]
            result[ti] = counter.cleared(done) if counter else done.cleared(TOOL_RESULT_REMOVED)
        else:
            try:
                del result[ti]
            except IndexError as exc:  # two calls with one id: the library deletes their result twice too
                raise PolicyRaises("IndexError", str(exc)) from None
            removed += ti < following
            owner = result[ai]
            calls = tuple(c for c in owner.calls if c.id != call.id)
            content = owner.content
            if isinstance(content, str) or content is None:
                parts = (
                    [{"type": "text", "text": content}, _placeholder_text(call.name)]
                    if content
                    else [_placeholder_text(call.name)]
                )
            else:
                parts = [*content, _placeholder_text(call.name)]
            result[ai] = replace(owner, calls=calls, content=parts)
    following -= removed
    if s["memory"]:
        # what the last pass left is left as it is again (its memory calls cleared, its results copies)
        result[start:] = _memory_cleared(result[start:], counter)
    while result and result[-1].role == "assistant":
        result.pop()
    # trailing assistant messages popped may reach into the settled ones: what is appended next starts there
    following = min(max(settled, following), len(result))
    if walked is not None:
        # a walk from ``following`` finds the uses kept, and those cleared in the message of the oldest one
        # kept (their results cleared, not deleted: the handler passes ``walked`` only when inputs are kept);
        # none popped (a trailing assistant message's calls have no result in its view)
        walked.uses = uses[bisect_left(uses, following, key=_FIRST) :]  # uses are in their messages' order
        walked.end, walked.settled = len(result), following
    return result, settled, following


def trim(items: list[Item], s: dict[str, Any], settled: int = 0, counter: InspectCounter | None = None) -> Compacted:
    """``CompactionTrim.compact`` (``_trim.trim_messages`` with ``preserve``)."""
    preserve = s["preserve"]
    if not 0 <= preserve <= 1:
        raise PolicyRaises("ValueError", f"preserve must be in range [0,1], got {preserve}")
    roles = list(map(_ROLE, items))
    if "system" in roles:
        flags = list(map(_SYSTEM, roles))
        system = list(compress(items, flags))
        conversation = list(compress(items, map(not_, flags)))
        roles = list(compress(roles, map(not_, flags)))
    else:
        system, conversation = [], items
    first_user = roles.index("user") if "user" in roles else len(conversation) - 1
    given, conversation = conversation[: first_user + 1], conversation[first_user + 1 :]
    start = int(len(conversation) * (1 - preserve))
    head = system + given
    shortcut = _trim_run(counter, conversation, start, head, s["memory"]) if counter is not None else None
    if shortcut is not None:
        result = shortcut
    else:
        result = head + _trim_conversation(conversation[start:], counter)
        if s["memory"]:
            result = _memory_cleared(result, counter)
    shared = 0
    while shared < len(head) and shared < len(items) and result[shared] is items[shared]:
        shared += 1
    return result, shared, 0


def _trim_conversation(conversation: list[Item], counter: InspectCounter | None) -> list[Item]:
    """``trim_messages`` on the conversation from its start: each tool message kept when the assistant
    message before it called it, calls without their result taken out of their message, a last assistant
    message popped."""
    kept: list[Item] = []
    answered: set[Any] = set()
    active: Any = ()
    ids_of = counter.call_ids if counter is not None else _call_ids
    keep, answer = kept.append, answered.add
    for item in conversation:
        role = item.role
        if role == "tool":
            if item.call_id in active:
                keep(item)
                answer(item.call_id)
        elif role == "assistant":
            active = ids_of(item) if item.calls else ()
            keep(item)
        elif role == "user":
            active = ()
            keep(item)
    clean = [
        item
        if not item.calls or ids_of(item) <= answered
        else replace(item, calls=tuple(c for c in item.calls if c.id in answered))
        for item in kept
    ]
    if clean and clean[-1].role == "assistant":
        clean.pop()
    return clean


def _trim_run(
    counter: InspectCounter, conversation: list[Item], start: int, head: list[Item], memory: bool
) -> list[Item] | None:
    """What CompactionTrim keeps when the conversation is a run of the chat's own messages (as it is once
    the handler has trimmed it: the head, then the chat from some message on), from the chat's facts; None
    when the run holds what only the pass over each message settles (see ``TrimFacts``)."""
    if not conversation:
        return None
    facts = counter.trim_facts()
    chat = counter.chat
    at = counter.where.get(conversation[0])
    if facts is None or at is None or at + len(conversation) > len(chat):
        return None
    end = at + len(conversation)
    if not all(map(is_, conversation, chat[at:end])):
        return None
    first = min(facts.next_turn[at + start], end)
    if facts.flaws[end] != facts.flaws[first] or not (end == len(chat) or facts.turn[end]):
        return None
    if first < end and chat[end - 1].role == "assistant":
        end -= 1
    if not memory:
        return head + chat[first:end]
    if facts.memory[end] != facts.memory[first]:
        return None
    return _memory_cleared(head, counter) + chat[first:end]


class TrimFacts:
    """What ``trim_messages`` does to a run of a chat's messages, per chat. A run that starts at an assistant
    or user message (those before it, results and other roles, go: no call is active there) is kept whole
    and unchanged when it holds no other role, every result in it answers the assistant message before it
    (no user message between), every assistant message in it has all its calls answered between it and the
    next assistant or user message, and it ends where such a message starts or at the chat's end (its last
    calls are answered inside it). ``flaws`` counts, before each position, the messages that break that."""

    def __init__(self, chat: list[Item], counter: InspectCounter):
        size = len(chat)
        self.turn = [m.role in ("assistant", "user") for m in chat]
        self.next_turn = [size] * (size + 1)
        following = size
        for k in range(size - 1, -1, -1):
            if self.turn[k]:
                following = k
            self.next_turn[k] = following
        flawed = [False] * size
        owner = -1
        for k, item in enumerate(chat):
            role = item.role
            if role == "tool":
                mine = owner >= 0 and chat[owner].role == "assistant" and chat[owner].calls
                flawed[k] = not mine or item.call_id not in counter.call_ids(chat[owner])
            elif self.turn[k]:
                owner = k
                if role == "assistant" and item.calls:
                    answers = {m.call_id for m in chat[k + 1 : self.next_turn[k + 1]] if m.role == "tool"}
                    flawed[k] = not counter.call_ids(item) <= answers
            else:
                flawed[k] = True
        self.flaws = [0, *accumulate(flawed)]
        self.memory = [0, *accumulate(m is not n for m, n in zip(chat, _memory_cleared(chat, counter)))]
        self.systems = [0, *accumulate(map(_SYSTEM, map(_ROLE, chat)))]
        self.assistant = [m.role == "assistant" for m in chat]


class TrimRuns(NamedTuple):
    """CompactionTrim's view as ``Handler._run_runs`` takes it: ``head + chat[a:b] + chat[c:seen]``."""

    head: list[Item]
    head_state: tuple[int, str | None]  # the count state after the head
    a: int
    b: int
    c: int
    state: tuple[int, str | None]  # the view's


STRATEGIES: dict[str, Callable[[list[Item], dict[str, Any], int, InspectCounter | None], Compacted]] = {
    "edit": edit,
    "trim": trim,
}


# -- the compaction() handler ----------------------------------------------------------------------
class Handler:
    def __init__(self, kind: str, settings: dict[str, Any], prefix: list[Item], counter: InspectCounter):
        self.strategy = STRATEGIES[kind]
        self.settings = settings
        self.prefix = prefix
        self.count = counter.count
        threshold = settings["threshold"]
        self.threshold = threshold_tokens(threshold, settings["context_window"])
        self.counter = counter
        self.compacted: list[Item] = []
        self.settled = 0  # the strategy's own: its last result's leading messages it would leave as they are
        self.seen = 0  # the history's messages taken in: react() passes the history, which only grows
        # CompactionEdit starts where it settled, anywhere: only the state there is kept (``settled_state``; a
        # state for each of 20,000 messages at every compaction was most of its time). CompactionTrim keeps at
        # most the system messages and the input (``shared``), so only their states are worth keeping
        self.follows_settled = kind == "edit"
        self.settled_state: tuple[int, str | None] = (0, None)
        self.walked = Walked()  # what the last pass found from where it settled (see ``edit``)
        # whether it may (``settles``), for the messages last given; a prefix put back (its results cleared, its
        # calls memory-cleared) sits beside its copies: from then on only if that view settles too
        self.chat_settles: tuple[list[Item], bool] | None = None
        self.view_settles = True
        if self.follows_settled:
            counter.clear_base()
        self.limit = 0 if self.follows_settled else len(prefix) + counter.systems()
        self.view = counter.running(self.limit)  # the count of ``compacted``, kept as it grows
        self.fired: list[tuple[int, int, int]] = []  # (messages seen, tokens before, tokens after) per compaction
        self.last_total = 0

    def compact_input(self, messages: list[Item], count: int) -> None:
        """``compact_input(messages[:count])``: the messages not taken in yet are appended to the view (the
        handler's ``processed_message_ids``: every message of an earlier call), compacted if over."""
        if self.follows_settled and (self.chat_settles is None or self.chat_settles[0] is not messages):
            self.chat_settles = messages, self.counter.edit_settles(messages)
        unprocessed = messages[self.seen : count]
        self.seen = count
        self.compacted.extend(unprocessed)
        self.view.extend(unprocessed)
        total = TOOL_TOKENS + self.view.total()
        self.last_total = total
        if total > self.threshold:
            result, counted = self._perform(self.compacted, self.view)
            prefix = self.prefix
            missing: list[Item] = []
            if not all(map(is_, prefix, result)) or len(result) < len(prefix):
                # once put back, the prefix stays near the start (CompactionEdit clears its results after it)
                present = set(result[: 4 * len(prefix) + 64])  # items hash and compare by identity
                if not present.issuperset(prefix):
                    present = set(result)
                missing = [m for m in prefix if m not in present]
            if missing:  # the prefix put back, before the conversation: its count is the new list's
                lead = 0
                while lead < len(result) and result[lead].role == "system":
                    lead += 1
                result = (
                    [m for m in missing if m.role == "system"]
                    + result[:lead]
                    + [m for m in missing if m.role != "system"]
                    + result[lead:]
                )
                self.settled, self.settled_state = 0, (0, None)
                # a result put back sits before every call in the view, which never finds it: only an assistant
                # message put back can call an id its copy still calls
                if self.follows_settled and self.view_settles and any(map(_CALLS, missing)):
                    self.view_settles = settles(result)
                counted = self.counter.running(self.limit)
                counted.extend(result)
            self.compacted = result
            self.view = counted
            self.fired.append((count, total, TOOL_TOKENS + self.view.total()))

    def run(self, messages: list[Item]) -> None:
        """``compact_input`` at every call react() makes (``InspectCounter.calls``), as a loop over them would,
        but only at those it can fire at. While the view's open chunk is the chat's own at ``seen``, the
        view at a later call is the chat's run after its own state there: its raw count is ``base`` plus the
        chat's own count at the call, so the first call over the threshold is found in one scan in C (the
        counts may go down by a token where a message joins the chunk before it: not bisected)."""
        at, raws = self.counter.calls()
        marks = self.counter.chat_marks
        cutoff = self._cutoff()
        i, size = 0, len(at)
        runs = self._runs_possible(messages)
        due = runs  # look for the shape ``_run_runs`` takes: after the first call, then after each compaction
        while i < size:
            if due and self.seen:
                due = False
                shape = self._as_runs()
                if shape is not None:
                    i = self._run_runs(shape, i, cutoff)
                    continue
            closed, chunk = marks[self.seen]
            if self.view.chunk is chunk or self.view.chunk == chunk:
                i = _first_at_least(raws, cutoff - (self.view.closed - closed), i)
            fired = len(self.fired)
            self.compact_input(messages, at[i])
            i += 1
            due = due or (runs and len(self.fired) > fired)

    # -- CompactionTrim on runs of the chat -------------------------------------------------------
    # Once trimmed, CompactionTrim's view is its head (the system messages and the input up to the first user
    # message) then a run of the chat's own messages: ``chat[a:b]``, then ``chat[c:seen]`` once a trailing
    # assistant message was popped (b < c). A pass over it is then the run ``TrimFacts`` settles from the chat's
    # facts, and the view's count the head's then the chat's running sums: each compaction takes a few steps
    # instead of passes over the view's messages (a 20,000-message chat compacts hundreds of times). Any
    # other shape, or a pass the facts do not settle, is left to ``compact_input`` (the view written out).
    def _runs_possible(self, messages: list[Item]) -> bool:
        preserve = self.settings.get("preserve")
        return (
            self.strategy is trim
            and isinstance(preserve, (int, float))
            and 0 <= preserve <= 1
            and self.counter.is_chat(messages)
            and self.counter.trim_facts() is not None
        )

    def _as_runs(self) -> TrimRuns | None:
        """The view as a head and a run of the chat (None: another shape). The head ends at the view's first
        user message and holds its system messages first; the run holds none; the head keeps the input
        react() keeps and clearing the memory tool's content leaves it as it is."""
        counter, view = self.counter, self.compacted
        roles = list(map(_ROLE, view))
        if "user" not in roles:
            return None
        q = roles.index("user") + 1
        systems = roles.count("system")
        if roles[:systems] != ["system"] * systems or "system" in roles[systems:]:
            return None
        head, rest = view[:q], view[q:]
        chat = counter.chat
        if rest:
            a = counter.where.get(rest[0])
            if a is None or a + len(rest) > self.seen or not all(map(is_, rest, chat[a : a + len(rest)])):
                return None
            b = a + len(rest)
        else:
            a = b = self.seen
        if not set(head).issuperset(self.prefix):  # items hash by identity
            return None
        if self.settings["memory"] and not all(map(is_, _memory_cleared(head, counter), head)):
            return None
        counted = Running(counter, limit=0)
        counted.extend(head)
        return TrimRuns(head, (counted.closed, counted.chunk), a, b, self.seen, (self.view.closed, self.view.chunk))

    def _run_runs(self, shape: TrimRuns, i: int, cutoff: int) -> int:
        """``run`` from call ``i`` while the view keeps its shape; where it would not, the view is written out
        and the call it stopped at is returned (the size of the calls once done)."""
        counter, threshold = self.counter, self.threshold
        at, raws = counter.calls()
        marks = counter.chat_marks
        head, a, b, c, state = shape.head, shape.a, shape.b, shape.c, shape.state
        size = len(at)
        while i < size:
            seen = self.seen
            closed, chunk = state
            mark = marks[seen]
            if chunk is mark[1] or chunk == mark[1]:
                i = _first_at_least(raws, cutoff - (closed - mark[0]), i)
            count = at[i]
            grown = self._appended(state, seen, count)
            total = TOOL_TOKENS + self._tokens(grown)
            if total > threshold:
                done = self._trim_passes(shape, a, b, c, count, total)
                if done is None:
                    self._write_out(head, a, b, c, state)
                    return i
                a, b, grown, after = done
                c = count
                self.fired.append((count, total, after))
            self.seen, self.last_total, state = count, total, grown
            i += 1
        self._write_out(head, a, b, c, state)
        return size

    def _trim_passes(
        self, shape: TrimRuns, a: int, b: int, c: int, y: int, total: int
    ) -> tuple[int, int, tuple[int, str | None], int] | None:
        """``_perform`` on the view ``head + chat[a:b] + chat[c:y]``: the run kept, its count state and total
        (None: a pass the chat's facts do not settle, or one that raises)."""
        span = (a, b, c, y)
        for attempt in range(4):  # a pass, then up to three more while it still helps
            step = self._trim_step(*span)
            if step is None:
                return None
            first, end = step
            state = self._appended(shape.head_state, first, end)
            previous, total = total, TOOL_TOKENS + self._tokens(state)
            if total <= self.threshold or (attempt and total >= previous):
                break
            span = (first, end, end, end)
        if total > self.threshold:
            return None
        return first, end, state, total

    def _trim_step(self, a: int, b: int, c: int, y: int) -> tuple[int, int] | None:
        """``trim`` of ``head + chat[a:b] + chat[c:y]``: the result is the head then ``chat[first:end]``
        (None: not a run the chat's facts settle)."""
        facts = self.counter.trim_facts()
        assert facts is not None
        systems = facts.systems
        if systems[b] != systems[a] or systems[y] != systems[c]:  # a system message would join the head
            return None
        before = b - a
        start = int((before + y - c) * (1 - self.settings["preserve"]))
        if start < before:
            if b != c:  # the trimmed conversation holds the messages popped: not a run
                return None
            at = a + start
        else:
            at = c + start - before
        if at >= y:  # nothing of the conversation is kept
            return y, y
        first = min(facts.next_turn[at], y)
        if facts.flaws[y] != facts.flaws[first] or not (y == len(facts.turn) or facts.turn[y]):
            return None
        end = y - 1 if first < y and facts.assistant[y - 1] else y
        if self.settings["memory"] and facts.memory[end] != facts.memory[first]:
            return None
        return first, end

    def _appended(self, state: tuple[int, str | None], start: int, end: int) -> tuple[int, str | None]:
        """The count state of a list in ``state`` with the chat's ``[start:end]`` appended: the chat's own sums
        once the open chunk is the chat's own (after one message, mostly)."""
        if start >= end:
            return state
        counter = self.counter
        marks = counter.chat_marks
        if state[1] is not marks[start][1]:
            counted = Running(counter, [state], 0)
            counted.extend(counter.chat[start : start + 1])
            start += 1
            if start == end or counted.chunk is not marks[start][1]:
                counted.extend(counter.chat[start:end])
                return counted.closed, counted.chunk
            state = (counted.closed, counted.chunk)
        return state[0] - marks[start][0] + marks[end][0], marks[end][1]

    def _tokens(self, state: tuple[int, str | None]) -> int:
        closed, chunk = state
        return max(1, int((closed + (self.counter.open(chunk) if chunk is not None else 0)) * 1.1))

    def _write_out(self, head: list[Item], a: int, b: int, c: int, state: tuple[int, str | None]) -> None:
        """The view as ``compact_input`` keeps it: its messages, and its count with the states it starts from."""
        chat = self.counter.chat
        self.compacted = head + chat[a:b] + chat[c : self.seen]
        self.view = self.counter.running(self.limit)
        self.view.extend(self.compacted)

    def _cutoff(self) -> int:
        """The least raw count a call fires at (the count is ``max(1, int(raw * 1.1))``: rising with it)."""
        low, high = 0, max(0, self.threshold) + 1
        while low < high:
            middle = (low + high) // 2
            if TOOL_TOKENS + max(1, int(middle * 1.1)) > self.threshold:
                high = middle
            else:
                low = middle + 1
        return low

    def _pass(self, messages: list[Item], counted: Running) -> tuple[list[Item], Running]:
        sound = self.chat_settles is not None and self.chat_settles[1] and self.view_settles
        if self.follows_settled:
            if not sound or self.settled == 0:
                self.walked = Walked()
            # without the inputs, results are deleted by positions the deletions before have moved: a walk
            # again may find other uses
            walked = self.walked if sound and self.settings["keep_tool_inputs"] else None
            # the view is the handler's own, replaced by the result: not copied at every pass
            out, shared, self.settled = edit(messages, self.settings, self.settled, self.counter, walked, True)
        else:
            out, shared, self.settled = self.strategy(messages, self.settings, self.settled, self.counter)
        if self.follows_settled:  # CompactionEdit left the ``shared`` (what it was given as settled) as they were
            if not sound:  # every pass over the whole view, as the library makes it
                self.settled = 0
            again = Running(self.counter, [self.settled_state], 0)
            again.extend(out[shared : self.settled])
            self.settled_state = (again.closed, again.chunk)
            again.extend(out[self.settled :])
            return out, again
        again = counted.start(shared)
        again.extend(out[shared:])
        return out, again

    def _perform(self, messages: list[Item], counted: Running) -> tuple[list[Item], Running]:
        """The strategy, again while over and shrinking (at most 3 more passes); the result and its count."""
        out, counted = self._pass(messages, counted)
        messages_tokens = counted.total()
        total = TOOL_TOKENS + messages_tokens
        for _ in range(3):
            if total <= self.threshold:
                break
            previous = total
            out, counted = self._pass(out, counted)
            messages_tokens = counted.total()
            total = TOOL_TOKENS + messages_tokens
            if total >= previous:
                break
        if total > self.threshold:
            prefix_tokens = self.count(self.prefix) if self.prefix else 0
            raise PolicyRaises(
                "RuntimeError",
                f"Compaction insufficient: {total:,} tokens still exceeds threshold of {self.threshold:,} "
                f"(tools: {TOOL_TOKENS:,}, prefix: {prefix_tokens:,}, messages: {messages_tokens:,}). "
                "Consider using a lower compaction threshold to accommodate tool definitions and prefix.",
            )
        return out, counted


def _first_at_least(values: list[int], need: int, start: int) -> int:
    """The first index from ``start`` whose value is at least ``need``, else the last index: looked for in
    C, in windows that double (the next compaction is mostly near; a slice from ``start`` to the end at
    every compaction would copy the rest of the chat's calls each time)."""
    size, step = len(values), 16
    while start < size:
        end = min(size, start + step)
        found = next(compress(count(start), map(need.__le__, values[start:end])), None)
        if found is not None:
            return found
        start, step = end, step * 4
    return size - 1


def threshold_tokens(threshold: Any, context_window: int) -> int:
    """``_resolve_threshold``: an int or a float > 1 is tokens; a fraction <= 1 of the context window."""
    if isinstance(threshold, int) or threshold > 1.0:
        return int(threshold)
    return int(threshold * context_window)


def prefix_of(items: list[Item]) -> list[Item]:
    """What react() keeps: the system messages and the input up to the first user message."""
    out = []
    for item in items:
        out.append(item)
        if item.role == "user":
            break
    return out


def replay(kind: str, items: list[Item], settings: dict[str, Any], counter: InspectCounter) -> Outcome:
    """The handler before every assistant message, then once more with the whole chat."""
    if settings["threshold"] == "always":
        result = STRATEGIES[kind](items, settings, 0, counter)[0]
        summary = f"Compaction{kind.title()} applied to the whole chat (threshold=always: the strategy alone)"
        return _outcome(items, result, summary, counter, None)
    counter.base(items)
    items = counter.chat  # the same messages, which every later check then finds without comparing them
    handler = Handler(kind, settings, prefix_of(items), counter)
    handler.run(items)
    return _outcome(items, list(handler.compacted), replay_summary(handler), counter, handler)


def replay_summary(handler: Handler) -> str:
    """What a replay did, in the library's terms: its compactions and the last one, or that none fired."""
    if handler.fired:
        seen, before, after = handler.fired[-1]
        return (
            f"compacted {len(handler.fired)} time(s); last at {seen} messages: {before:,} > threshold "
            f"{handler.threshold:,} tokens, {after:,} after"
        )
    return f"{handler.last_total:,} <= threshold {handler.threshold:,} tokens: never compacted"


def _outcome(
    items: list[Item], result: list[Item], summary: str, counter: InspectCounter, handler: Handler | None
) -> Outcome:
    # in C where it goes over every item: a compaction may leave half of 20,000 messages out
    if items is counter.chat and counter.unflagged():  # the flag is then on the copies ``Item.cleared`` made
        flagged = compress(result, map(is_, map(_EXTRA, result), repeat(_FLAGGED)))
    else:
        flagged = compress(result, map(_CLEARED_FLAG, map(_EXTRA, result)))
    cleared = set(filter(_NOT_NEGATIVE, map(_ORIGIN, flagged)))
    unsent = counter.unsent(items) if not cleared and 2 * len(result) < len(items) else None
    if unsent is not None:  # most of the chat left out (CompactionTrim): the notes of all but the few sent
        left, calls_left = unsent[0].copy(), unsent[1].copy()
        for k in map(counter.where.get, result):
            if k is not None:
                left.pop(k, None)
        for origin in map(_ORIGIN, chain.from_iterable(map(_CALLS, result))):
            calls_left.pop(origin, None)
        return _made(items, result, summary, counter, handler, left, cleared, calls_left)
    sent = set(result)  # items hash and compare by identity
    hidden = list(compress(range(len(items)), map(not_, map(sent.__contains__, items))))
    notes: dict[int, str] = dict.fromkeys(hidden, REMOVED)
    hidden_items = list(map(items.__getitem__, hidden))
    tool = list(map(_TOOL, map(_ROLE, hidden_items)))
    tools = list(compress(hidden_items, tool))
    notes.update(
        zip(compress(hidden, tool), map(TOOL_NOTES.__getitem__, map(cleared.__contains__, map(_ORIGIN, tools))))
    )
    last = len(items) - 1
    if hidden and hidden[-1] == last and items[last].role == "assistant":
        notes[last] = TRAILING
    by_origin: dict[int, str] = {}
    callers = list(compress(hidden_items, map(_CALLS, hidden_items)))
    if callers:
        kept_calls = set(map(_ORIGIN, chain.from_iterable(map(_CALLS, result))))
        for item in callers:
            for call in item.calls:
                if call.origin not in kept_calls:
                    by_origin[call.origin] = CALL_REMOVED
    return _made(items, result, summary, counter, handler, notes, cleared, by_origin)


def _made(
    items: list[Item],
    result: list[Item],
    summary: str,
    counter: InspectCounter,
    handler: Handler | None,
    notes: dict[int, str],
    cleared: set[int],
    by_origin: dict[int, str],
) -> Outcome:
    per = counter.singles(items)
    total = handler.last_total if handler is not None else TOOL_TOKENS + counter.count(items)
    outcome = Outcome(result, summary, "kept", notes, cleared, tokens=per, total=total)
    outcome.by_origin = by_origin
    return outcome


REMOVED = "removed by the compaction"
CLEARED_NOTE = f"an older tool use: its result replaced by {TOOL_RESULT_REMOVED!r}"
TRAILING = "a trailing assistant message: compaction pops it"
TOOL_NOTES = ["removed by the compaction (a tool use cleared with its call, or trimmed)", CLEARED_NOTE]  # by cleared
CALL_REMOVED = "its call removed with its result (keep_tool_inputs=false) or trimmed"
_EXTRA, _ROLE, _ORIGIN, _CALLS = attrgetter("extra"), attrgetter("role"), attrgetter("origin"), attrgetter("calls")
_CLEARED_FLAG = methodcaller("get", "cleared")
_TOOL = "tool".__eq__
_SYSTEM = "system".__eq__
_FIRST, _SECOND, _THIRD = itemgetter(0), itemgetter(1), itemgetter(2)
_NOT_NEGATIVE = (-1).__lt__
