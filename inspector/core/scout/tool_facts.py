"""Threshold-independent facts about a message list, computed once per chat.

A plan after a threshold change reads only these integers; the shortened text of
a tool message is computed the first time a plan puts it in the middle band.

Each tool message's JSON is checked once (as scout-ai parses it) but not kept: a
validating decoder reads only ``name`` and ``id`` and skips the rest without building
it, which is both faster than a full parse (3x on non-ASCII text) and leaves no second
copy of every tool output in memory. ``parsed[p]`` parses again on demand (a few
recent ones are cached), for the middle band, the detail pane and the analyses.
"""

from __future__ import annotations

import _thread
import sys
from bisect import bisect_left, bisect_right
from collections import OrderedDict
from collections.abc import Iterator
from itertools import accumulate, repeat
from json.encoder import encode_basestring
from operator import attrgetter
from typing import Any, NamedTuple

import msgspec

from inspector.core.errors import ScoutError
from inspector.core.model import Message, SpilledMessage
from inspector.core.policies.decision import ToolKind
from inspector.core.ruby import json as rubyjson
from inspector.core.ruby import json_bytes
from inspector.core.scout.roles import CALL_ROLE, OUTPUT_ROLE, tool_kind
from inspector.core.scout.shorten import DEFAULT_SHORT_STRING_LENGTH, LISTING, WARNING, Shortener
from inspector.core.yielding import pause_if_due

CALL, OUTPUT, FAIL = 0, 1, 2
_TOOL_ROLES = {CALL_ROLE: CALL, OUTPUT_ROLE: OUTPUT}
KIND_OF_CODE = {CALL: ToolKind.CALL, OUTPUT: ToolKind.OUTPUT}  # FAIL (not a JSON object): neither
NOTHING_TO_SHORTEN = -1


class BandSums(NamedTuple):
    """``ToolFacts.band_sums``: per kind (CALL, OUTPUT), running sums over tool positions (index p: those
    before p), and the positions whose shortening raises (sorted)."""

    raw: list[list[int]]
    tools: list[list[int]]  # tool messages
    short: list[list[int]]
    cuts: list[list[int]]
    extra: list[list[int]]
    raising: list[int]


def chars_of(content: Any) -> int:
    """Characters of a message's content as scout-ai counts them (0 when not a string)."""
    return len(content) if type(content) is str else 0


def total_chars(messages: list[Message]) -> int:
    """``chars_of`` summed over the messages (their contents read in C: a million messages)."""
    contents = map(dict.get, map(attrgetter("fields"), messages), repeat("content"))
    return sum(map(len, [c for c in contents if type(c) is str]))


def tool_identity(parsed: Any) -> tuple[object, object]:
    """Tool name and id of a parsed call/output, old shapes included."""
    if not isinstance(parsed, dict):
        return None, None
    name = parsed.get("name")
    function = parsed.get("function")
    if name is None and isinstance(function, dict):
        name = function.get("name")
    ident = parsed.get("id")
    if ident is None:
        ident = parsed.get("call_id")
    return name, ident


class _Texts:
    """The shortened texts of ``facts``, by position: a length ``band_length`` recorded in ``short`` without its
    text has the text written the first time it is read (``shortened``'s, as it would have written it)."""

    __slots__ = ("facts", "texts")

    def __init__(self, facts: ToolFacts, texts: dict[int, str] | None = None):
        self.facts, self.texts = facts, texts if texts is not None else {}

    def get(self, position: int, default: str | None = None) -> str | None:
        found = self.texts.get(position)
        if found is not None:
            return found
        short = self.facts.short[position]
        if short is None or short == NOTHING_TO_SHORTEN:
            return default
        text = self.texts[position] = self.facts._text(position)
        return text

    def __getitem__(self, position: int) -> str:
        found = self.get(position)
        if found is None:
            raise KeyError(position)
        return found

    def __setitem__(self, position: int, text: str) -> None:
        self.texts[position] = text

    def __contains__(self, position: int) -> bool:
        return self.get(position) is not None

    def items(self) -> Iterator[tuple[int, str]]:
        return iter(self.texts.items())  # those written so far (the rest: from the lengths, as read)


class _ShiftedTexts:
    """Prefix facts' shortened texts: their parent's, positions shifted (written through, never copied:
    a table over every call of a large chat cuts thousands of prefixes)."""

    __slots__ = ("offset", "texts")

    def __init__(self, texts: _Texts | _ShiftedTexts, offset: int):
        self.texts, self.offset = texts, offset

    def get(self, position: int, default: str | None = None) -> str | None:
        return self.texts.get(position + self.offset, default)

    def __getitem__(self, position: int) -> str:
        return self.texts[position + self.offset]

    def __setitem__(self, position: int, text: str) -> None:
        self.texts[position + self.offset] = text

    def __contains__(self, position: int) -> bool:
        return position + self.offset in self.texts

    def items(self) -> Iterator[tuple[int, str]]:
        offset = self.offset
        return ((p - offset, t) for p, t in self.texts.items() if p >= offset)


