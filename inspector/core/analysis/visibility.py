"""Does one occurrence of a text survive in what the model is sent?

A truncated tool message keeps a head and a tail of each long string (with an MD5
marker in between), so a hit may survive or not depending on where it sits. This
reads the kept head and tail off the actual visible text rather than re-deriving
the cut from the formula, so a custom strategy or a quirk in shortening cannot make
the answer disagree with what is sent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from inspector.core.analysis.jsonspans import field_value
from inspector.core.ruby.json import RubyJSONError, parse
from inspector.core.scout.shorten import WARNING, marker


@dataclass(frozen=True, slots=True)
class Spot:
    """Where an occurrence is in a message: enough to test it against any visible version."""

    field: str  # "message": the stored content as is (a non-tool message, or a raw JSON hit); else a decoded field
    start: int  # offsets in the field's text (the stored content for "message")
    end: int
    text: str  # the characters matched, in that text


def kept_ranges(original: str, shortened: str) -> tuple[int, int] | None:
    """(head end, tail start) of ``original`` kept in ``shortened``, or None if it is not a shortening of it.

    scout-ai's shortening is ``"Truncated (N): " + head + marker + tail``.
    """
    prefix = f"{WARNING} ({len(original)}): "
    if not shortened.startswith(prefix):
        return None
    body = shortened[len(prefix) :]
    mark = marker(original)
    cut = body.find(mark)
    if cut < 0:
        return None
    head, tail = body[:cut], body[cut + len(mark) :]
    if not original.startswith(head) or not original.endswith(tail) or len(head) + len(tail) >= len(original):
        return None
    return len(head), len(original) - len(tail)


def survives(spot: Spot, original_content: Any, visible_content: Any) -> bool:
    """True when the occurrence at ``spot`` is in ``visible_content`` (None: the message is not sent)."""
    if visible_content is None:
        return False
    if visible_content is original_content or visible_content == original_content:
        return True
    if not isinstance(visible_content, str):
        return False
    if spot.field == "message":
        # the message was rewritten as a whole (a re-serialised tool message, a custom strategy):
        # the best evidence left is whether the same characters are still there
        return spot.text in visible_content
    try:
        original_value = field_value(parse(original_content), spot.field)
        visible_value = field_value(parse(visible_content), spot.field)
    except (RubyJSONError, TypeError):
        return spot.text in visible_content
    if not isinstance(visible_value, str) or not isinstance(original_value, str):
        return False
    if visible_value == original_value:
        return True
    kept = kept_ranges(original_value, visible_value)
    if kept is None:
        return original_value[spot.start : spot.end] in visible_value
    head_end, tail_start = kept
    return spot.end <= head_end or spot.start >= tail_start
