"""JSON helpers for the input formats: parsing with a located error, and sniffing a file's head."""

from __future__ import annotations

import re
from typing import Any

from inspector.core.errors import InputError
from inspector.core.ruby import json as rubyjson


def require(text: str, path: str | None) -> Any:
    """The parsed value, or an InputError naming the line where the JSON breaks."""
    import orjson  # here: detecting a JSON array (what `prepare` mostly reads) needs none of it

    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        try:
            return rubyjson.parse(text)  # what orjson refuses and Ruby accepts (big integers, comments)
        except rubyjson.RubyJSONError:
            raise InputError(f"invalid JSON: {exc.msg} (column {exc.colno})", path, exc.lineno) from None


def shape(head: str) -> str:
    """``{`` or ``[`` for a JSON-looking text, else ''."""
    first = head.lstrip()[:1]
    return first if first in ("[", "{") else ""


def has_key(head: str, key: str) -> bool:
    # a key is a string followed by ':'; inside JSON string values quotes are escaped, so this never
    # matches text in a message, only the document's structure (checked on the head of large files)
    quoted = f'"{key}"'  # found as it is before a pattern is compiled for it (most heads hold neither)
    return quoted in head and re.search(re.escape(quoted) + r"\s*:", head) is not None


def has_type(head: str, *types: str) -> bool:
    if '"type"' not in head:  # before a pattern is compiled for it
        return False
    alternatives = "|".join(re.escape(t) for t in types)
    return re.search(r'"type"\s*:\s*"(?:' + alternatives + r')"', head) is not None


def kind_of(value: Any) -> str:
    return {
        dict: "an object",
        list: "an array",
        str: "a string",
        type(None): "null",
        bool: "a boolean",
        int: "a number",
        float: "a number",
    }.get(type(value), type(value).__name__)


def objects(items: list[Any], array: str, noun: str, path: str | None) -> Any:
    """(``array[i]``, item) for each item of a request's array, refusing one that is not an object."""
    for index, item in enumerate(items):
        where = f"{array}[{index}]"
        if not isinstance(item, dict):
            raise InputError(f"{where} is {kind_of(item)}, not {noun}", path)
        yield where, item
