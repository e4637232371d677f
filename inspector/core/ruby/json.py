"""JSON read and written the way scout-ai's Ruby (json 2.6) does.

Lengths of re-serialised tool messages feed the character budget, so one byte of
difference here changes later decisions.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from itertools import chain
from json.encoder import encode_basestring  # the C escaper: raw UTF-8, \uXXXX only below 0x20
from typing import Any

import msgspec

from inspector.core.lazy_re import lazy
from inspector.core.ruby import json_bytes

# orjson is imported where it is used: its import costs a short `prepare` more (about 13 ms of CPU)
# than it saves there; msgspec, which reads every chat, is loaded anyway.


class RubyJSONError(ValueError):
    """What Ruby's JSON.parse / to_json would raise."""

    def __init__(self, exception: str, message: str, pos: int | None = None):
        super().__init__(message)
        self.exception = exception
        self.pos = pos


_COMMENT = lazy(r'"(?:[^"\\]|\\.)*"|/\*.*?\*/|//[^\n]*(?:\n|$)', re.S)


def _strip_comments(text: str) -> str:
    # Ruby's parser skips /* */ and // comments wherever white space may stand.
    return _COMMENT.sub(lambda m: m.group() if m.group().startswith('"') else " ", text)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"unexpected token {name}")


_DECODER = json.JSONDecoder(parse_constant=_reject_constant)
# an integer wider than 64 bits (checked on ASCII text only; a leading literal class lets re skip ahead fast)
_LONG_DIGITS = lazy(r"[0-9][0-9]{18}")
# an escaped surrogate (\ud800-\udfff): the only way parsed text can hold a lone one
_ESCAPED_SURROGATE = lazy(r"\\u[dD][89abAB]|\\u[dD][c-fC-F]")


def has_wide_float(value: Any) -> bool:
    """True when a parsed value holds a float that may have been a wide integer (orjson's rounding).

    Strings are skipped without a scan, so this walks only the structure of a large chat.
    """
    kind = type(value)
    if kind is float:
        wide: bool = abs(value) >= 2.0**63
        return wide
    if kind is dict:
        return any(has_wide_float(v) for v in value.values() if type(v) is not str)
    if kind is list:
        return any(has_wide_float(v) for v in value if type(v) is not str)
    return False


def has_long_digits(text: str) -> bool:
    return _LONG_DIGITS.search(text) is not None


def parse(text: str, exact_integers: bool = True) -> Any:
    """Parse like Ruby's ``JSON.parse`` (any top-level value, comments allowed).

    orjson turns integers wider than 64 bits into floats and refuses comments; Ruby keeps
    both. ``exact_integers=False`` skips the scan for long digit runs when only validity
    and strings matter (the caller re-parses before re-serialising).
    """
    if not text.isascii():
        # Python holds non-ASCII text as UCS-2/4: the stdlib scanner reads it in place, while
        # orjson must first build a UTF-8 copy (measured: about 1.7x slower on such chats).
        return _parse_stdlib(text)
    if not (exact_integers and has_long_digits(text)):
        import orjson

        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError as exc:
            if exc.msg.startswith("depth limit"):  # nested past 1024 with valid text before: past Ruby's 100
                raise RubyJSONError("JSON::NestingError", f"nesting of {MAX_NESTING + 1} is too deep") from None
            # orjson refuses numbers beyond a double (1e400); Ruby reads them as Infinity
            if (
                "/*" not in text
                and "//" not in text
                and "\\" not in text  # escaped surrogates, `\\a`: Ruby's own rules decide
                and not has_long_digits(text)
                and "infinity" not in exc.msg
            ):
                raise RubyJSONError(
                    "JSON::ParserError", f"{exc.msg} at line {exc.lineno} column {exc.colno}", exc.pos
                ) from None
    return _parse_stdlib(text)


def has_invalid_bytes(text: str) -> bool:
    """Whether ``text`` holds an invalid byte (a surrogateescape character): only once a file holding one
    was read (json_bytes.used), and only in non-ASCII text."""
    return json_bytes.used and not text.isascii() and json_bytes.BAD_CHAR.search(text) is not None


def ruby_only(text: str) -> bool:
    """Whether ``text`` may hold what only Ruby's own rules read right: an escaped surrogate or an invalid byte."""
    return ("\\u" in text and _ESCAPED_SURROGATE.search(text) is not None) or has_invalid_bytes(text)


