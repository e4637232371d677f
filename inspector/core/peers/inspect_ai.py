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
from collections.abc import Callable
from dataclasses import replace
from typing import Any, NamedTuple

from inspector.core import tokens
from inspector.core.peers.outcome import Outcome, PolicyRaises
from inspector.core.peers.wire import Item, WireCall

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
        self.chat: list[Item] = []  # the chat replayed, its messages' positions and its state after each
        self.where: dict[int, int] = {}
        self.chat_marks: list[tuple[int, str | None]] = [(0, None)]

    def base(self, items: list[Item]) -> None:
        """Keep the chat's running sums: a view is mostly runs of the chat's own messages."""
        if self.chat == items:  # each plan passes a copy of the same messages: compared by identity, in C
            return
        self.chat, self.where = [], {}
        running = Running(self)
        running.extend(items)
        self.chat, self.where, self.chat_marks = items, {id(m): k for k, m in enumerate(items)}, running.marks

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
        total, chunk = self.closed, self.chunk
        j, size, end = 0, len(items), len(chat)
        while j < size:
            item = items[j]
            h = where.get(id(item))
            if h is not None and chat[h] is item and chunk is chat_marks[h][1]:
                r = h + 1
                j += 1
                while j < size and r < end and items[j] is chat[r]:
                    r += 1
                    j += 1
                base = total - chat_marks[h][0]
                if limit is None or len(marks) <= limit:
                    marks.extend((base + c, k) for c, k in chat_marks[h + 1 : r + 1])
                total, chunk = base + chat_marks[r][0], chat_marks[r][1]
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


def _memory_cleared(items: list[Item]) -> list[Item]:
    out = []
    for item in items:
        if item.role == "assistant" and item.calls:
            calls, changed = [], False
            for call in item.calls:
                args = call.arguments
                if call.name == MEMORY_TOOL and isinstance(args, dict) and any(a in args for a in MEMORY_CONTENT_ARGS):
                    cleared = {
                        k: "(content saved to memory)" if k in MEMORY_CONTENT_ARGS else v for k, v in args.items()
                    }
                    if cleared != args:
                        call = WireCall(call.id, call.name, cleared, call.origin)
                        changed = True
                calls.append(call)
            if changed:
                item = replace(item, calls=tuple(calls))
        out.append(item)
    return out


def _placeholder_text(name: Any) -> dict[str, str]:
    return {"type": "text", "text": f"[Tool call: {name} (parameters and results removed from history)]"}


def edit(items: list[Item], s: dict[str, Any], settled: int = 0, counter: InspectCounter | None = None) -> Compacted:
    """``CompactionEdit.compact``: clear all but the newest ``keep_tool_uses`` tool results.

    Before ``settled`` every tool use is cleared already and none has its result after it: a pass from
    there clears what a pass over the whole view would (the newest uses are all after it) and leaves the
    messages before it as they are, a cleared result being cleared again to the same text."""
    result = list(items)
    exclude = s["exclude_tools"]
    uses: list[tuple[int, WireCall, int]] = []
    size = len(result)
    for i in range(settled, size):
        item = result[i]
        if item.role == "assistant" and item.calls:
            for call in item.calls:
                if call.name == "tool_search" or (exclude and call.name in exclude):
                    continue
                found = next(
                    (j for j in range(i + 1, size) if result[j].role == "tool" and result[j].call_id == call.id),
                    None,
                )
                if found is not None:
                    uses.append((i, call, found))
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
    for ai, call, ti in reversed(clear):
        if s["keep_tool_inputs"]:
            done = result[ti]
            result[ti] = counter.cleared(done) if counter else done.cleared(TOOL_RESULT_REMOVED)
        else:
            del result[ti]
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
        result[settled:] = _memory_cleared(result[settled:])
    while result and result[-1].role == "assistant":
        result.pop()
    return result, settled, max(settled, min(following, len(result)))


