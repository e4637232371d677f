"""Which search hit n/N land on: the next (or previous) hit that the filter shows, wrapping around."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable


def next_hit(
    hits: list[int], current: int, step: int, shown: Callable[[int], bool], include_current: bool = False
) -> int | None:
    """``hits`` sorted; ``None`` when every hit is hidden (or there is none)."""
    if step > 0:
        candidates = hits[bisect_left(hits, current) if include_current else bisect_right(hits, current) :] + hits
    else:
        candidates = hits[: bisect_left(hits, current)][::-1] + hits[::-1]
    return next((row for row in candidates if shown(row)), None)
