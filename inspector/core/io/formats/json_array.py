"""A JSON array of messages: ``[{"role": ..., "content": ...}, ...]`` (what the oracle reads)."""

from __future__ import annotations

import json
import os
import re
from typing import Any

import msgspec

from inspector.core import files
from inspector.core.errors import InputError
from inspector.core.io.formats.spill import Record, Spill
from inspector.core.model import Chat, Message, SpilledMessage
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
# bytes parsed at a time when a large file is read in pieces: the piece read, its strings and (a lean read)
# their tool check stay in the processor's cache (measured on the shared 55-62 MiB chats: `prepare` 5-9%
# faster than with 4 MiB pieces, which were as fast as a whole read)
PIECE = 512 << 10
_WHITE = b" \t\r\n"  # JSON's white space (no other byte may stand between two elements)
# between two objects of the array, the second's first key begun: the only place a large chat is cut
# (see _decode_pieces). A string cannot hold a raw quote, so text such as `[{\"a\":1},{\"b\":2}]` in a
# tool output never matches; only a string ending in `},{` can, and such a cut is caught.
_BETWEEN = re.compile(rb"\}[ \t\r\n]*,[ \t\r\n]*(\{)[ \t\r\n]*\"")


class _File:
    """A checked open chat file read by offset (``os.pread``): never memory-mapped, since a mapped file
    truncated or rewritten while parsed kills the process with SIGBUS. A read that finds the file shorter
    than when it was opened raises ``files.Refused`` (changed while read)."""

    def __init__(self, opened: files.Opened):
        self.opened = opened

    def __len__(self) -> int:
        return self.opened.size

    def read(self, start: int, stop: int, sniff_nul: bool = True) -> bytes:
        """Bytes ``start:stop``, checked for NUL bytes unless told (JSON holds none raw: the file is binary)."""
        return files.read_span(self.opened, start, max(0, stop - start), sniff_nul)

    def read_into(self, buffer: bytearray, at: int, start: int, count: int) -> None:
        """``count`` bytes from ``start`` into ``buffer[at:]`` (no NUL check: a NUL fails the parse)."""
        with memoryview(buffer) as view:
            done = 0
            while done < count:
                got = os.preadv(self.opened.fd, [view[at + done : at + count]], start + done)
                if got <= 0:
                    raise files.Refused(files.CHANGED, self.opened.path)
                done += got


def decode_file(source: _File, spill: Spill | None = None) -> tuple[Any, bytes | None]:
    """The JSON value of a checked open file, and its bytes when it was read whole (None: in pieces).

    A large one is parsed a piece at a time, read into one buffer of about ``PIECE`` bytes: the file is
    never held whole (Python keeps non-ASCII text at 2-4 bytes a character, so the file and the strings
    together would peak at over three times the file), and measured as fast as a memory map was (64 MiB
    ASCII chat: 0.11 s, the map 0.10 s; reading it whole first: 0.16 s). A small one, or one that does not
    cut cleanly, is read whole (checked for NUL bytes a block at a time first). With a ``spill`` (a lean
    read), the pieces' tool contents are checked and left in the file (see spill.py)."""
    size = len(source)
    if size >= STREAM_FROM:
        out = _decode_pieces(source, spill)
        if out is not None:
            files.check_unchanged(source.opened, size)
            return out, None
        if spill is not None:
            spill.forget()
    data = source.read(0, size)
    files.check_unchanged(source.opened, size)
    return _DECODE(data), data  # None: not cut cleanly; read whole (it may not be an array)


def _content(source: _File) -> tuple[int, int] | None:
    """Where the top-level array's content starts and ends (inside ``[`` and ``]``); None when the
    file does not look like one array (or has more than 64 KiB of white space around it)."""
    size = len(source)
    head = source.read(0, min(size, 65536), False)  # a NUL: no array bounds found, the whole read refuses it
    tail = source.read(max(0, size - 65536), size, False)
    start = len(head) - len(head.lstrip(_WHITE))
    end = size - (len(tail) - len(tail.rstrip(_WHITE)))
    if start >= len(head) or end <= size - len(tail) or end - start < 2:
        return None
    if head[start] != 0x5B or tail[end - 1 - (size - len(tail))] != 0x5D:  # [ ... ]
        return None
    return start + 1, end - 1


LOOK = 64 << 10  # bytes read past a piece to find where it may be cut (doubled until a cut is found)


