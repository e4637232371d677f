"""Where the model calls of a chat start.

A call starts at each message whose role is ``assistant`` or ``function_call`` and whose previous
message's role is neither: one model response is one run of such messages. Scout chats written by
scout-ai put a ``meta`` record before each inference; when a chat has any, they decide, and a run
without one (or a meta record followed by no response) is reported as a finding.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from inspector.core.model import Finding, Message
from inspector.core.scout.tool_facts import tool_name_of

RESPONSE_ROLES = frozenset({"assistant", "function_call"})


def _tool_name(message: Message) -> str | None:
    return tool_name_of(message.fields.get("content"))


class ToolNames:
    """Tool names of a source list's function_call messages, read on first use and cached by message object.

    Reading a name parses the message's JSON text: on a 100,000-message chat that is about half a
    second, which the app's first screen does not need (only ``calls --format json`` shows them).
    """

    __slots__ = ("messages", "names")

    def __init__(self, messages: list[Message], names: dict[int, tuple[Message, str | None]]):
        self.messages, self.names = messages, names

    def name(self, index: int) -> str | None:
        message = self.messages[index]
        known = self.names.get(id(message))
        if known is not None and known[0] is message:  # the object itself: an id can be reused
            return known[1]
        name = _tool_name(message)
        self.names[id(message)] = (message, name)
        return name


@dataclass(frozen=True, slots=True)
class Call:
    number: int  # 1-based
    start: int  # the response's first message in the source list (scout: as parsed, before pre-processing)
    end: int  # the source message after the response's run
    line: int | None  # the source line where the response starts (scout chats)
    role: str
    tool_calls: tuple[int, ...] = ()  # the response's function_call messages (indices in the source list)
    names: ToolNames | None = field(default=None, compare=False, repr=False)

    @property
    def tools(self) -> tuple[str, ...]:
        """The tools the response called, in order."""
        names = self.names
        if names is None:
            return ()
        return tuple(n for n in (names.name(k) for k in self.tool_calls) if n is not None)


@dataclass(slots=True)
class CallIndex:
    """The calls of a source list, with what the findings are made of (kept to extend it after an append)."""

    calls: list[Call]
    unmarked: list[int]  # response runs without a meta record (when the chat has meta records)
    lone: list[int]  # meta records followed by no response
    has_meta: bool

    def findings(self, messages: list[Message]) -> list[Finding]:
        out = []
        if self.unmarked:
            where = _places(messages, self.unmarked)
            out.append(
                Finding(
                    "calls",
                    f"{len(self.unmarked)} response(s) have no meta record before them ({where}): the chat's meta "
                    "records mark each inference, so they are not counted as calls",
                    messages[self.unmarked[0]].line,
                    indices=tuple(self.unmarked),
                )
            )
        if self.lone:
            where = _places(messages, self.lone)
            out.append(
                Finding(
                    "calls",
                    f"{len(self.lone)} meta record(s) are not followed by a response ({where}): an inference "
                    "whose answer is not in the chat",
                    messages[self.lone[0]].line,
                    indices=tuple(self.lone),
                )
            )
        return out


def find_calls(
    messages: list[Message], names: dict[int, tuple[Message, str | None]] | None = None
) -> tuple[list[Call], list[Finding]]:
    """The calls of a source message list, and findings where meta records and responses disagree."""
    index = index_calls(messages, names)
    return index.calls, index.findings(messages)


def index_calls(
    messages: list[Message],
    names: dict[int, tuple[Message, str | None]] | None = None,
    old: CallIndex | None = None,
    same: int = 0,
    joined: frozenset[int] = frozenset(),
) -> CallIndex:
    """The CallIndex of ``messages``. ``names`` caches tool names by message object; ``old`` is the index of a
    list whose first ``same`` messages are these ones (a chat that grew): its calls ending before them stay.
    ``joined``: function_call messages a Chat Completions file had in the same assistant message as the
    call before them (``Chat.wire``): one response, though each call's output stands between them."""
    names = {} if names is None else names
    has_meta = any(m.fields.get("role") == "meta" for m in messages[same:]) or (old is not None and old.has_meta)
    begin, kept = 0, []
    if old is not None and old.has_meta == has_meta:
        keep = len(old.calls)
        while keep and old.calls[keep - 1].end >= same:
            keep -= 1
        kept = old.calls[:keep]
        begin = kept[-1].end if kept else 0
    roles = [m.fields.get("role") for m in messages[begin:]]
    responses = RESPONSE_ROLES
    runs = [
        i
        for i, r in enumerate(roles)
        if r in responses and (i == 0 or roles[i - 1] not in responses) and begin + i not in joined
    ]
    metas = [i for i, r in enumerate(roles) if r == "meta"]
    starts, unmarked, lone = runs, list[int](), list[int]()
    if has_meta:
        marked = {i + 1 for i in metas if i + 1 < len(roles) and roles[i + 1] in responses}
        starts = [i for i in runs if i in marked]
        unmarked = [begin + i for i in runs if i not in marked]
        lone = [begin + i for i in metas if i + 1 >= len(roles) or roles[i + 1] not in responses]
    if kept and old is not None:
        unmarked = [i for i in old.unmarked if i < begin] + unmarked
        lone = [i for i in old.lone if i < begin] + lone
    calls = list(kept)
    names_of = ToolNames(messages, names)
    # one pass over the roles: where each run of response messages ends, and its function_call messages
    count = len(roles)
    for start in starts:
        end, tools = start, []
        while end < count:
            role = roles[end]
            if role == "function_call":
                tools.append(begin + end)
            elif role not in responses:
                after = end
                while after < count and roles[after] == "function_call_output":
                    after += 1
                if not (role == "function_call_output" and after < count and begin + after in joined):
                    break
                end = after
                continue
            end += 1
        first = messages[begin + start]
        calls.append(
            Call(len(calls) + 1, begin + start, begin + end, first.line, str(roles[start]), tuple(tools), names_of)
        )
    return CallIndex(calls, unmarked, lone, has_meta)


def _places(messages: list[Message], indices: list[int]) -> str:
    return ", ".join(_where(messages, i) for i in indices[:5]) + (", ..." if len(indices) > 5 else "")


def _where(messages: list[Message], index: int) -> str:
    line = messages[index].line
    return f"line {line}" if line is not None else f"message {index}"
