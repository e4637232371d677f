"""Hand-built chats for the forgetting features, with answers known in advance."""

from __future__ import annotations

import json

from inspector.core.inspection import Inspection
from inspector.core.model import Chat, Message
from inspector.core.scout.settings import resolve

FACT = "reconnect_backoff_ms: 7350"


def inspection(items, chat: Chat | None = None, **values) -> Inspection:
    chat = chat or Chat([Message(dict(m)) for m in items])
    thresholds = resolve({k: str(v) for k, v in values.items()}, config_files=[], env={})
    return Inspection(chat, thresholds)


def out(name: str, ident: str, content) -> dict:
    return {"role": "function_call_output", "content": json.dumps({"name": name, "content": content, "id": ident})}


def call(name: str, ident: str, arguments) -> dict:
    return {"role": "function_call", "content": json.dumps({"name": name, "arguments": arguments, "id": ident})}


def filler(n: int, size: int = 500, start: int = 0) -> list[dict]:
    items = []
    for i in range(start, start + n):
        items.append(call("t", f"f{i}", {"q": f"q{i}"}))
        items.append(out("t", f"f{i}", chr(ord("a") + i % 26) * size))
    return items


def middle(fact: str = FACT, size: int = 3000) -> str:
    """A long output with ``fact`` in the middle, where truncation cuts it."""
    half = "x" * (size // 2)
    return half + "\n" + fact + "\n" + half