class ToolFacts:
    """Tool messages of one list, newest first, with their lengths and parsed JSON."""

    def __init__(self, messages: list[Message], shortener: Shortener = LISTING):
        self.messages = messages
        self.shortener = shortener  # the version's shorten_string: the cut text depends on it
        self.count = len(messages)
        order, kinds, raw, parsed, self.failures, self.maybe_raises, self.idents = _scan(
            messages, range(self.count - 1, -1, -1)
        )
        self.order = order
        self.kinds = kinds
        self.raw = raw
        self.parsed = _LazyParsed(self, parsed)
        # outputs counted at each position (an output counts itself; a call sees the outputs after it)
        outs, counted = [], 0
        for kind in kinds:
            if kind == OUTPUT:
                counted += 1
            outs.append(counted)
        self.outs = outs
        self.prefix = [0, *accumulate(raw)]  # tool chars before each position if all were kept
        self.first_failure = min(self.failures) if self.failures else len(order)
        self.short: list[int | None] = [None] * len(order)  # visible length when truncated, lazily
        self.short_text: _Texts | _ShiftedTexts = _Texts(self)
        self.band_errors: dict[int, ScoutError] = {}
        self._position: dict[int, int] | None = None
        self._parent: tuple[ToolFacts, int] | None = None  # prefix facts: the facts they were cut from, offset
        self._nontool_chars: int | None = None
        self._tool_chars: int | None = None
        self._columns: tuple[list[int], list[ToolKind], list[tuple[int, int]]] | None = None
        self.windows: dict[str, Any] = {}  # the epoch strategies' own facts (windows.WindowFacts), by name
        self._risky: list[int] | None = None
        self._raising: list[int] | None = None
        self._band: BandSums | None = None
        self._band_sent: list[list[int]] | None = None
        self._odd: frozenset[int] | None = None
        self._negated_order: list[int] | None = None
        self._char_sums: tuple[list[int], list[int]] | None = None

    @property
    def position(self) -> dict[int, int]:
        """Tool position of each tool message's index; built on first use (a table over every call of a
        large chat cuts thousands of prefix facts and asks few of them)."""
        if self._position is None:
            self._position = {index: p for p, index in enumerate(self.order)}
        return self._position

    def identity(self, index: int) -> tuple[object, object]:
        """Tool name and id of the message at ``index`` ((None, None) for a message that is no tool's)."""
        p = self.position.get(index)
        return self.idents[p] if p is not None else (None, None)

    def prefix_facts(self, messages: list[Message]) -> ToolFacts:
        """The facts of ``messages``, which must equal this list's first ``len(messages)`` messages.

        Order is newest first, so the older list's tool messages are a tail of this one's: the parsed
        JSON and lengths are shared, the counters are re-based (a chat as it stood at an earlier call).
        """
        count = len(messages)
        start = self.newer_than(count)
        new = ToolFacts.__new__(ToolFacts)
        new.messages = messages
        new.count = count
        new.order = self.order[start:]
        new.kinds = self.kinds[start:]
        new.raw = self.raw[start:]
        new.parsed = _LazyParsed(new, {p - start: v for p, v in self.parsed.failed.items() if p >= start})
        new.failures = {p - start: e for p, e in self.failures.items() if p >= start}
        base = self.outs[start - 1] if start else 0
        new.outs = [n - base for n in self.outs[start:]]
        new.prefix = [0, *accumulate(new.raw)]
        new.first_failure = min(new.failures) if new.failures else len(new.order)
        new.short = self.short[start:]
        new.short_text = _ShiftedTexts(self.short_text, start)
        new.band_errors = {p - start: e for p, e in self.band_errors.items() if p >= start}
        new._position = None
        new._parent = (self, start)  # a shortened length found here is the parent's too (same message)
        sums = self._sums()
        new._tool_chars = sums[1][start]
        new._nontool_chars = sums[0][count] - new._tool_chars
        new._columns = None
        new._risky = None
        new._raising = None
        new._band = None
        new._band_sent = None
        new._odd = None
        new._negated_order = None
        new.maybe_raises = self.maybe_raises[start:]
        new.idents = self.idents[start:]
        new._char_sums = None
        new.shortener = self.shortener
        new.windows = {}
        return new

    def char_sums(self) -> tuple[list[int], list[int]]:
        return self._sums()

    def band_sums(self) -> BandSums:
        """Per kind (CALL, OUTPUT), sums over the tool positions before each position of what the middle band
        reads: raw characters, messages, shortened characters and cuts, characters kept whole for want of
        anything to shorten; and the positions whose shortening raises. Every tool message's shortened length
        is found to build them (``band_length``: mostly without writing its text), as a table over every call
        of a chat reads them anyway (``prefix_counts``' closed form); each sum is then a pass in C."""
        if self._band is None:
            kinds, raws = self.kinds, self.raw
            band_length = self.band_length
            lengths = [band_length(p) if kind != FAIL else 0 for p, kind in enumerate(kinds)]
            columns: list[list[list[int]]] = [[], [], [], [], []]  # raw, tools, short, cuts, extra; per kind
            for kind in (CALL, OUTPUT):
                mine = [1 if k == kind else 0 for k in kinds]
                cut = [1 if m and n != NOTHING_TO_SHORTEN else 0 for m, n in zip(mine, lengths)]
                raw = [r if m else 0 for m, r in zip(mine, raws)]
                short = [n if c else 0 for c, n in zip(cut, lengths)]
                extra = [r if m and not c else 0 for m, c, r in zip(mine, cut, raws)]
                for column, values in zip(columns, (raw, mine, short, cut, extra)):
                    column.append([0, *accumulate(values)])
            raw_sums, tool_sums, short_sums, cut_sums, extra_sums = columns
            self._band = BandSums(raw_sums, tool_sums, short_sums, cut_sums, extra_sums, sorted(self.band_errors))
        return self._band

    def band_length(self, position: int) -> int:
        """``shortened(position)``, mostly without building the shortened text and its MD5 marker, for what
        needs only lengths (``band_sums``). The marker of a string of L characters is ``16 + len(str(L))``
        characters whatever its digest, and truncate_string keeps ``half - 1`` characters at the head and
        ``half`` at the tail: the shortened JSON text's length follows from the message's JSON with an empty
        content, and the escaped text kept (JSON escapes character by character). A length found so is recorded
        in ``short`` as ``shortened`` records its own; ``short_text`` writes its text when read. Anything odd
        (a message whose shortening may raise, an argument to cut, the 2.x envelope, JSON only Ruby reads,
        an invalid byte or a number JSON.generate refuses) takes ``shortened``."""
        known = self.short[position]
        if known is not None:
            return known
        kind = self.kinds[position]
        if self.maybe_raises[position]:
            return self.shortened(position)
        content = self.messages[self.order[position]].fields.get("content")
        limit = self.shortener.limit(400) if kind == OUTPUT else DEFAULT_SHORT_STRING_LENGTH
        if len(content) <= limit:
            # a string in a JSON text is no longer than the text: nothing in it exceeds the limit, nothing is cut
            # (every version keeps a string within its limit as it is)
            return self._record(position, NOTHING_TO_SHORTEN)
        if kind == CALL or self.shortener.flavour == "envelope":
            return self.shortened(position)
        try:
            data = _FULL.decode(content if content.isascii() else content.encode("utf-8", "surrogatepass"))
        except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
            return self.shortened(position)
        text = data.get("content")
        if type(text) is not str:
            return self.shortened(position)
        size = len(text)
        if size <= limit:
            return self._record(position, NOTHING_TO_SHORTEN)
        marker = 16 + len(str(size))  # "<...{size} - {5 hex digits}...>"
        half = (limit - marker) // 2
        if half < 1:  # truncate_string raises (a size of ~180 digits)
            return self.shortened(position)
        head, tail = text[: half - 1], text[-half:]
        if json_bytes.used and (json_bytes.BAD_CHAR.search(head) or json_bytes.BAD_CHAR.search(tail)):
            return self.shortened(position)  # JSON.generate raises: shortened says how
        try:
            rest = rubyjson.dumps({**data, "content": ""})
        except rubyjson.RubyJSONError:
            return self.shortened(position)
        # "Truncated (size): " + head + marker + tail, escaped, in place of the empty string
        length = len(rest) - 2 + len(encode_basestring(f"{WARNING} ({size}): {head}{tail}")) + marker
        return self._record(position, length)  # its text is written when read (_Texts)

    def band_sent(self) -> list[list[int]]:
        """Per kind, ``band_sums``' shortened characters plus those kept whole for want of anything to shorten:
        what the middle band sends, one running sum (a corpus reads it at every call under every setting)."""
        if self._band_sent is None:
            band = self.band_sums()
            self._band_sent = [list(map(int.__add__, band.short[kind], band.extra[kind])) for kind in (CALL, OUTPUT)]
        return self._band_sent

    def _sums(self) -> tuple[list[int], list[int]]:
        """Characters of the first k messages, and tool characters counted from each position on."""
        if self._char_sums is None:
            chars = [0, *accumulate(chars_of(m.fields.get("content")) for m in self.messages)]
            counted = [0] * (len(self.order) + 1)
            for p in range(len(self.order) - 1, -1, -1):
                counted[p] = counted[p + 1] + (self.raw[p] if self.kinds[p] != FAIL else 0)
            self._char_sums = (chars, counted)
        return self._char_sums

    def extended_facts(self, messages: list[Message]) -> ToolFacts:
        """The facts of ``messages``, whose first ``self.count`` messages equal this list's (a chat that grew):
        only the new messages are scanned; the newer tool positions go in front of the old ones."""
        old = self.count
        order, kinds, raw, failed, failures, risks, idents = _scan(messages, range(len(messages) - 1, old - 1, -1))
        shift = len(order)
        new = ToolFacts.__new__(ToolFacts)
        new.messages = messages
        new.count = len(messages)
        new.order = order + self.order
        new.kinds = kinds + self.kinds
        new.raw = raw + self.raw
        new.parsed = _LazyParsed(new, {**failed, **{p + shift: v for p, v in self.parsed.failed.items()}})
        new.failures = {**failures, **{p + shift: e for p, e in self.failures.items()}}
        outs, counted = [], 0
        for kind in kinds:
            if kind == OUTPUT:
                counted += 1
            outs.append(counted)
        new.outs = outs + [n + counted for n in self.outs]
        new.prefix = [0, *accumulate(new.raw)]
        new.first_failure = min(new.failures) if new.failures else len(new.order)
        fresh: list[int | None] = [None] * shift
        new.short = fresh + self.short
        new.short_text = _Texts(new, {p + shift: t for p, t in self.short_text.items()})
        new.band_errors = {p + shift: e for p, e in self.band_errors.items()}
        new._position = None
        new._parent = None
        new._nontool_chars = None
        new._tool_chars = None
        new._columns = None
        new._risky = None
        new._raising = None
        new._band = None
        new._band_sent = None
        new._odd = None
        new._negated_order = None
        new.shortener = self.shortener
        new.windows = {}
        new.maybe_raises = risks + self.maybe_raises
        new.idents = idents + self.idents
        new._char_sums = None
        return new

    def newer_than(self, count: int) -> int:
        """How many tool positions hold a message at index ``count`` or later (order is newest first)."""
        # order is descending: the positions at count or later are those whose negated index is <= -count
        # (negated once: a table over every call asks this a hundred thousand times)
        negated = self._negated_order
        if negated is None:
            negated = self._negated_order = [-i for i in self.order]
        return bisect_right(negated, -count)

    # -- the middle band --------------------------------------------------------------
    def shortened(self, position: int) -> int:
        """Visible length of the message at ``position`` once shortened, or NOTHING_TO_SHORTEN.

        Records a band error instead when scout-ai would raise while shortening it.
        """
        known = self.short[position]
        if known is not None:
            return known
        index = self.order[position]
        content = self.messages[index].fields.get("content")
        try:
            # strict JSON keeps wide integers exact, as they must be written back
            data = _FULL.decode(content if content.isascii() else content.encode("utf-8", "surrogatepass"))
        except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
            data = rubyjson.parse(content)  # comments and the like: Ruby's reading, wide integers exact
        try:
            text = self._shorten(data, self.kinds[position])
        except _BandError as exc:
            message = self.messages[index]
            self.band_errors[position] = ScoutError(
                index, message.fields.get("role"), data.get("name"), data.get("id"), exc.exception, exc.why
            )
            return self._record(position, NOTHING_TO_SHORTEN)
        if text is None:
            return self._record(position, NOTHING_TO_SHORTEN)
        self.short_text[position] = text
        return self._record(position, len(text))

    def _text(self, position: int) -> str:
        """The shortened text of ``position``, whose length ``band_length`` found (so it does not raise), as
        ``shortened`` writes it."""
        content = self.messages[self.order[position]].fields.get("content")
        try:
            data = _FULL.decode(content if content.isascii() else content.encode("utf-8", "surrogatepass"))
        except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
            data = rubyjson.parse(content)
        text = self._shorten(data, self.kinds[position])
        assert text is not None
        return text

    def _record(self, position: int, length: int) -> int:
        """``length`` as the shortened length of ``position``, given to the facts this prefix was cut from."""
        self.short[position] = length
        if self._parent is not None:
            self._share(position)
        return length

    def _share(self, position: int) -> None:
        """Give the facts this prefix was cut from what shortening ``position`` found: the same message
        shortens the same way at every call, so the next cut copies it instead of shortening again."""
        parent, offset = self._parent  # type: ignore[misc]
        at = position + offset
        if parent.short[at] is None:
            if position in self.band_errors:
                parent.band_errors[at] = self.band_errors[position]
            parent.short[at] = self.short[position]
            if parent._parent is not None:
                parent._share(at)

    def _shorten(self, data: dict[str, Any], kind: int) -> str | None:
        shorten_string = self.shortener
        if kind == CALL:
            arguments = data.get("arguments")
            if type(arguments) is not dict:
                method = "values" if arguments is None or arguments is False else "each"
                raise _BandError(
                    "NoMethodError",
                    f"undefined method `{method}' for {ruby_class(arguments)} "
                    "(arguments must be a JSON object to be shortened)",
                )
            changed = False
            new_arguments = {}
            for key, value in arguments.items():
                if type(value) is str:
                    short = shorten_string(value)
                    changed = changed or short != value
                    new_arguments[key] = short
                else:
                    new_arguments[key] = value
            if not changed:
                return None
            new = dict(data)
            new["arguments"] = new_arguments
        else:
            content: Any = data.get("content")
            if type(content) is str:
                short = shorten_string(content, 400)
                if short == content:
                    return None
            elif type(content) in (list, dict):
                if len(content) <= self.shortener.limit(400):
                    return None  # Array/Hash#length is small: returned as is, so unchanged
                raise _BandError(
                    "TypeError",
                    f"no implicit conversion of {ruby_class(content)} into String "
                    f"(MD5 of a {ruby_class(content)} with {len(content)} elements)",
                )
            else:
                raise _BandError(
                    "NoMethodError",
                    f"undefined method `length' for {ruby_class(content)} "
                    "(output content must be a string to be shortened)",
                )
            new = dict(data)
            new["content"] = short
        try:
            return rubyjson.dumps(new)
        except rubyjson.RubyJSONError as exc:
            raise _BandError(exc.exception, str(exc)) from None

    def band_raises(self, position: int) -> bool | None:
        """Whether shortening ``position`` raises, when that is plain without shortening (None: shorten to know).

        Only a wrong type or a non-finite float written back raises; a timeline over every call asks this
        of thousands of messages whose shortened text it never needs.
        """
        if self.short[position] is not None:
            return position in self.band_errors
        if not self.maybe_raises[position]:
            # plain types seen by the first reading; strict JSON still reads 1e400 as Infinity, which
            # scout-ai's JSON.generate refuses when it writes the message back
            content = self.messages[self.order[position]].fields.get("content")
            if not (isinstance(content, str) and _has_infinite(content)):
                return False
        data = self.parsed[position]
        if self.kinds[position] == CALL:
            if type(data.get("arguments")) is not dict:
                return True
        else:
            content = data.get("content")
            if type(content) in (list, dict):
                return len(content) > self.shortener.limit(400)
            if type(content) is not str:
                return True
        return False if _finite(data) else None

    def risky(self) -> list[int]:
        """Positions whose shortening may raise (ascending), for walks that skip the rest.

        Computed once, by one thread (the app's why search and timeline may ask at the same time),
        pausing now and then so that a worker doing it lets keys through.
        """
        if self._risky is None:
            odd = self.odd()
            with _RISKY_LOCK:
                if self._risky is None:
                    kinds = self.kinds
                    self._risky = [p for p in sorted(odd) if kinds[p] != FAIL and self.band_raises(p) is not False]
        return self._risky

    def raising_positions(self) -> list[int]:
        """Positions whose shortening raises, should a plan put them in the middle band (few: only the
        messages whose first reading saw an odd type are shortened to find out)."""
        if self._raising is None:
            risky = self.risky()
            for q in risky:
                self.shortened(q)
            self._raising = [q for q in risky if q in self.band_errors]
        return self._raising

    def odd(self) -> frozenset[int]:
        """Positions whose first reading saw something odd (a wrong type, a large array, JSON only Ruby
        reads) or whose JSON holds a number that reads as Infinity: the only ones whose shortening or
        compaction can raise (every other is plain JSON, which writes back). Computed once, pausing
        now and then so that a worker doing it lets keys through."""
        if self._odd is None:
            with _RISKY_LOCK:
                if self._odd is None:
                    found = []
                    maybe = self.maybe_raises
                    messages, order = self.messages, self.order
                    for p in range(len(order)):
                        if not p & 255:
                            pause_if_due()
                        if maybe[p]:
                            found.append(p)
                            continue
                        content = messages[order[p]].fields.get("content")
                        if isinstance(content, str) and _has_infinite(content):
                            found.append(p)
                    self._odd = frozenset(found)
        return self._odd

    def shortened_text(self, position: int) -> str | None:
        self.shortened(position)
        return self.short_text.get(position)

    def message_columns(self) -> tuple[list[int], list[ToolKind], list[tuple[int, int]]]:
        """Per message: content length, "call"/"output"/"" and, for those outside the walk, how many
        tool positions are newer. Threshold-independent, so built once for every plan's decisions."""
        if self._columns is None:
            originals, kinds = [], []
            for message in self.messages:
                fields = message.fields
                content = fields.get("content")
                originals.append(len(content) if type(content) is str else 0)
                kinds.append(tool_kind(fields.get("role")))
            outside, p = [], 0
            position = self.position
            for index in range(self.count - 1, -1, -1):
                if index in position:
                    p = position[index] + 1
                else:
                    outside.append((index, p))
            self._columns = (originals, kinds, outside)
        return self._columns

    # -- sizes --------------------------------------------------------------------------
    def tool_chars(self) -> int:
        """Characters of the tool messages the walk counts (fixed whatever the thresholds)."""
        if self._tool_chars is None:
            raw = self.raw  # every position but the failing ones (sums in C: a million messages)
            self._tool_chars = sum(raw) - sum(raw[p] for p in self.failures)
        return self._tool_chars

    def nontool_chars(self) -> int:
        """Characters of every other message."""
        if self._nontool_chars is None:
            self._nontool_chars = total_chars(self.messages) - self.tool_chars()
        return self._nontool_chars

    def keep_prefix_end(self, budget: int, stop: int) -> int:
        """First position whose tool chars before it (all newer kept) reach ``budget``."""
        return min(bisect_left(self.prefix, budget, 0, stop + 1), stop)


