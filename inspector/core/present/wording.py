"""Plain words for what a person reads beside a decision: the fixes that none of the thresholds gives alone,
and what the ``<...N - xxxxx...>`` markers in shortened text mean (a decision itself is worded by
``inspector.core.scout.decision_text``)."""

from __future__ import annotations

import re

from inspector.core.scout.shorten import DEFAULT_SHORT_STRING_LENGTH, WARNING, marker

MARKER = re.compile(r"<\.\.\.(\d+) - ([0-9a-f]{5})\.\.\.>")


def no_single_value(keys: list[str]) -> str:
    """Said under the fixes of a hidden text, for the thresholds none of which shows it alone."""
    return f"no value of {', '.join(keys)} alone shows it"


def explain_markers(text: str) -> list[str]:
    """What each ``<...N - xxxxx...>`` marker in shortened text means."""
    notes = []
    seen = set()
    for match in MARKER.finditer(text):
        if match.group() in seen:
            continue
        seen.add(match.group())
        length = int(match.group(1))
        half = (DEFAULT_SHORT_STRING_LENGTH - len(marker("x" * length))) // 2
        notes.append(
            f"{match.group()} replaces the middle of a string of {length:,} characters; "
            f"{match.group(2)} is the start of its MD5 digest. Kept: the first {half - 1} and the last "
            f"{half} characters, with '{WARNING} ({length}): ' put in front."
        )
        if len(notes) >= 5:
            break
    return notes
