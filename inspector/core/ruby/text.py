"""Reading chat text the way scout-ai's ``Open.read`` does (``Misc.fixutf8``)."""

from __future__ import annotations

_HIGH = bytes(range(0x80, 0x100))


def fixutf8(data: bytes) -> tuple[str, int | None]:
    """The text scout-ai reads, and the offset of the first invalid byte (None when valid UTF-8).

    An invalid file is transcoded from binary with undefined bytes replaced by '',
    which deletes every byte >= 0x80, valid sequences included.
    """
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        return data.translate(None, _HIGH).decode("ascii"), exc.start


def repair_note(data: bytes, bad: int) -> str:
    deleted = len(data) - len(data.translate(None, _HIGH))
    line = bad_line(data, bad)
    return (
        f"invalid UTF-8 (first bad byte on line {line}): scout-ai deletes every byte "
        f">= 0x80, so {deleted:,} byte{'s' if deleted != 1 else ''} of non-ASCII text are gone from what the model sees"
    )


def bad_line(data: bytes, bad: int) -> int:
    return data.count(b"\n", 0, bad) + 1