_QUOTE = memoryview(b'"')  # the first byte of a value that is a string


def _scan(messages: Any, indices: Any) -> Any:
    """Classify and parse the tool messages at ``indices`` (newest first), as shorten_tools would meet them."""
    order: list[int] = []
    kinds: list[int] = []
    raw: list[int] = []
    failed_data: dict[int, Any] = {}  # what a failing message parsed to (None when it did not parse)
    failures: dict[int, ScoutError] = {}
    maybe_raises = bytearray()  # 1 where shortening might raise (a wrong type, a large array, an odd number)
    order_append, kinds_append, raw_append = order.append, kinds.append, raw.append
    risk_append = maybe_raises.append
    idents: list[tuple[object, object]] = []  # (name, id) as tool_identity reads them, from the first reading
    ident_append = idents.append
    careful_parse = rubyjson.parse
    tool_roles = _TOOL_ROLES

    def fail(index: Any, data: Any, exception: Any, why: Any) -> Any:
        message = messages[index]
        failures[len(order)] = ScoutError(
            index,
            message.fields.get("role"),
            data.get("name") if type(data) is dict else None,
            data.get("id") if type(data) is dict else None,
            exception,
            why,
        )
        content = message.fields.get("content")
        failed_data[len(order)] = data
        risk_append(1)
        ident_append(tool_identity(data))
        order_append(index)
        kinds_append(FAIL)
        raw_append(len(content) if type(content) is str else 0)

    def careful(index: int, kind: int, content: Any) -> None:
        """Every case but the common one, as shorten_tools meets it."""
        if kind == FAIL:
            role = messages[index].fields.get("role")
            if type(role) is str:
                fail(
                    index, None, "EncodingError", f"invalid symbol in encoding UTF-8 :{json_bytes.inspect_bytes(role)}"
                )
                return
            fail(
                index,
                None,
                "NoMethodError",
                f"undefined method `to_sym' for {ruby_class(role)} (the message has no usable role)",
            )
            return
        if content is None or content is False:
            return  # `next msg unless json`: passed through, not counted
        if type(content) is not str:
            fail(
                index,
                None,
                "TypeError",
                f"no implicit conversion of {ruby_class(content)} into String (content is not JSON text)",
            )
            return
        try:
            data = careful_parse(content, False)
        except rubyjson.RubyJSONError as exc:
            fail(index, None, exc.exception, f"content is not valid JSON ({exc})")
            return
        if rubyjson.too_deep(content, data):  # JSON.parse's max_nesting of 100
            fail(index, None, "JSON::NestingError", f"content is not valid JSON ({NESTING_MESSAGE})")
            return
        if type(data) is list:  # Array#values_at wants Integers
            fail(index, data, "TypeError", "no implicit conversion of String into Integer (content JSON is an Array)")
            return
        if type(data) is not dict:  # `nil.values_at` too: "null" raises
            fail(
                index,
                data,
                "NoMethodError",
                f"undefined method `values_at' for {ruby_class(data)} (content JSON is not an object)",
            )
            return
        risk_append(1)
        ident_append(tool_identity(data))
        order_append(index)
        kinds_append(kind)
        raw_append(len(content))

    broken = json_bytes.used  # only then can a role hold an invalid byte
    spilled = SpilledMessage
    for index in indices:
        message = messages[index]
        if type(message) is spilled:  # checked as it was read (a lean read): its record, not its content
            kind, risky, name, ident = message.scanned
            risk_append(risky)
            ident_append((name, ident))
            order_append(index)
            kinds_append(kind)
            raw_append(message.length)
            continue
        fields = message.fields
        role = fields.get("role")
        kind = tool_roles.get(role) if type(role) is str else FAIL
        if kind is None:
            if not (broken and not role.isascii() and json_bytes.BAD_CHAR.search(role) is not None):
                continue
            kind = FAIL  # an invalid byte: `to_sym` raises EncodingError
        content = fields.get("content")
        if kind != FAIL and type(content) is str:
            found = scan_tool(kind, content)
            if found is not None:
                risky, name, ident = found
                risk_append(risky)
                ident_append((name, ident))
                order_append(index)
                kinds_append(kind)
                raw_append(len(content))
                continue
        careful(index, kind, content)
    return order, kinds, raw, failed_data, failures, maybe_raises, idents


