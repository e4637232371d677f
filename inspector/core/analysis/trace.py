"""Trace a text: every occurrence in the original messages, and whether the model still sees it.

This answers the question users arrive with ("why did the model forget X?"): each
occurrence with its message, its tier, whether this very occurrence survives in the
visible text, and the rule that hid it. Tool messages are searched twice, in the
decoded strings (what the tool returned; this is where a pasted fact is found even
when the stored JSON escapes it) and in the raw JSON text (names, ids, escaped forms),
and a hit found both ways is reported once.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import islice
from typing import Any

from inspector.core.analysis.jsonspans import StringSpan, decoded_fields, shortenable_spans
from inspector.core.analysis.visibility import Spot, kept_ranges, survives
from inspector.core.errors import UsageError
from inspector.core.inspection import Inspection
from inspector.core.model import Chat, Finding
from inspector.core.numbering import RowNumbers
from inspector.core.policies import decision as d
from inspector.core.policies.decision import ToolKind
from inspector.core.scout.decision_text import describe, describe_consumed
from inspector.core.scout.prepare import Prompt
from inspector.core.scout.roles import tool_kind
from inspector.core.scout.tool_facts import KIND_OF_CODE
from inspector.core.yielding import pause_if_due

CONTEXT = 40  # characters shown either side of a hit


@dataclass(frozen=True, slots=True)
class Occurrence:
    row: int  # the `#` of `explain` (consumed messages count where they stood)
    message: int | None  # index into the prompt's messages; None for a consumed message
    consumed: int | None  # index into Chat.consumed, for a consumed message
    role: object
    name: object
    id: object
    line: int | None
    spot: Spot
    raw_start: int | None  # offsets of the hit in the raw stored content, when known
    raw_end: int | None
    tier: d.Tier
    reason: str  # a Reason, or the pre-processing step for a consumed message
    visible: bool
    why: str  # the rule, in words, with the numbers compared
    context: str  # the hit with a little text either side
    trap: str | None = None  # a loader finding: this message's text took in lines a parser trap swallowed

    @property
    def field(self) -> str:
        return self.spot.field

    def as_dict(self) -> dict[str, Any]:
        return {
            "index": self.row,
            "message": self.message,
            "role": self.role,
            "name": self.name,
            "id": self.id,
            "line": self.line,
            "field": self.spot.field,
            "start": self.spot.start,
            "end": self.spot.end,
            "raw_start": self.raw_start,
            "raw_end": self.raw_end,
            "text": self.spot.text,
            "tier": self.tier,
            "reason": self.reason,
            "visible": self.visible,
            "why": self.why,
            "context": self.context,
            "trap": self.trap,
        }


@dataclass(slots=True)
class Trace:
    pattern: str
    regex: bool
    ignore_case: bool
    occurrences: list[Occurrence] = field(default_factory=list)
    error: str | None = None  # scout-ai raises: nothing is sent at all
    more: dict[int, int] = field(default_factory=dict)  # row -> occurrences found there beyond those listed
    other_case: bool = False  # found nowhere as typed, but found when the case is ignored
    as_regex: bool = False  # found nowhere as typed, but found when read as a regular expression
    as_regex_any_case: bool = False  # ... only when read as one with the case ignored

    @property
    def hidden(self) -> list[Occurrence]:
        return [o for o in self.occurrences if not o.visible]

    def verdict(self) -> str:
        """One sentence a person can act on."""
        shown = repr(self.pattern)
        found = self.occurrences
        if not found:
            hint = " It does occur when the case is ignored (--ignore-case; i in why)." if self.other_case else ""
            if self.as_regex:
                hint += " It does occur read as a regular expression (--regex; x in why)."
            elif self.as_regex_any_case:
                hint += (
                    " It does occur read as a regular expression with the case ignored "
                    "(--regex --ignore-case; x and i in why)."
                )
            return (
                f"{shown} never occurs in the chat (not in any message, nor in anything consumed before the "
                f"strategies).{hint}"
            )
        live = [o for o in found if o.message is not None]
        gone = [o for o in found if o.message is None]
        seen = sum(1 for o in found if o.visible)
        if not live:
            steps = sorted({o.reason for o in gone})
            return (
                f"{shown} occurs only in {len(gone)} place(s) consumed before the strategies ran "
                f"({', '.join(steps)}): no threshold can bring it back."
            )
        messages = len({o.row for o in found})
        extra = sum(self.more.values())
        where = f"{len(found) + extra:,} occurrence(s) in {messages} message(s)"
        if extra:
            where += f" ({len(found):,} listed: at most {PER_MESSAGE} per message)"
        if self.error:
            return f"{shown}: {where}; scout-ai raises, so nothing is sent ({self.error})."
        if seen == len(found):
            return f"{shown}: {where}; the model sees every one."
        if seen:
            return f"{shown}: {where}; the model sees {seen} of them, so it still has the text."
        return f"{shown}: {where}; the model sees none of them."


def _traps(chat: Any) -> list[Finding]:
    """The loader findings that say a parser trap (`[[`, a tag, a fence...) swallowed header-like lines."""
    return sorted((f for f in chat.findings if f.swallowed and f.line is not None), key=lambda f: f.line)


def _trap_of(traps: list[Finding], chat: Any, index: int) -> str | None:
    """The trap whose opening line lies in message ``index`` (its text ran on over lines meant as messages)."""
    if not traps:
        return None
    start = chat.line_of(index)
    if start is None:
        return None
    end = chat.line_of(index + 1) if index + 1 < len(chat.messages) else None
    for f in traps:
        assert f.line is not None
        if f.line >= start and (end is None or f.line < end):
            return f.message
    return None


def compile_pattern(text: str, regex: bool = False, ignore_case: bool = False) -> re.Pattern[str]:
    if not text:
        raise UsageError("the text to trace is empty")
    flags = re.IGNORECASE if ignore_case else 0
    try:
        return re.compile(text if regex else re.escape(text), flags)
    except re.error as exc:
        raise UsageError(f"bad --regex {text!r}: {exc}") from None


PER_MESSAGE = 200  # occurrences kept per message: a text found a million times in one output is counted, not listed


def _hits(pattern: re.Pattern[str], text: str, limit: int = PER_MESSAGE) -> list[tuple[int, int]]:
    found = ((m.start(), m.end()) for m in pattern.finditer(text) if m.end() > m.start())
    return list(islice(found, limit))


def count_hits(pattern: re.Pattern[str], text: str, literal: str | None) -> int:
    """Every hit in ``text`` (as ``_hits`` finds them, without the limit), counted without keeping them."""
    if literal is not None:
        return text.count(literal)  # the same non-overlapping hits, counted in C
    return sum(1 for m in pattern.finditer(text) if m.end() > m.start())


def _context(text: str, start: int, end: int) -> str:
    left = max(0, start - CONTEXT)
    right = min(len(text), end + CONTEXT)
    return ("…" if left else "") + text[left:right] + ("…" if right < len(text) else "")


def spots_in(
    pattern: re.Pattern[str], content: Any, parsed: Any, kind: str
) -> list[tuple[Spot, int | None, int | None, str]]:
    """(spot, raw start, raw end, context) for each hit in one message's content."""
    if not isinstance(content, str):
        return []
    raw_hits = _hits(pattern, content)
    if kind not in ("call", "output") or not isinstance(parsed, dict):
        return [(Spot("message", a, b, content[a:b]), a, b, _context(content, a, b)) for a, b in raw_hits]
    spans = shortenable_spans(content, kind, parsed)
    out = []
    claimed: list[tuple[int, int]] = []  # raw ranges already reported through a decoded hit
    fields = [(s.field, s.value) for s in spans] if spans is not None else decoded_fields(parsed, kind)
    by_field: dict[str, StringSpan] = {s.field: s for s in spans or []}
    for name, value in fields:
        span = by_field.get(name)
        for a, b in _hits(pattern, value):
            ra: int | None = None
            rb: int | None = None
            if span:
                ra, rb = span.raw_range(a, b)
                claimed.append((ra, rb))
            out.append((Spot(name, a, b, value[a:b]), ra, rb, _context(value, a, b)))
    for ra, rb in raw_hits:
        if spans is None and out:
            continue  # no positions: a raw hit cannot be told apart from the decoded ones already found
        if any(ca < rb and ra < cb for ca, cb in claimed):
            continue  # the same characters, already reported in decoded form
        inside = next((s for s in spans or [] if s.start < ra and rb < s.end), None)
        if inside is not None:
            # an escaped form typed as stored (e.g. `\n` or `\"`): test the decoded characters it covers
            a, b = inside.decoded_range(ra, rb)
            spot = Spot(inside.field, a, b, inside.value[a:b])
        else:
            spot = Spot("message", ra, rb, content[ra:rb])
        out.append((spot, ra, rb, _context(content, ra, rb)))
    out.sort(key=lambda item: item[1] if item[1] is not None else item[0].start)
    return out


