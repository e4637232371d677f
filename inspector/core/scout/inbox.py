"""scout-ai 2.x's ``inbox`` strategy, rebuilt read-only from what it leaves on disk.

On every inference ``Chat.inbox`` (de79709) moves each regular file of ``<save_file>.files/inbox/``
into ``inbox_removed/`` and appends its text as a user message that is never written to the chat;
a later version uses ``<dir>/<stem>.inbox/`` and ``<stem>.inbox_removed/`` beside the chat and an
``abort`` file. The removed files are the only record, so the inspector lists them as the messages
inbox appended. That is approximate: a file's mtime is when it was written (the move keeps it), not
when an inference read it, and every removed file is shown, whichever inference delivered it.
Nothing is moved, created or changed here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from inspector.core.model import Message

MAX_FILE = 1 << 20  # larger files are listed by name, not read (a rebuilt message, not a reader for anything)


@dataclass(slots=True)
class InboxReading:
    messages: list[Message] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # unreadable directories or files, an abort file


def _folders(chat_path: Path) -> list[Path]:
    return [
        chat_path.parent / f"{chat_path.stem}.inbox_removed",  # the later version, beside the chat
        Path(f"{chat_path}.files") / "inbox_removed",  # de79709: <save_file>.files/inbox_removed/
    ]


def read_inbox(chat_path: str | Path | None) -> InboxReading:
    """The user messages inbox appended for this chat, oldest file first (by mtime, then name)."""
    out = InboxReading()
    if chat_path is None:
        return out
    path = Path(chat_path)
    for pending in (path.parent / f"{path.stem}.inbox", Path(f"{path}.files") / "inbox"):
        if (pending / "abort").is_file():
            out.notes.append(f"{pending / 'abort'}: an abort file is waiting; the next inference would stop")
    found: list[tuple[float, str, Path]] = []
    for folder in _folders(path):
        if not folder.is_dir():
            continue
        try:
            names = sorted(p for p in folder.iterdir() if not p.name.startswith("."))
        except OSError as exc:
            out.notes.append(f"{folder}: cannot list the inbox record ({exc.strerror or exc})")
            continue
        for item in names:
            try:
                if not item.is_file():
                    continue
                found.append((item.stat().st_mtime, item.name, item))
            except OSError as exc:
                out.notes.append(f"{item}: cannot read ({exc.strerror or exc})")
    for _mtime, _, item in sorted(found):
        try:
            if item.stat().st_size > MAX_FILE:
                out.notes.append(f"{item}: over {MAX_FILE:,} bytes, not read")
                continue
            text = item.read_bytes().decode("utf-8", "replace")
        except OSError as exc:
            out.notes.append(f"{item}: cannot read ({exc.strerror or exc})")
            continue
        out.messages.append(Message({"role": "user", "content": text}, source=str(item)))
    return out