def _parse_stdlib(text: str) -> Any:
    try:
        try:
            value = _DECODER.decode(text)
        except json.JSONDecodeError:
            if "/*" not in text and "//" not in text:
                raise
            value = _DECODER.decode(_strip_comments(text))
    except json.JSONDecodeError:
        if ruby_only(text):
            return _parse_ruby(text)
        if "\\" in text:
            try:
                return _parse_ruby(text)  # `\\a` reads as `a` in Ruby; else the stdlib's message below
            except RubyJSONError:
                pass
        return _stdlib_error(text)
    except RecursionError:  # nested past the decoder's depth (~1000): JSON.parse stops at 101
        raise RubyJSONError("JSON::NestingError", f"nesting of {MAX_NESTING + 1} is too deep") from None
    except ValueError as exc:
        raise RubyJSONError("JSON::ParserError", f"{getattr(exc, 'msg', 'invalid JSON')}") from None
    if has_invalid_bytes(text):
        return _parse_ruby(text)
    if "\\u" in text and _ESCAPED_SURROGATE.search(text) is not None:
        # Ruby reads an escaped surrogate differently only when the stdlib leaves a lone one (pairs agree)
        try:
            json.dumps(value, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            return _parse_ruby(text)
    return value


def _stdlib_error(text: str) -> Any:
    try:
        _DECODER.decode(_strip_comments(text) if "/*" in text or "//" in text else text)
    except json.JSONDecodeError as exc:
        raise RubyJSONError("JSON::ParserError", f"{exc.msg} at line {exc.lineno} column {exc.colno}") from None
    raise RubyJSONError("JSON::ParserError", "invalid JSON")


def _parse_ruby(text: str) -> Any:
    """Ruby's reading where it differs from the stdlib's: escaped surrogates, invalid bytes, ``\\a``."""
    try:
        return json_bytes.loads(_strip_comments(text) if "/*" in text or "//" in text else text)
    except json_bytes.ParseFailure as exc:
        raise RubyJSONError("JSON::ParserError", str(exc), exc.pos) from None
    except RecursionError:
        raise RubyJSONError("JSON::NestingError", f"nesting of {MAX_NESTING + 1} is too deep") from None


def ruby_float(value: float) -> str:
    """``Float#to_s``: fixed notation for exponents -4..14, else ``d.ddde+XX``."""
    if math.isnan(value) or math.isinf(value):
        shown = "NaN" if math.isnan(value) else "-Infinity" if value < 0 else "Infinity"  # Float#to_s
        raise RubyJSONError("JSON::GeneratorError", f"{shown} not allowed in JSON")
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


_FAST = (str, int, bool, type(None))


def _plain(value: Any) -> bool:
    """True when orjson writes ``value`` exactly as Ruby does: no floats, no huge integers."""
    kind = type(value)
    if kind is str or value is None or kind is bool:
        return True
    if kind is int:
        fits: bool = -(2**63) <= value < 2**64
        return fits
    if kind is dict:
        return all(type(k) is str and _plain(v) for k, v in value.items())
    if kind is list:
        return all(_plain(v) for v in value)
    return False


def _orjson_dumps() -> Any:
    import orjson

    return orjson.dumps


# msgspec's encoder writes plain values byte for byte as orjson does (tests/test_rubyjson.py),
# at about half its speed on long strings: a short output is written with it (no orjson import), a long
# one with orjson once ORJSON_FROM bytes are written (measured: the import pays for itself past ~20 MB).
_MSGSPEC_ENCODE = msgspec.json.Encoder().encode
ORJSON_FROM = 16 << 20


def _text_only(messages: list[dict[str, Any]]) -> bool:
    """True when every message maps strings to strings (most prompts): plain, and holding no number at all.
    Checked in C (``_plain`` per message costs more than writing it)."""
    try:
        keys = set(map(type, chain.from_iterable(messages)))
        values = set(map(type, chain.from_iterable(map(dict.values, messages))))
    except TypeError:  # a message that is not a dict
        return False
    return keys <= _STR and values <= _STR


_STR = {str}


def dumps_messages_bytes(messages: list[dict[str, Any]], encode: Any = None, text_only: bool = False) -> bytes:
    """``JSON.generate`` of a list of message mappings, fast when no value needs Ruby's float forms.

    ``encode``: the fast encoder for plain values (default orjson's); ``text_only``: the caller found every
    message to map strings to strings (``_text_only``)."""
    if text_only or all(_plain(m) for m in messages):
        try:
            written: bytes = (encode or _orjson_dumps())(messages)
            return written
        except (TypeError, UnicodeEncodeError):  # lone surrogates: the slow path below says what Ruby raises
            pass
    return ("[" + ",".join(dumps(m) for m in messages) + "]").encode("utf-8", "surrogatepass")


CHUNK_MESSAGES = 256  # messages written per piece: bounds the output held in memory at once


def has_nonfinite(value: Any) -> bool:
    """True when a value holds NaN or an infinity (``to_json`` raises on them); strings are not scanned."""
    kind = type(value)
    if kind is float:
        return not math.isfinite(value)
    if kind is dict:
        return any(has_nonfinite(v) for v in value.values() if type(v) is not str)
    if kind is list:
        return any(has_nonfinite(v) for v in value if type(v) is not str)
    return False


def dumps_messages_chunks(messages: list[dict[str, Any]], end: bytes = b"") -> Iterator[bytes]:
    """``JSON.generate`` of a list of message mappings, as pieces of bytes (joined, they are the
    whole text followed by ``end``), so a large prompt is never held twice in memory.

    What would raise is found before the first piece, so nothing is written when it does.
    """
    text_only = _text_only(messages)
    if not text_only and any(has_nonfinite(m) for m in messages):
        yield dumps_messages_bytes(messages) + end  # raises RubyJSONError as JSON.generate does
        return
    if json_bytes.used:  # some text read had escaped surrogates or invalid bytes: one may be written
        found = json_bytes.first_generator_error(messages)
        if found:
            raise RubyJSONError("JSON::GeneratorError", found)
    yield b"["
    written = 0
    encode = _MSGSPEC_ENCODE
    for start in range(0, len(messages), CHUNK_MESSAGES):
        if written >= ORJSON_FROM and encode is _MSGSPEC_ENCODE:
            encode = _orjson_dumps()
        piece = dumps_messages_bytes(messages[start : start + CHUNK_MESSAGES], encode, text_only)
        written += len(piece)
        yield (b"," + piece[1:-1]) if start else piece[1:-1]
    yield b"]" + end


def generator_error(messages: list[dict[str, Any]]) -> RubyJSONError | None:
    """What ``JSON.generate`` of these messages would raise (None: nothing), without writing them: the
    checks ``dumps_messages_chunks`` makes before its first piece."""
    try:
        next(dumps_messages_chunks(messages))
    except RubyJSONError as exc:
        return exc
    return None


def dumps_messages(messages: list[dict[str, Any]]) -> str:
    return dumps_messages_bytes(messages).decode("utf-8", "surrogatepass")


def dumps(value: Any) -> str:
    """``to_json`` / ``JSON.generate``: compact, raw UTF-8, key order kept.

    A string holding an invalid byte (a surrogateescape character) raises GeneratorError, as in Ruby."""
    text = _dumps(value)
    if not text.isascii() and json_bytes.BAD_CHAR.search(text) is not None:
        found = json_bytes.first_generator_error(value)
        if found:
            raise RubyJSONError("JSON::GeneratorError", found)
    return text


def _dumps(value: Any) -> str:
    kind = type(value)
    if kind is str:
        return encode_basestring(value)
    if kind is dict:
        return "{" + ",".join(encode_basestring(str(k)) + ":" + _dumps(v) for k, v in value.items()) + "}"
    if kind is list:
        return "[" + ",".join(_dumps(v) for v in value) + "]"
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


MAX_NESTING = 100  # JSON.parse's default max_nesting


def too_deep(text: str, value: Any, limit: int = MAX_NESTING) -> bool:
    """True when Ruby's ``JSON.parse`` would raise NestingError (arrays/objects nested past ``limit``).

    ``parse`` does not check this itself (Python's decoders nest far deeper): shorten_tools' tool facts
    ask it of every tool message (the seed raises), and the epoch strategies of what they rescue.
    """
    if text.count("[") + text.count("{") <= limit:
        return False  # cheap bound: cannot nest deeper than the brackets it holds
    return nested_past(value, limit)


def nested_past(value: Any, limit: int = MAX_NESTING) -> bool:
    """True when the decoded ``value`` holds an array or object at a level past ``limit`` (itself at 1)."""

    def depth(item: Any, level: int) -> bool:
        if level > limit:
            return True
        kind = type(item)
        if kind is list:
            return any(depth(v, level + 1) for v in item if type(v) in (list, dict))
        if kind is dict:
            return any(depth(v, level + 1) for v in item.values() if type(v) in (list, dict))
        return False

    return type(value) in (list, dict) and depth(value, 1)
