"""Sweep one threshold: re-plan once per value and count what the model would be sent.

Feeds `prompt-inspector sweep` and the app's chart next to the threshold being
edited; each row matches what `explain --set KEY=VALUE` reports for that value.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from inspector.core.analysis.replan import Replanner, output_count, parse_value, prompt_chars
from inspector.core.errors import UsageError
from inspector.core.inspection import Inspection
from inspector.core.policies import decision as d
from inspector.core.scout.settings import FLOAT_KEYS, SETTING_KEYS, Thresholds
from inspector.core.scout.totals import estimate_tokens

MAX_VALUES = 100_000  # a typo in STEP should not plan for an hour


@dataclass(frozen=True, slots=True)
class SweepRow:
    value: int | float  # a float for a ratio (FLOAT_KEYS)
    messages: int  # messages sent, an inserted compaction notice included (0 when scout-ai raises)
    truncated: int
    dropped: int
    chars: int  # characters of every message sent
    tokens: int  # an estimate: characters / 4
    error: str | None = None  # what scout-ai raises at this value
    cleared: int | None = None  # another framework's policy: messages sent as its placeholder

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "value": self.value,
            "messages": self.messages,
            "truncated": self.truncated,
            "dropped": self.dropped,
            "chars": self.chars,
            "tokens": self.tokens,
            "error": self.error,
        }
        if self.cleared is not None:
            out["cleared"] = self.cleared
        return out


def parse_policy_range(spec: str, policy: str) -> tuple[str, list[int | float]]:
    """``KEY=START:STOP:STEP`` for a numeric setting of another framework's policy."""
    from inspector.core.peers.registry import Kind, get

    policy_spec = get(policy)
    key, sep, rest = spec.partition("=")
    key = key.strip()
    parts = rest.split(":")
    if not sep or len(parts) not in (2, 3):
        raise UsageError(f"--vary expects KEY=START:STOP:STEP, got {spec!r}")
    param = policy_spec.param(key)
    numeric = [p.name for p in policy_spec.params if p.kind in (Kind.INT, Kind.FLOAT, Kind.THRESHOLD)]
    if param is None or param.name not in numeric:
        raise UsageError(f"{policy} has no numeric setting {key!r}; its numeric settings: {', '.join(numeric)}")
    ratio = param.kind is Kind.FLOAT
    try:
        nums = [Decimal(p.strip()) for p in (*parts, *(["1"] if len(parts) == 2 else []))]
    except ArithmeticError:
        raise UsageError(f"--vary expects numbers, got {rest!r}") from None
    first, last, by = nums[:3]
    if not ratio and any(n != n.to_integral_value() for n in (first, last, by)):
        raise UsageError(f"--vary {key} expects integers, got {rest!r}")
    if by <= 0:
        raise UsageError(f"--vary STEP must be positive, got {parts[2]}")
    if last < first:
        raise UsageError(f"--vary STOP ({parts[1]}) is below START ({parts[0]})")
    count = int((last - first) // by) + 1
    if count > MAX_VALUES:
        raise UsageError(f"--vary gives {count:,} values; at most {MAX_VALUES:,} (use a larger STEP)")
    values: list[int | float] = [float(first + i * by) if ratio else int(first + i * by) for i in range(count)]
    for value in values:  # the library's own bounds (recent_turns >= 1, ...)
        param.parse(str(value), policy)
    return key, values


def policy_sweep(inspection: Inspection, key: str, values: Sequence[int | float]) -> list[SweepRow]:
    """One row per value of another framework's policy setting, the others as in force."""
    settings = inspection.policy
    assert settings is not None
    rows = []
    for value in values:
        prompt = inspection.policy_prompt(settings.with_value(key, value))
        counts = prompt.tier_counts()
        if prompt.error is not None:
            rows.append(SweepRow(value, 0, 0, 0, 0, 0, prompt.error.describe(), 0))
            continue
        totals = prompt.totals()
        chars = totals.chars_after
        rows.append(
            SweepRow(
                value,
                totals.visible_messages,
                counts[d.TRUNCATED],
                counts[d.DROPPED],
                chars,
                estimate_tokens(chars),
                None,
                counts.get(d.CLEARED, 0),
            )
        )
    return rows


def parse_range(spec: str) -> tuple[str, list[int | float]]:
    """``KEY=START:STOP:STEP`` (STEP defaults to 1) to the key and its values, STOP included."""
    key, sep, rest = spec.partition("=")
    key = key.strip().lower()
    if not sep:
        raise UsageError(f"--vary expects KEY=START:STOP:STEP, got {spec!r}")
    if key not in SETTING_KEYS:
        raise UsageError(f"unknown setting {key!r}; known: {', '.join(SETTING_KEYS)}")
    parts = rest.split(":")
    if len(parts) not in (2, 3):
        raise UsageError(f"--vary expects KEY=START:STOP:STEP, got {spec!r}")
    start, stop = parse_value(key, parts[0]), parse_value(key, parts[1])
    step = parse_value(key, parts[2]) if len(parts) == 3 else 1
    if step <= 0:
        raise UsageError(f"--vary STEP must be positive, got {step}")
    if stop < start:
        raise UsageError(f"--vary STOP ({stop}) is below START ({start})")
    if key in FLOAT_KEYS:
        # a ratio: counted in decimals, so 0.5:2:0.5 ends at 2.0 whatever binary floats make of 0.1 steps
        first, last, by = (Decimal(repr(float(x))) for x in (start, stop, step))
        count = int((last - first) // by) + 1
    else:
        count = int((stop - start) // step) + 1  # integers of any length: exact
    if count > MAX_VALUES:
        raise UsageError(f"--vary gives {count:,} values; at most {MAX_VALUES:,} (use a larger STEP)")
    if key in FLOAT_KEYS:
        return key, [float(first + i * by) for i in range(count)]
    return key, list(range(int(start), int(stop) + 1, int(step)))


def sweep(
    inspection: Inspection,
    key: str,
    values: Sequence[int | float],
    base: Thresholds | None = None,
    replanner: Replanner | None = None,
) -> list[SweepRow]:
    """One row per value of ``key``, the other thresholds as in ``base`` (default: those in force)."""
    if key not in SETTING_KEYS:
        raise UsageError(f"unknown setting {key!r}; known: {', '.join(SETTING_KEYS)}")
    rp = replanner or Replanner(inspection, base)
    rows = []
    for value in values:
        prompt = rp.at(key, value, base, cache=False)
        counts = prompt.tier_counts()
        if prompt.error is not None:
            rows.append(SweepRow(value, 0, counts[d.TRUNCATED], counts[d.DROPPED], 0, 0, prompt.error.describe()))
            continue
        if prompt.plan is not None:  # shorten_tools: counted from the plan, inserting nothing
            sent, chars = counts[d.FULL] + counts[d.TRUNCATED], prompt_chars(prompt)
        else:  # as explain and diff count them: a compaction notice is sent too
            totals = prompt.totals()
            sent, chars = totals.visible_messages, totals.chars_after
        rows.append(
            SweepRow(
                value,
                sent,
                counts[d.TRUNCATED],
                counts[d.DROPPED],
                chars,
                estimate_tokens(chars),
            )
        )
    return rows


def axis(inspection: Inspection, key: str, columns: int = 30) -> list[int]:
    """At most ``columns`` evenly spaced values of ``key`` covering every distinct plan.

    Past the tool output count (counts) or the total tool characters (max_tool_chars)
    every value plans the same, so the range stops one past it; the app charts these.
    """
    if key not in SETTING_KEYS:
        raise UsageError(f"unknown setting {key!r}; known: {', '.join(SETTING_KEYS)}")
    top = (inspection.facts.prefix[-1] if key == "max_tool_chars" else output_count(inspection)) + 1
    if top < columns:
        return list(range(top + 1))
    return sorted({round(i * top / (columns - 1)) for i in range(columns)})
