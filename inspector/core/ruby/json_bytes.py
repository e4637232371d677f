"""Ruby's json 2.6.1 on what the fast parsers refuse: escaped surrogates and invalid UTF-8.

Ruby keeps a string's bytes as they are, valid or not. Here such a string is a Python ``str`` where
each byte that is not part of a valid UTF-8 character is the lone surrogate ``U+DC80..U+DCFF``
(Python's ``surrogateescape``): ``len`` then counts as ``String#length`` does on a broken string
(one per invalid byte), slicing cuts where Ruby's does, and ``encode("utf-8", "surrogateescape")``
gives back Ruby's bytes (for the MD5 of ``Log.truncate_string``). Only text that holds an escaped
surrogate or an invalid byte comes here; everything else takes the fast parsers.

The rules (json 2.6.1's ``json_string_unescape``, checked against Ruby):
- ``\\uD800-\\uDBFF`` (a high surrogate) with fewer than 6 bytes after it in the string: ParserError
  "incomplete surrogate pair"; followed by ``\\u`` + 4 characters: combined with them whatever they
  are (``\\ud800\\u0041`` is U+10041, a non-hex character reads as U+FFFD); else ``?`` and the next
  byte is dropped (``\\ud800\\n`` gives ``?n``).
- ``\\uDC00-\\uDFFF`` alone: its 3 bytes ``ED B0 80``-like, invalid UTF-8 (parses; writing raises).
- ``\\`` before any other character keeps that character (``\\a`` is ``a``).
- Writing (``JSON.generate``/``to_json``) a string holding an invalid byte raises GeneratorError.
"""

from __future__ import annotations

import re
from typing import Any

from inspector.core.lazy_re import lazy

