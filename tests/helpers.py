"""Small builders for hand-made chats."""

from __future__ import annotations

import json

from inspector.core.model import Message
from inspector.core.scout.prepare import prepare_prompt
from inspector.core.scout.settings import DEFAULTS, KEYS


def call(name: str, ident: str, **arguments) -> dict:
    return {"role": "function_call", "content": json.dumps({"name": name, "arguments": arguments, "id": ident})}


def output(name: str, ident: str, content) -> dict:
    return {"role": "function_call_output", "content": json.dumps({"name": name, "content": content, "id": ident})}


def messages(*items: dict) -> list[Message]:
    return [Message(dict(item)) for item in items]


def thresholds(**values) -> tuple:
    merged = {**DEFAULTS, **values}
    if "max_tool_calls" in values and "max_tool_outputs" not in values:
        merged["max_tool_outputs"] = values["max_tool_calls"]
    return tuple(merged[k] for k in KEYS)


def plan(items, strategies=None, **values):
    return prepare_prompt(messages(*items), strategies, thresholds(**values))


def rounds(count: int, size: int) -> list[dict]:
    """``count`` call/output pairs, oldest first, outputs of ``size`` characters."""
    out = []
    for i in range(count):
        out.append(call("t", f"c{i}", q=f"q{i}"))
        out.append(output("t", f"c{i}", chr(ord("a") + i % 26) * size))
    return out
