"""The epoch strategies' outcome for one message as a function of one setting, without building plans.

A plan of ``shorten_tools_epoch`` or ``shorten_tools_epoch_increment`` (windows.WindowPlan) gives every
tool message a reverse position ``k`` that no setting changes, then keeps ``k <= keep_full`` whole,
compacts ``keep_full < k <= truncate_to``, drops the rest, keeps the newest instance of each repeated
call whatever its place, and raises (nothing is sent) when a message it compacts cannot be written.
So whether one message is seen depends on the settings only through the two windows (or the strategy
returning the list unchanged), and the windows are a few integer operations for 1.2.6 and a short walk
over the epochs for 2.x (the walk jumps over the epochs once their size stops changing).

Which messages raise when compacted is found exactly, by compacting the few whose parsed JSON could
not be written back as it is (arguments that are not an object, a number past a double's range):
the others write back. fixes.py evaluates this at every value of a setting, then
checks what it finds against real plans and walks real plans should they ever disagree.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Callable
from typing import Any

from inspector.core.errors import ScoutError
from inspector.core.scout.strategies import shorten_tools_epoch_increment as increment
from inspector.core.scout.strategies.windows import WindowFacts

Windows = tuple[int, int] | None  # (keep_full, truncate_to), or None: the list is returned unchanged
EPOCH_FIELDS = ("threshold", "full", "compacted", "size")


def epoch_windows(total: int, threshold: int, full: int, compacted: int, size: int) -> Windows:
    """windows.window_for for shorten_tools_epoch (1.2.6), on plain integers."""
    if total <= threshold or (full == 0 and compacted == 0) or size <= 0:
        return None
    pinned = threshold + ((total - threshold) - 1) // size * size
    keep_full = total - pinned + full
    return keep_full, keep_full + compacted


def increment_windows(total: int, repeated: list[int], s: increment.IncrementSettings) -> Windows:
    """windows.window_for for shorten_tools_epoch_increment: ``increment.schedule``'s two windows."""
    threshold, full, base, initial, per, size_inc, repeat_inc, max_size, ratio, max_compacted = s.clamped()
    if s.size <= 0 or total <= threshold or (full == 0 and base == 0):
        return None
    pinned, current = last_epoch(total, repeated, threshold, initial, per, size_inc, repeat_inc, max_size)
    return _increment_windows(total, pinned, current, initial, full, base, ratio, max_compacted)


def _increment_windows(
    total: int, pinned: int, current: int, initial: int, full: int, base: int, ratio: float, max_compacted: int
) -> tuple[int, int]:
    growth = increment.ruby_round(max(current - initial, 0) * ratio)
    effective = min(base + growth, max_compacted)
    keep_full = total - pinned + full
    return keep_full, keep_full + effective


