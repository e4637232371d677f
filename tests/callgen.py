"""Generated chats with many model calls, as scout-ai writes them (meta before each inference) or by hand."""

from __future__ import annotations

import json
import random

import chatgen

from inspector.core.io.printers.chat import print_chat
from inspector.core.model import Message

RESPONSES = ("assistant", "function_call")
DIRECTIVES = [
    ("clear_tools", "true"),
    ("clear_tools", "false"),
    ("config", "max_tool_chars 3000 prompt"),
    ("config", "full_tool_outputs 2 context"),
    ("option", "prompt_strategies none"),
    ("sticky_option", "prompt_strategies shorten_tools"),
    ("clear", "x"),
    ("clear_role", "assistant"),
    ("backend", "responses"),
]


def scout_chat(seed: int, messages: int = 50, directives: bool = False, meta: bool = True) -> str:
    """A scout chat text from ``chatgen.chat``: a meta record before each response, previous_response_id after
    some assistant messages, and (``directives``) pre-processing lines that reach back over earlier messages."""
    rng = random.Random(seed * 7 + 1)
    source = chatgen.chat(seed, messages=messages, scale=1500, extras=False, traps=rng.random() < 0.3)
    out: list[Message] = []
    previous = None
    for item in source:
        role = item.get("role")
        content = item.get("content")
        if not isinstance(content, str) or not isinstance(role, str):
            continue
        if "\n" in content and role in ("function_call", "function_call_output"):
            content = content.replace("\n", " ")
        if meta and role in RESPONSES and previous not in RESPONSES:
            out.append(Message.make("meta", f"pt={rng.randint(100, 9000)} ct=40"))
        if directives and rng.random() < 0.08:
            out.append(Message.make(*rng.choice(DIRECTIVES)))
        out.append(Message.make(role, content))
        if role == "assistant" and rng.random() < 0.3:
            out.append(Message.make("previous_response_id", f"resp_{seed}_{len(out)}"))
        previous = role
    return print_chat(out)


def json_chat(seed: int, messages: int = 50) -> str:
    return json.dumps(chatgen.chat(seed, messages=messages, scale=1500, extras=True, traps=True))
