"""Input formats: each module turns a file into a Chat. Detection is by content, then extension.

A format module provides ``NAME``, ``EXTENSIONS``, ``sniff(text) -> bool`` and
``load(text, path) -> Chat``; register it in ``FORMATS`` below (order = sniff order).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from inspector.core import files
from inspector.core.errors import InputError
from inspector.core.files import read_chat_bytes as read_bytes
from inspector.core.io.formats import anthropic, json_array, jsonl, openai_chat, openai_responses, scout_chat
from inspector.core.io.formats.jsondoc import shape
from inspector.core.model import Chat, Finding, SpilledMessage
from inspector.core.ruby.text import bad_line, fixutf8, repair_note
from inspector.core.scout.prepared import prepared_findings
from inspector.core.scout.roles import unknown_role_findings

# Sniff order: the specific JSON shapes before the plain array, scout text last (it is the fallback).
FORMATS = {m.NAME: m for m in (anthropic, openai_responses, openai_chat, json_array, jsonl, scout_chat)}


def register_format(module: Any) -> None:
    FORMATS[module.NAME] = module


def format_names() -> list[str]:
    return list(FORMATS)


def decode(data: bytes) -> tuple[str, bytes]:
    """Text of the file, and the bytes before the first invalid UTF-8 sequence (empty when valid)."""
    try:
        return data.decode("utf-8"), b""
    except UnicodeDecodeError as exc:
        # scout-ai's Misc.fixutf8 deletes every byte >= 0x80 of an invalid UTF-8 file
        return fixutf8(data)[0], data[: exc.start]


def read_text(path: str | Path) -> tuple[str, bytes]:
    """The file's text (see ``decode``), refusing what is not a text chat file."""
    return decode(read_bytes(path))


def detect(text: str, path: str | None) -> str:
    return _detect(text, path)[0]


def detect_data(data: bytes, path: str | None) -> tuple[str, bool]:
    """``load_data``'s detection of ``data``: the format name, and whether its sniffer recognised it (a caller
    that detected passes it on, and the head is not sniffed twice)."""
    return _detect(data[:65536].decode("utf-8", "ignore"), path)


def _detect(text: str, path: str | None) -> tuple[str, bool]:
    """The format name, and whether its sniffer recognised the content (else a guess from extension or shape)."""
    suffix = Path(path).suffix.lower() if path else ""
    for name, module in FORMATS.items():
        if module.sniff(text):
            return name, True
    for name, module in FORMATS.items():
        if suffix in module.EXTENSIONS:
            return name, False
    if shape(text):
        return json_array.NAME, False  # its loader names the line where the JSON breaks, or the shape found
    raise InputError(
        f"not a chat in any known format (tried {', '.join(FORMATS)}; a scout chat needs a `role:` line)", path
    )


MAP_FROM = 8 * 1024 * 1024  # larger JSON arrays are parsed without keeping their bytes (json_array.load_path)


def _head(path: str | Path) -> bytes | None:
    """The first 64 KiB of a large file (None for a small one, which is simply read whole)."""
    found = files.head_of(path, files.CHAT_LIMIT)
    if found is None or found[1] < MAP_FROM:
        return None  # read_bytes reads it, or reports why not
    head = found[0]
    return head if head.strip() and b"\x00" not in head else None


def load_chat(path: str | Path, input_format: str | None = None, lean: bool = False) -> Chat:
    """The chat at ``path``. ``lean``: a large JSON chat's checked tool contents are left in the file and
    read again when used (``prepare``, which sends few of them: see spill.py)."""
    shown = str(path)
    head = _head(path)
    if head is not None and input_format in (None, json_array.NAME):
        name, _ = (json_array.NAME, True) if input_format else _detect(head.decode("utf-8", "ignore"), shown)
        if name == json_array.NAME:
            record = None
            if lean:
                from inspector.core.scout.tool_facts import spill_record

                record = spill_record
            chat = json_array.load_path(path, shown, record)
            chat.format = chat.format or name
            messages = chat.messages
            if lean:  # a spilled message's role is a tool's, known (its fields are read again only when sent)
                messages = [m for m in messages if type(m) is not SpilledMessage]
            chat.findings.extend(unknown_role_findings(messages, False))
            return chat
    return load_data(read_bytes(path), shown, input_format)


def load_data(
    data: bytes, shown: str, input_format: str | None = None, detected: tuple[str, bool] | None = None
) -> Chat:
    """A chat from the bytes of its file (``shown`` is its path: imports and messages use it); ``detected``:
    ``detect_data`` of them, when the caller has it."""
    if input_format is not None and input_format not in FORMATS:
        raise InputError(f"unknown input format {input_format!r}; known: {', '.join(FORMATS)}", shown)
    # detection reads only the head, so a large JSON file is never decoded to text at all
    if input_format is not None:
        name, sniffed = input_format, True
    else:
        name, sniffed = detected or detect_data(data, shown)
    module = FORMATS[name]
    chat: Chat  # a format module's loader is not typed: its result is
    try:
        if hasattr(module, "load_bytes"):
            chat = module.load_bytes(data, shown)
        else:
            text, bad_prefix = decode(data)
            if bad_prefix and not getattr(module, "ACCEPTS_INVALID_UTF8", False):
                line = bad_prefix.count(b"\n") + 1
                raise InputError("invalid UTF-8", shown, line)
            chat = module.load(text, shown)
            if bad_prefix:
                at = len(bad_prefix)
                chat.findings.insert(0, Finding("encoding", repair_note(data, at), bad_line(data, at)))
    except InputError as exc:
        if not sniffed and name != scout_chat.NAME:
            exc.what += f" (no format recognised the file; tried {', '.join(FORMATS)})"
        raise
    chat.format = chat.format or name
    chat.findings.extend(unknown_role_findings(chat.messages, name == scout_chat.NAME))
    if name != scout_chat.NAME:  # the scout loader (and every cut of a scout chat) adds it itself
        chat.findings.extend(prepared_findings(chat))
    return chat
