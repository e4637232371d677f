"""Which files of the paths given are chats: files named, directories searched recursively, globs.

A file named on the command line (or matched by a glob) is a chat whatever its name, and so is a file in
a directory whose extension is one the inspector loads (``.chat``, ``.json``, ``.jsonl``, ``.ndjson``):
one that cannot be read (a FIFO, a device, over the chat limit, permission denied, binary) is then a chat
with an error, found when it is scored (``files.read_chat_bytes`` never blocks). Any other file in a
directory is a chat when a format recognises its first block, else it is reported once with a one-line
reason (``Skipped``): not a chat, or why it was not opened. Links to directories are not followed (as
``directory:`` walks them); a file reached twice (two paths, a link) is scored once.
"""

from __future__ import annotations

import glob
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from inspector.core import files
from inspector.core.io.formats import FORMATS

CHAT_EXTENSIONS = frozenset(ext for module in FORMATS.values() for ext in module.EXTENSIONS)
GLOB_CHARS = frozenset("*?[")


@dataclass(frozen=True, slots=True)
class Skipped:
    path: str
    reason: str  # one line


@dataclass(frozen=True, slots=True)
class Discovery:
    chats: tuple[str, ...]  # sorted by path
    skipped: tuple[Skipped, ...]  # sorted by path


def discover(paths: list[str] | tuple[str, ...]) -> Discovery:
    chats: dict[str, None] = {}
    skipped: dict[str, str] = {}
    seen: set[tuple[int, int]] = set()

    def add_chat(path: str, named: bool) -> None:
        if not named and Path(path).suffix.lower() not in CHAT_EXTENSIONS:
            reason = _refusal(path) or (None if _sniffed(path) else "not a chat: no format the inspector loads")
            if reason is not None:
                skipped.setdefault(path, reason)
                return
        try:
            info = os.stat(path)
        except OSError:
            info = None
        if info is not None:
            key = (info.st_dev, info.st_ino)
            if key in seen:
                return
            seen.add(key)
        chats[path] = None

    def walk(root: str) -> None:
        for folder, dirs, names in os.walk(
            root,
            followlinks=False,
            onerror=lambda e: skipped.setdefault(
                str(e.filename or root), f"cannot list the directory ({e.strerror or e})"
            ),
        ):
            dirs.sort()
            for name in sorted(names):
                add_chat(os.path.join(folder, name), named=False)
            for name in dirs:
                full = os.path.join(folder, name)
                if os.path.islink(full):
                    skipped.setdefault(full, "a link to a directory: not followed")

    for given in paths:
        expanded = sorted(glob.glob(given, recursive=True)) if GLOB_CHARS & set(given) else [given]
        if not expanded:
            skipped.setdefault(given, "no file matches the pattern")
        for path in expanded:
            try:
                mode = os.stat(path).st_mode
            except FileNotFoundError:
                skipped.setdefault(path, "no such file or directory")
                continue
            except OSError as exc:
                skipped.setdefault(path, f"cannot read ({exc.strerror or exc})")
                continue
            if stat.S_ISDIR(mode):
                walk(path)
            else:
                add_chat(path, named=True)
    return Discovery(
        tuple(sorted(chats)),
        tuple(Skipped(p, r) for p, r in sorted(skipped.items())),
    )


def _refusal(path: str) -> str | None:
    """Why the file is not read as a chat (None: a regular file under the limit, opened), without blocking."""
    try:
        with files.open_regular(path, files.CHAT_LIMIT, "chat"):
            return None
    except files.Refused as exc:
        return exc.reason


def _sniffed(path: str) -> bool:
    """A format recognises the file's first block (a binary file never)."""
    found = files.head_of(path, files.CHAT_LIMIT)
    if found is None or b"\x00" in found[0]:
        return False
    text = found[0].decode("utf-8", "ignore")
    return any(module.sniff(text) for module in FORMATS.values())
