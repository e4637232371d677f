"""``Chat.shorten_tools_epoch_increment`` as scout-ai 2.x (2bf609e) runs it, with an outcome per message.

Epochs grow: every ``epochs_per_increase`` completed epochs by ``size_increase``, and by
``repeat_increase`` for an epoch whose nominal window holds a repeated call (once per epoch,
kept for the later epochs), all capped at ``max_size``. The compacted window grows with the
epoch: ``base + round((epoch_size - initial) * ratio)`` (Ruby's round: half away from zero),
capped at ``max(max_compacted, base)``. Positions count every output, parseable or not.

The setting-independent work (roles, parsed JSON, positions, repeats, the compacted text) is
done once per message list by windows.WindowFacts; a plan is two bisections and a walk over
the compacted window.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from inspector.core.ruby import json as rubyjson
from inspector.core.scout.settings import DEFAULTS as SETTING_DEFAULTS
from inspector.core.scout.settings import EPOCH_KEYS, INCREMENT_KEYS

if TYPE_CHECKING:
    from inspector.core.scout.settings import Thresholds

NAME = "shorten_tools_epoch_increment"
# The ten settings it reads, in IncrementSettings' field order, with their defaults: settings.DEFAULTS is
# the one source (the epoch keys' 50/20/80/20, then 3/10/10/60/2.0/160).
DEFAULTS: dict[str, int | float] = {key: SETTING_DEFAULTS[key] for key in EPOCH_KEYS + INCREMENT_KEYS}
FLOAT_KEYS = ("epoch_increment_compacted_growth_ratio",)  # read with to_f
OUTPUT_SIZE = 400
ARGUMENT_SIZE = 200

COMPACTION_TEXT = (
    "=== Context Management ===\n\n"
    "To fit within the model context window, this conversation has been\n"
    "compacted. Some tool-call arguments and tool-call outputs are shown\n"
    "with shortened content, and some have been hidden entirely.\n"
    "Compacted content is shown as '[CONTEXT-COMPACTED ...]'.\n\n"
    "Do not try to reconstruct details that were removed by context\n"
    "compaction. The actual tool execution was not compacted when it\n"
    "occurred; only its representation in the current context was changed.\n\n"
    "Compacted tool messages: {compacted}\n"
    "Removed tool messages: {dropped}\n\n"
    "Earlier tool results may no longer be present in the visible\n"
    "conversation. Their absence does not necessarily mean that the tool\n"
    "has never been executed.\n\n"
    "Repeated completed tool calls are detected using the tool name and\n"
    "canonical arguments, excluding the generated call ID. The most recent\n"
    "instance of each repeated call is retained at full fidelity. A repeat\n"
    "may also lengthen the current and subsequent cache epochs and retain\n"
    "more older calls in compacted form, up to the configured limits.\n\n"
    "Do not repeat a tool call solely because an older occurrence is no\n"
    "longer visible."
)

_TOOL_ROLES = ("function_call", "function_call_output")


def ruby_round(value: float) -> int:
    """Float#round: halves go away from zero (Python's round goes to even)."""
    return math.floor(value + 0.5) if value >= 0 else -math.floor(-value + 0.5)


