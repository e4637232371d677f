"""Watching a chat file while an agent writes it: size, mtime and inode, polled a few times a second.

scout-ai appends to a chat file; other writers rewrite it (often by writing a new file and renaming it
over the old one, which gives a new inode). A poll says which of these happened, and for an append
hands over only the new bytes, after checking that the bytes before them are still the ones read.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from enum import StrEnum

SEAM = 4096  # bytes before the old end that must be unchanged for a growth to count as an append


class Change(StrEnum):
    SAME = "same"
    APPENDED = "appended"
    REWRITTEN = "rewritten"  # a new inode (rename), or the old bytes changed
    SHRUNK = "shrunk"  # the same file, now shorter (truncated)
    VANISHED = "vanished"
    RETURNED = "returned"  # there again after it vanished


@dataclass(frozen=True, slots=True)
class Stamp:
    inode: int
    device: int
    size: int
    mtime_ns: int

    @classmethod
    def of(cls, path: str) -> Stamp | None:
        try:
            st = os.stat(path)
        except OSError:
            return None
        return cls(st.st_ino, st.st_dev, st.st_size, st.st_mtime_ns)


@dataclass(frozen=True, slots=True)
class Poll:
    change: Change
    appended: bytes = b""  # the new bytes of an append
    size: int = 0  # the file's size now


class Watch:
    """One file's last known state; ``poll()`` compares the file with it and moves it on."""

    def __init__(self, path: str, size: int | None, tail: bytes):
        self.path = path
        self.reset(size, tail)

    def reset(self, size: int | None, tail: bytes) -> None:
        """After the file was read: ``size`` bytes (None: not kept), ending with ``tail``."""
        self.stamp = Stamp.of(self.path)
        self.seam = tail[-SEAM:]
        if self.stamp is not None and size is not None and self.stamp.size != size:
            # written between the read and now: compare with what was read, so the next poll sees it
            self.stamp = Stamp(self.stamp.inode, self.stamp.device, size, -1)

    def poll(self) -> Poll:
        old, now = self.stamp, Stamp.of(self.path)
        if now is None:
            self.stamp = None
            return Poll(Change.SAME if old is None else Change.VANISHED)
        if old is None:
            return Poll(Change.RETURNED, size=now.size)
        if now == old:
            return Poll(Change.SAME, size=now.size)
        if (now.inode, now.device) != (old.inode, old.device):
            return Poll(Change.REWRITTEN, size=now.size)
        if now.size < old.size:
            return Poll(Change.SHRUNK, size=now.size)
        if now.size == old.size:
            return Poll(Change.REWRITTEN, size=now.size)
        try:
            with open(self.path, "rb") as handle:
                start = old.size - len(self.seam)
                handle.seek(start)
                data = handle.read()
        except OSError:
            return Poll(Change.SAME, size=old.size)  # gone between stat and open: the next poll says so
        if data[: len(self.seam)] != self.seam:
            return Poll(Change.REWRITTEN, size=now.size)
        appended = data[len(self.seam) :]
        self.stamp = Stamp(now.inode, now.device, old.size + len(appended), now.mtime_ns)
        self.seam = (self.seam + appended)[-SEAM:]
        return Poll(Change.APPENDED, appended, self.stamp.size)
