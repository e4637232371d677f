"""Reading chat text the way scout-ai's ``Open.read`` does (``Misc.fixutf8``)."""

from __future__ import annotations


def fixutf8(data: bytes) -> tuple[str, int | None]:
    """The text scout-ai reads, and the offset of the first invalid byte (None when valid UTF-8).

    An invalid file is transcoded from binary with undefined bytes replaced by '',
    which deletes every byte >= 0x80, valid sequences included.
    """
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        return bytes(b for b in data if b < 0x80).decode("ascii"), exc.start


def repair_note(data: bytes, bad: int) -> str:
    deleted = sum(1 for b in data if b >= 0x80)
    return (f"invalid UTF-8 (first bad byte on line {data[:bad].count(b'\n') + 1}): scout-ai deletes every byte "
            f">= 0x80, so {deleted:,} byte{'s' if deleted != 1 else ''} of non-ASCII text are gone from what the model sees")
