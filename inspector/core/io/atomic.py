"""Writing output files safely: temporary file then rename, never over the chat being read."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

from inspector.core.errors import InputError


def same_file(a: str | Path, b: str | Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return Path(a).resolve() == Path(b).resolve()


def write_atomic(target: str | Path, data: bytes | Iterable[bytes], protect: list[str | Path] = ()) -> Path:
    """Write ``data`` (bytes, or pieces of bytes) to ``target`` atomically; refuse to replace any file in ``protect``."""
    target = Path(target)
    for path in protect:
        if path is not None and target.exists() and same_file(target, path):
            raise InputError("refusing to overwrite the input chat", str(target))
    if target.exists() and not target.is_file():
        # a device, FIFO or socket (e.g. /dev/null, /dev/stdout): renaming over it would replace
        # the node itself, so write through it instead
        if target.is_dir():
            raise InputError("is a directory", str(target))
        try:
            with open(target, "wb") as handle:
                _write(handle, data)
        except OSError as exc:
            raise InputError(f"cannot write ({exc.strerror or exc})", str(target)) from None
        return target
    directory = target.parent if str(target.parent) else Path(".")
    if not directory.is_dir():
        raise InputError("directory does not exist", str(directory))
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise InputError(f"cannot write ({exc.strerror or exc})", str(target)) from None
    try:
        with os.fdopen(fd, "wb") as handle:
            _write(handle, data)
        if target.exists():
            os.chmod(tmp, target.stat().st_mode & 0o7777)
        else:
            # mkstemp makes 0600 files; a new export gets the usual mode under the user's umask
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, target)
    except OSError as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise InputError(f"cannot write ({exc.strerror or exc})", str(target)) from None
    return target


def _write(handle, data: bytes | Iterable[bytes]) -> None:
    if isinstance(data, bytes | bytearray | memoryview):
        handle.write(data)
    else:
        for piece in data:
            handle.write(piece)
