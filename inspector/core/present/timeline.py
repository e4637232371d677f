"""A text's or a message's timeline over the model calls, in words and as JSON-ready data."""

from __future__ import annotations

from inspector.core.analysis.trace import Occurrence
from inspector.core.calls.history import ChatHistory
from inspector.core.calls.timeline import Timeline, decision_at
from inspector.core.policies import decision as d
from inspector.core.scout.decision_text import describe

# (message, call) -> what that call was sent of the message: the occurrences of a text in one message share
# it, and each answer plans the chat at the call
Afters = dict[tuple[int, int], dict[str, object]]


def after_last_seen(history: ChatHistory, line: Timeline, afters: Afters | None = None) -> dict[str, object] | None:
    """What the call after the last one that saw it was sent of that message (None: nothing after)."""
    number = line.hidden_from
    if number is None:
        return None
    if afters is None:
        return _after(history, number, line.index)
    found = afters.get((line.index, number))
    if found is None:
        found = afters[line.index, number] = _after(history, number, line.index)
    return found


def _after(history: ChatHistory, number: int, index: int) -> dict[str, object]:
    dec = decision_at(history, number, index)
    if dec is None:
        return {"call": number, "tier": d.CONSUMED, "reason": "", "why": "removed before the strategies ran"}
    return {
        "call": number,
        "tier": dec.tier,
        "reason": dec.reason,
        "why": describe(dec, history.at(number).thresholds),
        "visible_chars": dec.visible_chars,
    }


def timeline_dict(
    history: ChatHistory, occurrence: Occurrence, line: Timeline, afters: Afters | None = None
) -> dict[str, object]:
    return {
        **occurrence.as_dict(),
        "calls": len(history),
        "first_call": line.first,
        "last_seen": line.last_seen,
        "hidden_from": line.hidden_from,
        "spans": [s.as_dict() for s in line.spans()],
        "after": after_last_seen(history, line, afters),
    }


def sentence(history: ChatHistory, line: Timeline, what: str = "it", afters: Afters | None = None) -> str:
    """One line a person can act on: when the model last saw it, and what came after."""
    total = len(history)
    if line.first is None:
        return f"written after the last call ({total}): no call was sent {what}"
    seen = line.last_seen
    if seen is None:
        return f"written before call {line.first}, never sent at any of calls {line.first}-{total}"
    if line.hidden_from is None:
        return f"written before call {line.first}; still sent at the last call ({total})"
    after = after_last_seen(history, line, afters) or {}
    then = str(after.get("why") or after.get("tier", ""))
    if after.get("tier") == d.TRUNCATED:
        then += " (the text is in the part cut out)"
    return f"written before call {line.first}; last sent at call {seen}; at call {line.hidden_from}: {then}"


def calls_range(first: int, last: int) -> str:
    """``call 3`` or ``calls 3-9``: one wording for a run of calls in every view."""
    return f"call {first}" if first == last else f"calls {first}-{last}"


def calls_count(n: int) -> str:
    return f"{n:,} call" if n == 1 else f"{n:,} calls"


def span_lines(line: Timeline) -> list[str]:
    out = []
    for span in line.spans():
        calls = calls_range(span.first, span.last)
        sent = "sent" if span.visible else "cut out" if span.tier == d.TRUNCATED else "not sent"
        out.append(f"{calls}: {span.tier}, {sent}")
    return out
