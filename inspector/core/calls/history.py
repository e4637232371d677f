"""A chat at each of its model calls: the file as it stood just before the call, loaded, under today's settings.

For a scout chat the file is cut at the line where the response starts and loaded again (pre-processing
depends on what came before: clear, option and config lines); for the JSON formats the message list is
cut. Stepping through calls of a large chat must be fast, so the work is shared where that is exact:

- the whole file is parsed once; the parse of a cut file is replayed from a snapshot of the parser
  (``Marked``), or the cut bytes are really re-loaded when it cannot be replayed;
- when the cut chat's messages are the first messages of the whole chat (pre-processing took nothing
  back), its tool facts are the whole chat's, re-based, so no tool JSON is parsed again;
- thresholds are resolved again only when the cut chat's own config lines differ.

Tests compare every shortcut with a real re-load of the cut file. This module holds the call index and
the inspections at calls; ``cut`` makes the chat at a call, ``grow`` a history after an append.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import OrderedDict
from copy import copy
from pathlib import Path

from inspector.core import files
from inspector.core.calls.cut import cut_chat, is_plain, is_prefix, plain_tail_count
from inspector.core.calls.find import Call, CallIndex, index_calls
from inspector.core.calls.grow import grow
from inspector.core.errors import InputError
from inspector.core.inspection import Inspection, inspect_chat, thresholds_for
from inspector.core.io.formats import FORMATS, decode, detect, detect_data, load_chat, load_data, scout_chat
from inspector.core.model import Chat, Message
from inspector.core.scout.parser import Marked
from inspector.core.scout.prepared import marked_messages
from inspector.core.scout.roles import unknown_role_findings
from inspector.core.scout.strategies.shorten_tools import PrefixCounts, ShortenToolsPlan, prefix_counts
from inspector.core.setup import ChatSource, Setup

KEEP = 16  # inspections at calls kept for stepping back and forth


class ChatHistory:
    """One chat file and its calls; ``at(n)`` is the inspection of the chat as it stood before call n."""

    def __init__(self, source: ChatSource | str | Path, setup: Setup | None = None, *, data: bytes | None = None):
        self.chat_source = source if isinstance(source, ChatSource) else ChatSource.of(source)
        self.setup = setup if setup is not None else Setup()
        self.setup.scout_version()  # an unknown name is a usage error, before the chat is read
        self.marked: Marked | None = None
        self._parts: list[bytes] = [data] if data is not None else []
        self._setup(inspect_chat(self._load_whole(), self.setup))

    @property
    def path(self) -> str:
        return self.chat_source.path

    @property
    def input_format(self) -> str | None:
        return self.chat_source.input_format

    def with_setup(self, setup: Setup) -> ChatHistory:
        """The same file under another setup (the app's version or strategy switch): the parse and the call
        index are shared, the plans at calls are made anew. Thresholds are resolved again only when what
        they are read from changed."""
        if setup == self.setup:
            return self
        new = copy(self)
        new.setup = setup
        old = self.whole
        if (setup.env, setup.config_files) != (self.setup.env, self.setup.config_files):
            new.whole = inspect_chat(old.chat, setup)
        elif setup.overrides == self.setup.overrides:
            new.whole = old.with_setup(setup)
        else:  # an edit (a policy's every edit): thresholds read again, the chat's facts kept
            new.whole = old.with_setup(setup, thresholds_for(old.chat, setup))
        new._cache = OrderedDict()
        new._counts_fast = None
        new.prefix_counts = dict(self.prefix_counts)
        return new

    def _setup(self, whole: Inspection, old: ChatHistory | None = None, kept: int = 0, same: int = 0) -> None:
        """Index the chat; ``old``: the history this one grew from, whose first ``kept`` prompt messages
        (and the source messages before them) are unchanged, so their indexes are extended, not rebuilt."""
        chat = whole.chat
        self.whole = whole
        self.source: list[Message] = self.marked.parsed.messages if self.marked is not None else chat.messages
        self._names: dict[int, tuple[Message, str | None]] = old._names if old is not None else {}
        joined = chat.wire.joined if chat.wire is not None and self.marked is None else frozenset()
        self.call_index: CallIndex = index_calls(
            self.source, self._names, old.call_index if old is not None else None, same, joined
        )
        self.calls, self.findings = self.call_index.calls, self.call_index.findings(self.source)
        self._starts: list[int] | None = None  # each call's start, in order (built when first asked)
        # what stepping through calls needs, built when first asked (the app's first screen does not need it)
        self._final: dict[int, int] | None = None
        self._source_at: dict[int, int] | None = None  # id(source message) -> its place in the source list
        self._plain: bool | None = None
        self._unknown_roles: bool | None = None
        fresh = self.source if old is None else self.source[same:]
        if old is not None:
            final = {k: i for k, i in old.final_index.items() if i < kept}
            final.update((id(m), i) for i, m in enumerate(chat.messages[kept:], kept))
            self._final = final
            self._plain = (
                self.marked is not None and old.plain and is_plain(fresh) and not chat.options and not chat.config
            )
        self._cache: OrderedDict[int, Inspection] = OrderedDict()
        self._line_starts: list[int] | None = None
        base = 0 if old is None else same
        self.response_ids: list[int] = [i for i in old.response_ids if i < same] if old is not None else []
        self.response_ids += [i for i, m in enumerate(fresh, base) if m.fields.get("role") == "previous_response_id"]
        self.consumed_befores = [c.before for c in chat.consumed]
        if old is not None:
            self._unknown_roles = old.unknown_roles or bool(unknown_role_findings(chat.messages[kept:], True))
        self.prefix_counts: dict[int, int] = {}  # calls whose chat is the whole chat's first messages
        self._counts_fast: bool | None = None  # call_counts may read the whole chat's facts (known once asked)
        self.reloads = 0  # cut chats loaded from their bytes (no shortcut applied); tests read it
        self._prepared_marks: list[int] | None = None  # the whole chat's messages with cut markers, once asked for

    @property
    def final_index(self) -> dict[int, int]:
        """Each prompt message's index in the whole chat, by message object."""
        if self._final is None:
            self._final = {id(m): i for i, m in enumerate(self.whole.chat.messages)}
        return self._final

    @property
    def plain(self) -> bool:
        """A scout chat whose pre-processing takes messages one by one (see cut.NOT_PLAIN): a cut chat's
        prompt messages are the whole chat's first ones."""
        if self._plain is None:
            chat = self.whole.chat
            self._plain = self.marked is not None and is_plain(self.source) and not chat.options and not chat.config
        return self._plain

    @property
    def unknown_roles(self) -> bool:
        if self._unknown_roles is None:
            self._unknown_roles = bool(unknown_role_findings(self.whole.chat.messages, True))
        return self._unknown_roles

    def marked_before(self, count: int) -> list[int]:
        """The whole chat's messages holding scout-ai's cut markers among its first ``count``."""
        if self._prepared_marks is None:
            self._prepared_marks = marked_messages(self.whole.chat.messages)
        return self._prepared_marks[: bisect_left(self._prepared_marks, count)]

    def grown(self, appended: bytes) -> ChatHistory | None:
        """This chat after ``appended`` was appended to its file, re-reading only the new part: the parse
        resumes at the last response header, tool facts are extended. None when that is not exact (not a
        scout chat, an XML tag now closes, invalid UTF-8): load the file again. See ``calls.grow``."""
        growth = grow(self, appended)
        if growth is None:
            return None
        new = ChatHistory.__new__(ChatHistory)
        new.chat_source, new.setup = self.chat_source, self.setup
        # the file's bytes as the pieces read: joining 70 MB on every append costs more than the parse
        new.marked, new._parts = growth.marked, [*self._parts, appended]
        if growth.kept is None:
            new._setup(growth.whole)
        else:
            new._setup(growth.whole, self, growth.kept, growth.same)
        return new

    def __repr__(self) -> str:
        return f"ChatHistory({self.path!r}, {len(self.calls)} calls)"

    @property
    def data(self) -> bytes | None:
        """The file's bytes as read (None: a large JSON array, parsed without keeping them)."""
        if not self._parts:
            return None
        if len(self._parts) > 1:
            self._parts = [b"".join(self._parts)]
        return self._parts[0]

    @property
    def size(self) -> int | None:
        return sum(len(p) for p in self._parts) if self._parts else None

    def tail(self, count: int) -> bytes:
        """The last ``count`` bytes read."""
        out = b""
        for part in reversed(self._parts):
            out = part[-(count - len(out)) :] + out if count > len(out) else out
            if len(out) >= count:
                break
        return out

    # -- loading -------------------------------------------------------------------------
    def _load_whole(self) -> Chat:
        if not self._parts and self.input_format in (None, "json") and _large_json(self.path):
            return load_chat(self.path, self.input_format)  # a large JSON array: its bytes are not kept
        if not self._parts:
            self._parts = [files.read_chat_bytes(self.path)]
        data = self._parts[0]
        if self.input_format is not None and self.input_format not in FORMATS:
            return load_data(data, self.path, self.input_format)  # its error message
        detected = detect_data(data, self.path) if self.input_format is None else None  # once: load_data takes it
        if (detected[0] if detected is not None else self.input_format) == scout_chat.NAME:
            text, bad = decode(data)
            if not bad:  # an invalid UTF-8 file is repaired as a whole: its cuts are re-loaded instead
                self.marked = Marked(text)
                chat = scout_chat.load_parsed(self.marked.parsed, self.path)
                chat.format = scout_chat.NAME
                chat.findings.extend(unknown_role_findings(chat.messages, True))
                return chat
        return load_data(data, self.path, self.input_format, detected)

    # -- calls ---------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.calls)

    def call(self, number: int) -> Call:
        if not 1 <= number <= len(self.calls):
            raise IndexError(number)
        return self.calls[number - 1]

    def number(self, text: str) -> int:
        """A call number from the command line: 1..M, or ``last``."""
        total = len(self.calls)
        if total == 0:
            raise InputError("the chat has no model calls (no assistant or function_call message)", self.path)
        if text == "last":
            return total
        if not (text.isascii() and text.isdigit()):  # ASCII digits only: no `+2`, ` 3`, `1_0` or `１`
            raise InputError(f"--at {text!r}: a call number (1-{total}) or 'last'", self.path) from None
        number = int(text)
        if not 1 <= number <= total:
            raise InputError(f"--at {number}: the chat has {total} call(s) (1-{total})", self.path)
        return number

    def response_index(self, number: int) -> int | None:
        """Where the response of call ``number`` is in the whole chat as loaded (None: pre-processing removed it)."""
        return self.final_index.get(id(self.source[self.call(number).start]))

    def response_indices(self, number: int) -> list[int]:
        call = self.call(number)
        found = (self.final_index.get(id(m)) for m in self.source[call.start : call.end])
        return [i for i in found if i is not None]

    def call_of(self, message: Message) -> int | None:
        """The call whose response holds ``message`` (a message of the whole chat or of a chat at a call)."""
        at = next((k for k, m in enumerate(self.source) if m is message), None)
        if at is None:
            at = next(
                (k for k, m in enumerate(self.source) if m.line == message.line and m.fields == message.fields), None
            )
        if at is None:
            return None
        return next((c.number for c in self.calls if c.start <= at < c.end), None)

    def first_call_after(self, index: int) -> int | None:
        """The first call whose prompt can hold message ``index`` of the whole chat (None: no call after it)."""
        message = self.whole.chat.messages[index]
        if self._source_at is None or len(self._source_at) > len(self.source):
            self._source_at = {id(m): k for k, m in enumerate(self.source)}
        at = self._source_at.get(id(message))
        if at is None or self.source[at] is not message:
            at = next((k for k, m in enumerate(self.source) if m is message), None)
        if at is None:
            return None
        k = bisect_right(self._call_starts(), at)  # the calls are in order of their start
        return self.calls[k].number if k < len(self.calls) else None

    def _call_starts(self) -> list[int]:
        if self._starts is None:
            self._starts = [c.start for c in self.calls]
        return self._starts

    # -- the chat at a call ---------------------------------------------------------------
    def cut_bytes(self, number: int) -> bytes:
        """The chat file as it stood before call ``number`` (scout chats; JSON formats cut the list instead)."""
        if not self._parts:
            self._parts = [files.read_chat_bytes(self.path)]
        line = self.call(number).line
        if line is None:
            raise ValueError("only a chat with source lines can be cut as a file")
        return self._parts_joined()[: self._byte_offset(line)]

    def _byte_offset(self, line: int) -> int:
        if self._line_starts is None:
            starts, at, data = [0], -1, self.data or b""
            while (at := data.find(b"\n", at + 1)) >= 0:
                starts.append(at + 1)
            self._line_starts = starts
        return self._line_starts[line - 1]

    def _parts_joined(self) -> bytes:
        data = self.data
        return data if data is not None else b""

    def call_counts(self, number: int) -> PrefixCounts:
        """Tier counts, messages and characters sent at call ``number``: ``at(number).prompt()`` in numbers.

        When the chat at the call is the whole chat's first messages under plain shorten_tools, they come
        from the whole chat's tool facts (``prefix_counts``) without building the chat or its prompt (the
        calls table of a 20,000-message chat: seconds instead of a minute); else from the full prompt.
        """
        count = self.prefix_count(number) if self.counts_fast else None
        if count is not None:
            return prefix_counts(self.whole.facts, count, self.whole.thresholds.as_tuple())
        prompt = self.at(number).prompt()
        totals = prompt.totals()
        return PrefixCounts(prompt.tier_counts(), totals.visible_messages, totals.chars_after, prompt.error)

    @property
    def counts_fast(self) -> bool:
        """The whole chat plans as plain shorten_tools on its own tool facts: a chat that is its first messages
        (``prefix_count``) plans as ``prefix_counts`` / ``timeline.tier_in_prefix`` on those facts."""
        if self._counts_fast is None:
            plan = self.whole.prompt().plan
            self._counts_fast = isinstance(plan, ShortenToolsPlan) and plan.facts is self.whole.facts is not None
        return self._counts_fast

    def prefix_count(self, number: int) -> int | None:
        """How many of the whole chat's first messages the chat at call ``number`` is, with the whole chat's
        config (None: it is not such a prefix; plan ``at(number)``)."""
        call = self.call(number)
        if self.whole.chat.format != scout_chat.NAME or call.line is None:
            return call.start  # the message list cut (cut_list): its first messages, the same config
        if self.plain and self.marked is not None:
            tail = self.marked.cut_tail(call.line)
            return plain_tail_count(self, call, *tail) if tail is not None else None
        return None

    def at(self, number: int) -> Inspection:
        """The inspection of the chat as it stood just before call ``number``."""
        known = self._cache.get(number)
        if known is not None:
            self._cache.move_to_end(number)
            return known
        inspection = self._build(number)
        self._cache[number] = inspection
        while len(self._cache) > KEEP:
            self._cache.popitem(last=False)
        return inspection

    def _build(self, number: int) -> Inspection:
        call = self.call(number)
        chat = cut_chat(self, call)
        whole = self.whole
        facts = None
        if number in self.prefix_counts or is_prefix(chat.messages, whole.chat.messages):
            facts = whole.facts.prefix_facts(chat.messages)
            facts.position  # noqa: B018 - built here, in the caller's thread, not by the first paint of the rows
        thresholds = whole.thresholds if chat.config == whole.chat.config else thresholds_for(chat, self.setup)
        return Inspection(chat, thresholds, self.setup, facts=facts, config_strategies=whole.config_strategies)


def _large_json(path: str) -> bool:
    from inspector.core.io.formats import MAP_FROM

    found = files.head_of(path, files.CHAT_LIMIT)  # a FIFO or a device is never opened for a blocking read
    if found is None or found[1] < MAP_FROM:
        return False
    head = found[0]
    return detect(head.decode("utf-8", "ignore"), path) != scout_chat.NAME


def open_history(source: ChatSource | str | Path, setup: Setup | None = None) -> ChatHistory:
    """The one door for a chat stepped through its model calls (see inspection.open_inspection for a chat
    read whole): the file under the setup; ``at(n)`` is the inspection of the chat just before call n."""
    return ChatHistory(source, setup)
