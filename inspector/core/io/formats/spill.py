"""A lean read of a large JSON chat: tool contents checked as each piece is parsed, then left in the file.

`prepare` sends the newest tool outputs and drops most of the rest, yet a plain read holds every content
as a Python string (up to 4 bytes a character: 3.6x a non-ASCII file at its peak) and writes each into
fresh memory. Here a tool message whose content passes the tool check (``record``, scout's rule) keeps
only its role, its length and what the check found (a ``SpilledMessage``); its piece's strings are freed
before the next piece is parsed, so they reuse the same memory. The few the prompt sends are read again
from their piece, through a descriptor kept open, and checked to be what was read.
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Callable
from dataclasses import replace
from itertools import repeat
from typing import Any

import msgspec

from inspector.core import files
from inspector.core.errors import InputError
from inspector.core.model import Message, SpilledMessage

SPILL_FROM = 512  # characters: a shorter content costs less kept than its record and a second read

_DICT = {dict}
# what the tool check found of a message's content (None: keep the content, the plan reads it)
Record = Callable[[str, str], "tuple[Any, ...] | None"]


class Spill:
    """The pieces of one lean read, and how to read a message of them again."""

    def __init__(self, opened: files.Opened, shown: str, record: Record, decode: Callable[[Any], Any]):
        self.opened = replace(opened, fd=os.dup(opened.fd))  # the chat's own file, whatever its path becomes
        self._closer = weakref.finalize(self, os.close, self.opened.fd)  # once its messages are all gone
        self.shown = shown
        self.record = record
        self.decode = decode
        self.pieces: list[tuple[int, int]] = []  # (offset, length) of each piece's elements in the file
        # pieces read again, held (each is read once: a prompt's cut messages are read newest first, its
        # whole ones oldest first; the text held is at most what a plain read holds)
        self.decoded: dict[int, list[Any]] = {}
        self.newest: tuple[int, list[Any]] | None = None  # the last piece taken, as parsed (sent most often)
        self.spilled = 0  # messages left in the file

    def take(self, elements: list[Any], offset: int, length: int) -> list[Any]:
        """The messages of the piece at ``offset``, each tool message the check passes spilled (its elements as
        they are when one is not an object: the loader's error names it)."""
        piece = len(self.pieces)
        self.pieces.append((offset, length))
        if not set(map(type, elements)) <= _DICT:
            return elements
        messages = list(map(Message, elements))
        record, least = self.record, SPILL_FROM
        contents: list[Any] = list(map(dict.get, elements, repeat("content")))  # in C: most are short or not text
        for k in [k for k, content in enumerate(contents) if type(content) is str and len(content) >= least]:
            content, role = contents[k], elements[k].get("role")
            found = record(role, content) if type(role) is str else None
            if found is not None:
                messages[k] = SpilledMessage(role, len(content), found, self, piece, k)
                self.spilled += 1
        self.newest = (piece, elements)  # the one before is freed: only the newest piece's text is held
        return messages

    def forget(self) -> None:
        """The pieces taken so far are not used (the file is read whole after all)."""
        self.pieces.clear()
        self.newest = None
        self.spilled = 0

    def close(self) -> None:
        self._closer()

    def element(self, piece: int, k: int, length: int) -> dict[str, Any]:
        """Message ``k`` of ``piece`` read again; the file must not have changed since (else one input error)."""
        elements = self.decoded.get(piece)
        if elements is None and self.newest is not None and self.newest[0] == piece:
            elements = self.newest[1]  # not read again: what was read is what the prompt sends
        if elements is None:
            offset, count = self.pieces[piece]
            try:
                data = files.read_span(self.opened, offset, count, False)
                files.check_unchanged(self.opened, offset + count)
                elements = self.decode(b"[" + data + b"]")
            except files.Refused as exc:
                raise files.chat_error(exc, self.shown) from None
            except (msgspec.DecodeError, RecursionError):
                elements = None
            if elements is None or len(elements) <= k:
                raise self._changed()
            self.decoded[piece] = elements
        fields = elements[k]
        content = fields.get("content") if type(fields) is dict else None
        if type(content) is not str or len(content) != length:
            raise self._changed()
        return dict(fields)  # the cached piece's own stays as read

    def _changed(self) -> InputError:
        return files.chat_error(files.Refused(files.CHANGED, self.shown), self.shown)
