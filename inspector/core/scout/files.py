"""Files a scout chat names (``import``, ``continue``, ``last``, ``file``, ``directory``), found as scout-ai finds them."""

from __future__ import annotations

import os
import re
from pathlib import Path

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


def read_chat_file(path: str) -> tuple[str, str | None]:
    """The text ``Open.read`` gives, and a note when the bytes had to be repaired."""
    data = Path(path).read_bytes()
    text, bad = fixutf8(data)
    return text, (repair_note(data, bad) if bad is not None else None)


def file_message(path: str, name: str, directive: Message) -> Message:
    """``{user: Chat.tag(:file, Open.read(path), name)}`` standing where the directive stood."""
    text, _ = read_chat_file(path)
    content = f'<file name="{name}">\n{text}\n</file>'
    message = Message({"role": "user", "content": content}, directive.line, directive.end_line, directive.source)
    return message


def directory_files(directory: str) -> list[str]:
    """``Path#glob('**/*')`` minus directories: sorted per directory, parents first, no dot files."""
    out: list[str] = []

    def walk(path: str) -> None:
        try:
            names = sorted(os.listdir(path))
        except OSError:
            return
        for name in names:
            if name.startswith(".") or len(out) >= MAX_DIRECTORY_FILES:
                continue
            full = _ruby_join(path, name)
            if os.path.isdir(full):
                if not os.path.islink(full):
                    walk(full)
            else:
                out.append(full)

    walk(directory)
    return out