_STRICT_ERRORS = (msgspec.DecodeError, msgspec.ValidationError, RecursionError)
_SMALL = 2 * rubyjson.MAX_NESTING


def scan_tool(kind: int, content: str) -> tuple[bool, object, object] | None:
    """The common case of a tool message's content, as shorten_tools meets it: strict JSON holding an object
    that JSON.parse reads within its nesting limit. Gives (whether shortening it might raise, name, id);
    None for anything else (comments, lone surrogates, a non-object, too deep...): the careful path's.

    The JSON is checked whole and only name and id are built (non-ASCII text goes in as bytes: given a str,
    the decoder would leave a UTF-8 copy cached in it). A message of a few hundred bytes, or an output whose
    content is a string and little else, cannot nest too deep (see _may_nest_too_deep, here in line)."""
    data = content if content.isascii() else content.encode("utf-8", "surrogatepass")
    shape: Any  # an _Identity, or a call's _CallIdentity
    try:
        if kind == CALL:
            try:
                shape = _CHECK_CALL(data)  # arguments as an object, their values raw
            except msgspec.ValidationError:
                shape = _CHECK(data)  # arguments of another type: kept raw
        else:
            shape = _CHECK(data)
    except _STRICT_ERRORS:
        # RecursionError: nested past the decoder's own depth (~1000), far past JSON.parse's 100
        return None
    large = len(data) > _SMALL
    if kind == OUTPUT:
        main = shape.content
        risky = memoryview(main)[:1] != _QUOTE  # shortening cannot raise on an output's string content
        too_deep = large and (risky or len(data) - len(main) > _SMALL) and _may_nest_too_deep(data, (main,), 2)
    else:
        arguments = shape.arguments
        if type(arguments) is dict:
            too_deep = large and _may_nest_too_deep(data, arguments.values(), 3)
            risky = False  # nor on an object of arguments
        else:
            too_deep = large and _may_nest_too_deep(data, (arguments,) if arguments is not None else (), 2)
            risky = True
    if too_deep:
        return None  # JSON.parse raises NestingError: the careful path says so
    # tool_identity of the keys kept (names repeat: one string each)
    name = shape.name
    if type(name) is str:
        name = _intern(name)
    elif name is None and type(shape.function) is dict:
        name = shape.function.get("name")
    ident = shape.id
    return risky, name, ident if ident is not None else shape.call_id


