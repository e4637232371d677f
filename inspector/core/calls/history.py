"""A chat at each of its model calls: the file as it stood just before the call, loaded, under today's settings.

For a scout chat the file is cut at the line where the response starts and loaded again (pre-processing
depends on what came before: clear, option and config lines); for the JSON formats the message list is
cut. Stepping through calls of a large chat must be fast, so the work is shared where that is exact:

- the whole file is parsed once; the parse of a cut file is replayed from a snapshot of the parser
  (``Marked``), or the cut bytes are really re-loaded when it cannot be replayed;
- when the cut chat's messages are the first messages of the whole chat (pre-processing took nothing
  back), its tool facts are the whole chat's, re-based, so no tool JSON is parsed again;
- thresholds are resolved again only when the cut chat's own config lines differ.

Tests compare every shortcut with a real re-load of the cut file.
"""

from __future__ import annotations

from collections import OrderedDict
from pathlib import Path
from typing import Any

from inspector.core.calls.find import Call, find_calls
from inspector.core.errors import InputError
from inspector.core.inspection import Inspection, inspect_chat
from inspector.core.io.files import read_chat_bytes
from inspector.core.io.formats import FORMATS, decode, detect, load_chat, load_data, scout_chat
from inspector.core.model import Chat, Finding, Message
from inspector.core.scout.parser import Marked
from inspector.core.scout.preprocess import WORKFLOW_ROLES, previous_response_findings
from inspector.core.scout.roles import unknown_role_findings
from inspector.core.scout.settings import resolve

KEEP = 16  # inspections at calls kept for stepping back and forth


class ChatHistory:
    """One chat file and its calls; ``at(n)`` is the inspection of the chat as it stood before call n."""

    def __init__(
        self,
        path: str | Path,
        *,
        input_format: str | None = None,
        overrides: dict[str, str] | None = None,
        strategies: str | None = None,
        env: dict[str, str] | None = None,
        config_files: list[Path] | None = None,
        data: bytes | None = None,
        scout_version: str | None = None,
    ):
        self.path = str(path)
        self.input_format = input_format
        self.overrides = overrides
        self.strategies = strategies
        self.env = env
        self.config_files = config_files
        self.marked: Marked | None = None
        self.data = data
        chat = self._load_whole()
        self.whole: Inspection = inspect_chat(
            chat,
            overrides=overrides,
            strategies=strategies,
            env=env,
            config_files=config_files,
            scout_version=scout_version,
        )
        self.source: list[Message] = self.marked.parsed.messages if self.marked is not None else chat.messages
        self.calls, self.findings = find_calls(self.source)
        self._final_index = {id(m): i for i, m in enumerate(chat.messages)}
        self._cache: OrderedDict[int, Inspection] = OrderedDict()
        self._line_starts: list[int] | None = None
        self.plain = (
            self.marked is not None
            and not any(isinstance(r := m.fields.get("role"), str) and r in NOT_PLAIN for m in self.source)
            and not chat.options
            and not chat.config
        )
        self.reloads = 0  # cut chats loaded from their bytes (no shortcut applied); tests read it

    def __repr__(self) -> str:
        return f"ChatHistory({self.path!r}, {len(self.calls)} calls)"

    # -- loading -------------------------------------------------------------------------
    def _is_scout(self, data: bytes) -> bool:
        if self.input_format is not None:
            return self.input_format == scout_chat.NAME
        return detect(data[:65536].decode("utf-8", "ignore"), self.path) == scout_chat.NAME

    def _load_whole(self) -> Chat:
        if self.data is None and self.input_format in (None, "json") and _large_json(self.path):
            return load_chat(self.path, self.input_format)  # a large JSON array is parsed from a memory map
        if self.data is None:
            self.data = read_chat_bytes(self.path)
        data = self.data
        if self.input_format is not None and self.input_format not in FORMATS:
            return load_data(data, self.path, self.input_format)  # its error message
        if self._is_scout(data):
            text, bad = decode(data)
            if not bad:  # an invalid UTF-8 file is repaired as a whole: its cuts are re-loaded instead
                self.marked = Marked(text)
                chat = scout_chat.load_parsed(self.marked.parsed, self.path)
                chat.format = scout_chat.NAME
                chat.findings.extend(unknown_role_findings(chat.messages, True))
                return chat
        return load_data(data, self.path, self.input_format)

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
        try:
            number = int(text)
        except ValueError:
            raise InputError(f"--at {text!r}: a call number (1-{total}) or 'last'", self.path) from None
        if not 1 <= number <= total:
            raise InputError(f"--at {number}: the chat has {total} call(s) (1-{total})", self.path)
        return number

    def response_index(self, number: int) -> int | None:
        """Where the response of call ``number`` is in the whole chat as loaded (None: pre-processing removed it)."""
        return self._final_index.get(id(self.source[self.call(number).start]))

    def response_indices(self, number: int) -> list[int]:
        call = self.call(number)
        found = (self._final_index.get(id(m)) for m in self.source[call.start : call.end])
        return [i for i in found if i is not None]

    def first_call_after(self, index: int) -> int | None:
        """The first call whose prompt can hold message ``index`` of the whole chat (None: no call after it)."""
        message = self.whole.chat.messages[index]
        at = next((k for k, m in enumerate(self.source) if m is message), None)
        if at is None:
            return None
        return next((c.number for c in self.calls if c.start > at), None)

    # -- the chat at a call ---------------------------------------------------------------
    def cut_bytes(self, number: int) -> bytes:
        """The chat file as it stood before call ``number`` (scout chats; JSON formats cut the list instead)."""
        if self.data is None:
            self.data = read_chat_bytes(self.path)
        line = self.call(number).line
        if line is None:
            raise ValueError("only a chat with source lines can be cut as a file")
        return self.data[: self._byte_offset(line)]

    def _byte_offset(self, line: int) -> int:
        if self._line_starts is None:
            starts, at, data = [0], -1, self.data or b""
            while (at := data.find(b"\n", at + 1)) >= 0:
                starts.append(at + 1)
            self._line_starts = starts
        return self._line_starts[line - 1]

    def _plain_cut(self, call: Call, parsed: Any) -> Chat | None:
        start = call.start
        if len(parsed.messages) != start:
            return None  # the cut parse ends differently (an empty message the whole file does not have)
        last = parsed.messages[-1] if start else None
        if last is not None and last is not self.source[start - 1] and last.fields != self.source[start - 1].fields:
            return None
        count = self.response_index(call.number)
        if count is None:
            return None
        return _plain_cut_chat(self.whole.chat, self.source, parsed, start, count)

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
        chat = self._cut_chat(call)
        whole = self.whole
        facts = None
        if _is_prefix(chat.messages, whole.chat.messages):
            facts = whole.facts.prefix_facts(chat.messages)
        if chat.config == whole.chat.config:
            return Inspection(chat, whole.thresholds, self.strategies, facts=facts, epoch=whole.epoch, **_same(whole))
        thresholds = resolve(
            self.overrides, chat_config=chat.config, env=self.env, config_files=self.config_files, chat_path=self.path
        )
        return Inspection(chat, thresholds, self.strategies, facts=facts, epoch=whole.epoch, **_same(whole))

    def _cut_chat(self, call: Call) -> Chat:
        whole = self.whole.chat
        if whole.format != scout_chat.NAME or call.line is None:
            return _cut_list(whole, call.start)
        if self.marked is not None and call.line is not None:
            parsed = self.marked.cut(call.line)
            if parsed is not None and self.plain:
                chat = self._plain_cut(call, parsed)
                if chat is not None:
                    return chat
            if parsed is not None:
                chat = scout_chat.load_parsed(parsed, self.path)
                chat.format = scout_chat.NAME
                chat.findings.extend(unknown_role_findings(chat.messages, True))
                return chat
        self.reloads += 1
        return load_data(self.cut_bytes(call.number), self.path, self.input_format or scout_chat.NAME)


