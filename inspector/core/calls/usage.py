"""Tokens at each model call: the prompt rebuilt and counted, the usage the API recorded, and whether they agree.

* ``parse_meta``/``usage_of``: a scout meta record (``meta: pt=1250 ct=40 tt=1290 timestamp=...``) is
  ``key=value`` pairs in any order, a value holding ``=`` or spaces double-quoted with ``\\\\`` and ``\\"``
  escaped. Per-request keys: ``pt ct tt`` and, where the backend reports them, ``cct cwt rt`` (cached,
  cache-write, reasoning); ``*_s`` and ``*_c`` (session and chat totals) are not a call's. A record without a
  per-request key (``job=...`` alone) is no usage; a malformed record, or one with usage but no integer
  ``pt``, is no usage and a finding.
* ``CallTokens``: per call, the tokens of the prompt's messages' contents (the text ``chars`` counts), by
  the setup's tokenizer; every message is counted once (cached by text). Where the calls table reads a
  call's numbers off the whole chat's tool facts (``ChatHistory.call_counts``' fast path), so do the
  tokens: the same walk as ``shorten_tools.prefix_counts``, summing tokens instead of characters.
* ``trust_check``: the fixed overhead (tool definitions, instructions) and per-message framing estimated
  from the calls with recorded usage (a robust line: recorded - rebuilt = overhead + k x messages), and each
  call the line does not explain (the chat on disk is likely not what was sent).
"""

from __future__ import annotations

import re
import statistics
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from inspector.core.scout.tool_facts import FAIL, NOTHING_TO_SHORTEN, OUTPUT
from inspector.core.tokens import estimate_chars

if TYPE_CHECKING:
    from inspector.core.analysis.audit import AuditFinding
    from inspector.core.calls.history import ChatHistory
    from inspector.core.scout.tool_facts import ToolFacts
    from inspector.core.tokens import Tokenizer

USAGE_KEYS = ("pt", "ct", "tt", "cct", "cwt", "rt")  # per request
USAGE_NAMES = {
    "pt": "prompt",
    "ct": "completion",
    "tt": "total",
    "cct": "cached",
    "cwt": "cache_write",
    "rt": "reasoning",
}
_PAIR = re.compile(r'\s*([^\s=]+)=("(?:[^"\\]|\\.)*"|[^\s"]*)(?=\s|$)')
_UNESCAPE = re.compile(r"\\(.)")


def parse_meta(text: str) -> dict[str, str] | None:
    """The pairs of a meta record (None: not ``key=value`` pairs as scout-ai writes them)."""
    pairs: dict[str, str] = {}
    at, end = 0, len(text.rstrip())
    while at < end:
        found = _PAIR.match(text, at)
        if found is None:
            return None
        key, value = found.group(1), found.group(2)
        if value.startswith('"'):
            value = _UNESCAPE.sub(r"\1", value[1:-1])
        pairs[key] = value
        at = found.end()
    return pairs


@dataclass(frozen=True, slots=True)
class Usage:
    """What the API reported for one request (per-request keys only; None: not reported)."""

    values: dict[str, int]

    @property
    def prompt(self) -> int | None:
        return self.values.get("pt")

    @property
    def completion(self) -> int | None:
        return self.values.get("ct")

    def as_dict(self) -> dict[str, int | None]:
        """``reported_prompt_tokens`` and ``reported_completion_tokens`` always; the others when present."""
        out: dict[str, int | None] = {
            "reported_prompt_tokens": self.prompt,
            "reported_completion_tokens": self.completion,
        }
        for key in USAGE_KEYS[2:]:
            if key in self.values:
                out[f"reported_{USAGE_NAMES[key]}_tokens"] = self.values[key]
        return out


NO_USAGE = Usage({})


def usage_of(content: object) -> tuple[Usage, str | None]:
    """The usage a meta record's content reports, and what is wrong with it (None: nothing)."""
    if not isinstance(content, str):
        return NO_USAGE, "meta record is not text"
    pairs = parse_meta(content)
    if pairs is None:
        return NO_USAGE, f"malformed meta record {_short(content)}: not key=value pairs"
    present = [k for k in USAGE_KEYS if k in pairs]
    if not present:
        return NO_USAGE, None  # e.g. job=... alone: no usage
    values: dict[str, int] = {}
    for key in present:
        number = _int(pairs[key])
        if number is not None:
            values[key] = number
    if "pt" not in values:
        what = "no pt" if "pt" not in pairs else f"pt={_short(pairs['pt'])} is not a number of tokens"
        return Usage({k: v for k, v in values.items() if k != "pt"}), f"meta record {_short(content)}: {what}"
    return Usage(values), None