_intern = sys.intern


def spill_record(role: str, content: str) -> tuple[int, bool, object, object] | None:
    """What ``_scan`` takes from a tool message whose content passes ``scan_tool`` (kind, whether shortening
    might raise, name, id), so that a lean read can leave the content in the file; None: keep it."""
    kind = _TOOL_ROLES.get(role)
    if kind is None:
        return None
    found = scan_tool(kind, content)
    return None if found is None else (kind, *found)


NESTING_MESSAGE = f"nesting of {rubyjson.MAX_NESTING + 1} is too deep"  # Ruby's json 2.6.1, word for word


def _may_nest_too_deep(data: str | bytes, inner: Any, level: int) -> bool:
    """Whether strict JSON ``data`` (ASCII text, or UTF-8 bytes) holding an object nests arrays and objects
    past JSON.parse's max_nesting, as ``rubyjson.too_deep`` reads its decoded value (a key given twice: its
    last value), mostly without reading it again.

    ``inner``: the raw values at ``level`` that hold most of the message (an output's content at 2, a call's
    arguments at 3). n nested containers take 2n brackets: the bytes outside them are mostly a few dozen,
    too few to nest past the limit, and then only ``inner`` is looked into (see ``_nests_past``)."""
    limit = rubyjson.MAX_NESTING
    size = len(data)
    if size <= 2 * limit:
        return False
    budget = [2 * size + _SPARE]
    inner = list(inner)
    found: bool | None = False
    if size - sum(map(len, inner)) > 2 * limit:  # much besides them: walk the whole object
        found = _nests_past(data.encode() if type(data) is str else data, 1, budget)
    else:
        for value in inner:
            found = _nests_past(value, level, budget)
            if found is not False:
                break
    if found is None:  # the walk gave up: decoded whole, as before
        try:
            whole = msgspec.json.decode(data)
        except (msgspec.DecodeError, RecursionError):
            return True  # valid (the strict check passed), so refused only for its depth, far past 100
        return rubyjson.nested_past(whole)
    return found


