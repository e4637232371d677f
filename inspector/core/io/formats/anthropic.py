"""Anthropic Messages: ``tool_use`` / ``tool_result`` blocks become scout tool messages; ``system`` goes first.

Text blocks of one message are joined with a newline; text before and after tool
blocks become separate messages, in block order. Thinking blocks are not stored
by scout-ai and are left out.
"""

from __future__ import annotations

from inspector.core.errors import InputError
from inspector.core.io.formats.jsondoc import has_key, has_type, kind_of, objects, require, shape
from inspector.core.io.formats.toolpairs import Builder, text_of
from inspector.core.model import Chat

NAME = "anthropic"
EXTENSIONS = ()
TOOL_BLOCKS = ("tool_use", "tool_result", "thinking", "redacted_thinking")


def sniff(head: str) -> bool:
    kind = shape(head)
    if kind == "{" and has_key(head, "messages"):
        return has_key(head, "system") or has_type(head, *TOOL_BLOCKS)
    return kind == "[" and has_type(head, "tool_use", "tool_result")


def load(text: str, path: str | None) -> Chat:
    value = require(text, path)
    b = Builder()
    if isinstance(value, dict) and isinstance(value.get("messages"), list):
        system = value.get("system")
        if system:
            b.add("system", text_of(system, b, "system"))
        items = value["messages"]
    elif isinstance(value, list):
        items = value
    else:
        raise InputError(f'expected an Anthropic request with a "messages" array, found {kind_of(value)}', path, 1)
    for where, item in objects(items, "messages", "a message object", path):
        role = item.get("role")
        content = item.get("content")
        if not isinstance(content, list):
            b.add(role, text_of(content, b, where))
            continue
        texts: list[str] = []
        for block in content:
            kind = block.get("type") if isinstance(block, dict) else None
            if kind == "text":
                texts.append(block.get("text") or "")
                continue
            if kind in ("thinking", "redacted_thinking"):
                continue
            if kind not in ("tool_use", "tool_result"):
                b.note(
                    "dropped_part",
                    f"{where}: a {kind or kind_of(block)} block is not text; scout-ai stores text only, "
                    "so it is left out",
                )
                continue
            if texts:
                b.add(role, "\n".join(texts))
                texts = []
            if kind == "tool_use":
                b.call(block.get("name"), block.get("input"), block.get("id"))
            else:
                b.output(block.get("tool_use_id"), block.get("content") if block.get("content") is not None else "")
        if texts:
            b.add(role, "\n".join(texts))
    return Chat(b.messages, path=path, format=NAME, findings=b.findings)
