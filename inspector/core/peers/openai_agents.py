"""The OpenAI Agents SDK's ``ToolOutputTrimmer`` (openai-agents 0.24.0, agents/extensions/tool_output_trimmer.py).

It runs on the Responses input items before each model call. The Chat Completions items map onto them
one for one (a leading system message becomes ``instructions``; an assistant message's text and each of
its calls become items of their own), and only ``role == "user"`` items and function_call(_output)
items matter to it: so it is computed here on the Chat Completions items directly, counting the items
as the Responses list would hold them. It counts characters (``len``), not tokens.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import Any, cast

from inspector.core.peers.outcome import Outcome, chat_facts
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


class TrimmerFacts:
    """What the trimmer reads of a chat, whatever its settings: where each item stands in the Responses
    list, the user items' places, each tool output's tool name and length (kept per chat), and the
    previews already written (a sweep writes each once)."""

    def __init__(self, items: list[Item]):
        self.where = _response_positions(items)
        self.users = [self.where[k] for k, i in enumerate(items) if i.role == "user" and self.where[k] >= 0]
        names: dict[str, str] = {}
        for item in items:
            for call in item.calls:
                if call.id and call.name:
                    names[str(call.id)] = str(call.name)
        self.tools = [
            (
                k,
                self.where[k],
                names.get(str(i.call_id or ""), ""),
                i.content if isinstance(i.content, str) else str(i.content),
            )
            for k, i in enumerate(items)
            if i.role == "tool"
        ]
        self.lengths = [len(i.content) if i.role == "tool" and isinstance(i.content, str) else 0 for i in items]
        # the tools' columns: their Responses positions only grow, so the old ones are a prefix (bisect)
        self.keys = [k for k, _, _, _ in self.tools]
        self.at = [at for _, at, _, _ in self.tools]
        self.sizes = [len(text) for _, _, _, text in self.tools]
        self.tables: dict[int, list[Item | None]] = {}

    def previews_of(self, items: list[Item], preview: int, wanted: list[int]) -> list[Item | None]:
        """Tool outputs trimmed to a ``preview``-character preview (None: the preview would be no shorter,
        and the output is kept), at least those at ``wanted``: made once per value and kept for the last two
        values (a sweep of preview_chars would otherwise keep a copy of every output per value)."""
        table = self.tables.pop(preview, None)
        if table is None:
            table = [_UNMADE] * len(self.tools)
        self.tables[preview] = table  # the newest last
        if len(self.tables) > 2:
            del self.tables[next(iter(self.tables))]
        for n in [n for n in wanted if table[n] is _UNMADE]:
            k, _, name, text = self.tools[n]
            summary = (
                f"[Trimmed: {name or 'unknown_tool'} output \u2014 {len(text)} chars \u2192 "
                f"{preview} char preview]\n{text[:preview]}..."
            )
            table[n] = None if len(summary) >= len(text) else items[k].with_content(summary)
        return table


_UNMADE: Any = object()  # a preview not made yet


def tool_output_trimmer(items: list[Item], settings: dict[str, Any], cache: Any = None) -> Outcome:
    recent, max_chars, preview = settings["recent_turns"], settings["max_output_chars"], settings["preview_chars"]
    trimmable = settings["trimmable_tools"]
    trimmable = frozenset(trimmable) if trimmable else None
    facts = chat_facts(items, TrimmerFacts, cache)
    users = facts.users
    # the boundary: the recent_turns-th user item from the end (fewer: 0, nothing is old)
    boundary = users[-recent] if len(users) >= recent else 0
    if boundary == 0:
        why = (
            f"fewer than recent_turns={recent} user messages ({len(users)}): nothing is old, nothing trimmed"
            if len(users) < recent
            else f"the {recent} newest user turns start at the first item: nothing is old"
        )
        return Outcome(list(items), why, f"recent: {why}", tokens=facts.lengths, unit="characters")
    out = list(items)
    recent_note = f"in the {recent} newest user turns (recent_turns={recent}): never trimmed"
    short_note = f"older than the {recent} newest user turns; at most max_output_chars {max_chars:,}"
    long_note = f"older than the {recent} newest user turns and over max_output_chars {max_chars:,}: the first {preview} characters kept as a preview"
    no_gain = f"older than the {recent} newest user turns; the preview would be no shorter, kept"
    # a sweep re-plans thousands of outputs: the recent ones and the short old ones are noted in bulk (C),
    # and only an old output over max_output_chars is looked at one by one
    old = bisect_left(facts.at, boundary)
    keys, sizes = facts.keys, facts.sizes
    notes = dict.fromkeys(keys[old:], recent_note)
    candidates: list[int] | range = range(old)
    if trimmable is not None:
        outside = [n for n in candidates if facts.tools[n][2] not in trimmable]
        for n in outside:
            name = facts.tools[n][2]
            notes[keys[n]] = (
                f"older than the {recent} newest user turns, but {name or 'its tool'} is not in trimmable_tools"
            )
        candidates = [n for n in candidates if facts.tools[n][2] in trimmable]
    long = [n for n in candidates if sizes[n] > max_chars]
    notes.update(dict.fromkeys([keys[n] for n in candidates if sizes[n] <= max_chars], short_note))
    table = facts.previews_of(items, preview, long)
    gains = [n for n in long if table[n] is not None]
    notes.update(dict.fromkeys([keys[n] for n in long if table[n] is None], no_gain))
    notes.update(dict.fromkeys([keys[n] for n in gains], long_note))
    for n in gains:
        out[keys[n]] = cast(Item, table[n])
    trimmed = len(gains)
    summary_line = f"{trimmed} tool output(s) before the {recent} newest user turns trimmed to a preview"
    return Outcome(
        out, summary_line, "not a tool output (never trimmed)", notes, tokens=facts.lengths, unit="characters"
    )
