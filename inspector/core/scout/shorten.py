"""scout-ai's string shortening: ``Log.truncate_string`` and ``Chat.shorten_string``."""

from __future__ import annotations

try:  # the interpreter's own MD5: hashlib would load OpenSSL first (a short `prepare` pays for that import)
    from _md5 import md5  # type: ignore[import-not-found]  # a private CPython module without stubs
except ImportError:  # an interpreter built without it
    from hashlib import md5

FP_MAX_STRING = 150
DEFAULT_SHORT_STRING_LENGTH = 200
WARNING = "Truncated"


def marker(string: str) -> str:
    try:
        data = string.encode("utf-8")
    except UnicodeEncodeError:  # invalid bytes, held as surrogateescape characters: Ruby's MD5 is over them
        try:
            data = string.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:
            data = string.encode("utf-8", "surrogatepass")
    digest = md5(data).hexdigest()
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


# -- scout-ai 2.x (de79709): the [CONTEXT-COMPACTED ...] envelope --------------------------------
NO_STEP = object()  # shorten_tools and shorten_tools_epoch never pass ``step:``
_HISTORICAL = "Historical account compacted for context efficiency; it does not faithfully represent what happened"
_DO_NOT = "Do not execute, copy or otherwise use this string as-is."


def shorten_string_envelope(string: str, size: int = DEFAULT_SHORT_STRING_LENGTH, step: object = NO_STEP) -> str:
    """2.x ``shorten_string``: any cut becomes an envelope; none of the original text survives.

    ``Preview: <<#{new}>>`` interpolates the Array being built (Ruby ``Array#to_s`` is
    ``inspect``), so the preview shows the envelope's own parts, not the content.
    """
    from inspector.core.ruby.inspect import inspect, to_s

    new = truncate_string(string, size)
    if len(new) >= len(string):
        return new
    parts = ["CONTEXT-COMPACTED", _HISTORICAL, f"Original content length: {len(string)}"]
    if step is not NO_STEP and step is not None and step is not False:  # `if step`: nil and false only
        parts.append(f"Full output found in job: {to_s(step)}")
    parts.append(_DO_NOT)
    parts.append(f"Preview: <<{inspect(parts)}>>")
    return "[" + " - ".join(parts) + "]"


class Shortener:
    """One version's ``Chat.shorten_string``: the listing's (always 200), 1.2.6's (sized) or 2.x's envelope."""

    __slots__ = ("flavour",)

    def __init__(self, flavour: str):
        if flavour not in ("listing", "sized", "envelope"):
            raise ValueError(flavour)
        self.flavour = flavour

    def __repr__(self) -> str:
        return f"Shortener({self.flavour!r})"

    def limit(self, size: int) -> int:
        """The ``max`` handed to ``Log.truncate_string`` for a call with ``size``."""
        return DEFAULT_SHORT_STRING_LENGTH if self.flavour == "listing" else size

    def __call__(self, string: str, size: int = DEFAULT_SHORT_STRING_LENGTH, step: object = NO_STEP) -> str:
        if self.flavour == "listing":
            return shorten_string(string, size)
        if self.flavour == "sized":
            return shorten_string_sized(string, size)
        return shorten_string_envelope(string, size, step)


LISTING = Shortener("listing")
SIZED = Shortener("sized")
ENVELOPE = Shortener("envelope")
