"""OpenAI Responses ``input`` items: messages, ``function_call`` and ``function_call_output``.

Accepts a request body (``{"input": [...], "instructions": ...}``) or the bare item
array. Call arguments that are not valid JSON are stored as null, as scout-ai's
default backend does; reasoning and web-search items are not stored by scout-ai.
"""

from __future__ import annotations

from inspector.core.errors import InputError
from inspector.core.io.formats.jsondoc import has_key, has_type, kind_of, objects, require, shape
from inspector.core.io.formats.toolpairs import Builder, parse_arguments, text_of
from inspector.core.model import Chat

NAME = "openai-responses"
EXTENSIONS = ()
ITEM_TYPES = ("function_call", "function_call_output")
SKIPPED = ("reasoning", "web_search_call", "file_search_call", "mcp_list_tools")


def sniff(head: str) -> bool:
    kind = shape(head)
    if kind == "{":
        return has_key(head, "input") and not has_key(head, "messages")
    return kind == "[" and has_type(head, *ITEM_TYPES)


def load(text: str, path: str | None) -> Chat:
    value = require(text, path)
    b = Builder()
    if isinstance(value, dict) and "input" in value:
        if isinstance(value.get("instructions"), str) and value["instructions"]:
            b.add("system", value["instructions"])
        items = value["input"]
        if isinstance(items, str):
            items = [{"role": "user", "content": items}]
    elif isinstance(value, list):
        items = value
    else:
        raise InputError(f"expected OpenAI Responses input items, found {kind_of(value)}", path, 1)
    if not isinstance(items, list):
        raise InputError(f'"input" is {kind_of(items)}, not an array of items', path, 1)
    for where, item in objects(items, "input", "an input item", path):
        kind = item.get("type")
        if kind == "function_call":
            b.call(
                item.get("name"),
                parse_arguments(item.get("arguments"), keep_raw=False),
                item.get("call_id") or item.get("id"),
            )
        elif kind == "function_call_output":
            b.output(item.get("call_id"), item.get("output"))
        elif kind in SKIPPED:
            continue
        elif "role" in item:
            b.add(item["role"], text_of(item.get("content"), b, where))
        else:
            b.note("dropped_part", f"{where}: a {kind!r} item is not stored by scout-ai; left out")
    return Chat(b.messages, path=path, format=NAME, findings=b.findings)