@dataclass(frozen=True, slots=True)
class IncrementSettings:
    threshold: int = SETTING_DEFAULTS["epoch_tool_call_threshold"]
    full: int = SETTING_DEFAULTS["epoch_full_tool_calls"]
    compacted: int = SETTING_DEFAULTS["epoch_compacted_tool_calls"]
    size: int = SETTING_DEFAULTS["epoch_size"]
    epochs_per_increase: int = SETTING_DEFAULTS["epoch_increment_epochs_per_increase"]
    size_increase: int = SETTING_DEFAULTS["epoch_increment_size_increase"]
    repeat_increase: int = SETTING_DEFAULTS["epoch_increment_repeat_increase"]
    max_size: int = SETTING_DEFAULTS["epoch_increment_max_size"]
    growth_ratio: float = SETTING_DEFAULTS["epoch_increment_compacted_growth_ratio"]
    max_compacted: int = SETTING_DEFAULTS["epoch_increment_max_compacted_tool_calls"]

    @classmethod
    def from_values(cls, values: dict[str, Any]) -> IncrementSettings:
        return cls(*(values.get(key, default) for key, default in DEFAULTS.items()))

    @classmethod
    def of(cls, settings: Thresholds) -> IncrementSettings:
        """The ten values among every resolved setting (the ratio a float, the rest integers)."""

        def n(key: str) -> int:
            return int(settings.setting(key))

        return cls(
            threshold=n("epoch_tool_call_threshold"),
            full=n("epoch_full_tool_calls"),
            compacted=n("epoch_compacted_tool_calls"),
            size=n("epoch_size"),
            epochs_per_increase=n("epoch_increment_epochs_per_increase"),
            size_increase=n("epoch_increment_size_increase"),
            repeat_increase=n("epoch_increment_repeat_increase"),
            max_size=n("epoch_increment_max_size"),
            growth_ratio=float(settings.setting("epoch_increment_compacted_growth_ratio")),
            max_compacted=n("epoch_increment_max_compacted_tool_calls"),
        )

    def clamped(self) -> tuple[int, int, int, int, int, int, int, int, float, int]:
        """The values after the method's own clamps (``[x, 0].max``, a finite non-negative ratio)."""
        ratio = float(self.growth_ratio)
        if not math.isfinite(ratio) or ratio < 0.0:
            ratio = 0.0
        return (
            max(self.threshold, 0),
            max(self.full, 0),
            max(self.compacted, 0),
            self.size,
            self.epochs_per_increase,
            max(self.size_increase, 0),
            max(self.repeat_increase, 0),
            max(self.max_size, self.size),
            ratio,
            max(self.max_compacted, max(self.compacted, 0)),
        )


@dataclass(frozen=True, slots=True)
class Schedule:
    epoch_index: int
    pinned_total: int
    new_calls: int
    nominal_size: int
    epoch_size: int
    periodic_increases: int
    completed_repeat_epochs: int
    repeat_detected: bool
    compacted_growth: int
    effective_compacted: int
    keep_full: int
    truncate_to: int

    def describe(self) -> str:
        return (
            f"epoch {self.epoch_index}, pinned total {self.pinned_total}, epoch size {self.epoch_size}"
            f"{' (grown by a repeat)' if self.repeat_detected else ''}, full window {self.keep_full}, "
            f"compacted window {self.effective_compacted}"
        )


def schedule(total: int, repeated: list[int], s: IncrementSettings) -> Schedule:
    """``build_epoch_increment_schedule`` plus the windows the method derives from it."""
    threshold, full, base, initial, per, size_inc, repeat_inc, max_size, ratio, max_compacted = s.clamped()
    pinned = threshold
    epoch_index = 0
    completed_repeat = 0
    cursor = 0
    while True:
        periodic = epoch_index // per if per > 0 else 0
        nominal = min(initial + periodic * size_inc + completed_repeat * repeat_inc, max_size)
        cursor = bisect_right(repeated, pinned, cursor)  # skip repeats of completed epochs
        visible_end = min(pinned + nominal, total)
        detected = cursor < len(repeated) and repeated[cursor] <= visible_end
        current = min(nominal + repeat_inc, max_size) if detected else nominal
        if total <= pinned + current:
            break
        pinned += current
        if detected:
            completed_repeat += 1
        epoch_index += 1
        if current <= 0:  # cannot happen with initial > 0; Ruby would loop for ever
            raise ValueError("epoch size not positive")
    growth = ruby_round(max(current - initial, 0) * ratio)
    effective = min(base + growth, max_compacted)
    keep_full = total - pinned + full
    return Schedule(
        epoch_index,
        pinned,
        total - pinned,
        nominal,
        current,
        periodic,
        completed_repeat,
        detected,
        growth,
        effective,
        keep_full,
        keep_full + effective,
    )


_MISSING = object()


def _parse(content: Any) -> Any:
    """``epoch_increment_parse_tool_json``: nil, or what JSON.parse returns (ParserError/TypeError: nil)."""
    if content is None or type(content) is not str:
        return None
    try:
        value = rubyjson.parse(content)
    except rubyjson.RubyJSONError:
        return None
    if rubyjson.too_deep(content, value):
        return None
    return value
