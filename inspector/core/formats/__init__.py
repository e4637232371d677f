"""Input formats: each module turns a file into a Chat. Detection is by content, then extension.

A format module provides ``NAME``, ``EXTENSIONS``, ``sniff(text) -> bool`` and
``load(text, path) -> Chat``; register it in ``FORMATS`` below (order = sniff order).
"""

from __future__ import annotations

from pathlib import Path

from ..errors import InputError
from ..model import Chat
from . import json_array

FORMATS = {json_array.NAME: json_array}
MAX_BYTES = 2 * 1024 ** 3


def register_format(module) -> None:
    FORMATS[module.NAME] = module


def format_names() -> list[str]:
    return list(FORMATS)


def read_text(path: str | Path) -> tuple[str, bytes]:
    """The file's text, refusing what is not a text chat file."""
    shown = str(path)
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise InputError("no such file", shown) from None
    except IsADirectoryError:
        raise InputError("is a directory, not a chat file", shown) from None
    except PermissionError:
        raise InputError("permission denied", shown) from None
    except OSError as exc:
        raise InputError(f"cannot read ({exc.strerror or exc})", shown) from None
    if not data.strip():
        raise InputError("empty file: no messages", shown)
    if b"\x00" in data[:65536]:
        line = data[: data.index(b"\x00")].count(b"\n") + 1
        raise InputError("binary file (NUL byte), not a chat", shown, line)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        text = None
        bad = exc.start
    if text is None:
        # scout-ai's Misc.fixutf8 deletes every byte >= 0x80 of an invalid UTF-8 file
        text = bytes(b for b in data if b < 0x80).decode("ascii")
        return text, data[: bad]
    return text, b""


def detect(text: str, path: str | None) -> str:
    suffix = Path(path).suffix.lower() if path else ""
    for name, module in FORMATS.items():
        if module.sniff(text):
            return name
    for name, module in FORMATS.items():
        if suffix in module.EXTENSIONS:
            return name
    raise InputError(f"not a chat in any known format (tried {', '.join(FORMATS)})", path)


def load_chat(path: str | Path, input_format: str | None = None) -> Chat:
    shown = str(path)
    text, bad_prefix = read_text(path)
    if input_format is not None and input_format not in FORMATS:
        raise InputError(f"unknown input format {input_format!r}; known: {', '.join(FORMATS)}", shown)
    name = input_format or detect(text, shown)
    module = FORMATS[name]
    if bad_prefix and not getattr(module, "ACCEPTS_INVALID_UTF8", False):
        line = bad_prefix.count(b"\n") + 1
        raise InputError("invalid UTF-8", shown, line)
    chat = module.load(text, shown)
    chat.format = chat.format or name
    return chat