def _decode_pieces(source: _File, spill: Spill | None = None) -> list[Any] | None:
    """The elements of a large array, parsed a piece of about PIECE bytes at a time (each read into a
    buffer between ``[`` and ``]``); None when that fails.

    A piece is cut between two objects (``}`` ``,`` ``{"``), but the same bytes may end a string or stand
    between objects nested deeper: such a piece does not parse on its own, and is tried again twice
    as long. This is sound because JSON's grammar is unambiguous: a piece that parses on its own starts
    and ends where the whole file is between two elements of its top-level array, so its elements are
    the file's. When the rest does not parse (invalid JSON), the caller reads the file whole and says why.
    """
    bounds = _content(source)
    if bounds is None or bounds[1] - bounds[0] <= PIECE:
        return None
    start, end = bounds
    buffer = bytearray()
    out: list[Any] = []
    size, look = PIECE, LOOK
    while start < end:
        left = end - start
        want = min(left, size + look) if left > size else left
        if len(buffer) < want + 2:
            buffer = bytearray(want + 2)
        source.read_into(buffer, 1, start, want)
        if buffer.find(0, 1, 1 + want) >= 0:
            return None  # a NUL byte (binary): read whole, which refuses it at its block without reading on
        found = _BETWEEN.search(buffer, 1 + size, 1 + want) if left > size else None
        if found is None and want < left:
            look *= 2  # no cut in the bytes read past the piece: read further
            continue
        stop = found.start() + 1 if found is not None else 1 + want  # the piece is buffer[1:stop]
        with memoryview(buffer) as view:
            view[0] = 0x5B
            view[stop] = 0x5D
            try:
                elements = _DECODE(view[: stop + 1])
            except (msgspec.DecodeError, RecursionError):
                if found is None:
                    return None
                size = max(2 * size, stop - 1)  # cut inside a string or a nested array: a longer piece, past it
                continue
        out.extend(elements if spill is None else spill.take(elements, start, stop - 1))
        del elements  # this piece's strings freed before the next is parsed (a lean read reuses their memory)
        size, look = PIECE, LOOK
        start = start + found.start(1) - 1 if found is not None else end
    return out


def load_path(path: Any, shown: str | None, record: Record | None = None) -> Chat:
    """A large file parsed from its bytes (a large non-ASCII one in pieces); else as ``load_bytes``.

    msgspec rather than orjson here: measured 1.5-2x faster on whole chats, and it keeps wide
    integers exact instead of rounding them to floats. ``record``: a lean read (``Spill``), the tool
    check whose passing contents a large file's pieces leave in the file.
    """
    data: bytes | None = None
    parsed: Any = None
    try:
        with files.open_regular(path, files.CHAT_LIMIT, "chat") as opened:
            source = _File(opened)
            spill = None if record is None else Spill(opened, str(path) if shown is None else shown, record, _DECODE)
            try:
                parsed, data = decode_file(source, spill)
            except (msgspec.DecodeError, RecursionError):
                parsed = None
            if spill is not None and not spill.spilled:
                spill.close()  # nothing left in the file
    except files.Refused as exc:  # changed while read, binary...: the words read_chat_bytes has for it
        raise files.chat_error(exc, str(path) if shown is None else shown) from None
    if parsed is None:
        # the careful path, which names the line at fault
        return load_bytes(data if data is not None else files.read_chat_bytes(path), shown)
    del data  # the file's bytes are not kept while the messages are built
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
        with files.open_regular(path, files.CHAT_LIMIT, "chat") as opened:  # never blocks (a FIFO swapped in)
            while piece := os.read(opened.fd, chunk):
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
    types = set(map(type, data))
    if types <= _DICT:  # every element an object (checked in C): no loop in Python
        return Chat(list(map(Message, data)), path=path, format=NAME, locator=_Locator(text, single))
    if types <= _MESSAGES:  # a lean read's pieces are messages already (spill.Spill.take)
        return Chat(data, path=path, format=NAME, locator=_Locator(text, single))
    messages = []
    for index, item in enumerate(data):
        if isinstance(item, Message):  # a lean read's piece, before the one holding a non-object
            messages.append(item)
            continue
        if not isinstance(item, dict):
            kind = {list: "an array", str: "a string", type(None): "null"}.get(type(item), type(item).__name__)
            line = _Locator(text)(index)
            raise InputError(f"message {index} is {kind}, not an object with role and content", path, line)
        messages.append(Message(item))
    return Chat(messages, path=path, format=NAME, locator=_Locator(text, single))


_DICT = {dict}
_MESSAGES = {Message, SpilledMessage}


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