def _int(text: str) -> int | None:
    return int(text) if text.isascii() and text.isdigit() else None


def _short(text: str, size: int = 60) -> str:
    return repr(text if len(text) <= size else text[:size] + "...")


def call_usage(history: ChatHistory, number: int) -> tuple[Usage | None, str | None]:
    """The usage recorded before call ``number``'s response (None: no meta record there), and a problem."""
    call = history.call(number)
    if call.start == 0:
        return None, None
    before = history.source[call.start - 1]
    if before.fields.get("role") != "meta":
        return None, None
    return usage_of(before.fields.get("content"))


# -- tokens at each call ------------------------------------------------------------------------------
class CallTokens:
    """The tokens of the prompt at each call of a history, by one tokenizer (sums kept for every call)."""

    def __init__(self, history: ChatHistory, tokenizer: Tokenizer):
        self.history, self.tokenizer = history, tokenizer
        self._sums: _Sums | None = None

    def at(self, number: int) -> int:
        """Tokens of the prompt's message contents at call ``number`` (0 when scout-ai raises, as chars). The
        estimate is the characters sent / 4, rounded up once, as the header has always shown it."""
        history = self.history
        if self.tokenizer.name == "estimate":
            return estimate_chars(history.call_counts(number).chars_after)
        count = history.prefix_count(number) if history.counts_fast else None
        if count is not None:
            return self._fast(count)
        prompt = history.at(number).prompt()
        if prompt.error is not None:
            return 0
        counter = self.tokenizer.count_content
        return sum(counter(m.fields.get("content")) for m in prompt.messages())

    def _fast(self, count: int) -> int:
        """``shorten_tools.prefix_counts``' walk (not its closed form) over the whole chat's facts, in tokens."""
        whole = self.history.whole
        facts = whole.facts
        sums = self._sums
        if sums is None:
            sums = self._sums = _Sums(facts, self.tokenizer)
        full_calls, full_outputs, max_calls, max_outputs, budget = whole.thresholds.as_tuple()
        kinds, raw, outs, prefix = facts.kinds, facts.raw, facts.outs, facts.prefix
        size = len(kinds)
        o = facts.newer_than(count)
        base_out = outs[o - 1] if o else 0
        base_chars = prefix[o]
        stop = min((p for p in facts.failures if p >= o), default=size) if facts.failures else size
        start = min(bisect_left(prefix, budget + base_chars, o, stop + 1), stop)
        chars = prefix[start] - base_chars
        tokens = sums.positions[start] - sums.positions[o]
        limit = max(max_calls, max_outputs, full_calls - 1, full_outputs - 1)
        drop_from = min(max(bisect_right(outs, limit + base_out, o), start), stop)
        p = start
        while p < size:
            if p == drop_from and p < stop:
                p = stop
                continue
            kind = kinds[p]
            if kind == FAIL:
                return 0
            counted = outs[p] - base_out
            full_limit, max_limit = (full_outputs, max_outputs) if kind == OUTPUT else (full_calls, max_calls)
            if counted < full_limit or chars < budget:
                chars += raw[p]
                tokens += sums.tool[p]
            elif counted <= max_limit:
                length = facts.shortened(p)
                if length == NOTHING_TO_SHORTEN:
                    if p in facts.band_errors:
                        return 0
                    tokens += sums.tool[p]
                else:
                    chars += length
                    tokens += self.tokenizer.count(facts.shortened_text(p) or "")
            p += 1
        return sums.messages[count] - sums.tools_from[o] + tokens


class _Sums:
    """Running token sums over a chat's messages and over its tool positions (newest first)."""

    def __init__(self, facts: ToolFacts, tokenizer: Tokenizer):
        counter = tokenizer.count_content
        per_message = [counter(m.fields.get("content")) for m in facts.messages]
        self.messages = [0] * (len(per_message) + 1)
        for k, n in enumerate(per_message):
            self.messages[k + 1] = self.messages[k] + n
        size = len(facts.order)
        self.tool = [per_message[facts.order[p]] for p in range(size)]
        self.positions = [0] * (size + 1)
        for p in range(size):
            self.positions[p + 1] = self.positions[p] + self.tool[p]
        self.tools_from = [0] * (size + 1)
        for p in range(size - 1, -1, -1):
            self.tools_from[p] = self.tools_from[p + 1] + (self.tool[p] if facts.kinds[p] != FAIL else 0)


# -- the trust check ----------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Unexplained:
    call: int
    recorded: int
    rebuilt: int
    overhead: int  # what the fit explains at this call: fixed overhead + framing of its messages
    line: int | None = None

    @property
    def unexplained(self) -> int:
        return self.recorded - self.rebuilt - self.overhead

    def message(self) -> str:
        sign = "+" if self.overhead >= 0 else "-"
        return (
            f"call {self.call}: recorded {self.recorded:,}, rebuilt {self.rebuilt:,} {sign} {abs(self.overhead):,} "
            f"overhead: {self.unexplained:,} tokens unexplained"
        )


