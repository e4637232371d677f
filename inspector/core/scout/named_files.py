"""Files a scout chat names (``import``, ``continue``, ``last``, ``file``, ``directory``), found as scout-ai finds them."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from inspector.core import files
from inspector.core.model import Message
from inspector.core.ruby.text import fixutf8, repair_note

MAX_IMPORT_DEPTH = 32  # scout-ai has none: a cycle ends in SystemStackError
MAX_DIRECTORY_FILES = 10_000


def _ruby_join(directory: str, name: str) -> str:
    # File.join does not restart at an absolute second part: File.join("a", "/x") == "a/x"
    return directory.rstrip("/") + "/" + name.lstrip("/") if directory else name


def is_remote(name: str) -> bool:
    """``Open.remote?``: scout-ai fetches such a name instead of looking for a file."""
    return re.match(r"(?:https?|ftp|ssh)://", name) is not None


def find_file(name: str, original: str | None) -> str | None:
    """``Chat.find_file`` (files.rb): beside the chat that names it, then as given, then ``Scout.chats[name]``.

    Skipped: scout-ai's second candidate, ``File.join(Path.caller_lib_dir(nil, 'chats'), name)``, hangs on
    where scout-ai itself is installed; a URL (``Open.remote?``) is fetched there and not here.
    """
    if not name:
        return None
    candidates = []
    if original:
        candidates.append(_ruby_join(os.path.dirname(original) or ".", name))
    candidates.append(name)
    # Scout.chats[name].exists? walks scout-essentials' path maps in map_order:
    # current, user, home, local, global, usr (the lib and scratch maps are not reproduced).
    home = str(Path.home())
    candidates.append(_ruby_join("chats", name))
    candidates.append(_ruby_join(f"{home}/.scout/chats", name))
    for root in (home, "/usr/local", "", "/usr"):
        candidates.append(_ruby_join(f"{root}/chats/scout", name))
    for candidate in candidates:
        if os.path.exists(candidate):
            return candidate
    return None


def read_chat_file(path: str, limit: int = files.CHAT_LIMIT, what: str = "chat") -> tuple[str, str | None]:
    """The text ``Open.read`` gives, and a note when the bytes had to be repaired.

    Raises ``files.Refused`` for what scout-ai would read but the inspector does not
    (a FIFO, a device, a file over ``limit``, a NUL byte in the first block).
    """
    data = files.read_regular(path, limit, what)
    text, bad = fixutf8(data)
    return text, (repair_note(data, bad) if bad is not None else None)


def file_message(path: str, name: str, directive: Message, limit: int = files.INCLUDED_LIMIT) -> Message:
    """``{user: Chat.tag(:file, Open.read(path), name)}`` standing where the directive stood."""
    text, _ = read_chat_file(path, limit, "`file:` target")
    content = f'<file name="{name}">\n{text}\n</file>'
    message = Message({"role": "user", "content": content}, directive.line, directive.end_line, directive.source)
    return message


@dataclass(slots=True)
class Listing:
    """The files a ``directory:`` includes, and how many more it has past ``MAX_DIRECTORY_FILES``."""

    files: list[str]
    more: int = 0
    counted_all: bool = True  # False when counting stopped too (a huge tree): "more" is then a lower bound


def directory_files(directory: str) -> Listing:
    """``Path#glob('**/*')`` minus directories: sorted per directory, parents first, no dot files.

    Past ``MAX_DIRECTORY_FILES`` names are only counted (up to ten times as many), so the caller can
    say how many were left out instead of dropping them silently.
    """
    listing = Listing([])
    looked = 0  # entries looked at past the cap, bounded so a huge tree stays cheap
    # an explicit stack of sorted listings (not recursion): a tree thousands of levels deep is no RecursionError
    stack = [iter(_names(directory))]
    parents = [directory]
    while stack:
        name = next(stack[-1], None)
        if name is None:
            stack.pop()
            parents.pop()
            continue
        if len(listing.files) >= MAX_DIRECTORY_FILES:
            looked += 1
            if looked > MAX_DIRECTORY_FILES * 10:
                listing.counted_all = False
                break
        full = _ruby_join(parents[-1], name)
        if os.path.isdir(full):
            if not os.path.islink(full):
                stack.append(iter(_names(full)))
                parents.append(full)
        elif len(listing.files) < MAX_DIRECTORY_FILES:
            listing.files.append(full)
        else:
            listing.more += 1
    return listing


def _names(path: str) -> list[str]:
    try:
        return sorted(name for name in os.listdir(path) if not name.startswith("."))
    except OSError:
        return []
