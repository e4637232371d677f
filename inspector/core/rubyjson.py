"""JSON read and written the way scout-ai's Ruby (json 2.6) does.

Lengths of re-serialised tool messages feed the character budget, so one byte of
difference here changes later decisions.
"""

from __future__ import annotations

import json
import math
import re
from json.encoder import encode_basestring  # the C escaper: raw UTF-8, \uXXXX only below 0x20

import orjson


class RubyJSONError(ValueError):
    """What Ruby's JSON.parse / to_json would raise."""

    def __init__(self, exception: str, message: str, pos: int | None = None):
        super().__init__(message)
        self.exception = exception
        self.pos = pos


_COMMENT = re.compile(r'"(?:[^"\\]|\\.)*"|/\*.*?\*/|//[^\n]*(?:\n|$)', re.S)


def _strip_comments(text: str) -> str:
    # Ruby's parser skips /* */ and // comments wherever white space may stand.
    return _COMMENT.sub(lambda m: m.group() if m.group().startswith('"') else " ", text)


def _reject_constant(name: str):
    raise ValueError(f"unexpected token {name}")


_LONG_DIGITS = re.compile(r"\d{19}")


def parse(text: str):
    """Parse like Ruby's ``JSON.parse`` (any top-level value, comments allowed)."""
    # orjson turns integers wider than 64 bits into floats and refuses comments; Ruby keeps both.
    plain = _LONG_DIGITS.search(text) is None
    if plain:
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError as exc:
            if "/*" not in text and "//" not in text:
                raise RubyJSONError("JSON::ParserError", f"{exc.msg} at line {exc.lineno} column {exc.colno}",
                                    exc.pos) from None
    candidate = _strip_comments(text) if ("/*" in text or "//" in text) else text
    try:
        value = json.loads(candidate, parse_constant=_reject_constant)
        json.dumps(value, ensure_ascii=False).encode("utf-8")  # lone surrogates: Ruby refuses them
        return value
    except (ValueError, RecursionError) as exc:
        where = f" at line {exc.lineno} column {exc.colno}" if isinstance(exc, json.JSONDecodeError) else ""
        raise RubyJSONError("JSON::ParserError", f"{getattr(exc, 'msg', 'invalid JSON')}{where}") from None


def ruby_float(value: float) -> str:
    """``Float#to_s``: fixed notation for exponents -4..14, else ``d.ddde+XX``."""
    if math.isnan(value) or math.isinf(value):
        raise RubyJSONError("JSON::GeneratorError", f"{value!r} not allowed in JSON")
    text = repr(value)
    if "e" in text:
        mantissa, exponent = text.split("e")
        if "." not in mantissa:
            mantissa += ".0"
        return f"{mantissa}e{exponent}"
    if abs(value) < 1e15 or not text.endswith(".0"):
        return text
    # Python keeps whole numbers below 1e16 in fixed notation; Ruby switches at 1e15.
    sign = "-" if text.startswith("-") else ""
    whole, frac = text.lstrip("-").split(".")
    digits = (whole + frac).rstrip("0") or "0"
    return f"{sign}{digits[0]}.{digits[1:] or '0'}e+{len(whole) - 1:02d}"


def dumps(value) -> str:
    """``to_json`` / ``JSON.generate``: compact, raw UTF-8, key order kept."""
    kind = type(value)
    if kind is str:
        return encode_basestring(value)
    if kind is dict:
        return "{" + ",".join(encode_basestring(str(k)) + ":" + dumps(v) for k, v in value.items()) + "}"
    if kind is list:
        return "[" + ",".join(dumps(v) for v in value) + "]"
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if kind is int:
        return str(value)
    if kind is float:
        return ruby_float(value)
    raise TypeError(f"cannot serialise {kind.__name__} as JSON")