@dataclass(frozen=True, slots=True)
class TrustCheck:
    """The overhead the recorded usage shows beyond the rebuilt prompts, and the calls it does not explain."""

    calls: int  # calls with a recorded prompt size
    overhead: int | None  # fixed tokens per request (None: fewer than 2 calls with usage)
    per_message: float  # framing tokens per message sent
    tolerance: int
    unexplained: list[Unexplained] = field(default_factory=list)

    def explained(self, messages: int) -> int:
        return round((self.overhead or 0) + self.per_message * messages)


MIN_TOLERANCE = 64  # tokens: what counting may differ by without meaning anything (a tool list's order...)
RELATIVE_TOLERANCE = 0.02  # of the recorded size


def trust_check(points: list[tuple[int, int | None, int, int, int | None]]) -> TrustCheck:
    """``points``: per call (number, recorded prompt tokens or None, rebuilt tokens, messages sent, line).

    The line recorded - rebuilt = overhead + k x messages is fitted robustly: k is the median slope between
    calls half the list apart (clamped to 0-8 tokens a message), the overhead the median of what is left.
    A call is unexplained when its recorded size is further from the line than the larger of 64 tokens, 2% of
    the recorded size and three robust deviations of the calls' distances from it."""
    known = [(n, r, b, m, line) for n, r, b, m, line in points if r is not None and b > 0]
    if len(known) < 2:
        return TrustCheck(len(known), None, 0.0, MIN_TOLERANCE)
    diffs = [r - b for _, r, b, _, _ in known]
    half = len(known) // 2
    slopes = [
        (diffs[i + half] - diffs[i]) / (known[i + half][3] - known[i][3])
        for i in range(len(known) - half)
        if known[i + half][3] != known[i][3]
    ]
    k = min(8.0, max(0.0, statistics.median(slopes))) if slopes else 0.0
    overhead = round(statistics.median(d - k * m for d, (_, _, _, m, _) in zip(diffs, known)))
    residuals = [d - overhead - k * m for d, (_, _, _, m, _) in zip(diffs, known)]
    spread = statistics.median(abs(x) for x in residuals) * 1.4826
    tolerance = max(MIN_TOLERANCE, round(3 * spread))
    out = []
    for (n, r, b, m, line), x in zip(known, residuals):
        if abs(x) > max(tolerance, RELATIVE_TOLERANCE * r):
            out.append(Unexplained(n, r, b, round(overhead + k * m), line))
    return TrustCheck(len(known), overhead, k, tolerance, out)


# -- the audit's findings -----------------------------------------------------------------------------
def usage_findings(
    history: ChatHistory, tokenizer: Tokenizer | None = None, context_window: int | None = None
) -> list[AuditFinding]:
    """The audit's findings of the calls: recorded usage the rebuilt prompt does not explain (``trust_check``)
    and, with ``context_window``, prompts larger than it. Each names the call's response (explain's ``#``)."""
    from inspector.core.analysis.audit import OVER_WINDOW, UNEXPLAINED_USAGE, AuditFinding
    from inspector.core.numbering import RowNumbers

    counter = CallTokens(history, tokenizer if tokenizer is not None else history.setup.token_counter())
    numbers = RowNumbers.of(history.whole.chat)
    points: list[tuple[int, int | None, int, int, int | None]] = []
    for call in history.calls:
        found = history.call_counts(call.number)
        usage, _ = call_usage(history, call.number)
        rebuilt = counter.at(call.number) if found.error is None else 0
        points.append((call.number, usage.prompt if usage is not None else None, rebuilt, found.visible, call.line))

    def finding(kind: str, number: int, text: str) -> AuditFinding:
        index = history.response_index(number)
        row = numbers.row_of_message(index) if index is not None else None
        return AuditFinding(
            kind,
            text,
            (row,) if row is not None else (),
            (index,) if index is not None else (),
            history.call(number).line,
        )

    out = [finding(UNEXPLAINED_USAGE, u.call, u.message()) for u in trust_check(points).unexplained]
    if context_window is not None:
        for number, recorded, rebuilt, _, _ in points:
            size = max(rebuilt, recorded or 0)
            if size > context_window:
                what = "recorded" if (recorded or 0) >= rebuilt else "rebuilt"
                out.append(
                    finding(
                        OVER_WINDOW,
                        number,
                        f"call {number}: prompt of {size:,} tokens ({what}) over the {context_window:,}-token window",
                    )
                )
    return out