class TraceStopped(Exception):
    """``trace`` was asked to stop (``cancelled()`` said so) after ``scanned`` of ``total`` messages."""

    def __init__(self, scanned: int, total: int) -> None:
        super().__init__(f"stopped after {scanned:,} of {total:,} messages")
        self.scanned, self.total = scanned, total


def trace(
    inspection: Inspection,
    text: str,
    *,
    regex: bool = False,
    ignore_case: bool = False,
    prompt: Prompt | None = None,
    progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> Trace:
    """Every occurrence of ``text`` in the chat as loaded, under the thresholds in force. ``progress``:
    told (messages scanned, total) now and then; ``cancelled``: asked as often, raises TraceStopped."""
    pattern = compile_pattern(text, regex, ignore_case)
    literal = text if not regex and not ignore_case else None
    prompt = prompt or inspection.prompt()
    chat, facts = inspection.chat, inspection.facts
    result = Trace(text, regex, ignore_case, error=prompt.error.describe() if prompt.error else None)
    values = inspection.thresholds
    numbers = RowNumbers.of(chat)
    escapes = None if regex else _escapes_for(text, ignore_case)
    traps = _traps(chat)
    total = len(chat.messages)
    for index, message in enumerate(chat.messages):
        if not index & 255:
            pause_if_due()  # in the app's worker: let keys through
            if cancelled is not None and cancelled():
                raise TraceStopped(index, total)
            if progress is not None:
                progress(index, total)
        content = message.fields.get("content")
        if not isinstance(content, str):
            continue
        if not pattern.search(content):
            if escapes is not None and escapes.search(content) is None:
                continue  # no escape that could hide it: not found decoded either, without a parse
            if not _decoded_may_hit(pattern, facts, index):
                continue
        p = facts.position.get(index)
        parsed = facts.parsed[p] if p is not None else None
        kind = tool_kind(message.fields.get("role"))
        hits = spots_in(pattern, content, parsed, kind)
        if not hits:
            continue
        if len(hits) >= PER_MESSAGE:  # counted, not listed: one large output can hold millions
            hits = hits[:PER_MESSAGE]
            total_hits = count_hits(pattern, content, literal)
            if total_hits > len(hits):
                result.more[numbers.row_of_message(index)] = total_hits - len(hits)
        name, ident = facts.identity(index)
        dec = prompt.decision(index)
        visible_content = prompt.visible_content(index) if prompt.error is None else None
        for spot, ra, rb, context in hits:
            visible = prompt.error is None and survives(spot, content, visible_content)
            why = _why(dec, values, prompt, spot, content, visible_content, visible)
            result.occurrences.append(
                Occurrence(
                    numbers.row_of_message(index),
                    index,
                    None,
                    message.fields.get("role"),
                    name,
                    ident,
                    chat.line_of(index),
                    spot,
                    ra,
                    rb,
                    dec.tier,
                    dec.reason,
                    visible,
                    why,
                    context,
                    _trap_of(traps, chat, index),
                )
            )
    for rank, k in enumerate(numbers.consumed_order):
        item = chat.consumed[k]
        content = item.message.fields.get("content")
        row = numbers.row_of_consumed(rank)
        for spot, ra, rb, context in spots_in(pattern, content, None, ""):
            result.occurrences.append(
                Occurrence(
                    row,
                    None,
                    k,
                    item.message.fields.get("role"),
                    None,
                    None,
                    item.message.line,
                    spot,
                    ra,
                    rb,
                    d.CONSUMED,
                    item.step,
                    False,
                    describe_consumed(item.step, item.reason),
                    context,
                )
            )
    result.occurrences.sort(key=lambda o: (o.row, o.raw_start if o.raw_start is not None else o.spot.start))
    if not result.occurrences:
        if not ignore_case:
            result.other_case = _occurs(chat, text, regex, True)
        if not regex and REGEX_SIGNS.search(text):
            result.as_regex = _occurs(chat, text, True, ignore_case)
            if not (result.as_regex or result.other_case or ignore_case):
                result.as_regex_any_case = _occurs(chat, text, True, True)
    return result


REGEX_SIGNS = re.compile(r"[.*+?^$|()\[\]{}\\]")  # text that reads differently as a regular expression


def _occurs(chat: Chat, text: str, regex: bool, ignore_case: bool) -> bool:
    """Whether the text occurs read so (asked only when it occurs nowhere as typed)."""
    try:
        pattern = compile_pattern(text, regex, ignore_case)
    except UsageError:
        return False
    contents = [m.fields.get("content") for m in chat.messages] + [
        c.message.fields.get("content") for c in chat.consumed
    ]
    return any(isinstance(c, str) and pattern.search(c) is not None for c in contents)


_SIMPLE_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "/": "\\/",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
}


