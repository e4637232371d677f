"""Where the model calls of a chat start.

A call starts at each message whose role is ``assistant`` or ``function_call`` and whose previous
message's role is neither: one model response is one run of such messages. Scout chats written by
scout-ai put a ``meta`` record before each inference; when a chat has any, they decide, and a run
without one (or a meta record followed by no response) is reported as a finding.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

from inspector.core.model import Finding, Message

RESPONSE_ROLES = frozenset({"assistant", "function_call"})


@dataclass(frozen=True, slots=True)
class Call:
    number: int  # 1-based
    start: int  # the response's first message in the source list (scout: as parsed, before pre-processing)
    end: int  # the source message after the response's run
    line: int | None  # the source line where the response starts (scout chats)
    role: str
    tools: tuple[str, ...]  # the tools the response called, in order


def _role(message: Message) -> Any:
    return message.fields.get("role")


def _tool_name(message: Message) -> str | None:
    content = message.fields.get("content")
    if not isinstance(content, str):
        return None
    try:
        data = orjson.loads(content)
    except orjson.JSONDecodeError:
        return None
    name = data.get("name") if isinstance(data, dict) else None
    return name if isinstance(name, str) else None


def find_calls(messages: list[Message]) -> tuple[list[Call], list[Finding]]:
    """The calls of a source message list, and findings where meta records and responses disagree."""
    roles = [_role(m) for m in messages]
    runs = [i for i, r in enumerate(roles) if r in RESPONSE_ROLES and (i == 0 or roles[i - 1] not in RESPONSE_ROLES)]
    metas = [i for i, r in enumerate(roles) if r == "meta"]
    findings: list[Finding] = []
    starts = runs
    if metas:
        marked = {i + 1 for i in metas if i + 1 < len(roles) and roles[i + 1] in RESPONSE_ROLES}
        starts = [i for i in runs if i in marked]
        unmarked = [i for i in runs if i not in marked]
        if unmarked:
            where = ", ".join(_where(messages, i) for i in unmarked[:5]) + (", ..." if len(unmarked) > 5 else "")
            findings.append(
                Finding(
                    "calls",
                    f"{len(unmarked)} response(s) have no meta record before them ({where}): the chat's meta "
                    "records mark each inference, so they are not counted as calls",
                    messages[unmarked[0]].line,
                    indices=tuple(unmarked),
                )
            )
        lone = [i for i in metas if i + 1 >= len(roles) or roles[i + 1] not in RESPONSE_ROLES]
        if lone:
            where = ", ".join(_where(messages, i) for i in lone[:5]) + (", ..." if len(lone) > 5 else "")
            findings.append(
                Finding(
                    "calls",
                    f"{len(lone)} meta record(s) are not followed by a response ({where}): an inference "
                    "whose answer is not in the chat",
                    messages[lone[0]].line,
                    indices=tuple(lone),
                )
            )
    calls = []
    for number, start in enumerate(starts, 1):
        end = start + 1
        while end < len(roles) and roles[end] in RESPONSE_ROLES:
            end += 1
        tools = tuple(
            name for m in messages[start:end] if _role(m) == "function_call" and (name := _tool_name(m)) is not None
        )
        calls.append(Call(number, start, end, messages[start].line, roles[start], tools))
    return calls, findings


def _where(messages: list[Message], index: int) -> str:
    line = messages[index].line
    return f"line {line}" if line is not None else f"message {index}"