def last_epoch(
    total: int,
    repeated: list[int],
    threshold: int,
    initial: int,
    per: int,
    size_inc: int,
    repeat_inc: int,
    max_size: int,
) -> tuple[int, int]:
    """The pinned total and the size of the last epoch, as ``increment.schedule`` walks to them (clamped
    values; ``initial`` > 0 and ``threshold`` < ``total``).

    The same walk, taking in one step every run of epochs that changes nothing but the pinned total:
    epochs of one size (until the next periodic increase) that neither see a repeat nor end the walk.
    Once the size can no longer change (it has reached the largest size, or nothing makes it grow any
    more) the remaining epochs are counted in one step.
    """
    pinned = threshold
    epoch_index = 0
    completed_repeat = 0
    cursor = 0
    repeats = len(repeated)
    grows = per > 0 and size_inc > 0
    while True:
        periodic = epoch_index // per if per > 0 else 0
        nominal = min(initial + periodic * size_inc + completed_repeat * repeat_inc, max_size)
        cursor = bisect_right(repeated, pinned, cursor)
        if nominal >= max_size or (not grows and cursor >= repeats):
            # every later epoch has this size (a repeat can no longer lengthen one past max_size,
            # and none is ahead otherwise): jump to the last one
            left = total - pinned
            if left > nominal:
                pinned += (left - 1) // nominal * nominal
            return pinned, nominal
        # epochs of this size before the next periodic increase, before the one that sees the next
        # repeat, and before the last: none of them changes anything but the pinned total
        run = (total - pinned - 1) // nominal
        if grows:
            run = min(run, per - epoch_index % per)
        if cursor < repeats:
            run = min(run, (repeated[cursor] - pinned - 1) // nominal)
        if run > 0:
            pinned += run * nominal
            epoch_index += run
            continue
        visible_end = min(pinned + nominal, total)
        detected = cursor < repeats and repeated[cursor] <= visible_end
        current = min(nominal + repeat_inc, max_size) if detected else nominal
        if total <= pinned + current:
            return pinned, current
        pinned += current
        if detected:
            completed_repeat += 1
        epoch_index += 1


class WindowOutcome:
    """Whether one message is seen under any value of the epoch settings (no plan built)."""

    def __init__(self, facts: WindowFacts, index: int, shows_cut: Callable[[str], bool]) -> None:
        self.facts = facts
        self.total = facts.total
        self.protected, self.repeated, _ = facts.repeats()
        at = facts._subject_at.get(index)
        self.k: int | None = facts.reverse[at] if at is not None else None
        self.always_error = facts.increment and facts.bad_role is not None  # raises whenever epoch_size > 0
        self.raising = self._raising()
        self.cut_shows = True
        if self.k is not None:
            new = facts.compacted(index)
            if isinstance(new, str):
                self.cut_shows = shows_cut(new)

    def _raising(self) -> list[int]:
        """Reverse positions (sorted) of the messages whose compaction raises, protected ones left out
        (only the few whose parsed JSON could not be written back are compacted to find out)."""
        facts = self.facts
        found = set()
        for index in facts.may_raise:
            k = facts.reverse[facts._subject_at[index]]
            if k not in self.protected and isinstance(facts.compacted(index), ScoutError):
                found.add(k)
        return sorted(found)

    def visible(self, windows: Windows) -> bool:
        """Seen under these windows (an error anywhere: nothing is sent)."""
        if windows is None:
            return True
        keep_full, truncate_to = windows
        raising = self.raising
        if raising:
            i = bisect_right(raising, keep_full)
            if i < len(raising) and raising[i] <= truncate_to:
                return False
        k = self.k
        if k is None or k <= keep_full or k in self.protected:
            return True
        if k <= truncate_to:
            return self.cut_shows
        return False

    def evaluator(self, key_field: str, base: Any) -> tuple[Callable[[int], bool], int | None]:
        """``value -> seen`` for one setting (a field of ``base``, EpochSettings or IncrementSettings), and a
        value from which every larger one plans the same (None: not known).

        Bounds answer most values without the windows: a message further back than any window could
        reach is seen only when the strategy leaves the list unchanged, and one inside the smallest
        full window is seen whenever no compaction raises.
        """
        total = self.total
        visible = self.visible
        k = self.k
        plain = k is not None and k not in self.protected  # seen exactly when a window reaches it
        certain = plain and not self.raising  # ... and nothing else can hide it
        if self.facts.increment:
            return self._increment(key_field, base, k or 0, plain, certain)
        values = [base.threshold, base.full, base.compacted, base.size]
        slot = EPOCH_FIELDS.index(key_field)

        def seen_epoch(value: int) -> bool:
            values[slot] = value
            threshold, full, compacted, size = values
            if total <= threshold or (full == 0 and compacted == 0) or size <= 0:
                return True  # the list is returned unchanged
            if plain and size + full + max(compacted, 0) < k:
                return False  # keep_full <= size + full: no window reaches it
            if certain and full + 1 >= k:
                return True  # keep_full >= full + 1: kept whole
            return visible(epoch_windows(total, threshold, full, compacted, size))

        # past these every value plans the same: the list unchanged, every message in one window, one epoch
        settle = {
            "threshold": total,
            "full": max(total, 1),
            "compacted": max(total - base.full, 1),  # keep_full >= full + 1
            "size": max(total - base.threshold, 1),
        }[key_field]
        return seen_epoch, settle

    def _increment(
        self, key_field: str, base: Any, k: int, plain: bool, certain: bool
    ) -> tuple[Callable[[int], bool], int | None]:
        total, repeated, visible = self.total, self.repeated, self.visible
        always_error = self.always_error
        fields = [getattr(base, name) for name in base.__dataclass_fields__]
        slot = list(base.__dataclass_fields__).index(key_field)
        epochs: dict[tuple[int, ...], tuple[int, int]] = {}  # the epoch walk, by the values it reads

        def seen(value: int) -> bool:
            fields[slot] = value
            threshold, full, compacted, size, per, size_inc, repeat_inc, max_size, ratio, max_compacted = fields
            if always_error and size > 0:
                return False
            # IncrementSettings.clamped
            threshold, full, base_ = max(threshold, 0), max(full, 0), max(compacted, 0)
            size_inc, repeat_inc, max_size = max(size_inc, 0), max(repeat_inc, 0), max(max_size, size)
            max_compacted = max(max_compacted, base_)
            if size <= 0 or total <= threshold or (full == 0 and base_ == 0):
                return True  # the list is returned unchanged
            if plain and max_size + full + max_compacted < k:
                return False  # keep_full <= the last epoch's size + full <= max_size + full
            if certain and full + 1 >= k:
                return True  # keep_full >= full + 1: kept whole
            walk = (threshold, size, per, size_inc, repeat_inc, max_size)
            found = epochs.get(walk)
            if found is None:
                found = epochs[walk] = last_epoch(total, repeated, *walk)
            ratio = float(ratio)
            if not math.isfinite(ratio) or ratio < 0.0:
                ratio = 0.0
            return visible(_increment_windows(total, *found, size, full, base_, ratio, max_compacted))

        b = base
        initial = max(b.size, 1)
        largest = max(b.max_size, b.size)
        settle = {
            "threshold": total,  # unchanged from here on
            "full": max(total, 1),  # every message in the full window
            "compacted": total + 1,
            "max_compacted": total + 1,
            "size": max(total - max(b.threshold, 0), b.max_size, 1),  # one epoch holds every output, nothing grows
            "epochs_per_increase": total // initial + 2,  # more than the epochs there can be: never increases
            "size_increase": max(largest - initial, 0) + 1,  # one increase reaches max_size
            "repeat_increase": max(largest - initial, 0) + 1,
            "max_size": initial
            + (total // initial + 1) * max(b.size_increase, 0)
            + (len(repeated) + 1) * max(b.repeat_increase, 0)
            + 1,  # larger than any epoch can grow
        }.get(key_field)
        return seen, settle