def _escapes_for(text: str, ignore_case: bool) -> re.Pattern[str]:
    """The JSON escapes through which plain ``text`` could be found decoded but not raw.

    A decoded string value holds the text only as written unless one of its characters was
    escaped: by ``\\u`` and that character's code (the high surrogate's, for a character
    written as a pair), or by a short escape of the character itself. When the raw JSON holds
    none of these, a raw miss is a decoded miss, and no parse is needed. Case-insensitively,
    re folds more than lower and upper case: then any ``\\u`` escape may hide the text.
    """
    chars = set(text.lower() + text.upper()) if ignore_case else set(text)
    after = [re.escape(escape[1]) for char, escape in _SIMPLE_ESCAPES.items() if char in chars]
    if ignore_case:
        after.append("u")
    else:
        codes = set()
        for char in chars:
            code = ord(char)
            if code > 0xFFFF:
                code = 0xD800 + ((code - 0x10000) >> 10)
            codes.add("".join(f"[{h}{h.upper()}]" if h.isalpha() else h for h in f"{code:04x}"))
        after.append("u(?:" + "|".join(sorted(codes)) + ")")
    return re.compile(r"\\(?:" + "|".join(after) + ")")


def _decoded_may_hit(pattern: re.Pattern[str], facts: Any, index: int) -> bool:
    """A raw miss can still be a decoded hit (an escaped quote, newline or \\u sequence)."""
    p = facts.position.get(index)
    if p is None:
        return False
    kind = KIND_OF_CODE.get(facts.kinds[p], ToolKind.NONE)
    return any(pattern.search(value) for _, value in decoded_fields(facts.parsed[p], kind))


