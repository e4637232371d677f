"""Where the strings scout-ai shortens sit inside a tool message's raw JSON text.

``why`` searches both the decoded strings (what the tool returned) and the raw
stored text. To count a hit once, and to map a hit in the raw (escaped) text to
the part of the string that truncation keeps, it needs each decoded character's
offset in the raw text; no JSON library reports positions, hence this scanner.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

_WS = " \t\n\r"
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


@dataclass(frozen=True, slots=True)
class StringSpan:
    """One decoded string that shorten_tools may cut, and where it lies in the raw text."""

    field: str  # "content" (an output's content) or "arguments.KEY" (a call's string argument)
    start: int  # raw offset of the opening quote
    end: int  # raw offset just after the closing quote
    value: str  # the decoded string
    offsets: tuple[int, ...]  # raw offset of each decoded character, plus the closing quote's

    def raw_range(self, a: int, b: int) -> tuple[int, int]:
        """Raw offsets covering decoded characters ``a`` to ``b``."""
        return self.offsets[a], self.offsets[b]

    def decoded_range(self, ra: int, rb: int) -> tuple[int, int]:
        """Decoded characters touched by the raw range ``ra`` to ``rb`` (rounded outwards)."""
        from bisect import bisect_left, bisect_right

        a = max(bisect_right(self.offsets, ra) - 1, 0)
        b = min(bisect_left(self.offsets, rb), len(self.value))
        return a, max(a, b)


class _Bad(Exception):
    pass


class _Scanner:
    def __init__(self, text: str):
        self.text = text
        self.i = 0

    def ws(self) -> None:
        text, i = self.text, self.i
        while i < len(text) and text[i] in _WS:
            i += 1
        self.i = i

    def peek(self) -> str:
        self.ws()
        if self.i >= len(self.text):
            raise _Bad
        return self.text[self.i]

    def expect(self, char: str) -> None:
        if self.peek() != char:
            raise _Bad
        self.i += 1

    def string(self) -> tuple[int, int, str, list[int]]:
        """A string token: (start, end, decoded, raw offset of each decoded character)."""
        text = self.text
        start = self.i
        i = start + 1
        out: list[str] = []
        offsets: list[int] = []
        while True:
            # copy plain runs in one step: a long tool output has few escapes
            j = i
            while j < len(text) and text[j] not in '"\\':
                j += 1
            if j >= len(text):
                raise _Bad
            out.append(text[i:j])
            offsets.extend(range(i, j))
            if text[j] == '"':
                offsets.append(j)
                self.i = j + 1
                return start, j + 1, "".join(out), offsets
            code = text[j + 1 : j + 2]
            if code in _ESCAPES:
                out.append(_ESCAPES[code])
                offsets.append(j)
                i = j + 2
                continue
            if code != "u":
                raise _Bad
            unit = _hex(text, j + 2)
            i = j + 6
            if 0xD800 <= unit < 0xDC00 and text[i : i + 2] == "\\u":
                low = _hex(text, i + 2)
                if 0xDC00 <= low < 0xE000:
                    unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                    i += 6
            out.append(chr(unit))
            offsets.append(j)

    def value(self, depth: int = 0) -> Any:
        """Skip one value; return ("str", token) for strings, ("obj", members) for objects, else None."""
        if depth > 200:
            raise _Bad
        char = self.peek()
        if char == '"':
            return "str", self.string()
        if char == "{":
            return "obj", self.members(depth)
        if char == "[":
            self.i += 1
            if self.peek() == "]":
                self.i += 1
                return None
            while True:
                self.value(depth + 1)
                if self.peek() == ",":
                    self.i += 1
                    continue
                self.expect("]")
                return None
        text, i = self.text, self.i
        while i < len(text) and text[i] not in _WS + ",]}":
            i += 1
        if i == self.i:
            raise _Bad
        self.i = i
        return None

    def members(self, depth: int) -> dict[str, Any]:
        self.expect("{")
        members: dict[str, Any] = {}
        if self.peek() == "}":
            self.i += 1
            return members
        while True:
            if self.peek() != '"':
                raise _Bad
            key = self.string()[2]
            self.expect(":")
            members[key] = self.value(depth + 1)  # a repeated key: the last one wins, as in JSON.parse
            if self.peek() == ",":
                self.i += 1
                continue
            self.expect("}")
            return members


def _hex(text: str, at: int) -> int:
    digits = text[at : at + 4]
    if len(digits) != 4 or any(c not in "0123456789abcdefABCDEF" for c in digits):
        raise _Bad
    return int(digits, 16)


def shortenable_spans(raw: str, kind: str, parsed: dict[str, Any]) -> list[StringSpan] | None:
    """The strings of a tool message that shortening may cut, with their raw positions.

    ``kind`` is "call" or "output"; ``parsed`` is the message's parsed content, used
    to check the scan agrees with the real parser. None when the raw text is not
    plain JSON this scanner follows (comments, for instance): callers then search
    the decoded strings only.
    """
    scanner = _Scanner(raw)
    try:
        top = scanner.value()
        scanner.ws()
        if scanner.i != len(raw) or top is None or top[0] != "obj":
            return None
    except (_Bad, RecursionError):
        return None
    members = top[1]
    spans: list[StringSpan] = []
    if kind == "output":
        node = members.get("content")
        if node is not None and node[0] == "str":
            spans.append(_span("content", node[1]))
    elif kind == "call":
        node = members.get("arguments")
        if node is not None and node[0] == "obj":
            for key, child in node[1].items():
                if child is not None and child[0] == "str":
                    spans.append(_span(f"arguments.{key}", child[1]))
    for span in spans:
        if span.value != field_value(parsed, span.field):
            return None
    return spans


def _span(field: str, token: Any) -> StringSpan:
    start, end, value, offsets = token
    return StringSpan(field, start, end, value, tuple(offsets))


def field_value(parsed: Any, field: str) -> Any:
    """The decoded value of ``field`` ("content" or "arguments.KEY") in a parsed tool message."""
    if not isinstance(parsed, dict):
        return None
    if field == "content":
        return parsed.get("content")
    if field.startswith("arguments."):
        arguments = parsed.get("arguments")
        return arguments.get(field[len("arguments.") :]) if isinstance(arguments, dict) else None
    return None


def decoded_fields(parsed: Any, kind: str) -> list[tuple[str, str]]:
    """(field, value) for each string shortening may cut, from the parsed message alone."""
    if not isinstance(parsed, dict):
        return []
    if kind == "output":
        content = parsed.get("content")
        return [("content", content)] if isinstance(content, str) else []
    arguments = parsed.get("arguments")
    if kind == "call" and isinstance(arguments, dict):
        return [(f"arguments.{k}", v) for k, v in arguments.items() if isinstance(v, str)]
    return []