# Roles whose pre-processing depends on other messages (or reads files): a chat with any of them has
# each cut chat pre-processed again. Without them pre-processing only drops meta, previous_response_id
# and empty messages, one by one, so a cut chat's prompt messages are the whole chat's first ones.
NOT_PLAIN = frozenset(
    {
        "import",
        "continue",
        "last",
        "clear",
        "clear_tools",
        "clear_role",
        "clean_role",
        "config",
        "file",
        "directory",
        "pdf",
        "image",
        "allow_path",
        "allow_read_path",
        "endpoint",
        "model",
        "backend",
        "agent",
        "persist",
        "format",
        "option",
        "sticky_option",
        *WORKFLOW_ROLES,
    }
)


def _plain_cut_chat(whole: Chat, source: list[Message], parsed: Any, start: int, count: int) -> Chat:
    """The cut chat of a plain scout chat, from the whole chat's lists (``count`` prompt messages)."""
    messages = whole.messages[:count]
    consumed = [c for c in whole.consumed if c.before <= count]
    chat = Chat(messages, path=whole.path, format=whole.format, findings=list(parsed.findings), consumed=consumed)
    chat.findings.extend(previous_response_findings(source[:start], whole.path))
    chat.findings.extend(unknown_role_findings(messages, True))
    return chat


def _cut_list(whole: Chat, count: int) -> Chat:
    """A JSON-like chat cut to its first ``count`` messages."""
    findings = [f for f in whole.findings if _before(f, count)]
    consumed = [c for c in whole.consumed if c.before < count]
    chat = Chat(
        whole.messages[:count],
        path=whole.path,
        format=whole.format,
        findings=findings,
        consumed=consumed,
        config=dict(whole.config),
        strategies=whole.strategies,
        strategies_line=whole.strategies_line,
        options=dict(whole.options),
        locator=whole.locator,
    )
    return chat


def _before(finding: Finding, count: int) -> bool:
    return not finding.indices or max(finding.indices) < count


def _is_prefix(messages: list[Message], whole: list[Message]) -> bool:
    if len(messages) > len(whole):
        return False
    return all(a is b or a.fields == b.fields for a, b in zip(messages, whole))


def _large_json(path: str) -> bool:
    from inspector.core.io.formats import MAP_FROM

    try:
        if Path(path).stat().st_size < MAP_FROM:
            return False
        with open(path, "rb") as handle:
            head = handle.read(65536)
    except OSError:
        return False
    return detect(head.decode("utf-8", "ignore"), path) != scout_chat.NAME


def _same(whole: Inspection) -> dict[str, Any]:
    """The scout-ai version and config strategy list of the whole chat, for a chat cut at a call."""
    return {
        "version": whole.version if whole.version_given else None,
        "config_strategies": whole.config_strategies,
    }
