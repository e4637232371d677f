"""Build scout-ai's stored messages from another stack's tool traffic.

scout-ai stores each call as ``function_call: {"name","arguments","id"}`` and puts
its output, ``function_call_output: {"name","content","id"}``, right after it
(``LLM.process_calls`` returns call/output pairs), so outputs are moved next to
their call when an export lists all calls first.
"""

from __future__ import annotations

from typing import Any

from inspector.core.model import Finding, Message
from inspector.core.ruby import json as rubyjson


def output_text(content: Any) -> str:
    """Tool results that are not strings are JSON-encoded into a string, as scout-ai's writer does."""
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(isinstance(p, dict) and isinstance(p.get("text"), str) for p in content):
        return "\n".join(p["text"] for p in content)
    return rubyjson.dumps(content)


class Builder:
    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.findings: list[Finding] = []
        self._open: dict[object, int] = {}  # call id -> index of the last message of its pair
        self._names: dict[object, object] = {}

    def add(self, role: str, content: Any, line: int | None = None) -> None:
        self.messages.append(Message({"role": role, "content": content}, line, line))

    def call(self, name: Any, arguments: Any, ident: Any, line: int | None = None) -> None:
        content = rubyjson.dumps({"name": name, "arguments": arguments, "id": ident})
        self.messages.append(Message({"role": "function_call", "content": content}, line, line))
        self._open[ident] = len(self.messages) - 1
        self._names[ident] = name

    def output(self, ident: Any, content: Any, line: int | None = None, name: Any = None) -> Message:
        if name is None:
            name = self._names.get(ident)
        text = rubyjson.dumps({"name": name, "content": output_text(content), "id": ident})
        message = Message({"role": "function_call_output", "content": text}, line, line)
        at = self._open.pop(ident, None)
        if at is None or at == len(self.messages) - 1:
            self.messages.append(message)
            return message
        self.messages.insert(at + 1, message)
        for key, index in self._open.items():
            if index > at:
                self._open[key] = index + 1
        return message

    def note(self, kind: str, message: str, line: int | None = None) -> None:
        self.findings.append(Finding(kind, message, line))


def parse_arguments(arguments: Any, keep_raw: bool) -> Any:
    """A JSON-string ``arguments`` is parsed; on failure OpenAI keeps the string, the default backend nil."""
    if not isinstance(arguments, str):
        return arguments
    try:
        return rubyjson.parse(arguments)
    except rubyjson.RubyJSONError:
        return arguments if keep_raw else None


def text_of(content: Any, builder: Builder, where: str) -> str:
    """Text parts joined; other parts (images, files) cannot be kept in a scout message."""
    if isinstance(content, str):
        return content
    if content is None:
        return ""
    if isinstance(content, list):
        texts = []
        for part in content:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                texts.append(part["text"])
            elif isinstance(part, str):
                texts.append(part)
            else:
                kind = part.get("type") if isinstance(part, dict) else type(part).__name__
                builder.note(
                    "dropped_part", f"{where}: a {kind} part is not text; scout-ai stores text only, so it is left out"
                )
        return "\n".join(texts)
    return rubyjson.dumps(content)
