"""The inspector's rows: one per original message, consumed ones where they stood in the file.

Row numbers are the ``#`` column of ``prompt-inspector explain``, so the app, the
report and "go to message N" agree. Previews are computed lazily, one row at a time,
because a view shows a screenful of a 20,000-message chat.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from enum import StrEnum
from itertools import accumulate
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

from inspector.core.model import Chat, Consumed, Finding, Message
from inspector.core.numbering import RowNumbers
from inspector.core.policies import decision as d
from inspector.core.present.sanitize import one_line
from inspector.core.ruby.json import RubyJSONError, parse
from inspector.core.scout.prepare import Prompt
from inspector.core.scout.tool_facts import CALL, OUTPUT, ToolFacts, chars_of
from inspector.core.scout.totals import Totals

if TYPE_CHECKING:
    from inspector.core.calls.history import ChatHistory
    from inspector.core.inspection import Inspection

ROLE_LABELS = {"function_call": "call", "function_call_output": "output"}
PREVIEW_LIMIT = 400  # characters looked at per preview: a row never costs more than this


def content_text(content: Any) -> str:
    """Content as text: strings as they are, anything else as compact JSON."""
    if isinstance(content, str):
        return content
    if content is None:
        return ""
    try:
        return json.dumps(content, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(content)


def _preview_of_parsed(data: Any, kind: int | None) -> str | None:
    """The interesting part of a tool message: an output's content, a call's arguments."""
    if not isinstance(data, dict):
        return None
    if kind == OUTPUT and "content" in data:
        inner = data["content"]
        return inner[:PREVIEW_LIMIT] if isinstance(inner, str) else content_text(inner)[:PREVIEW_LIMIT]
    if kind == CALL:
        # the row shows `name: arguments`, so never the envelope: older shapes nest the call in "function"
        function = data.get("function")
        holder = data if "arguments" in data or not isinstance(function, dict) else function
        if "arguments" in holder:
            return content_text(holder["arguments"])[:PREVIEW_LIMIT]
        if "name" in holder:
            return "(no arguments)"
    return None


class RowModel:
    """Maps rows to messages or consumed items and gives their previews."""

    def __init__(self, chat: Chat, facts: ToolFacts):
        self.chat = chat
        self.facts = facts
        self.numbers = RowNumbers.of(chat)
        self.refs = self.numbers.refs  # >= 0: message index; < 0: -(k + 1) for chat.consumed[k]
        self._left: dict[int, tuple[str, str, str]] = {}
        self._consumed_chars: int | None = None
        self._consumed_prefix: list[int] | None = None

    def __len__(self) -> int:
        return len(self.refs)

    def prefix(self, chat: Chat, facts: ToolFacts) -> RowModel:
        """The rows of ``chat``, whose messages and consumed items are the first ones of this chat's (the chat
        as it stood at an earlier model call): the row numbers and previews are the same, so they are shared."""
        count, taken = len(chat.messages), len(chat.consumed)
        numbers = self.numbers
        end = numbers.row_of_message(count) if count < len(self.chat.messages) else len(self.refs)
        refs = self.refs[:end]
        if sum(1 for ref in refs if ref < 0 and -ref - 1 < taken) != taken or len(refs) != count + taken:
            return RowModel(chat, facts)  # not a prefix after all: number them again
        new = RowModel.__new__(RowModel)
        new.chat, new.facts = chat, facts
        new.numbers = RowNumbers(refs, numbers.consumed_order[:taken], numbers.befores[:taken])
        new.refs = refs
        new._left = self._left  # same row, same message, same preview
        if self._consumed_prefix is None:
            self._consumed_prefix = [
                0,
                *accumulate(chars_of(c.message.fields.get("content")) for c in self.chat.consumed),
            ]
        new._consumed_chars = self._consumed_prefix[taken]
        new._consumed_prefix = None
        return new

    # -- what a row is ----------------------------------------------------------------
    def message_index(self, row: int) -> int | None:
        ref = self.refs[row]
        return ref if ref >= 0 else None

    def consumed_item(self, row: int) -> Consumed | None:
        ref = self.refs[row]
        return self.chat.consumed[-ref - 1] if ref < 0 else None

    def message(self, row: int) -> Message:
        ref = self.refs[row]
        return self.chat.messages[ref] if ref >= 0 else self.chat.consumed[-ref - 1].message

    def tier(self, row: int, prompt: Prompt) -> d.Tier:
        ref = self.refs[row]
        return prompt.tier_of(ref) if ref >= 0 else d.CONSUMED

    def role(self, row: int) -> str:
        role = self.message(row).fields.get("role")
        return role if isinstance(role, str) else "(no role)"

    def role_label(self, row: int) -> str:
        role = self.role(row)
        return ROLE_LABELS.get(role, role)

    def tool(self, row: int) -> tuple[object, object]:
        """Tool name and id of the original message."""
        ref = self.refs[row]
        return self.facts.identity(ref) if ref >= 0 else (None, None)

    def original_content(self, row: int) -> Any:
        return self.message(row).fields.get("content")

    # -- previews ----------------------------------------------------------------------
    def left(self, row: int) -> tuple[str, str, str]:
        """(role label, tool name, one-line preview) of the original, all safe to display."""
        cached = self._left.get(row)
        if cached is not None:
            return cached
        ref = self.refs[row]
        content = self.original_content(row)
        text = None
        if ref >= 0:
            p = self.facts.position.get(ref)
            if p is not None:
                text = _preview_of_parsed(self.facts.parsed[p], self.facts.kinds[p])
        if text is None:
            text = content_text(content)[:PREVIEW_LIMIT] if content is not None else "(no content)"
        name, _ = self.tool(row)
        value = (
            one_line(self.role_label(row), 40),
            one_line(str(name), 60) if name is not None else "",
            one_line(text, PREVIEW_LIMIT),
        )
        if len(self._left) > 50_000:
            self._left.clear()  # bounded: only what was looked at recently matters
        self._left[row] = value
        return value

    def right(self, row: int, prompt: Prompt) -> tuple[d.Tier, str]:
        """(tier, preview of what the model sees) for a row under ``prompt``."""
        ref = self.refs[row]
        if ref < 0:
            item = self.chat.consumed[-ref - 1]
            return d.CONSUMED, one_line(f"consumed ({item.step}): {item.reason}", PREVIEW_LIMIT)
        tier = prompt.tier_of(ref)
        if tier == d.FULL:
            return tier, self.left(row)[2]
        if tier == d.TRUNCATED:
            visible = prompt.visible_content(ref)
            return tier, one_line(self._visible_preview(ref, visible), PREVIEW_LIMIT)
        if tier == d.DROPPED:
            return tier, "dropped"
        if tier == d.CLEARED:  # another framework's placeholder: what the model sees instead of the text
            visible = prompt.visible_content(ref)
            return tier, one_line("cleared: " + self._visible_preview(ref, visible), PREVIEW_LIMIT)
        if tier == d.ERROR:
            error = prompt.error
            return tier, one_line(f"scout-ai raises {error.exception}" if error else "error", PREVIEW_LIMIT)
        if prompt.error is not None and prompt.error.raiser != "scout-ai":
            return tier, one_line(f"not sent: {prompt.error.raiser} raises {prompt.error.exception}", PREVIEW_LIMIT)
        raised_at = f"message {prompt.error.index}" if prompt.error is not None else "another message"
        if prompt.decision(ref).reason == d.Reason.DISCARDED:
            return tier, f"not sent: decided before scout-ai raised on {raised_at}"
        return tier, f"not reached: scout-ai raised on {raised_at} first"

    def _visible_preview(self, index: int, visible: Any) -> str:
        if isinstance(visible, str):
            p = self.facts.position.get(index)
            kind = self.facts.kinds[p] if p is not None else None
            try:
                text = _preview_of_parsed(parse(visible), kind)
            except RubyJSONError:
                text = None
            if text is not None:
                return text
        return content_text(visible)[:PREVIEW_LIMIT]

    # -- totals ------------------------------------------------------------------------
    def consumed_chars(self) -> int:
        if self._consumed_chars is None:
            self._consumed_chars = sum(chars_of(c.message.fields.get("content")) for c in self.chat.consumed)
        return self._consumed_chars

    def tool_names(self) -> list[str]:
        """Distinct tool names in file order (for the tool filter)."""
        seen: dict[str, None] = {}
        for row in range(len(self.refs)):
            name = self.tool(row)[0]
            if isinstance(name, str):
                seen.setdefault(name, None)
        return list(seen)

    def finding_rows(self, findings: Sequence[Finding]) -> list[list[int]]:
        """The rows each loader finding is about (its line's message, or its indices), in row order; the
        detail pane repeats a finding under the same rule."""
        by_line: dict[int, int] = {}
        if any(f.line is not None for f in findings):
            for row in range(len(self.refs)):
                line = self.message(row).line
                if line is not None:
                    by_line.setdefault(line, row)
        numbers, count = self.numbers, len(self.chat.messages)
        out = []
        for f in findings:
            found = {numbers.row_of_message(i) for i in f.indices if 0 <= i < count}
            if f.line is not None and f.line in by_line:
                found.add(by_line[f.line])
            out.append(sorted(found))
        return out

    def roles(self) -> list[str]:
        """Distinct roles in file order (for the role filter)."""
        seen: dict[str, None] = {}
        for row in range(len(self.refs)):
            seen.setdefault(self.role(row), None)
        return list(seen)


# each history's whole-chat rows, built when first asked for (a history read again is a new key)
_WHOLE_ROWS: WeakKeyDictionary[ChatHistory, RowModel] = WeakKeyDictionary()


def rows_at(history: ChatHistory, number: int | None, inspection: Inspection) -> RowModel:
    """The RowModel of the chat at call ``number`` of ``history`` (None: the whole chat), shared with the
    whole chat's rows when the cut chat is its prefix."""
    whole = _WHOLE_ROWS.get(history)
    if whole is None:
        whole = _WHOLE_ROWS[history] = RowModel(history.whole.chat, _facts(history.whole))
    if number is None or inspection is history.whole:
        return whole
    if number in history.prefix_counts:
        return whole.prefix(inspection.chat, _facts(inspection))
    return RowModel(inspection.chat, _facts(inspection))


def _facts(inspection: Inspection) -> ToolFacts:
    facts = inspection.facts
    return facts if facts is not None else ToolFacts(inspection.chat.messages)


def summary_totals(rows: RowModel, prompt: Prompt) -> Totals:
    """The figures the header shows, counted per row (consumed messages included)."""
    return prompt.totals().with_consumed(len(rows.chat.consumed), rows.consumed_chars())


CUT = "cut"  # a filter meaning "truncated or dropped"


def row_matches_tier(rows: RowModel, prompt: Prompt, row: int, tier: str) -> bool:
    actual = rows.tier(row, prompt)
    return actual in (d.TRUNCATED, d.DROPPED) if tier == CUT else actual == tier


class RowOrder(StrEnum):
    """The list's order: the file's, or the biggest first (where the budget goes)."""

    FILE = "file"
    ORIGINAL = "original"  # characters of the original content, most first
    SENT = "sent"  # characters the model is sent, most first

    @property
    def label(self) -> str:
        return ORDER_LABELS[self]

    def following(self) -> RowOrder:
        """The next order ``S`` switches to."""
        orders = list(RowOrder)
        return orders[(orders.index(self) + 1) % len(orders)]


ORDER_LABELS = {
    RowOrder.FILE: "file order",
    RowOrder.ORIGINAL: "original size, largest first",
    RowOrder.SENT: "sent size, largest first",
}


def row_sizes(rows: RowModel, prompt: Prompt) -> tuple[list[int], list[int]]:
    """Each row's characters, original and sent, as the detail pane counts them (the decision's); a consumed
    row is sent nothing, and nothing is sent where the plan raises."""
    columns = prompt.decision_columns()
    original, visible = columns.original, columns.visible
    raised = prompt.error is not None
    before: list[int] = []
    after: list[int] = []
    for ref in rows.refs:
        if ref >= 0:
            before.append(original[ref])
            after.append(0 if raised else visible[ref])
        else:
            before.append(chars_of(rows.chat.consumed[-ref - 1].message.fields.get("content")))
            after.append(0)
    return before, after


def filter_rows(
    rows: RowModel,
    prompt: Prompt,
    tier: str | None,
    role: str | None,
    tool: str | None = None,
    min_chars: int | None = None,
    order: RowOrder = RowOrder.FILE,
) -> list[int] | None:
    """Rows shown under a tier, role, tool-name and size filter (``min_chars``: at least this many original
    characters), in ``order`` (a tie keeps the file's); None when every row is shown in the file's order."""
    if tier is None and role is None and tool is None and min_chars is None and order is RowOrder.FILE:
        return None
    sizes = row_sizes(rows, prompt) if min_chars is not None or order is not RowOrder.FILE else None
    shown = [
        row
        for row in range(len(rows))
        if (role is None or rows.role(row) == role)
        and (tool is None or rows.tool(row)[0] == tool)
        and (min_chars is None or (sizes is not None and sizes[0][row] >= min_chars))
        and (tier is None or row_matches_tier(rows, prompt, row, tier))
    ]
    if sizes is not None and order is not RowOrder.FILE:
        key = sizes[0] if order is RowOrder.ORIGINAL else sizes[1]
        shown.sort(key=lambda row: -key[row])
    return shown
