"""scout-ai's string shortening: ``Log.truncate_string`` and ``Chat.shorten_string``."""

from __future__ import annotations

from hashlib import md5

FP_MAX_STRING = 150
DEFAULT_SHORT_STRING_LENGTH = 200
WARNING = "Truncated"


def marker(string: str) -> str:
    digest = md5(string.encode("utf-8", "surrogatepass")).hexdigest()
    return f"<...{len(string)} - {digest[:5]}...>"


def truncate_string(string: str, max_length: int = FP_MAX_STRING) -> str:
    """Keep ``h-1`` code points, the MD5 marker, then the last ``h`` code points."""
    if len(string) <= max_length:
        return string
    middle = marker(string)
    half = (max_length - len(middle)) // 2
    if half < 1:
        # Ruby's slice(0, negative) is nil and `nil + String` raises; 200 never gets here.
        raise ValueError(f"max {max_length} is too small for the marker")
    return string[: half - 1] + middle + string[-half:]


def shorten_string(string: str, size: int = DEFAULT_SHORT_STRING_LENGTH, warning: str = WARNING) -> str:
    """The listing's ``shorten_string``: ``size`` is accepted and ignored (always 200)."""
    del size  # the quirk users debug against: scout-ai's listing never reads it
    new = truncate_string(string, DEFAULT_SHORT_STRING_LENGTH)
    if len(new) < len(string):
        new = f"{warning} ({len(string)}): " + new
    return new


def shorten_string_sized(string: str, size: int = DEFAULT_SHORT_STRING_LENGTH, warning: str = WARNING) -> str:
    """scout-ai S's ``shorten_string``, which honours ``size`` (shorten_tools_epoch cuts outputs to 400)."""
    new = truncate_string(string, size)
    if len(new) < len(string):
        new = f"{warning} ({len(string)}): " + new
    return new
