"""The one way the tool reads a file it did not write: regular files only, never blocking, never unbounded.

People run the inspector on whatever an agent left behind, in checkouts they did not write. A FIFO
at ``etc/config`` would block every command forever, a link to ``/dev/zero`` would fill memory, and a
6 GB file of NULs would be read whole before being refused as binary. So every file is opened with
``O_NONBLOCK`` (opening a FIFO never waits for a writer), the *opened descriptor* is checked with
``fstat`` (links are followed, and what they lead to is what counts), the size is checked before
reading, and each block is checked for NUL bytes as it is read (the first one before the rest is touched).
A file is never memory-mapped: one truncated while mapped kills the process with SIGBUS. A file that
shrinks or is rewritten in place while it is read is refused as "changed while read" (``CHANGED``).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from inspector.core.errors import InputError

MiB = 1024 * 1024
GiB = 1024 * MiB

# Limits per kind of file (bytes). A chat of 20,000 messages is about 70 MB; these leave a wide margin
# and still keep memory bounded on a hostile input.
CHAT_LIMIT = 1 * GiB  # the chat, and the chats it imports (import/continue/last)
INCLUDED_LIMIT = 256 * MiB  # one `file:` target or one file inside a `directory:`
DIRECTORY_LIMIT = 1 * GiB  # all the files one `directory:` includes together
INCLUDE_BUDGET = 1 * GiB  # all the files one chat pulls in together (imports, `file:`, `directory:`)
CONFIG_LIMIT = 1 * MiB  # a scout etc/config file
PRESETS_LIMIT = 1 * MiB  # the inspector's own presets file
SNIFF = 65536  # the first block, checked for NUL bytes before anything else is read
BLOCK = 8 * MiB  # a fingerprint of a followed chat reads this much at a time
SCAN = 1 * MiB  # the rest is scanned for NUL bytes through a buffer this large before it is read in one piece
CHANGED = "changed while read (truncated or rewritten in place): read it again once its writer is done"


class Refused(OSError):
    """The file is not read: not a regular file, over the size limit, binary, or unreadable.

    ``reason`` is a short phrase for a message, e.g. "a FIFO, not a regular file";
    ``errno`` is set when the operating system refused (missing, permission, directory).
    """

    def __init__(self, reason: str, path: str | Path, errno: int | None = None, line: int | None = None):
        super().__init__(errno, reason)
        self.reason = reason
        self.path = str(path)
        self.line = line

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


def size_text(size: int) -> str:
    for unit, scale in (("GiB", GiB), ("MiB", MiB), ("KiB", 1024)):
        if size >= scale:
            value = size / scale
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{size} bytes"


_KINDS = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a directory"),
)


def kind_of(mode: int) -> str:
    for test, name in _KINDS:
        if test(mode):
            return name
    return "not a regular file"


@dataclass(frozen=True, slots=True)
class Opened:
    fd: int
    size: int
    path: str
    mtime_ns: int = 0
    inode: int = 0
    device: int = 0


def _open(path: str | Path) -> int:
    shown = str(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        return os.open(path, flags)
    except FileNotFoundError:
        raise Refused("no such file", shown, 2) from None
    except IsADirectoryError:
        raise Refused("a directory, not a file", shown, 21) from None
    except PermissionError:
        raise Refused("permission denied", shown, 13) from None
    except OSError as exc:
        raise Refused(f"cannot open ({exc.strerror or exc})", shown, exc.errno) from None
    except ValueError:  # a NUL byte in the name
        raise Refused("the file name holds a NUL byte", shown) from None


@contextmanager
def open_regular(path: str | Path, limit: int, what: str = "file") -> Iterator[Opened]:
    """An open descriptor on a regular file no larger than ``limit`` (closed on exit); else ``Refused``."""
    shown = str(path)
    fd = _open(path)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = kind_of(info.st_mode)
            errno = 21 if stat.S_ISDIR(info.st_mode) else None
            raise Refused(f"{kind}, not a regular file: the inspector does not read it", shown, errno)
        if info.st_size > limit:
            raise Refused(
                f"{size_text(info.st_size)}, over the inspector's {size_text(limit)} limit for a {what}: not read",
                shown,
            )
        yield Opened(fd, info.st_size, shown, info.st_mtime_ns, info.st_ino, info.st_dev)
    finally:
        os.close(fd)


def check_unchanged(opened: Opened, read: int) -> None:
    """Refuse (``CHANGED``) a file that is now shorter than the ``read`` bytes taken from it, or rewritten in
    place at the same size (its modification time moved). A longer file was appended to: what was read stands."""
    try:
        info = os.fstat(opened.fd)
    except OSError as exc:
        raise Refused(f"cannot read ({exc.strerror or exc})", opened.path, exc.errno) from None
    if info.st_size < read or (info.st_size == opened.size and info.st_mtime_ns != opened.mtime_ns):
        raise Refused(CHANGED, opened.path)


def read_span(opened: Opened, offset: int, count: int, sniff_nul: bool = True) -> bytes:
    """Exactly ``count`` bytes at ``offset``; a file that ends before them changed while read (``CHANGED``).

    With ``sniff_nul``, the span is first scanned for a NUL byte a block at a time through one small buffer
    (a text file followed by a gigabyte of NULs is refused at the block where they start, before any of it
    is held), then read in one piece (one buffer: no copy to join) and checked again (it may have changed).
    """
    if sniff_nul:
        _scan_nul(opened, offset, count)
    try:
        data = os.pread(opened.fd, count, offset)
        if len(data) < count:  # a short read: the rest, else the file is shorter than when opened
            parts = [data]
            got = len(data)
            while got < count:
                more = os.pread(opened.fd, count - got, offset + got)
                if not more:
                    raise Refused(CHANGED, opened.path)
                parts.append(more)
                got += len(more)
            data = b"".join(parts)
    except Refused:
        raise
    except OSError as exc:
        raise Refused(f"cannot read ({exc.strerror or exc})", opened.path, exc.errno) from None
    if sniff_nul and b"\x00" in data:
        raise _binary(opened, offset + data.index(b"\x00"), offset == 0)
    return data


def _scan_nul(opened: Opened, offset: int, count: int) -> None:
    """Refuse the span as binary at the first NUL byte, read a block at a time into one reused buffer."""
    buffer = bytearray(min(count, SCAN))
    done = 0
    with memoryview(buffer) as view:
        while done < count:
            try:
                got = os.preadv(opened.fd, [view[: min(len(buffer), count - done)]], offset + done)
            except OSError as exc:
                raise Refused(f"cannot read ({exc.strerror or exc})", opened.path, exc.errno) from None
            if got <= 0:
                raise Refused(CHANGED, opened.path)
            at = buffer.find(0, 0, got)
            if at >= 0:
                raise _binary(opened, offset + done + at, offset == 0)
            done += got


def _binary(opened: Opened, at: int, line: bool) -> Refused:
    """The refusal of a file holding a NUL byte at offset ``at``; with ``line`` (the span read from the start,
    so ``at`` is the first NUL and what is before it is text already scanned) naming its line."""
    if not line:
        return Refused("binary (a NUL byte): not read", opened.path)
    lines = 0
    buffer = bytearray(min(max(at, 1), SCAN))
    done = 0
    with memoryview(buffer) as view:
        while done < at:
            try:
                got = os.preadv(opened.fd, [view[: min(len(buffer), at - done)]], done)
            except OSError:
                break
            if got <= 0:
                break
            lines += buffer.count(b"\n", 0, got)
            done += got
    return Refused("binary (a NUL byte): not read", opened.path, line=lines + 1)


def _read_fd(opened: Opened, limit: int, what: str, sniff_nul: bool) -> bytes:
    """The file's bytes as long as it was when opened (never past ``limit``: growth since is not read).

    Read a block at a time, each checked for NUL bytes before the next is read: a text file followed by
    a gigabyte of NULs is refused at the block where they start, not after reading them all.
    """
    try:
        head = os.read(opened.fd, SNIFF)
    except OSError as exc:
        raise Refused(f"cannot read ({exc.strerror or exc})", opened.path, exc.errno) from None
    if sniff_nul and b"\x00" in head:
        line = head[: head.index(b"\x00")].count(b"\n") + 1
        raise Refused("binary (a NUL byte in the first block): not read", opened.path, line=line)
    size = min(opened.size, limit)
    if opened.size == 0 and head:
        return _read_generated(opened, limit, what, sniff_nul, head)
    if len(head) < SNIFF and size <= len(head):
        check_unchanged(opened, size)
        return head  # the whole (small) file
    if len(head) < min(SNIFF, size):
        raise Refused(CHANGED, opened.path)  # shorter than it was when opened
    data = read_span(opened, 0, size, sniff_nul)  # the head again: one buffer, never a copy to join
    check_unchanged(opened, size)
    return data


def _read_generated(opened: Opened, limit: int, what: str, sniff_nul: bool, head: bytes) -> bytes:
    """A file whose size says zero but that has text (``/proc``'s, made on reading): read to its end."""
    parts, total = [head], len(head)
    try:
        while data := os.read(opened.fd, min(BLOCK, limit + 1 - total)):
            if sniff_nul and b"\x00" in data:
                raise Refused("binary (a NUL byte): not read", opened.path)
            parts.append(data)
            total += len(data)
            if total > limit:
                raise Refused(
                    f"grew over the inspector's {size_text(limit)} limit for a {what} while read", opened.path
                )
    except Refused:
        raise
    except OSError as exc:
        raise Refused(f"cannot read ({exc.strerror or exc})", opened.path, exc.errno) from None
    return b"".join(parts)


def read_regular(path: str | Path, limit: int, what: str = "file", sniff_nul: bool = True) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes, refused with a ``Refused`` otherwise.

    With ``sniff_nul``, a NUL byte refuses the file at the block where it stands (the first 64 KiB before the
    rest is read); a file truncated or rewritten in place while read is refused with ``CHANGED``.
    """
    with open_regular(path, limit, what) as opened:
        return _read_fd(opened, limit, what, sniff_nul)


def head_of(path: str | Path, limit: int, size: int = SNIFF) -> tuple[bytes, int] | None:
    """The first ``size`` bytes of a checked regular file and its size; None when it is refused."""
    try:
        with open_regular(path, limit) as opened:
            return os.read(opened.fd, size), opened.size
    except OSError:
        return None


def read_chat_bytes(path: str | Path) -> bytes:
    """The file's bytes, refusing what cannot be a text chat file (see ``inspector.core.files``)."""
    shown = str(path)
    try:
        data = read_regular(path, CHAT_LIMIT, "chat")
    except Refused as exc:
        raise chat_error(exc, shown) from None
    if not data.strip():
        raise InputError("empty file: no messages", shown)
    return data


def chat_error(exc: Refused, shown: str) -> InputError:
    """The input error for a chat file that is not read."""
    return InputError(_refusal(exc), shown, exc.line)


def _refusal(exc: Refused) -> str:
    """The words for a chat file that is not read (kept as they were before the checks moved to core.files)."""
    if exc.errno == 21:
        return "is a directory, not a chat file"
    if exc.reason.startswith("binary"):
        return "binary file (NUL byte), not a chat"
    return exc.reason