def trim(items: list[Item], s: dict[str, Any], settled: int = 0, counter: InspectCounter | None = None) -> Compacted:
    """``CompactionTrim.compact`` (``_trim.trim_messages`` with ``preserve``)."""
    preserve = s["preserve"]
    if not 0 <= preserve <= 1:
        raise PolicyRaises("ValueError", f"preserve must be in range [0,1], got {preserve}")
    system = [m for m in items if m.role == "system"]
    conversation = [m for m in items if m.role != "system"] if system else items
    first_user = next((k for k, m in enumerate(conversation) if m.role == "user"), len(conversation) - 1)
    given, conversation = conversation[: first_user + 1], conversation[first_user + 1 :]
    start = int(len(conversation) * (1 - preserve))
    kept: list[Item] = []
    active: Any = ()
    for item in conversation[start:]:
        role = item.role
        if role == "assistant":
            active = {c.id for c in item.calls} if item.calls else ()
            kept.append(item)
        elif role == "tool":
            if item.call_id in active:
                kept.append(item)
        elif role == "user":
            active = ()
            kept.append(item)
    answered = {m.call_id for m in kept if m.role == "tool"}
    clean = [
        item
        if not item.calls or all(c.id in answered for c in item.calls)
        else replace(item, calls=tuple(c for c in item.calls if c.id in answered))
        for item in kept
    ]
    if clean and clean[-1].role == "assistant":
        clean.pop()
    head = system + given
    result = head + clean
    if s["memory"]:
        result = _memory_cleared(result)
    shared = 0
    while shared < len(head) and shared < len(items) and result[shared] is items[shared]:
        shared += 1
    return result, shared, 0


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
        # CompactionEdit starts where it settled, anywhere; CompactionTrim keeps at most the system messages
        # and the input (``shared``), so only their states are worth keeping
        self.limit = None if kind == "edit" else len(prefix) + sum(m.role == "system" for m in counter.chat)
        self.view = counter.running(self.limit)  # the count of ``compacted``, kept as it grows
        self.fired: list[tuple[int, int, int]] = []  # (messages seen, tokens before, tokens after) per compaction
        self.last_total = 0

    def compact_input(self, messages: list[Item], count: int) -> None:
        """``compact_input(messages[:count])``: the messages not taken in yet are appended to the view (the
        handler's ``processed_message_ids``: every message of an earlier call), compacted if over."""
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
            if not all(a is b for a, b in zip(prefix, result)) or len(result) < len(prefix):
                ids = {id(m) for m in result}
                missing = [m for m in prefix if id(m) not in ids]
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
                counted = self.counter.running(self.limit)
                counted.extend(result)
                self.settled = 0
            self.compacted = result
            self.view = counted
            self.fired.append((count, total, TOOL_TOKENS + self.view.total()))

    def _pass(self, messages: list[Item], counted: Running) -> tuple[list[Item], Running]:
        out, shared, self.settled = self.strategy(messages, self.settings, self.settled, self.counter)
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
    handler = Handler(kind, settings, prefix_of(items), counter)
    for k, item in enumerate(items):
        if item.role == "assistant" and k > 0:
            handler.compact_input(items, k)
    handler.compact_input(items, len(items))
    result = list(handler.compacted)
    fired = handler.fired
    if fired:
        seen, before, after = fired[-1]
        summary = (
            f"compacted {len(fired)} time(s); last at {seen} messages: {before:,} > threshold "
            f"{handler.threshold:,} tokens, {after:,} after"
        )
    else:
        summary = f"{handler.last_total:,} <= threshold {handler.threshold:,} tokens: never compacted"
    return _outcome(items, result, summary, counter, handler)


def _outcome(
    items: list[Item], result: list[Item], summary: str, counter: InspectCounter, handler: Handler | None
) -> Outcome:
    sent = {id(m) for m in result}
    cleared = {m.origin for m in result if m.extra.get("cleared") and m.origin >= 0}
    notes: dict[int, str] = {}
    kept_calls = {c.origin for m in result for c in m.calls}
    by_origin: dict[int, str] = {}
    for k, item in enumerate(items):
        if id(item) in sent:
            continue
        if item.role == "tool" and item.origin in cleared:
            notes[k] = f"an older tool use: its result replaced by {TOOL_RESULT_REMOVED!r}"
        elif item.role == "tool":
            notes[k] = "removed by the compaction (a tool use cleared with its call, or trimmed)"
        elif item.role == "assistant" and k == len(items) - 1:
            notes[k] = "a trailing assistant message: compaction pops it"
        else:
            notes[k] = "removed by the compaction"
        for call in item.calls:
            if call.origin not in kept_calls:
                by_origin[call.origin] = "its call removed with its result (keep_tool_inputs=false) or trimmed"
    per = [counter.count_one(i) for i in items]
    total = handler.last_total if handler is not None else TOOL_TOKENS + counter.count(items)
    outcome = Outcome(result, summary, "kept", notes, cleared, tokens=per, total=total)
    outcome.by_origin = by_origin
    return outcome
