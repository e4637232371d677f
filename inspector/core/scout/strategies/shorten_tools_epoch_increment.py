"""``Chat.shorten_tools_epoch_increment`` as scout-ai 2.x (2bf609e) runs it, with an outcome per message.

Epochs grow: every ``epochs_per_increase`` completed epochs by ``size_increase``, and by
``repeat_increase`` for an epoch whose nominal window holds a repeated call (once per epoch,
kept for the later epochs), all capped at ``max_size``. The compacted window grows with the
epoch: ``base + round((epoch_size - initial) * ratio)`` (Ruby's round: half away from zero),
capped at ``max(max_compacted, base)``. Positions count every output, parseable or not.

The threshold-independent work (roles, parsed JSON, positions, repeats, the compacted text)
is done once per message list in :class:`IncrementFacts`; a plan is two bisections and a
walk over the compacted window.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from dataclasses import dataclass

from inspector.core.ruby import json as rubyjson
from inspector.core.ruby.inspect import to_s
from inspector.core.scout import decision as d
from inspector.core.scout.shorten import ENVELOPE, Shortener
from inspector.core.scout.strategies.shorten_tools_epoch import EpochError, EpochResult, Outcome, dedup_key
from inspector.core.scout.tool_facts import ruby_class

NAME = "shorten_tools_epoch_increment"
DEFAULTS: dict[str, int | float] = {
    "epoch_tool_call_threshold": 50,
    "epoch_full_tool_calls": 20,
    "epoch_compacted_tool_calls": 80,
    "epoch_size": 20,
    "epoch_increment_epochs_per_increase": 3,
    "epoch_increment_size_increase": 10,
    "epoch_increment_repeat_increase": 10,
    "epoch_increment_max_size": 60,
    "epoch_increment_compacted_growth_ratio": 2.0,
    "epoch_increment_max_compacted_tool_calls": 160,
}
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
    threshold: int = 50
    full: int = 20
    compacted: int = 80
    size: int = 20
    epochs_per_increase: int = 3
    size_increase: int = 10
    repeat_increase: int = 10
    max_size: int = 60
    growth_ratio: float = 2.0
    max_compacted: int = 160

    @classmethod
    def from_values(cls, values: dict) -> IncrementSettings:
        return cls(*(values.get(key, default) for key, default in DEFAULTS.items()))  # type: ignore[arg-type]

    def clamped(self) -> tuple:
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


_OTHER, _NOROLE, _CALL, _OUTPUT = 0, 1, 2, 3


class IncrementFacts:
    """Everything about a message list that does not depend on the ten settings."""

    def __init__(self, items: list[dict], shortener: Shortener = ENVELOPE):
        self.items = items
        self.shortener = shortener
        self.bad_role: int | None = None  # first position whose role has no to_sym (the count raises)
        kinds = []
        for position, message in enumerate(items):
            role = message.get("role")
            if role is None or role is False:
                kinds.append(_NOROLE)
            elif type(role) is not str:
                kinds.append(_OTHER)
                if self.bad_role is None:
                    self.bad_role = position
            else:
                kinds.append(
                    _OUTPUT if role == "function_call_output" else _CALL if role == "function_call" else _OTHER
                )
        self.kinds = kinds
        self.total = kinds.count(_OUTPUT)
        self._parsed: dict[int, object] = {}
        self._repeats: tuple[set[int], list[int], dict[int, int]] | None = None
        self._compact: dict[int, object] = {}
        # tool messages the walk judges (Hash content), oldest first, with their reverse position
        self._subjects: tuple[list[int], list[int]] | None = None

    def parsed(self, position: int):
        found = self._parsed.get(position, _MISSING)
        if found is _MISSING:
            found = _parse(self.items[position].get("content"))
            self._parsed[position] = found
        return found

    def repeats(self) -> tuple[set[int], list[int], dict[int, int]]:
        """Protected reverse positions, repeated forward positions, and which earlier output each repeats."""
        if self._repeats is None:
            pending: dict = {}
            keys: dict[str, list[tuple[int, int]]] = {}
            forward = 0
            for position, kind in enumerate(self.kinds):
                if kind == _CALL:
                    data = self.parsed(position)
                    if type(data) is dict:
                        pending[_hash_key(data.get("id"))] = dedup_key(data.get("name"), data.get("arguments"))
                elif kind == _OUTPUT:
                    forward += 1
                    data = self.parsed(position)
                    if type(data) is dict:
                        key = pending.pop(_hash_key(data.get("id")), None)
                        if key is not None:
                            keys.setdefault(key, []).append((forward, position))
            protected: set[int] = set()
            repeated: set[int] = set()
            first_of: dict[int, int] = {}  # reverse position of a protected output -> first occurrence's index
            for found in keys.values():
                if len(found) <= 1:
                    continue
                repeated.update(f for f, _ in found[1:])
                reverse = self.total - found[-1][0] + 1
                protected.add(reverse)
                first_of[reverse] = found[0][1]
            self._repeats = (protected, sorted(repeated), first_of)
        return self._repeats

    def subjects(self) -> tuple[list[int], list[int]]:
        """Positions of tool messages with a Hash content (oldest first) and their reverse positions."""
        if self._subjects is None:
            positions, reverse = [], []
            seen = self.total
            for position, kind in enumerate(self.kinds):
                if kind == _OUTPUT:
                    here = seen
                    seen -= 1
                elif kind == _CALL:
                    here = seen
                else:
                    continue
                content = self.items[position].get("content")
                if content is None or type(self.parsed(position)) is not dict:
                    continue
                positions.append(position)
                reverse.append(here)
            self._subjects = (positions, reverse)
        return self._subjects

    def compacted(self, position: int):
        """The compacted content (a str), None when nothing changes, or an EpochError."""
        found = self._compact.get(position, _MISSING)
        if found is _MISSING:
            found = self._compact_one(position)
            self._compact[position] = found
        return found

    def _compact_one(self, position: int):
        message = self.items[position]
        content_text = message.get("content")
        if rubyjson.has_long_digits(content_text):
            data = rubyjson.parse(content_text)  # exact wide integers before writing them back
        else:
            data = dict(self.parsed(position))  # type: ignore[call-overload]
        shorten = self.shortener
        if self.kinds[position] == _OUTPUT:
            content = data.get("content")
            step = data.get("step")
            new = shorten(to_s(content), OUTPUT_SIZE, step)
            if type(content) is str and new == content:
                return None
            data["content"] = new
        else:
            arguments = data.get("arguments")
            if type(arguments) is not dict or not arguments:
                return None  # String arguments are kept: no `.any?` here
            new_arguments = {k: shorten(v, ARGUMENT_SIZE) if type(v) is str else v for k, v in arguments.items()}
            if all(a is b or a == b for a, b in zip(arguments.values(), new_arguments.values())):
                return None
            data["arguments"] = new_arguments
        try:
            return rubyjson.dumps(data)
        except rubyjson.RubyJSONError as exc:
            return EpochError(position, exc.exception, str(exc), data.get("name"), data.get("id"))


_MISSING = object()


def _parse(content):
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


def _hash_key(value):
    kind = type(value)
    if kind is dict:
        return ("h", frozenset((k, _hash_key(v)) for k, v in value.items()))
    if kind is list:
        return ("a", tuple(_hash_key(v) for v in value))
    if kind is float:
        return ("f", value + 0.0)
    return (kind.__name__, value)


@dataclass(slots=True)
class IncrementPlan:
    """One plan: the window of each judged message and the prepared list."""

    facts: IncrementFacts
    settings: IncrementSettings
    schedule: Schedule | None  # None when the strategy returns the list unchanged
    error: EpochError | None
    # positions (into facts.items) by fate; everything else is kept as is
    compacted: dict[int, str]
    dropped: list[int]
    protected_kept: set[int]
    full_from: int  # index in subjects where the full window starts
    reached_from: int  # oldest position the walk reached (0 unless it raised)

    def result(self) -> EpochResult:
        """The prepared dicts with origins and an outcome per input position (O(n))."""
        size = len(self.facts.items)
        if self.error is not None:
            outcomes = [Outcome(d.UNDECIDED, d.NOT_REACHED)] * size
            for p in range(self.error.position + 1, size):
                outcomes[p] = self.outcome(p)
            outcomes[self.error.position] = Outcome(d.ERROR, d.SCOUT_ERROR)
            return EpochResult([], [], outcomes, self.error)
        outcomes = [self.outcome(p) for p in range(size)]
        messages, origins = self.prepared()
        return EpochResult(messages, origins, outcomes, None, len(self.compacted), len(self.dropped))

    def prepared(self) -> tuple[list[dict], list[int]]:
        items = self.facts.items
        if self.schedule is None:
            return list(items), list(range(len(items)))
        dropped = set(self.dropped)
        out, origins = [], []
        compacted = self.compacted
        for p, message in enumerate(items):
            if p in dropped:
                continue
            new = compacted.get(p)
            out.append(message if new is None else {**message, "content": new, "compacted": True})
            origins.append(p)
        if compacted or dropped:
            notice = {"role": "user", "content": COMPACTION_TEXT.format(compacted=len(compacted), dropped=len(dropped))}
            kinds = self.facts.kinds
            at = next((i + 1 for i, p in enumerate(origins) if kinds[p] in (_CALL, _OUTPUT)), len(out))
            out.insert(at, notice)
            origins.insert(at, -1)
        return out, origins

    def outcome(self, p: int) -> Outcome:
        facts = self.facts
        kind = facts.kinds[p]
        if kind not in (_CALL, _OUTPUT):
            return Outcome(d.FULL, d.NOT_TOOL)
        if self.schedule is None:
            return Outcome(d.FULL, d.EPOCH_UNDER)
        positions, reverse = facts.subjects()
        at = bisect_left(positions, p)
        if at == len(positions) or positions[at] != p:
            content = facts.items[p].get("content")
            return Outcome(d.FULL, d.NO_CONTENT if content is None else d.EPOCH_UNPARSED)
        k = reverse[at]
        if p in self.compacted:
            return Outcome(d.TRUNCATED, d.EPOCH_COMPACTED, k)
        if p in self.protected_kept:
            return Outcome(d.FULL, d.EPOCH_PROTECTED, k)
        if k <= self.schedule.keep_full:
            return Outcome(d.FULL, d.EPOCH_FULL, k)
        if k <= self.schedule.truncate_to:
            return Outcome(d.FULL, d.EPOCH_NOTHING, k)
        return Outcome(d.DROPPED, d.EPOCH_DROPPED, k)


def plan(facts: IncrementFacts, settings: IncrementSettings) -> IncrementPlan:
    """Apply the ten settings to the cached facts; cost: two bisections plus the compacted window."""
    clamp = settings.clamped()
    threshold, full, base = clamp[0], clamp[1], clamp[2]
    unchanged = IncrementPlan(facts, settings, None, None, {}, [], set(), 0, 0)
    if settings.size <= 0:
        return unchanged
    if facts.bad_role is not None:
        p = facts.bad_role
        role = facts.items[p].get("role")
        why = f"undefined method `to_sym' for {ruby_class(role)} (the message has no usable role)"
        return IncrementPlan(facts, settings, None, EpochError(p, "NoMethodError", why), {}, [], set(), 0, p)
    total = facts.total
    if total <= threshold or (full == 0 and base == 0):
        return unchanged
    protected, repeated, _ = facts.repeats()
    sched = schedule(total, repeated, settings)
    positions, reverse = facts.subjects()
    # reverse positions fall as positions rise: find the windows with bisections on the negated list
    negated = _negated(facts, reverse)
    full_from = bisect_left(negated, -sched.keep_full)  # first subject with k <= keep_full
    compact_from = bisect_left(negated, -sched.truncate_to, 0, full_from)  # first with k <= truncate_to
    compacted: dict[int, str] = {}
    protected_kept: set[int] = set()
    # newest first, as the Ruby walk goes: the first error met is the one it raises
    for at in range(full_from - 1, compact_from - 1, -1):
        p = positions[at]
        if reverse[at] in protected:
            protected_kept.add(p)
            continue
        new = facts.compacted(p)
        if isinstance(new, EpochError):
            return IncrementPlan(facts, settings, sched, new, {}, [], set(), full_from, p)
        if new is not None:
            compacted[p] = new
    dropped = []
    for at in range(compact_from):
        p = positions[at]
        if reverse[at] in protected:
            protected_kept.add(p)
        else:
            dropped.append(p)
    return IncrementPlan(facts, settings, sched, None, compacted, dropped, protected_kept, full_from, 0)


def _negated(facts: IncrementFacts, reverse: list[int]) -> list[int]:
    cached = getattr(facts, "_negated_cache", None)
    if cached is None:
        cached = [-k for k in reverse]
        facts._negated_cache = cached  # type: ignore[attr-defined]
    return cached


def run(items: list[dict], settings: IncrementSettings = IncrementSettings(), shortener: Shortener = ENVELOPE):
    """Apply the strategy to ``items`` (not modified); the result says what happened to each."""
    return plan(IncrementFacts(items, shortener), settings).result()


def shorten_tools_epoch_increment(messages: list[dict], settings: IncrementSettings | None = None) -> list[dict]:
    """The plain strategy form (list in, list out); raises ValueError where scout-ai would raise."""
    result = run(messages, settings or IncrementSettings())
    if result.error is not None:
        raise ValueError(f"scout-ai would raise {result.error.exception}: {result.error.why}")
    return result.messages
