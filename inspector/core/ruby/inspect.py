"""Ruby's ``to_s`` and ``inspect`` (Ruby 3.1) for values parsed from JSON.

shorten_tools_epoch shortens ``content.to_s``, so a Hash or Array output content is
replaced by its Ruby ``inspect`` text; its length and MD5 decide the marker, so the
text must be Ruby's to the character.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from typing import Any

from inspector.core.ruby.json import ruby_float
from inspector.core.ruby.unprintable import ENDS, STARTS

_SIMPLE = {
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\f": "\\f",
    "\v": "\\v",
    "\b": "\\b",
    "\a": "\\a",
    "\x1b": "\\e",
    '"': '\\"',
    "\\": "\\\\",
}


def _printable(code: int) -> bool:
    if code < 0x7F:
        return code >= 0x20
    at = bisect_right(STARTS, code) - 1
    return at < 0 or code > ENDS[at]


def inspect_string(text: str) -> str:
    if text.isascii() and text.isprintable() and '"' not in text and "\\" not in text and "#" not in text:
        return f'"{text}"'  # nothing to escape (most texts): no walk over every character
    out = ['"']
    last = len(text) - 1
    for i, char in enumerate(text):
        simple = _SIMPLE.get(char)
        if simple is not None:
            out.append(simple)
        elif char == "#":
            # Ruby escapes '#' only where it would start an interpolation
            out.append("\\#" if i < last and text[i + 1] in "{$@" else "#")
        elif _printable(ord(char)):
            out.append(char)
        else:
            code = ord(char)
            out.append(f"\\u{code:04X}" if code < 0x10000 else f"\\u{{{code:X}}}")
    out.append('"')
    return "".join(out)


def _float(value: float) -> str:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return ruby_float(value)


def inspect(value: Any) -> str:
    kind = type(value)
    if kind is str:
        return inspect_string(value)
    if value is None:
        return "nil"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if kind is int:
        return str(value)
    if kind is float:
        return _float(value)
    if kind is list:
        return "[" + ", ".join(inspect(v) for v in value) + "]"
    if kind is dict:
        # Ruby 3.1 style; 3.4 changed it to {"a" => 1}
        return "{" + ", ".join(f"{inspect(k)}=>{inspect(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"no Ruby form for {kind.__name__}")


def to_s(value: Any) -> str:
    kind = type(value)
    if kind is str:
        text: str = value
        return text
    if value is None:
        return ""
    if kind is float:
        return _float(value)
    return inspect(value)  # true/false/Integer/Array/Hash: to_s is inspect
