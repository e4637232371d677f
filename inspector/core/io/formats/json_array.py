"""A JSON array of messages: ``[{"role": ..., "content": ...}, ...]`` (what the oracle reads)."""

from __future__ import annotations

import json
import mmap
import re
from typing import Any

import msgspec

from inspector.core import files
from inspector.core.errors import InputError
from inspector.core.model import Chat, Message
from inspector.core.ruby import json as rubyjson
from inspector.core.ruby import json_bytes

NAME = "json"
EXTENSIONS = (".json",)


def sniff(text: str) -> bool:
    head = text.lstrip()[:1]
    if head != "[":
        return False
    # An array of objects with a "role" key (not e.g. a JSON-lines file of arrays).
    return '"role"' in text[:4096] or text.lstrip()[1:].lstrip()[:1] == "]"


def element_lines(text: str) -> list[int]:
    """1-based start line of each top-level element (computed only when a line is needed)."""
    decoder = json.JSONDecoder()
    lines, pos, line = [], text.index("[") + 1, 1 + text.count("\n", 0, text.index("["))
    last = 0
    size = len(text)
    while pos < size:
        while pos < size and text[pos] in " \t\r\n,":
            pos += 1
        if pos >= size or text[pos] == "]":
            break
        line += text.count("\n", last, pos)
        last = pos
        lines.append(line)
        try:
            _, pos = decoder.raw_decode(text, pos)
        except ValueError:
            break
    return lines


_DECODE = msgspec.json.Decoder().decode  # strict JSON; integers of any width kept exact, as Ruby does
STREAM_FROM = 16 << 20  # bytes: smaller files are parsed in one go
PIECE = 4 << 20  # bytes parsed at a time when a large file is read in pieces (measured: as fast as whole)
_WHITE = b" \t\r\n"  # JSON's white space (no other byte may stand between two elements)
# between two objects of the array, the second's first key begun: the only place a large chat is cut
# (see _decode_pieces). A string cannot hold a raw quote, so text such as `[{\"a\":1},{\"b\":2}]` in a
# tool output never matches; only a string ending in `},{` can, and such a cut is caught.
_BETWEEN = re.compile(rb"\}[ \t\r\n]*,[ \t\r\n]*(\{)[ \t\r\n]*\"")


def decode_mapped(mapped: Any) -> Any:
    """The JSON value of a mapped file. A large one holding non-ASCII text is parsed a piece at a time,
    handing back the pages already read as it goes: Python keeps such text at 2-4 bytes a character,
    so the map and the strings together would otherwise peak at over three times the file."""
    if len(mapped) < STREAM_FROM or not hasattr(mapped, "madvise") or mapped[:65536].isascii():
        return _DECODE(mapped)
    out = _decode_pieces(mapped)
    return _DECODE(mapped) if out is None else out  # None: not cut cleanly; read whole (it may not be an array)


def _content(mapped: Any) -> tuple[int, int] | None:
    """Where the top-level array's content starts and ends (inside ``[`` and ``]``); None when the
    file does not look like one array."""
    size = len(mapped)
    start = 0
    while start < size and mapped[start] in _WHITE:
        start += 1
    end = size
    while end > start and mapped[end - 1] in _WHITE:
        end -= 1
    if end - start < 2 or mapped[start] != 0x5B or mapped[end - 1] != 0x5D:  # [ ... ]
        return None
    return start + 1, end - 1


def _decode_pieces(mapped: Any) -> list[Any] | None:
    """The elements of a large array, parsed a piece of about PIECE bytes at a time (each copied into a
    buffer between ``[`` and ``]``), the file's pages handed back after each; None when that fails.

    A piece is cut between two objects (``}`` ``,`` ``{"``), but the same bytes may end a string or stand
    between objects nested deeper: such a piece does not parse on its own, and is tried again twice
    as long. This is sound because JSON's grammar is unambiguous: a piece that parses on its own starts
    and ends where the whole file is between two elements of its top-level array, so its elements are
    the file's. When the rest does not parse (invalid JSON), the caller reads the file whole and says why.
    """
    bounds = _content(mapped)
    if bounds is None or bounds[1] - bounds[0] <= PIECE:
        return None
    start, end = bounds
    whole = memoryview(mapped)
    buffer = bytearray()
    out: list[Any] = []
    released = 0
    size = PIECE
    try:
        while start < end:
            found = _BETWEEN.search(mapped, start + size, end) if end - start > size else None
            stop = found.start() + 1 if found is not None else end
            n = stop - start
            if len(buffer) < n + 2:
                buffer = bytearray(n + 2)
            with memoryview(buffer) as view:
                view[0] = 0x5B
                view[1 : n + 1] = whole[start:stop]
                view[n + 1] = 0x5D
                try:
                    out.extend(_DECODE(view[: n + 2]))
                except (msgspec.DecodeError, RecursionError):
                    if found is None:
                        return None
                    size = max(2 * size, n)  # cut inside a string or a nested array: a longer piece, past it
                    continue
            size = PIECE
            start = found.start(1) if found is not None else end
            done = start - start % mmap.PAGESIZE
            if done > released:  # read-only file pages: dropped (read again if touched)
                mapped.madvise(mmap.MADV_DONTNEED, released, done - released)
                released = done
    finally:
        whole.release()
    return out