def _why(
    dec: d.Decision, values: Any, prompt: Prompt, spot: Spot, content: Any, visible_content: Any, visible: bool
) -> str:
    if str(dec.reason).startswith("policy_"):  # another framework's policy: its rule, in its own terms
        return dec.detail or d.REASON_TEXT.get(dec.reason, str(dec.reason))
    rule = describe(dec, values)
    if dec.tier != d.TRUNCATED or not isinstance(visible_content, str):
        return rule
    if spot.field == "message":
        return rule + (
            "; this text is still in the re-serialised message"
            if visible
            else "; this text is not in the re-serialised message"
        )
    where = _cut_words(spot, content, visible_content)
    return f"{rule}; {where}"


def _cut_words(spot: Spot, content: str, visible_content: str) -> str:
    from inspector.core.analysis.jsonspans import field_value
    from inspector.core.ruby.json import RubyJSONError, parse

    try:
        original = field_value(parse(content), spot.field)
        shown = field_value(parse(visible_content), spot.field)
    except RubyJSONError:
        return "the cut could not be located"
    if not isinstance(original, str) or not isinstance(shown, str):
        return "the cut could not be located"
    if original == shown:
        return f"{spot.field} is not cut, so the occurrence is kept"
    kept = kept_ranges(original, shown)
    if kept is None:
        return "the field was rewritten"
    head, tail = kept
    total = len(original)
    place = f"the occurrence is at characters {spot.start:,}-{spot.end:,} of {total:,} in {spot.field}"
    if spot.end <= head:
        return f"{place}, inside the kept head (first {head:,})"
    if spot.start >= tail:
        return f"{place}, inside the kept tail (last {total - tail:,})"
    return f"the cut keeps only the first {head:,} and the last {total - tail:,} characters; {place}"