_SPARE = 1 << 16  # bytes a walk may decode besides twice the message's own before it gives up (_nests_past)
_OPENERS = (ord("["), ord("{"))


def _nests_past(raw: Any, level: int, budget: list[int]) -> bool | None:
    """Whether the valid JSON value ``raw`` (bytes), standing at ``level`` (the top object at 1), holds a
    container at a level past JSON.parse's max_nesting. Only the containers too large to rule out by their
    size are decoded, one level at a time (their members raw): a text's brackets are never counted.

    ``budget``: bytes left to decode, shared by the walk. A value nested deep with much text at every level
    would be decoded again at each; past the budget the walk gives up (None)."""
    limit = rubyjson.MAX_NESTING
    size = len(raw)
    if size < 2:  # a digit, or nothing (a key not given)
        return False
    with memoryview(raw) as view:
        first = view[0]
    if first not in _OPENERS:  # a string, a number, a literal
        return False
    if level > limit:
        return True
    if level + size // 2 - 1 <= limit:  # n nested containers take 2n bytes
        return False
    budget[0] -= size
    if budget[0] < 0:
        return None
    try:
        members: Any = (_RAW_VALUES if first == _OPENERS[1] else _RAW_ITEMS).decode(raw)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return None
    for member in members.values() if type(members) is dict else members:
        found = _nests_past(member, level + 1, budget)
        if found is not False:
            return found
    return False


