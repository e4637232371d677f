"""A chat in the Chat Completions shape the other frameworks take, and back, message for message.

scout-ai stores a response's tool calls one message each (``function_call``) with each output right
after its call (``function_call_output``). The libraries take OpenAI's shape: one assistant message
holding the response's text and ``tool_calls``, then one ``tool`` message per output. A response here is
what ``calls`` counts as one (a run of assistant/function_call messages), unless the file itself said
otherwise: an OpenAI chat records which calls shared an assistant message and which tool messages had a
``name`` (``Chat.wire``), so such a file converts back to exactly what it held.

Every item keeps the index of the original message it came from (``origin``; a call keeps its own), so
a policy's output says, for each original message, whether it was kept, changed or removed.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from itertools import pairwise
from json.encoder import encode_basestring
from typing import Any

from inspector.core.model import Chat, Message, WireShape
from inspector.core.policies.decision import ToolKind
from inspector.core.ruby import json as rubyjson
from inspector.core.scout.roles import tool_kind
from inspector.core.scout.tool_facts import chars_of

CALL, OUTPUT = "function_call", "function_call_output"


@dataclass(frozen=True, slots=True, eq=False)
class WireCall:
    """One tool call of an assistant message. ``arguments``: the parsed JSON value (a raw string when
    the model's arguments were not JSON); ``raw``: True when they are that raw string."""

    id: Any
    name: Any
    arguments: Any
    origin: int
    raw: bool = False

    def arguments_text(self) -> str:
        if self.raw and isinstance(self.arguments, str):
            return self.arguments
        return rubyjson.dumps(self.arguments)


@dataclass(frozen=True, slots=True, eq=False)
class Item:
    """One Chat Completions message. ``origin``: the original message holding its text (-1: none, as an
    assistant message of calls only, or a message a policy inserted). Compared by identity: a policy
    that changes an item makes a new one, so ``item is original`` says it was sent unchanged."""

    role: str
    content: Any  # str, None (an assistant message of calls only) or a list of {"type": "text", ...} parts
    origin: int
    calls: tuple[WireCall, ...] = ()
    call_id: Any = None  # tool messages
    name: Any = None  # tool messages: the name the file gave (None: none)
    inserted: bool = False  # added by a policy (a placeholder message, a warning)
    extra: dict[str, Any] = field(default_factory=dict)  # metadata a policy keeps on its copy (never sent)

    def text(self) -> str:
        """The content's text (parts joined by newlines, as the inspector shows them)."""
        return text_of(self.content)

    def with_content(self, content: Any, **changes: Any) -> Item:
        if changes:
            return replace(self, content=content, **changes)
        # a policy clears thousands of messages a plan: the constructor, not dataclasses.replace (half the time)
        return Item(self.role, content, self.origin, self.calls, self.call_id, self.name, self.inserted, self.extra)

    def cleared(self, content: Any) -> Item:
        """A copy holding a policy's placeholder, marked so (``extra["cleared"]``)."""
        return Item(self.role, content, self.origin, self.calls, self.call_id, self.name, self.inserted, _CLEARED)


_CLEARED = {"cleared": True}


def text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if content is None:
        return ""
    if isinstance(content, list):
        return "\n".join(p["text"] if isinstance(p, dict) and isinstance(p.get("text"), str) else "" for p in content)
    return rubyjson.dumps(content)


def _parse(content: Any) -> Any:
    if not isinstance(content, str):
        return None
    try:
        return rubyjson.parse(content, False)
    except rubyjson.RubyJSONError:
        return None


def call_parts(content: Any) -> tuple[Any, Any, Any, bool]:
    """Name, arguments, id of a stored function_call (the current shape and the older ones), and whether
    the arguments are a raw string the model wrote (not JSON)."""
    parsed = _parse(content)
    if not isinstance(parsed, dict):
        return None, content if isinstance(content, str) else None, None, True
    function = parsed.get("function")
    name, ident = parsed.get("name"), parsed.get("id", parsed.get("call_id"))
    if "arguments" in parsed:
        arguments = parsed.get("arguments")
    elif isinstance(function, dict):
        arguments = function.get("arguments")
    else:
        arguments = None
    if name is None and isinstance(function, dict):
        name = function.get("name")
    if isinstance(arguments, str):  # <= 1.1.x and Chat Completions: a JSON string
        value = _parse(arguments)
        return name, (value if value is not None or arguments.strip() == "null" else arguments), ident, value is None
    return name, arguments, ident, False


def output_parts(content: Any) -> tuple[Any, str, Any, dict[str, Any] | None]:
    """Name, text, id of a stored function_call_output, and the parsed record (None: not JSON)."""
    parsed = _parse(content)
    if not isinstance(parsed, dict):
        return None, content if isinstance(content, str) else text_of(content), None, None
    text = parsed.get("content")
    if not isinstance(text, str):
        text = "" if text is None else rubyjson.dumps(text)
    return parsed.get("name"), text, parsed.get("id", parsed.get("call_id")), parsed


@dataclass(frozen=True, slots=True)
class MessageFacts:
    """What every plan of a chat reads of its messages: their characters, tool kinds and totals."""

    chars: list[int]
    kinds: list[ToolKind]
    total: int
    tool_total: int
    position: list[int]  # each message's item (-1: none)
    first: list[bool]  # the message is its item's first (the one its count is told on)

    @classmethod
    def of(cls, messages: list[Message], items: list[Item]) -> MessageFacts:
        chars = [chars_of(m.fields.get("content")) for m in messages]
        kinds = [tool_kind(m.fields.get("role")) for m in messages]
        position, first = [-1] * len(messages), [False] * len(messages)
        for at, item in enumerate(items):
            owners = ([item.origin] if item.origin >= 0 and not item.inserted else []) + [c.origin for c in item.calls]
            for rank, origin in enumerate(owners):
                if origin >= 0:
                    position[origin], first[origin] = at, rank == 0
        return cls(chars, kinds, sum(chars), sum(n for n, k in zip(chars, kinds) if k), position, first)


class Conversation:
    """A chat's messages as Chat Completions items (built once per chat), with the way back."""

    __slots__ = (
        "_calls",
        "_facts",
        "_lengths",
        "_origin_map",
        "_originals",
        "_owners",
        "_parts",
        "_stored",
        "items",
        "messages",
        "records",
        "responses",
    )

    def __init__(self, messages: list[Message], shape: WireShape | None = None) -> None:
        self.messages = messages
        self.records: dict[int, dict[str, Any] | None] = {}  # output index -> its parsed JSON record
        self.items: list[Item] = []
        self.responses: list[int] = []  # item index of each assistant message
        self._origin_map: dict[int, list[Item]] | None = None
        self._stored: dict[int, list[tuple[int, Message]]] = {}  # id(original item) -> what it stands for
        self._parts: dict[int, tuple[str, str] | None] = {}  # output index -> its JSON around the content
        self._lengths: dict[str, int] = {}  # a placeholder's JSON length (one text, thousands of messages)
        self._calls: dict[int, WireCall] = {}  # function_call index -> its call as the chat holds it
        self._facts: MessageFacts | None = None
        self._owners: dict[int, tuple[int, ...]] | None = None
        self._build(shape)
        for item in self.items:
            for call in item.calls:
                self._calls[call.origin] = call
        self._originals = {id(i) for i in self.items}  # the items live as long as this: their ids are theirs

    def unpaired(self) -> list[str]:
        """Tool outputs whose call is not before them, and calls no output answers, in words: the libraries
        take such chats as they come (LangChain leaves them, Inspect's trim drops them), so a report says so."""
        out: list[str] = []
        called: dict[Any, int] = {}
        answered: set[Any] = set()
        for item in self.items:
            for call in item.calls:
                called[call.id] = call.origin
            if item.role == "tool":
                if item.call_id not in called:
                    out.append(f"message {item.origin}: a tool output whose call ({item.call_id!r}) is not before it")
                answered.add(item.call_id)
        out.extend(
            f"message {origin}: a call ({ident!r}) no tool output answers"
            for ident, origin in called.items()
            if ident not in answered
        )
        return out

    def owners(self) -> dict[int, tuple[int, ...]]:
        """For each of the chat's own items (by id), the original messages it stands for."""
        if self._owners is None:
            self._owners = {
                id(i): tuple(([i.origin] if i.origin >= 0 and not i.inserted else []) + [c.origin for c in i.calls])
                for i in self.items
            }
        return self._owners

    def facts(self) -> MessageFacts:
        """Every message's characters and tool kind, counted once per chat."""
        if self._facts is None:
            self._facts = MessageFacts.of(self.messages, self.items)
        return self._facts

    def is_original_call(self, call: WireCall) -> bool:
        return self._calls.get(call.origin) is call

    def call_message(self, call: WireCall) -> Message:
        return self._call(call)

    def _build(self, shape: WireShape | None) -> None:
        joined = shape.joined if shape is not None else frozenset()  # with a shape, it alone decides
        unnamed = shape.unnamed if shape is not None else frozenset()
        items, open_at, last_call_id = self.items, -1, None
        previous_role: Any = None
        for index, message in enumerate(self.messages):
            role, content = message.fields.get("role"), message.fields.get("content")
            if role == CALL:
                name, arguments, ident, raw = call_parts(content)
                call = WireCall(ident, name, arguments, index, raw)
                last_call_id = ident
                joins = index in joined if shape is not None else previous_role in ("assistant", CALL)
                if open_at >= 0 and joins:
                    owner = items[open_at]
                    items[open_at] = replace(owner, calls=(*owner.calls, call))
                else:
                    items.append(Item("assistant", None, -1, (call,)))
                    open_at = len(items) - 1
                    self.responses.append(open_at)
            elif role == OUTPUT:
                name, text, ident, record = output_parts(content)
                self.records[index] = record
                if ident is None:
                    ident = last_call_id  # scout-ai sends the previous call's id (default.rb)
                items.append(Item("tool", text, index, call_id=ident, name=None if index in unnamed else name))
            else:
                items.append(Item(str(role), content, index))
                if role == "assistant":
                    open_at = len(items) - 1
                    self.responses.append(open_at)
                else:
                    open_at = -1
            if role not in (CALL, OUTPUT, "assistant"):
                open_at = -1
            previous_role = role

    # -- the way back: items a policy kept or changed, as the stored messages they stand for ----
    def message_for(self, item: Item) -> list[tuple[int, Message]]:
        """The stored messages an item stands for, each with its original index (-1: inserted)."""
        known = self._stored.get(id(item))
        if known is not None:  # an item of the chat itself, sent unchanged: its own messages
            return known
        out = self._message_for(item)
        if self.is_original(item):
            self._stored[id(item)] = out
        return out

    def is_original(self, item: Item) -> bool:
        """The item is the chat's own (the policy left it as it was)."""
        return id(item) in self._originals

    def _message_for(self, item: Item) -> list[tuple[int, Message]]:
        out: list[tuple[int, Message]] = []
        if item.role == "tool" and item.origin >= 0:
            out.append((item.origin, self._output(item)))
        elif item.role == "assistant" and (item.calls or item.origin < 0):
            if item.origin >= 0:
                out.append((item.origin, self._text(item)))
            elif item.content not in (None, "", []):
                out.append((-1, Message.make("assistant", item.text())))  # text a policy added to calls only
            out.extend((call.origin, self._call(call)) for call in item.calls)
        elif item.origin >= 0 and not item.inserted:
            out.append((item.origin, self._text(item)))
        else:
            out.append((-1, Message.make(item.role, item.text() if isinstance(item.content, list) else item.content)))
        return out

    def _text(self, item: Item) -> Message:
        original = self.messages[item.origin]
        if item.content is original.fields.get("content") and item.role == original.fields.get("role"):
            return original
        changed = original.with_content(item.text() if isinstance(item.content, list) else item.content)
        if item.role != original.fields.get("role"):
            changed.fields["role"] = item.role
        return changed

    def _call(self, call: WireCall) -> Message:
        original = self.messages[call.origin]
        if call is self._calls.get(call.origin):
            return original
        parsed = _parse(original.fields.get("content"))
        if isinstance(parsed, dict) and "arguments" in parsed:
            parsed["arguments"] = call.arguments
            return original.with_content(rubyjson.dumps(parsed))
        return original.with_content(rubyjson.dumps({"name": call.name, "arguments": call.arguments, "id": call.id}))

    def _output(self, item: Item) -> Message:
        original = self.messages[item.origin]
        if item is self.original_item(item.origin):
            return original
        if item.role != "tool":
            return Message({"role": item.role, "content": item.text()}, original.line, original.end_line)
        parts = self._record_parts(item.origin)
        if parts is None:
            return original.with_content(item.text())
        return original.with_content(parts[0] + rubyjson.dumps(item.text()) + parts[1])

    def _record_parts(self, origin: int) -> tuple[str, str] | None:
        """An output's JSON record written with its content left out, as the text before and after it: a
        changed output is the two around the new content (its length without writing it)."""
        if origin in self._parts:
            return self._parts[origin]
        record = self.records.get(origin)
        found = None
        if record is not None:
            mark = "\ue000inspector-content\ue000"
            text = rubyjson.dumps({**record, "content": mark})
            at = text.find(rubyjson.dumps(mark))
            if at >= 0 and text.count(mark) == 1:
                found = (text[:at], text[at + len(rubyjson.dumps(mark)) :])
        self._parts[origin] = found
        return found

    def output_chars(self, item: Item) -> int:
        """The characters of the stored output message an item stands for (``_output`` without writing it)."""
        parts = self._record_parts(item.origin)
        text = item.text()
        if parts is None:
            return len(text)
        found = self._lengths.get(text) if len(text) < 256 else None
        if found is None:
            found = len(encode_basestring(text))  # how rubyjson writes a string: raw UTF-8, escapes
            if len(text) < 256:
                self._lengths[text] = found
        return len(parts[0]) + found + len(parts[1])

    def original_item(self, origin: int) -> Item | None:
        for item in self._by_origin().get(origin, ()):
            if item.origin == origin:
                return item
        return None

    def _by_origin(self) -> dict[int, list[Item]]:
        found = self._origin_map
        if found is None:
            found = {}
            for item in self.items:
                if item.origin >= 0:
                    found.setdefault(item.origin, []).append(item)
                for call in item.calls:
                    found.setdefault(call.origin, []).append(item)
            self._origin_map = found
        return found

    def stored(self, items: list[Item]) -> list[tuple[int, Message]]:
        """The stored messages a list of items stands for, in scout-ai's order: within a response, each
        output right after its call (as the chat file holds them)."""
        out: list[tuple[int, Message]] = []
        group: list[tuple[int, Message]] = []
        open_ids: set[Any] = set()
        for item in items:
            if item.role == "tool" and group and item.call_id in open_ids:
                group.extend(self.message_for(item))
                continue
            out.extend(_ordered(group))
            group, open_ids = [], set()
            if item.role == "assistant" and item.calls:
                group = list(self.message_for(item))  # a copy: an original item's list is cached
                open_ids = {call.id for call in item.calls}
            else:
                out.extend(self.message_for(item))
        out.extend(_ordered(group))
        return out


def _ordered(group: list[tuple[int, Message]]) -> Iterator[tuple[int, Message]] | list[tuple[int, Message]]:
    """A response's messages by original position (an inserted one stays after the message before it)."""
    origins = [o for o, _ in group]
    if all(0 <= a < b for a, b in pairwise(origins)) and (len(origins) != 1 or origins[0] >= 0):
        return group  # already in order: a response whose calls have no outputs between them, or one call
    keyed, last = [], -1
    for rank, (origin, message) in enumerate(group):
        if origin >= 0:
            last = origin
        keyed.append(((last, origin < 0, rank), origin, message))
    keyed.sort(key=lambda k: k[0])
    return ((origin, message) for _, origin, message in keyed)


# -- the Chat Completions JSON of items (what `prepare --format openai` prints) -------------------
def as_openai(item: Item) -> dict[str, Any]:
    if item.role == "tool":
        out: dict[str, Any] = {"role": "tool", "tool_call_id": item.call_id}
        if item.name is not None:
            out["name"] = item.name
        out["content"] = item.content
        return out
    out = {"role": item.role, "content": item.content}
    if item.calls:
        out["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments_text()}}
            for c in item.calls
        ]
    return out


def openai_call(call: dict[str, Any]) -> tuple[Any, Any, Any, int, bool]:
    """A Chat Completions tool call read back: id, name, arguments (parsed), origin -1, raw."""
    found = call.get("function")
    function: dict[str, Any] = found if isinstance(found, dict) else {}
    arguments = function.get("arguments")
    if isinstance(arguments, str):
        value = _parse(arguments)
        if value is None and arguments.strip() != "null":
            return call.get("id"), function.get("name"), arguments, -1, True
        arguments = value
    return call.get("id"), function.get("name"), arguments, -1, False


def conversation_of(chat: Chat) -> Conversation:
    return Conversation(chat.messages, chat.wire)
