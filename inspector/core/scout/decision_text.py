"""scout-ai's decisions in plain words, for people: which rule fired, with the counters that made it fire."""

from __future__ import annotations

from inspector.core.policies import decision as d
from inspector.core.scout.settings import Thresholds


def ordinal(n: int) -> str:
    if 10 <= n % 100 <= 20:
        suffix = "th"
    else:
        suffix = {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _position(dec: d.Decision) -> str:
    n = dec.outputs_counted or 0
    if dec.kind == "output":
        return f"{ordinal(n)} newest output"
    return f"call with {n:,} newer output{'s' if n != 1 else ''}"


def _limits(dec: d.Decision, t: Thresholds) -> tuple[str, int, str, int]:
    if dec.kind == "output":
        return "full_tool_outputs", t["full_tool_outputs"], "max_tool_outputs", t["max_tool_outputs"]
    return "full_tool_calls", t["full_tool_calls"], "max_tool_calls", t["max_tool_calls"]


def describe(dec: d.Decision, t: Thresholds) -> str:
    """One sentence: the tier, then why, with the numbers scout-ai compared."""
    budget = t["max_tool_chars"]
    before = dec.tool_chars_before
    chars = f"tool characters before it {before:,}" if before is not None else ""
    reason = dec.reason
    if reason in (d.RECENT, d.BUDGET, d.NOTHING, d.MIDDLE, d.BEYOND_MAX):
        full_key, full, max_key, most = _limits(dec, t)
        where = _position(dec)
        if reason == d.RECENT:
            return f"full: {where}, within {full_key}={full} (the recent band is always kept whole)"
        if reason == d.BUDGET:
            return (
                f"full: {where}, beyond {full_key}={full}, but {chars} < max_tool_chars {budget:,} "
                "(under the character budget)"
            )
        if reason == d.NOTHING:
            return (
                f"full: {where}, beyond {full_key}={full}, {chars} >= max_tool_chars {budget:,}, "
                "but nothing in it is longer than 200 characters, so shortening leaves it unchanged"
            )
        if reason == d.MIDDLE:
            return (
                f"truncated: {where}, beyond {full_key}={full}, {chars} >= max_tool_chars {budget:,} "
                f"(within {max_key}={most}, so shortened rather than dropped)"
            )
        return f"dropped: {where}, beyond {max_key}={most}, {chars} >= max_tool_chars {budget:,}"
    if reason == d.NOT_TOOL:
        return "full: not a tool message; shorten_tools never changes it"
    if reason == d.NO_CONTENT:
        return "full: tool message without content; passed through and not counted"
    if reason == d.NO_STRATEGY:
        return "full: no strategy changes tool messages (strategy list without shorten_tools)"
    if reason == d.CUSTOM:
        return f"{dec.tier}: changed by a custom strategy"
    if reason == d.SCOUT_ERROR:
        return f"error: scout-ai raises on this message and sends nothing. {dec.detail}".rstrip()
    if reason == d.NOT_REACHED:
        return "not reached: scout-ai raised on a newer message before deciding this one"
    if reason == d.Reason.DISCARDED:
        return f"undecided: {dec.detail}"
    if str(reason).startswith("policy_") and dec.detail:  # another framework's policy: its rule, its terms
        return f"{dec.tier}: {dec.detail}"
    return f"{dec.tier}: {d.REASON_TEXT.get(reason, reason)}"


def describe_consumed(step: str, reason: str) -> str:
    return f"consumed before the strategies ran (step {step}): {reason}"
