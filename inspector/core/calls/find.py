"""Where the model calls of a chat start.

A call starts at each message whose role is ``assistant`` or ``function_call`` and whose previous
message's role is neither: one model response is one run of such messages. Scout chats written by
scout-ai put a ``meta`` record before each inference; when a chat has any, they decide, and a run
without one (or a meta record followed by no response) is reported as a finding.
"""

from __future__ import annotations

from dataclasses import dataclass

from inspector.core.model import Finding, Message
from inspector.core.scout.tool_facts import tool_name_of

RESPONSE_ROLES = frozenset({"assistant", "function_call"})


@dataclass(frozen=True, slots=True)
class Call:
    number: int  # 1-based
    start: int  # the response's first message in the source list (scout: as parsed, before pre-processing)
    end: int  # the source message after the response's run
    line: int | None  # the source line where the response starts (scout chats)
    role: str
    tools: tuple[str, ...]  # the tools the response called, in order


def _tool_name(message: Message) -> str | None:
    return tool_name_of(message.fields.get("content"))


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
) -> CallIndex:
    """The CallIndex of ``messages``. ``names`` caches tool names by message object; ``old`` is the index of a
    list whose first ``same`` messages are these ones (a chat that grew): its calls ending before them stay."""
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
    runs = [i for i, r in enumerate(roles) if r in responses and (i == 0 or roles[i - 1] not in responses)]
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
    for start in starts:
        end = start + 1
        while end < len(roles) and roles[end] in responses:
            end += 1
        tools = []
        for k in range(start, end):
            if roles[k] == "function_call":
                message = messages[begin + k]
                known = names.get(id(message))
                if known is not None and known[0] is message:  # the object itself: an id can be reused
                    name = known[1]
                else:
                    name = _tool_name(message)
                    names[id(message)] = (message, name)
                if name is not None:
                    tools.append(name)
        first = messages[begin + start]
        role = roles[start]
        calls.append(Call(len(calls) + 1, begin + start, begin + end, first.line, str(role), tuple(tools)))
    return CallIndex(calls, unmarked, lone, has_meta)


def _places(messages: list[Message], indices: list[int]) -> str:
    return ", ".join(_where(messages, i) for i in indices[:5]) + (", ..." if len(indices) > 5 else "")


def _where(messages: list[Message], index: int) -> str:
    line = messages[index].line
    return f"line {line}" if line is not None else f"message {index}"
