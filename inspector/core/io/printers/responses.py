"""The OpenAI Responses ``input`` items the default backend sends (reference §3.4, ``format_messages``).

Tool messages become ``function_call`` / ``function_call_output`` items; a call
without an id gets ``fc_<random>`` in scout-ai, printed here as ``fc_<index>``
(minus the ``fc_`` prefix, as scout-ai strips it) so the output is repeatable.
``previous_response_id`` items are dropped and ``websearch`` becomes the web-search
tool; ``tool``, ``mcp``, ``kb`` and ``association`` messages are tool definitions,
not input, and are left out. Not reproduced: ``image`` / ``pdf`` (scout-ai reads the
file into base64) and ``introduce`` (it needs the workflow's documentation): those
are printed as stored. A tool message scout-ai cannot format (content not a JSON
object, an output with no id to fall back on) is an error there; here it is printed
as an ``{"error": ...}`` item in its place.
"""

from __future__ import annotations

from typing import Any

from inspector.core.model import Message
from inspector.core.ruby import json as rubyjson

TOOL_DEFINITIONS = ("tool", "mcp", "kb", "association", "clear_associations")


def _strip_fc(ident: Any) -> object:
    return ident[3:] if isinstance(ident, str) and ident.startswith("fc_") else ident


def _parse(message: Message) -> Any:
    content = message.fields.get("content")
    if not isinstance(content, str):
        return None
    try:
        value = rubyjson.parse(content)
    except rubyjson.RubyJSONError:
        return None
    return value if isinstance(value, dict) else None


def response_items(messages: list[Message]) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    last_id = None
    for index, message in enumerate(messages):
        role = message.fields.get("role")
        if role == "function_call":
            info = _parse(message)
            if info is None:
                items.append({"error": f"message {index}: function_call content is not a JSON object"})
                continue
            name = info.get("name")
            if name is None and isinstance(info.get("function"), dict):
                name = info["function"].get("name")
            ident = info.get("id")
            if ident is None or ident is False:  # Ruby's `||`: only nil and false fall back
                ident = f"fc_{index}"
            arguments = info.get("arguments")
            if arguments is None or arguments is False:
                arguments = "{}"
            if not isinstance(arguments, str):
                arguments = rubyjson.dumps(arguments)
            items.append(
                {
                    "type": "function_call",
                    "status": "completed",
                    "name": name,
                    "arguments": arguments,
                    "call_id": _strip_fc(ident),
                }
            )
        elif role == "function_call_output":
            info = _parse(message)
            ident = info.get("id") if info is not None else None
            ident = ident if ident is not None and ident is not False else last_id
            if info is None or ident is None:
                items.append({"error": f"message {index}: function_call_output has no JSON object or no id"})
                continue
            if not isinstance(ident, str):
                items.append({"error": f"message {index}: function_call_output id is not a string"})
                continue
            last_id = _strip_fc(ident)
            items.append({"type": "function_call_output", "output": info.get("content"), "call_id": last_id})
        elif role == "previous_response_id" or role in TOOL_DEFINITIONS:
            continue
        elif role == "websearch":
            continue  # sent as the web_search_preview tool, not as input
        else:
            items.append(dict(message.fields))
    return items


def print_responses(messages: list[Message]) -> str:
    return rubyjson.dumps(response_items(messages)) + "\n"
