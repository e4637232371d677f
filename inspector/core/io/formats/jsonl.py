"""JSON lines: one message object per line (blank lines skipped), kept as stored like the JSON array."""

from __future__ import annotations

from inspector.core.errors import InputError
from inspector.core.io.formats.jsondoc import kind_of
from inspector.core.model import Chat, Message
from inspector.core.ruby import json as rubyjson

NAME = "jsonl"
EXTENSIONS = (".jsonl", ".ndjson")


def _head_lines(text: str) -> list[str]:
    return [line for line in text.split("\n", 64)[:64] if line.strip()]


def sniff(text: str) -> bool:
    """Two or more lines, the first a message object (a lone object is left to the extension)."""
    lines = _head_lines(text)
    if len(lines) < 2 or not lines[0].lstrip().startswith("{"):
        return False
    first = lines[0].strip()
    import orjson  # here: a JSON array (sniffed first) never gets this far

    try:
        value = orjson.loads(first)
    except orjson.JSONDecodeError:
        return False
    return isinstance(value, dict) and "role" in value


def load(text: str, path: str | None) -> Chat:
    import orjson

    messages = []
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            value = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            try:
                value = rubyjson.parse(line)
            except rubyjson.RubyJSONError:
                raise InputError(f"invalid JSON: {exc.msg} (column {exc.colno})", path, number) from None
        if not isinstance(value, dict):
            raise InputError(f"line is {kind_of(value)}, not a message object", path, number)
        messages.append(Message(value, number, number))
    if not messages:
        raise InputError("no messages", path)
    return Chat(messages, path=path, format=NAME)