_WHITE = lazy(r"[ \t\r\n]*")
# a string's body as Ruby's scanner accepts it: no raw control character, \u with 4 hex digits
_STRING = lazy(r'((?:[^"\\\x00-\x1f]|\\u[0-9a-fA-F]{4}|\\[^u\x00-\x1f])*)"')
_NUMBER = lazy(r"(-?(?:0|[1-9][0-9]*))(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_ESCAPE = lazy(r"\\(u[0-9a-fA-F]{4}|.)", re.S)
_HIGH = lazy(r"\\u[dD][89abAB]")
_SIMPLE = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", '"': '"', "\\": "\\"}
_SIMPLE_BYTES = {ord(k): v.encode() for k, v in _SIMPLE.items()}
BAD_CHAR = lazy(r"[\udc80-\udcff]")  # an invalid byte, as these strings hold it


# set once any text is read here: only then can a parsed string hold an invalid byte, so only then
# does writing a prompt look for one before its first piece (nothing is written when Ruby raises)
used = False


class ParseFailure(ValueError):
    def __init__(self, message: str, pos: int):
        super().__init__(message)
        self.pos = pos


def _utf8(ch: int) -> bytes:
    """``convert_UTF32_to_UTF8``: surrogates written as 3 bytes like any other code point."""
    if ch < 0x80:
        return bytes((ch,))
    if ch < 0x800:
        return bytes((0xC0 | ch >> 6, 0x80 | ch & 0x3F))
    if ch < 0x10000:
        return bytes((0xE0 | ch >> 12, 0x80 | ch >> 6 & 0x3F, 0x80 | ch & 0x3F))
    return bytes((0xF0 | ch >> 18, 0x80 | ch >> 12 & 0x3F, 0x80 | ch >> 6 & 0x3F, 0x80 | ch & 0x3F))


def _hex4(data: bytes, at: int) -> int:
    """``unescape_unicode``: U+FFFD when any of the 4 characters is not a hex digit."""
    try:
        digits = data[at : at + 4].decode("ascii")
        if len(digits) == 4 and all(c in "0123456789abcdefABCDEF" for c in digits):
            return int(digits, 16)
    except UnicodeDecodeError:
        pass
    return 0xFFFD


def _unescape_bytes(body: bytes) -> bytes:
    """The C loop itself, on the string's bytes (used when a high surrogate is escaped)."""
    data = body + b'"\0\0\0\0'  # the closing quote, then what the C code may read past it
    end = len(body)
    out = bytearray()
    p = pe = 0
    while pe < end:
        if data[pe] != 0x5C:
            pe += 1
            continue
        out += data[p:pe]
        pe += 1
        c = data[pe]
        if c in _SIMPLE_BYTES:
            out += _SIMPLE_BYTES[c]
        elif c == 0x75:  # u
            if pe > end - 4:
                raise ValueError("incomplete unicode character escape sequence")
            ch = _hex4(data, pe + 1)
            pe += 4
            if ch & 0xFC00 == 0xD800:
                pe += 1
                if pe > end - 6:
                    raise ValueError("incomplete surrogate pair")
                if data[pe] == 0x5C and data[pe + 1] == 0x75:
                    low = _hex4(data, pe + 2)
                    ch = ((ch & 0x3F) << 10) | ((((ch >> 6) & 0xF) + 1) << 16) | (low & 0x3FF)
                    pe += 5
                else:
                    out += b"?"
                    pe += 1
                    p = pe
                    continue
            out += _utf8(ch)
        else:
            p = pe  # the backslash dropped, the character kept
            continue
        pe += 1
        p = pe
    out += data[p:end]
    return bytes(out)


def _one_escape(match: re.Match[str]) -> str:
    code = match.group(1)
    if len(code) == 1:
        return _SIMPLE.get(code, code)
    return _utf8(int(code[1:], 16)).decode("utf-8", "surrogateescape")  # a low surrogate: 3 invalid bytes


def unescape(body: str) -> str:
    """A string's value from its body (between the quotes), as Ruby builds it."""
    if "\\" not in body:
        return body
    if _HIGH.search(body) is None:
        return _ESCAPE.sub(_one_escape, body)  # each escape stands alone
    try:
        raw = _unescape_bytes(body.encode("utf-8", "surrogateescape"))
    except ValueError as exc:
        raise ParseFailure(str(exc), 0) from None
    return raw.decode("utf-8", "surrogateescape")


def loads(text: str, symbol_keys: bool = False) -> Any:
    """Parse ``text`` (invalid bytes as surrogateescape characters) as Ruby's JSON.parse does.

    ``symbol_keys``: ``symbolize_names: true``, where a key holding an invalid byte raises EncodingError.
    """
    global used
    used = True
    value, pos = _value(text, _WHITE.match(text, 0).end(), symbol_keys)  # type: ignore[union-attr]
    pos = _WHITE.match(text, pos).end()  # type: ignore[union-attr]
    if pos != len(text):
        raise ParseFailure("unexpected token", pos)
    return value


def _value(text: str, pos: int, keys: bool, depth: int = 0) -> tuple[Any, int]:
    if depth > 10000:
        raise RecursionError
    char = text[pos : pos + 1]
    if char == '"':
        found = _STRING.match(text, pos + 1)
        if found is None:
            raise ParseFailure("unexpected token", pos)
        try:
            return unescape(found.group(1)), found.end()
        except ParseFailure as exc:
            raise ParseFailure(str(exc), pos) from None
    if char == "{":
        result: dict[str, Any] = {}
        pos = _WHITE.match(text, pos + 1).end()  # type: ignore[union-attr]
        if text[pos : pos + 1] == "}":
            return result, pos + 1
        while True:
            if text[pos : pos + 1] != '"':
                raise ParseFailure("expected a key", pos)
            key, pos = _value(text, pos, keys, depth + 1)
            if keys and BAD_CHAR.search(key) is not None:
                raise ParseFailure("EncodingError: invalid symbol in encoding UTF-8", pos)
            pos = _WHITE.match(text, pos).end()  # type: ignore[union-attr]
            if text[pos : pos + 1] != ":":
                raise ParseFailure("expected ':'", pos)
            item, pos = _value(text, _WHITE.match(text, pos + 1).end(), keys, depth + 1)  # type: ignore[union-attr]
            result[key] = item
            pos = _WHITE.match(text, pos).end()  # type: ignore[union-attr]
            sep = text[pos : pos + 1]
            if sep == "}":
                return result, pos + 1
            if sep != ",":
                raise ParseFailure("expected ',' or '}'", pos)
            pos = _WHITE.match(text, pos + 1).end()  # type: ignore[union-attr]
    if char == "[":
        items: list[Any] = []
        pos = _WHITE.match(text, pos + 1).end()  # type: ignore[union-attr]
        if text[pos : pos + 1] == "]":
            return items, pos + 1
        while True:
            item, pos = _value(text, pos, keys, depth + 1)
            items.append(item)
            pos = _WHITE.match(text, pos).end()  # type: ignore[union-attr]
            sep = text[pos : pos + 1]
            if sep == "]":
                return items, pos + 1
            if sep != ",":
                raise ParseFailure("expected ',' or ']'", pos)
            pos = _WHITE.match(text, pos + 1).end()  # type: ignore[union-attr]
    for word, constant in (("true", True), ("false", False), ("null", None)):
        if text.startswith(word, pos):
            return constant, pos + len(word)
    number = _NUMBER.match(text, pos)
    if number is not None and number.end() > pos:
        whole, frac, exp = number.groups()
        if frac or exp:
            return float(number.group()), number.end()
        return int(whole), number.end()
    raise ParseFailure("unexpected token", pos)


_TRAILING = [0] * 0xC0 + [1] * 0x20 + [2] * 0x10 + [3] * 8 + [4] * 4 + [5] * 4


def _legal(seq: bytes) -> bool:
    """ConvertUTF's ``isLegalUTF8`` (what json 2.6.1's generator checks)."""
    length = len(seq)
    if length > 4:
        return False
    if length >= 4 and not 0x80 <= seq[3] <= 0xBF:
        return False
    if length >= 3 and not 0x80 <= seq[2] <= 0xBF:
        return False
    lead = seq[0]
    if length >= 2:
        a = seq[1]
        if a > 0xBF:
            return False
        limits = {0xE0: (0xA0, 0xBF), 0xED: (0x80, 0x9F), 0xF0: (0x90, 0xBF), 0xF4: (0x80, 0x8F)}
        low, high = limits.get(lead, (0x80, 0xBF))
        if not low <= a <= high:
            return False
    if 0x80 <= lead < 0xC2:
        return False
    return lead <= 0xF4


def generator_error(string: str) -> str | None:
    """What ``JSON.generate`` raises on ``string`` (None: it writes it): json 2.6.1's walk, a character
    at a time by its lead byte."""
    if BAD_CHAR.search(string) is None:
        return None
    data = string.encode("utf-8", "surrogateescape")
    at, size = 0, len(data)
    while at < size:
        lead = data[at]
        if lead < 0x80:
            at += 1
            continue
        length = 1 + _TRAILING[lead]
        if at + length > size:
            return "partial character in source, but hit end"
        if not _legal(data[at : at + length]):
            return "source sequence is illegal/malformed utf-8"
        at += length
    return None  # not reached: an invalid byte always stops the walk


def first_generator_error(value: Any) -> str | None:
    """The GeneratorError message for the first string ``JSON.generate`` would refuse in ``value``
    (keys before their values, in order), or None."""
    kind = type(value)
    if kind is str:
        return generator_error(value)
    if kind is dict:
        for key, item in value.items():
            found = (generator_error(key) if type(key) is str else None) or first_generator_error(item)
            if found:
                return found
    elif kind is list:
        for item in value:
            found = first_generator_error(item)
            if found:
                return found
    return None


def bad_key(value: Any) -> str | None:
    """A key holding an invalid byte (which ``symbolize_names`` cannot make a Symbol), or None."""
    kind = type(value)
    if kind is dict:
        for key, item in value.items():
            if type(key) is str and BAD_CHAR.search(key) is not None:
                return key
            found = bad_key(item)
            if found is not None:
                return found
    elif kind is list:
        for item in value:
            found = bad_key(item)
            if found is not None:
                return found
    return None


def inspect_bytes(string: str) -> str:
    """How Ruby's ``inspect`` shows a broken string's invalid bytes (``"k\\xFF"``), the rest as is."""
    return '"' + "".join(f"\\x{ord(c) - 0xDC00:02X}" if "\udc80" <= c <= "\udcff" else c for c in string) + '"'
