"""shorten_tools' outcome for a few messages as a closed form in the five thresholds.

Read off the listing (``tool_chars < max_tool_chars`` is tested before each message adds to it):

* the running total only grows, so the messages kept because it is still under the budget are
  exactly those whose all-kept total before them is below it: position p is under the budget
  when ``prefix[p] < max_tool_chars``, whatever the four count thresholds;
* past that point the total stays at or over the budget, so a message's fate depends only on its
  own count against its kind's thresholds: kept whole below ``full_*``, dropped above ``max_*``,
  shortened in between (and kept whole when nothing in it is long enough to shorten);
* scout-ai raises when a message it shortens cannot be written (a band error): nothing is sent.

So whether one message is sent changes only where one comparison flips, for that message or for
a message that raises when shortened: a handful of values per threshold rather than every one.
The search in fixes.py still checks what this finds against real plans, and falls back to walking
every distinct plan should they ever disagree.
"""

from __future__ import annotations

from collections.abc import Callable

from inspector.core.scout.tool_facts import CALL, NOTHING_TO_SHORTEN, ToolFacts

Values = tuple[int, int, int, int, int]
KEEP, CUT, DROP = 0, 1, 2


class OutcomeModel:
    """Sent or not, for chosen tool positions, under any five threshold values (no plan built)."""

    def __init__(self, facts: ToolFacts, raising: list[int]):
        self.facts = facts
        self.raising = raising  # positions whose shortening raises, should a plan shorten them

    def state(self, p: int, values: Values) -> int:
        """KEEP, CUT or DROP for position ``p`` (CUT of a message with nothing to shorten is KEEP)."""
        facts = self.facts
        full_calls, full_outputs, max_calls, max_outputs, budget = values
        if facts.prefix[p] < budget:
            return KEEP
        counted = facts.outs[p]
        full, top = (full_calls, max_calls) if facts.kinds[p] == CALL else (full_outputs, max_outputs)
        if counted < full:
            return KEEP
        if counted > top:
            return DROP
        return CUT

    def raises(self, values: Values) -> bool:
        return any(self.state(q, values) == CUT for q in self.raising)

    def sent(self, p: int, values: Values) -> bool:
        return not self.raises(values) and self.state(p, values) != DROP

    def breakpoints(self, key: str, positions: list[int]) -> set[int]:
        """Values of ``key`` at which some comparison for ``positions`` (or a raising one) flips."""
        facts = self.facts
        out: set[int] = set()
        for p in {*positions, *self.raising}:
            if key == "max_tool_chars":
                out.add(facts.prefix[p] + 1)  # from here on, p is under the budget
            elif key.startswith("full_"):
                out.add(facts.outs[p] + 1)  # from here on, p is in the recent band
            else:
                out.add(facts.outs[p])  # from here on, p is no longer beyond the max
        return out


def shown_when_cut(facts: ToolFacts, p: int, survives: Callable[[str | None], bool]) -> bool:
    """Whether the occurrence shows when the message at ``p`` is shortened (whole when nothing is)."""
    if facts.shortened(p) == NOTHING_TO_SHORTEN:
        return p not in facts.band_errors
    return survives(facts.short_text.get(p))


def search(
    visible: Callable[[int], bool], current: int, floor: int, starts: set[int]
) -> tuple[tuple[int, int | None] | None, tuple[int, int | None] | None]:
    """The fix going up and going down, each (value, holds_to), from a function that is constant
    between consecutive ``starts`` (values at or below ``floor`` all behave as ``floor``).

    Going up: the smallest working value above ``current`` and the last value of its working run
    (None: it works for every larger value). Going down: the largest working value below ``current``
    and the first value of its run (None: it works down to ``floor``).
    """
    points = sorted({s for s in starts if s > floor} | {floor})
    up = None
    lowest = max(current, floor)
    above = [s for s in points if s > lowest]
    for i, s in enumerate(above):
        if visible(s):
            holds = None
            for t in above[i + 1 :]:
                if not visible(t):
                    holds = t - 1
                    break
            up = (s, holds)
            break
    down = None
    if current > floor:
        below = [s for s in points if s <= current]  # interval starts; the last one holds current itself
        for i in range(len(below) - 2, -1, -1):
            s = below[i]
            if visible(s):
                top = below[i + 1] - 1
                run_start: int | None = None
                for j in range(i - 1, -1, -1):
                    if not visible(below[j]):
                        run_start = below[j + 1]
                        break
                down = (top, run_start)
                break
    return up, down
