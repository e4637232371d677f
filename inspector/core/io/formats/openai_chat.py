"""OpenAI Chat Completions ``messages``: assistant ``tool_calls`` and ``tool`` messages become scout tool messages.

Accepts a request body (``{"messages": [...], ...}``) or the bare array when it
carries ``tool_calls`` / ``tool_call_id``. ``developer`` becomes ``system``.
"""

from __future__ import annotations

from typing import Any

from inspector.core.errors import InputError
from inspector.core.io.formats.jsondoc import has_key, kind_of, objects, require, shape
from inspector.core.io.formats.toolpairs import Builder, parse_arguments, text_of
from inspector.core.model import Chat, WireShape

NAME = "openai-chat"
EXTENSIONS = ()


def _messages(value: Any) -> Any:
    if isinstance(value, dict) and isinstance(value.get("messages"), list):
        return value["messages"]
    if isinstance(value, list):
        return value
    return None


def sniff(head: str) -> bool:
    kind = shape(head)
    if kind == "{":
        return has_key(head, "messages")
    return kind == "[" and (has_key(head, "tool_calls") or has_key(head, "tool_call_id"))


def load(text: str, path: str | None) -> Chat:
    value = require(text, path)
    items = _messages(value)
    if items is None:
        raise InputError(f'expected an OpenAI chat request with a "messages" array, found {kind_of(value)}', path, 1)
    b = Builder()
    joined: list[object] = []  # calls sharing an assistant message with the message before them (by object:
    # an output is inserted right after its call, which moves the calls after it)
    unnamed: list[object] = []
    for where, item in objects(items, "messages", "a message object", path):
        role = item.get("role")
        if role == "tool":
            output = b.output(item.get("tool_call_id"), item.get("content"))
            if not isinstance(item.get("name"), str):
                unnamed.append(output)
            continue
        if role == "developer":
            role = "system"
        content = text_of(item.get("content"), b, where)
        calls = item.get("tool_calls") or []
        if content or not calls:
            b.add(role, content)
        for rank, call in enumerate(calls):
            function = call.get("function") if isinstance(call, dict) else None
            if not isinstance(function, dict):
                raise InputError(f'{where}.tool_calls: a call without a "function" object', path)
            b.call(function.get("name"), parse_arguments(function.get("arguments"), keep_raw=True), call.get("id"))
            if rank or content:
                joined.append(b.messages[-1])
    where_is = {id(m): i for i, m in enumerate(b.messages)}
    wire = WireShape(frozenset(where_is[id(m)] for m in joined), frozenset(where_is[id(m)] for m in unnamed))
    return Chat(b.messages, path=path, format=NAME, findings=b.findings, wire=wire)
