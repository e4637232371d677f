"""The one way the tool reads a file it did not write: regular files only, never blocking, never unbounded.

People run the inspector on whatever an agent left behind, in checkouts they did not write. A FIFO
at ``etc/config`` would block every command forever, a link to ``/dev/zero`` would fill memory, and a
6 GB file of NULs would be read whole before being refused as binary. So every file is opened with
``O_NONBLOCK`` (opening a FIFO never waits for a writer), the *opened descriptor* is checked with
``fstat`` (links are followed, and what they lead to is what counts), the size is checked before
reading, and the first block is sniffed for NUL bytes before the rest is read.
"""

from __future__ import annotations

import mmap
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
CONFIG_LIMIT = 1 * MiB  # a scout etc/config file
PRESETS_LIMIT = 1 * MiB  # the inspector's own presets file
SNIFF = 65536  # the first block, checked for NUL bytes before anything else is read


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
        yield Opened(fd, info.st_size, shown)
    finally:
        os.close(fd)


def _read_fd(opened: Opened, limit: int, what: str, sniff_nul: bool) -> bytes:
    try:
        head = os.read(opened.fd, SNIFF)
    except OSError as exc:
        raise Refused(f"cannot read ({exc.strerror or exc})", opened.path, exc.errno) from None
    if sniff_nul and b"\x00" in head:
        line = head[: head.index(b"\x00")].count(b"\n") + 1
        raise Refused("binary (a NUL byte in the first block): not read", opened.path, line=line)
    if len(head) < SNIFF and opened.size <= len(head):
        return head  # the whole (small) file
    # then the whole file in one read into one buffer (a list of chunks joined would hold it twice)
    try:
        os.lseek(opened.fd, 0, os.SEEK_SET)
        data = os.read(opened.fd, min(opened.size, limit) + 1)
        parts = [data]
        total = len(data)
        while data and total <= limit:  # a short read, or a file that grew since fstat
            data = os.read(opened.fd, min(8 * MiB, limit + 1 - total))
            parts.append(data)
            total += len(data)
    except OSError as exc:
        raise Refused(f"cannot read ({exc.strerror or exc})", opened.path, exc.errno) from None
    if total > limit:
        raise Refused(f"grew over the inspector's {size_text(limit)} limit for a {what} while read", opened.path)
    return parts[0] if len(parts) == 1 or not any(parts[1:]) else b"".join(parts)


def read_regular(path: str | Path, limit: int, what: str = "file", sniff_nul: bool = True) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes, refused with a ``Refused`` otherwise.

    With ``sniff_nul``, a NUL byte in the first 64 KiB refuses the file before the rest is read.
    """
    with open_regular(path, limit, what) as opened:
        return _read_fd(opened, limit, what, sniff_nul)


@contextmanager
def map_regular(path: str | Path, limit: int, what: str = "file") -> Iterator[bytes | mmap.mmap]:
    """A read-only memory map of a checked regular file (for parsers that take a buffer without a copy)."""
    with open_regular(path, limit, what) as opened:
        if opened.size == 0:
            yield b""
            return
        try:
            mapped = mmap.mmap(opened.fd, 0, access=mmap.ACCESS_READ)
        except (OSError, ValueError) as exc:
            raise Refused(f"cannot map ({exc})", opened.path) from None
        with mapped:
            yield mapped


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
        raise InputError(_refusal(exc), shown, exc.line) from None
    if not data.strip():
        raise InputError("empty file: no messages", shown)
    return data


def _refusal(exc: Refused) -> str:
    """The words for a chat file that is not read (kept as they were before the checks moved to core.files)."""
    if exc.errno == 21:
        return "is a directory, not a chat file"
    if exc.reason.startswith("binary"):
        return "binary file (NUL byte), not a chat"
    return exc.reason