class _Identity(msgspec.Struct):
    """The keys a plan needs: name and id (errors name them), and where arguments and content start
    (their first byte tells whether shortening could raise); every other key is validated and skipped."""

    name: object = None
    id: object = None
    function: object = None  # older shapes: {"function": {"name": ...}, "call_id": ...}
    call_id: object = None
    arguments: msgspec.Raw = msgspec.Raw(b"")
    content: msgspec.Raw = msgspec.Raw(b"")


_IDENTITY = msgspec.json.Decoder(_Identity)


class _CallIdentity(msgspec.Struct):
    """``_Identity`` of a call whose arguments are an object (or null, or not given): its values raw, so
    that the nesting check need not read them again (see ``_may_nest_too_deep``)."""

    name: object = None
    id: object = None
    function: object = None
    call_id: object = None
    arguments: dict[str, msgspec.Raw] | None = None


_CALL_IDENTITY = msgspec.json.Decoder(_CallIdentity)
_CHECK = _IDENTITY.decode
_CHECK_CALL = _CALL_IDENTITY.decode


class _Infinite(Exception):
    pass


def _finite_float(text: str) -> float:
    value = float(text)
    if value - value != 0.0:  # inf or nan
        raise _Infinite
    return value


_FLOATS = msgspec.json.Decoder(float_hook=_finite_float)


