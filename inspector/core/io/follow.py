"""Watching a chat file while an agent writes it: size, mtime and inode, polled a few times a second.

scout-ai appends to a chat file; other writers rewrite it (often by writing a new file and renaming it
over the old one, which gives a new inode). A poll says which of these happened, and for an append
hands over only the new bytes, after checking that the bytes before them are still the ones read: the
last ``SEAM`` bytes exactly, and the whole prefix by a fingerprint (a CRC-32 of it, or of samples of it
past ``FULL_CHECK`` bytes), so an edit in place plus growth is seen as a rewrite, not taken for an append.

Every read goes through the checked reader (``inspector.core.files``): a non-blocking open and an
``fstat`` of the descriptor (a FIFO swapped in at the path is refused, never waited on), the chat's size
limit (growth past it is refused, never read), and NUL bytes refused as binary. What cannot be read now
is a ``REFUSED`` poll with the reason; the watch keeps its last good state and does not report the same
file state twice.
"""

from __future__ import annotations

import os
import zlib
from dataclasses import dataclass
from enum import StrEnum

from inspector.core import files

SEAM = 4096  # bytes before the old end that must be unchanged for a growth to count as an append
FULL_CHECK = 256 * files.MiB  # a prefix up to this size is fingerprinted whole (CRC-32: ~1 ms per MiB)
SAMPLES = 1024  # past it: this many blocks spread over the prefix, and its first and last blocks
SAMPLE = 4096


class Change(StrEnum):
    SAME = "same"
    APPENDED = "appended"
    REWRITTEN = "rewritten"  # a new inode (rename), or the old bytes changed
    SHRUNK = "shrunk"  # the same file, now shorter (truncated)
    VANISHED = "vanished"
    RETURNED = "returned"  # there again after it vanished
    REFUSED = "refused"  # cannot be read now (not a regular file, over the size limit, binary): ``message``


@dataclass(frozen=True, slots=True)
class Stamp:
    inode: int
    device: int
    size: int
    mtime_ns: int

    @classmethod
    def of(cls, path: str) -> Stamp | None:
        try:
            st = os.stat(path)  # a stat never blocks, whatever the path names
        except (OSError, ValueError):
            return None
        return cls(st.st_ino, st.st_dev, st.st_size, st.st_mtime_ns)


@dataclass(frozen=True, slots=True)
class Poll:
    change: Change
    appended: bytes = b""  # the new bytes of an append
    size: int = 0  # the file's size now
    message: str = ""  # why the file cannot be read now (REFUSED)


def _offsets(size: int) -> list[tuple[int, int]]:
    """The spans of a prefix of ``size`` bytes that its fingerprint covers."""
    if size <= FULL_CHECK:
        return [(0, size)]
    step = (size - SAMPLE) // (SAMPLES + 1)
    return [(0, SAMPLE), *((k * step, SAMPLE) for k in range(1, SAMPLES + 1)), (size - SAMPLE, SAMPLE)]


def fingerprint(opened: files.Opened, size: int) -> int:
    """A CRC-32 of the first ``size`` bytes (of samples of them past ``FULL_CHECK``), read a block at a time."""
    crc = 0
    for start, count in _offsets(size):
        done = 0
        while done < count:
            block = files.read_span(opened, start + done, min(files.BLOCK, count - done), sniff_nul=False)
            crc = zlib.crc32(block, crc)
            done += len(block)
    return crc


class Watch:
    """One file's last known state; ``poll()`` compares the file with it and moves it on."""

    def __init__(self, path: str, size: int | None, tail: bytes):
        self.path = path
        self.reset(size, tail)

    def reset(self, size: int | None, tail: bytes) -> None:
        """After the file was read: ``size`` bytes (None: not kept), ending with ``tail``."""
        self.stamp = Stamp.of(self.path)
        self.seam = tail[-SEAM:]
        self.seen: Stamp | None = None  # a file state already reported as unreadable (not reported again)
        self.print: tuple[int, int] | None = None  # (size, fingerprint) of the prefix read
        if self.stamp is not None and size is not None:
            try:
                with files.open_regular(self.path, files.CHAT_LIMIT, "chat") as opened:
                    if opened.size >= size and files.read_span(opened, size - len(self.seam), len(self.seam)) == (
                        self.seam
                    ):
                        self.print = (size, fingerprint(opened, size))
            except OSError:
                pass
            if self.stamp.size != size or self.print is None:
                # written between the read and now: compare with what was read, so the next poll sees it
                self.stamp = Stamp(self.stamp.inode, self.stamp.device, size, -1)

    def state(self) -> tuple[Stamp | None, bytes, tuple[int, int] | None]:
        """What the next poll compares with (to put back with ``restore`` when a poll's chat is not used)."""
        return self.stamp, self.seam, self.print

    def restore(self, state: tuple[Stamp | None, bytes, tuple[int, int] | None]) -> None:
        self.stamp, self.seam, self.print = state

    def hold(self) -> None:
        """The file as it is now could not be read: keep the last good state (size, seam, fingerprint) to
        compare the next change with, and do not report this state again."""
        self.seen = Stamp.of(self.path)

    def poll(self) -> Poll:
        old, now = self.stamp, Stamp.of(self.path)
        if now is None:
            self.stamp = None
            return Poll(Change.SAME if old is None else Change.VANISHED)
        if now == self.seen:
            return Poll(Change.SAME, size=now.size)  # reported already; the next change is tried again
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
        return self._appended(old)

    def _appended(self, old: Stamp) -> Poll:
        try:
            with files.open_regular(self.path, files.CHAT_LIMIT, "chat") as opened:
                if (opened.inode, opened.device) != (old.inode, old.device):
                    return Poll(Change.REWRITTEN, size=opened.size)  # renamed over since the stat
                if opened.size < old.size:
                    return Poll(Change.SHRUNK, size=opened.size)
                start = old.size - len(self.seam)
                if files.read_span(opened, start, len(self.seam), sniff_nul=False) != self.seam:
                    return Poll(Change.REWRITTEN, size=opened.size)
                if self.print is not None and fingerprint(opened, self.print[0]) != self.print[1]:
                    return Poll(Change.REWRITTEN, size=opened.size)  # edited in place before the seam
                appended = files.read_span(opened, old.size, opened.size - old.size)
                info = os.fstat(opened.fd)
        except files.Refused as exc:
            if exc.reason == files.CHANGED:
                return Poll(Change.REWRITTEN, size=old.size)
            if exc.errno == 2:
                return Poll(Change.SAME, size=old.size)  # gone between stat and open: the next poll says so
            return Poll(Change.REFUSED, size=old.size, message=str(exc))
        except OSError:
            return Poll(Change.SAME, size=old.size)
        size = old.size + len(appended)
        self.stamp = Stamp(old.inode, old.device, size, info.st_mtime_ns if info.st_size == size else -1)
        if self.print is not None:
            if size <= FULL_CHECK:
                self.print = (size, zlib.crc32(appended, self.print[1]))
            else:
                self.print = None
                self._reprint(size)
        self.seam = (self.seam + appended)[-SEAM:]
        return Poll(Change.APPENDED, appended, size)

    def _reprint(self, size: int) -> None:
        try:
            with files.open_regular(self.path, files.CHAT_LIMIT, "chat") as opened:
                self.print = (size, fingerprint(opened, size))
        except OSError:
            self.print = None