def load_path(path: Any, shown: str | None) -> Chat:
    """A large file parsed from a memory map (no copy of the file in Python); else as ``load_bytes``.

    msgspec rather than orjson here: measured 1.5-2x faster on whole chats, and it keeps wide
    integers exact instead of rounding them to floats.
    """
    try:
        with files.map_regular(path, files.CHAT_LIMIT, "chat") as mapped:
            try:
                parsed = decode_mapped(mapped)
            except (msgspec.DecodeError, RecursionError):
                parsed = None
    except (OSError, ValueError):
        parsed = None
    if parsed is None:
        return load_bytes(files.read_chat_bytes(path), shown)  # the careful path, which names the line at fault
    return _build(parsed, shown, lambda: files.read_chat_bytes(path), lambda: one_line(path))


def load_bytes(data: bytes, path: str | None) -> Chat:
    """Parse straight from bytes (orjson checks the UTF-8): the fast path for large files."""
    try:
        parsed = _DECODE(data)
    except (msgspec.DecodeError, RecursionError):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            # Ruby reads the bytes as they are: each invalid one held as a surrogateescape character
            # (json_bytes); only writing such a string out raises
            text = data.decode("utf-8", "surrogateescape")
            json_bytes.used = True
        return load(text, path)
    return _build(parsed, path, lambda: data.decode("utf-8"))


def load(text: str, path: str | None) -> Chat:
    import orjson  # here: the usual paths (load_path, load_bytes) read with msgspec

    try:
        data = orjson.loads(text)
        if rubyjson.has_wide_float(data):
            data = rubyjson.parse(text)  # exact integers wider than 64 bits, as Ruby keeps them
    except orjson.JSONDecodeError as exc:
        try:
            data = rubyjson.parse(text)
        except rubyjson.RubyJSONError as ruby:
            if rubyjson.ruby_only(text):  # Ruby's own reason (an incomplete surrogate pair...)
                line = None if ruby.pos is None else text.count("\n", 0, ruby.pos) + 1
                bad = " (the file holds invalid UTF-8)" if rubyjson.has_invalid_bytes(text) else ""
                raise InputError(f"invalid JSON: {ruby}{bad}", path, line) from None
            raise InputError(f"invalid JSON: {exc.msg} (column {exc.colno})", path, exc.lineno) from None
        if rubyjson.ruby_only(text):
            key = json_bytes.bad_key(data)
            if key is not None:  # `symbolize_names: true` makes every key a Symbol
                raise InputError(
                    f"EncodingError: invalid symbol in encoding UTF-8 :{json_bytes.inspect_bytes(key)}", path
                ) from None
    return _build(data, path, lambda: text)


def one_line(path: Any, chunk: int = 1 << 22) -> int | None:
    """The line every message of a JSON file is on when its content fits one line, else None.

    Read in pieces (a large file is neither held in memory nor decoded): a JSON string cannot hold a
    raw newline, so a file whose newlines all stand before or after its content is one line.
    """
    blank = b" \t\r\n"
    before = 0  # newlines before the content starts
    started = pending = False  # content seen; a newline seen after it (fine if only blanks follow)
    try:
        with open(path, "rb") as handle:
            while piece := handle.read(chunk):
                if not started:
                    body = piece.lstrip(blank)
                    before += piece.count(b"\n", 0, len(piece) - len(body))
                    if not body:
                        continue
                    started, piece = True, body
                if pending and piece.strip(blank):
                    return None
                at = piece.find(b"\n")
                if at >= 0:
                    if piece[at:].strip(blank):
                        return None
                    pending = True
    except OSError:
        return None
    return before + 1 if started else None


def _build(data: Any, path: str | None, text: Any, single: Any = None) -> Chat:
    if not isinstance(data, list):
        kinds: dict[type, str] = {dict: "an object", str: "a string"}
        kind = kinds.get(type(data), type(data).__name__)
        raise InputError(f"expected a JSON array of messages, found {kind}", path, 1)
    messages = []
    for index, item in enumerate(data):
        if not isinstance(item, dict):
            kind = {list: "an array", str: "a string", type(None): "null"}.get(type(item), type(item).__name__)
            line = _Locator(text)(index)
            raise InputError(f"message {index} is {kind}, not an object with role and content", path, line)
        messages.append(Message(item))
    return Chat(messages, path=path, format=NAME, locator=_Locator(text, single))


class _Locator:
    """Finds message lines on first use; ``text`` is a callable (giving text, or bytes decoded only if needed).

    A file on one line (JSON as most programs write it: raw newlines cannot stand inside its strings)
    puts every message on that line, found without decoding or re-reading the file's structure.
    """

    def __init__(self, text: Any, single: Any = None):
        self.text = text
        self.lines: list[int] | None = None
        self.single: int | None = None  # the line every message is on, for a one-line file
        self.find_single = single  # finds that line without reading the file whole (None: from the text)

    def __call__(self, index: int) -> int | None:
        if self.single is not None:
            return self.single
        if self.lines is None and self.find_single is not None:
            self.single, self.find_single = self.find_single(), None
            if self.single is not None:
                return self.single
        if self.lines is None:
            source = self.text()
            newline = b"\n" if isinstance(source, bytes) else "\n"
            body = source.rstrip()
            if newline not in body.lstrip():
                self.single = body.count(newline) + 1  # blank lines before the array only
                return self.single
            if isinstance(source, bytes):
                source = source.decode("utf-8", "replace")
            self.lines = element_lines(source)
        return self.lines[index] if index < len(self.lines) else None