def _has_infinite(content: str) -> bool:
    """Whether a JSON text holds a number that reads as Infinity (1e400), which JSON.generate refuses;
    True too when the strict decoder cannot tell (the exact path decides then).

    The object's values are taken raw, and only those that are not strings are read: a string holds
    no number, and a tool output's text (most of the message) is then validated but never built.
    """
    try:
        values = _RAW_VALUES.decode(content if content.isascii() else content.encode("utf-8", "surrogatepass"))
        for value in values.values():
            if memoryview(value)[:1].tobytes() != b'"':
                _FLOATS.decode(value)
    except Exception:  # _Infinite, however the decoder wraps it, or a text it refuses (not an object too)
        return True
    return False


_RAW_VALUES = msgspec.json.Decoder(dict[str, msgspec.Raw])
_RAW_ITEMS = msgspec.json.Decoder(list[msgspec.Raw])


_RISKY_LOCK = _thread.allocate_lock()
_FULL = msgspec.json.Decoder(dict[str, Any])


class _Name(msgspec.Struct):
    name: object = None


_NAME = msgspec.json.Decoder(_Name)


def tool_name_of(content: object) -> str | None:
    """The ``name`` of a tool message's JSON text, reading nothing else (None when absent or not JSON)."""
    if not isinstance(content, str):
        return None
    try:
        # non-ASCII text goes in as bytes: given a str, the decoder would leave a UTF-8 copy cached in it
        found = _NAME.decode(content if content.isascii() else content.encode("utf-8", "surrogatepass")).name
    except (msgspec.DecodeError, msgspec.ValidationError):
        try:
            data = rubyjson.parse(content, False)
        except rubyjson.RubyJSONError:
            return None
        found = data.get("name") if isinstance(data, dict) else None
    return found if isinstance(found, str) else None


_RECENT = 256  # parsed tool messages kept: a screenful, a search's recent hits


class _LazyParsed:
    """``parsed[p]``: the JSON of the tool message at position ``p``, parsed on first use.

    Parsing is as the careful path does it (Ruby's reading of comments, wide integers
    as floats like the fast path did), so callers see what they saw when every message
    was kept parsed.
    """

    __slots__ = ("facts", "failed", "recent")

    def __init__(self, facts: ToolFacts, failed: dict[int, Any]):
        self.facts = facts
        self.failed = failed
        self.recent: OrderedDict[int, Any] = OrderedDict()

    def __len__(self) -> int:
        return len(self.facts.order)

    def __getitem__(self, position: int) -> Any:
        if position < 0:
            position += len(self.facts.order)
        if position in self.failed:
            return self.failed[position]
        recent = self.recent
        found = recent.get(position)
        if found is not None:
            recent.move_to_end(position)
            return found
        content = self.facts.messages[self.facts.order[position]].fields.get("content")
        value = rubyjson.parse(content, False)
        recent[position] = value
        if len(recent) > _RECENT:
            recent.popitem(last=False)
        return value

    def __iter__(self) -> Iterator[Any]:
        return (self[p] for p in range(len(self)))


def _finite(value: Any) -> bool:
    kind = type(value)
    if kind is float:
        finite: bool = value - value == 0.0  # False for inf and nan
        return finite
    if kind is dict:
        return all(_finite(v) for v in value.values())
    if kind is list:
        return all(_finite(v) for v in value)
    return True


class _BandError(Exception):
    def __init__(self, exception: str, why: str):
        super().__init__(why)
        self.exception = exception
        self.why = why


def ruby_class(value: Any) -> str:
    if value is None:
        return "nil"
    if value is True:
        return "true"
    if value is False:
        return "false"
    return {str: "String", int: "Integer", float: "Float", list: "Array", dict: "Hash"}.get(
        type(value), type(value).__name__
    )
