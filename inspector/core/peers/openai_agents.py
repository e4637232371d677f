"""The OpenAI Agents SDK's ``ToolOutputTrimmer`` (openai-agents 0.24.0, agents/extensions/tool_output_trimmer.py).

It runs on the Responses input items before each model call. The Chat Completions items map onto them
one for one (a leading system message becomes ``instructions``; an assistant message's text and each of
its calls become items of their own), and only ``role == "user"`` items and function_call(_output)
items matter to it: so it is computed here on the Chat Completions items directly, counting the items
as the Responses list would hold them. It counts characters (``len``), not tokens.
"""

from __future__ import annotations

from typing import Any

from inspector.core.peers.outcome import Outcome
from inspector.core.peers.wire import Item


def _response_positions(items: list[Item]) -> list[int]:
    """For each Chat Completions item, the index of its first Responses item (a leading system message
    has none: it is ``instructions``)."""
    out, at = [], 0
    for k, item in enumerate(items):
        if k == 0 and item.role == "system":
            out.append(-1)
            continue
        out.append(at)
        if item.role == "assistant" and item.calls:
            at += (1 if item.content not in (None, "") else 0) + len(item.calls)
        else:
            at += 1
    return out


def tool_output_trimmer(items: list[Item], settings: dict[str, Any], cache: dict[int, int] | None = None) -> Outcome:
    recent, max_chars, preview = settings["recent_turns"], settings["max_output_chars"], settings["preview_chars"]
    trimmable = settings["trimmable_tools"]
    trimmable = frozenset(trimmable) if trimmable else None
    where = _response_positions(items)
    lengths = [len(i.content) if i.role == "tool" and isinstance(i.content, str) else 0 for i in items]
    # the boundary: the recent_turns-th user item from the end (fewer: 0, nothing is old)
    users = [where[k] for k, i in enumerate(items) if i.role == "user" and where[k] >= 0]
    boundary = users[-recent] if len(users) >= recent else 0
    names: dict[str, str] = {}
    for item in items:
        for call in item.calls:
            if call.id and call.name:
                names[str(call.id)] = str(call.name)
    if boundary == 0:
        why = (
            f"fewer than recent_turns={recent} user messages ({len(users)}): nothing is old, nothing trimmed"
            if len(users) < recent
            else f"the {recent} newest user turns start at the first item: nothing is old"
        )
        return Outcome(list(items), why, f"recent: {why}", tokens=lengths, unit="characters")
    out: list[Item] = []
    notes: dict[int, str] = {}
    trimmed = 0
    for k, item in enumerate(items):
        if item.role != "tool" or not (0 <= where[k] < boundary):
            if item.role == "tool":
                notes[k] = f"in the {recent} newest user turns (recent_turns={recent}): never trimmed"
            out.append(item)
            continue
        name = names.get(str(item.call_id or ""), "")
        if trimmable is not None and name not in trimmable:
            notes[k] = f"older than the {recent} newest user turns, but {name or 'its tool'} is not in trimmable_tools"
            out.append(item)
            continue
        text = item.content if isinstance(item.content, str) else str(item.content)
        if len(text) <= max_chars:
            notes[k] = f"older than the {recent} newest user turns; {len(text):,} <= max_output_chars {max_chars:,}"
            out.append(item)
            continue
        summary = (
            f"[Trimmed: {name or 'unknown_tool'} output \u2014 {len(text)} chars \u2192 "
            f"{preview} char preview]\n{text[:preview]}..."
        )
        if len(summary) >= len(text):
            notes[k] = f"older than the {recent} newest user turns; the preview would be no shorter, kept"
            out.append(item)
            continue
        out.append(item.with_content(summary))
        trimmed += 1
        notes[k] = (
            f"older than the {recent} newest user turns and {len(text):,} > max_output_chars {max_chars:,}: "
            f"the first {preview} characters kept as a preview"
        )
    summary_line = f"{trimmed} tool output(s) before the {recent} newest user turns trimmed to a preview"
    return Outcome(out, summary_line, "not a tool output (never trimmed)", notes, tokens=lengths, unit="characters")
