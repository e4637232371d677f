"""Writing output files safely: temporary file then rename, never over the chat being read.

``-o`` names a place, not always a file: a link (write what it points to and keep the link),
``/dev/stdout`` or ``/dev/null`` or a FIFO (write through: renaming over them would replace the
node itself, as root even ``/dev/stdout``), or a regular file (write a temporary file beside it,
then rename, so a reader never sees half a file). The temporary file is removed on any way out,
Ctrl-C and SIGTERM included.
"""

from __future__ import annotations

import os
import signal
import stat
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO, NoReturn

from inspector.core.errors import InputError


def same_file(a: str | Path, b: str | Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return Path(a).resolve() == Path(b).resolve()


def _is_alias(path: Path) -> bool:
    """A name for a descriptor or a device (``/dev/stdout``, ``/proc/self/fd/1``): written through, never renamed."""
    text = os.path.abspath(path)
    return text.startswith(("/dev/", "/proc/"))


def write_atomic(
    target: str | Path,
    data: bytes | Iterable[bytes],
    protect: Sequence[str | Path] = (),
    included: Sequence[str | Path] = (),
) -> Path:
    """Write ``data`` (bytes, or pieces of bytes) to ``target`` (see the module docstring); refuse to replace
    any file in ``protect`` (the chat) or ``included`` (the files it reads: its next load would change)."""
    target = Path(target)
    try:
        info = os.stat(target)  # follows links: what the name leads to is what counts
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise InputError(f"cannot write ({exc.strerror or exc})", str(target)) from None
    for path in protect:
        if path is not None and info is not None and same_file(target, path):
            raise InputError("refusing to overwrite the input chat", str(target))
    for path in included:
        if info is not None and same_file(target, path):
            raise InputError("refusing to overwrite a file the chat reads (import:, file: or directory:)", str(target))
    if info is not None and stat.S_ISDIR(info.st_mode):
        raise InputError("is a directory", str(target))
    if (info is not None and not stat.S_ISREG(info.st_mode)) or _is_alias(target):
        return _write_through(target, data)
    # a link (or a chain of them) is kept: the file it leads to is the one replaced
    real = Path(os.path.realpath(target))
    directory = real.parent
    if not directory.is_dir():
        raise InputError("directory does not exist", str(target.parent if str(target.parent) else "."))
    with _cleanup_on_signals() as tmp_holder:
        try:
            fd, tmp = _make_temp(directory, real.name, tmp_holder)
        except OSError as exc:
            raise InputError(f"cannot write ({exc.strerror or exc})", str(target)) from None
        try:
            with os.fdopen(fd, "wb") as handle:
                _write(handle, data)
            if info is not None:
                os.chmod(tmp, info.st_mode & 0o7777)
            else:
                # mkstemp makes 0600 files; a new export gets the usual mode under the user's umask
                umask = os.umask(0)
                os.umask(umask)
                os.chmod(tmp, 0o666 & ~umask)
            os.replace(tmp, real)
            tmp_holder.clear()
        except OSError as exc:
            raise InputError(f"cannot write ({exc.strerror or exc})", str(target)) from None
    return target


def _make_temp(directory: Path, name: str, holder: list[str]) -> tuple[int, str]:
    """Create ``.NAME.XXXXXXXX.tmp`` beside the target, its name held *before* it exists.

    (``mkstemp`` returns the name only after creating the file: a signal in between would leave it.)
    """
    for _ in range(100):
        tmp = str(directory / f".{name}.{os.urandom(4).hex()}.tmp")
        with _PENDING_LOCK:
            if _closing:
                raise InputError("not written: the program is ending", str(directory / name))
            holder.append(tmp)
            try:
                return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o600), tmp
            except FileExistsError:
                holder.pop()  # someone else's file: never removed by us
    raise FileExistsError(17, "no free temporary name", str(directory))


# the temporary files being written, in any thread: a signal handler that ends the program (the app's, whose
# exports are written by worker threads, where no handler can be set) removes them with remove_temporaries
_PENDING: dict[int, list[str]] = {}  # by id: the holders of the writes in progress
_PENDING_LOCK = threading.RLock()  # re-entrant: a signal handler in the thread that holds it
_closing = False


def remove_temporaries() -> None:
    """Remove every temporary file still being written (the program is ending: a signal); none is made after."""
    global _closing
    with _PENDING_LOCK:
        _closing = True
        names = [tmp for holder in _PENDING.values() for tmp in holder]
    for tmp in names:
        try:
            os.unlink(tmp)
        except OSError:
            pass


def _write_through(target: Path, data: bytes | Iterable[bytes]) -> Path:
    try:
        with open(target, "wb") as handle:
            _write(handle, data)
    except OSError as exc:
        raise InputError(f"cannot write ({exc.strerror or exc})", str(target)) from None
    return target


def _write(handle: BinaryIO, data: bytes | Iterable[bytes]) -> None:
    if isinstance(data, bytes | bytearray | memoryview):
        handle.write(data)
    else:
        for piece in data:
            handle.write(piece)


class Interrupted(BaseException):
    """SIGTERM or SIGHUP arrived while an output file was being written (after its temporary file was removed)."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


@contextmanager
def _cleanup_on_signals() -> Iterator[list[str]]:
    """Yield a list to hold the temporary file's name; it is removed on any exit, signals included.

    Ctrl-C already raises KeyboardInterrupt; SIGTERM and SIGHUP would end the process without
    running ``finally`` blocks, so while the file is written they raise ``Interrupted`` instead.
    (Signal handlers can only be set from the main thread; elsewhere the default stays.)
    """
    holder: list[str] = []
    previous: dict[int, Any] = {}
    with _PENDING_LOCK:
        _PENDING[id(holder)] = holder
    if threading.current_thread() is threading.main_thread():
        for signum in _SIGNALS:
            try:
                previous[signum] = signal.signal(signum, _raise_interrupted)
            except (ValueError, OSError):
                pass
    try:
        yield holder
    finally:
        for tmp in holder:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        with _PENDING_LOCK:
            _PENDING.pop(id(holder), None)
        for signum, handler in previous.items():
            try:
                signal.signal(signum, handler)
            except (ValueError, OSError, TypeError):
                pass


def _raise_interrupted(signum: int, frame: object) -> NoReturn:
    raise Interrupted(signum)
