"""scout-ai's chat text grammar: ``Chat.parse`` line for line (the format module, io/formats/scout_chat,
hands what this returns to pre-processing).

The parser copies scout-ai's state machine (reference §1.4) including its traps: a
``[[`` that never closes, an odd fence, or an XML tag closed somewhere later in the
file swallows every header after it. Those traps are the reason a model "never saw"
a message, so each one is reported as a ``Finding`` with its start line and how many
header-like lines it took.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import accumulate

from inspector.core.model import Finding, Message

WS = " \t\n\v\f\r\0"  # Ruby String#strip
HEADER = re.compile(r"([a-z0-9_]+):(.*)", re.ASCII)
BOM = "\ufeff"
ESCAPED = re.compile(r"\\([a-z0-9_]+):", re.ASCII)
CMD_OPEN = re.compile(r"[^\s]*:-- .* \{\{\{", re.ASCII)
CMD_OPEN_REWRITE = re.compile(r"[^\s]*:-- (.*) \{\{\{.*", re.ASCII)
# Ruby's /^<(\w+)(\s+[^>]*)?>/; `\s[^>]*` matches the same texts without quadratic backtracking
XML_OPEN = re.compile(r"<(\w+)(?:\s[^>]*)?>", re.ASCII)
XML_CLOSE = re.compile(r"</(\w+)>", re.ASCII)

TICKS, SQUARE, XML, CMD = "ticks", "square", "xml", "cmd_output"
# Roles whose bare block header (no content) the parser silently drops, which users rarely expect
DIRECTIVES = frozenset(
    {
        "clear",
        "clear_tools",
        "clear_role",
        "clean_role",
        "skip",
        "option",
        "sticky_option",
        "config",
        "import",
        "continue",
        "last",
        "file",
        "directory",
    }
)


@dataclass(slots=True)
class _Block:
    kind: str
    start: int
    tag: str = ""
    swallowed: int = 0
    first_swallowed: int | None = None


@dataclass(slots=True)
class Parsed:
    messages: list[Message]
    findings: list[Finding] = field(default_factory=list)
    synthetic_first: bool = False  # messages[0] is the parser's leading empty user message


def _cmd_close(stripped: str) -> bool:
    """Ruby's /^.*:--.* }}}/, without regex backtracking on long lines."""
    at = stripped.find(":--")
    return at >= 0 and stripped.rfind(" }}}") >= at + 3


def _cmd_close_rewrite(line: str) -> str:
    """Ruby's line.sub(/^.*:-- .* }}}.*/, "</cmd_output>")."""
    at = line.find(":-- ")
    if at >= 0 and line.rfind(" }}}") >= at + 4:
        return "</cmd_output>"
    return line


class _Parser:
    def __init__(self, text: str | Chunks):
        self.text = text
        self.messages: list[Message] = []
        self.findings: list[Finding] = []
        self.synthetic_first = False
        self.role = "user"
        self.role_set = False  # a block header has set the role (else it is the default)
        self.parts: list[str] = []
        self.header_line: int | None = None
        self.header_role: str | None = None
        self.first: int | None = None
        self.last: int | None = None
        self.in_block = False
        self.kind: str | None = None
        self.stack: list[str] = []
        self.block: _Block | None = None
        self.closing_tags: dict[str, bool] = {}
        self.asked_at: dict[str, int] = {}  # the line where each tag's closing was first looked for
        self.number = 0
        self.snapshots: dict[int, _Snapshot] | None = None  # kept by parse(..., snapshots=True)

    # -- content ------------------------------------------------------------------------
    def append(self, text: str, number: int, newline: bool = True) -> None:
        if newline:
            self.parts.append("\n")
        self.parts.append(text)
        if text.strip(WS):
            if self.first is None:
                self.first = number
            self.last = number

    def append_unless_blank(self, text: str, number: int) -> None:
        if text.strip(WS):
            self.append(text, number)

    def emit(self, role: str, content: str, line: int | None, end: int | None) -> None:
        self.messages.append(Message({"role": role, "content": content}, line, end if end is not None else line))

    def reset(self, role: str | None, header_line: int | None) -> None:
        self.parts = []
        self.first = self.last = None
        self.header_line = header_line
        self.header_role = role

    def current_lines(self) -> tuple[int | None, int | None]:
        start = self.header_line if self.header_line is not None else self.first
        return start, self.last if self.last is not None else start

    # -- protected blocks ---------------------------------------------------------------
    def open_block(self, kind: str, number: int, tag: str = "") -> None:
        if self.in_block and self.block is not None:
            self.finish_block(taken_over=number)
        self.in_block = True
        self.kind = SQUARE if kind == CMD else kind
        self.block = _Block(kind, number, tag)

    def close_block(self) -> None:
        self.in_block = False
        self.kind = None
        if self.block is not None:
            self.finish_block()
        self.block = None

    def finish_block(self, taken_over: int | None = None, at_end: int | None = None) -> None:
        block = self.block
        if block is None:
            return
        n = block.swallowed
        swallowed = f"{n} header-like line{'s' if n != 1 else ''}"
        if n:
            swallowed += f", the first at line {block.first_swallowed}"
        opener = {
            TICKS: "a ``` fence",
            SQUARE: "`[[`",
            XML: f"<{block.tag}>",
            CMD: "a `:-- ... {{{` command-output block",
        }[block.kind]
        if at_end is not None:
            kind = {
                TICKS: "unclosed_fence",
                SQUARE: "unclosed_square",
                XML: "unclosed_xml",
                CMD: "unclosed_cmd_output",
            }[block.kind]
            extra = " (an odd number of ``` fence lines)" if block.kind == TICKS else ""
            self.findings.append(
                Finding(
                    kind,
                    f"{opener} at line {block.start} never closes{extra}: lines "
                    f"{block.start}-{at_end} are one message's content ({swallowed} swallowed)",
                    block.start,
                    n,
                )
            )
        elif taken_over is not None and n:
            self.findings.append(
                Finding(
                    f"{block.kind}_block",
                    f"{opener} at line {block.start} protects lines up "
                    f"to a `[[` or `{{{{{{` at line {taken_over} ({swallowed} swallowed)",
                    block.start,
                    n,
                )
            )
        elif n and block.kind in (SQUARE, XML):
            what = "a line ending in `]]`" if block.kind == SQUARE else "its closing tag"
            self.findings.append(
                Finding(
                    f"{block.kind}_block",
                    f"{opener} at line {block.start} protects every line up to {what} ({swallowed} swallowed)",
                    block.start,
                    n,
                )
            )

    def note_swallowed(self, line: str, number: int) -> None:
        if self.block is not None and HEADER.match(line):
            self.block.swallowed += 1
            if self.block.first_swallowed is None:
                self.block.first_swallowed = number

    def has_closing(self, tag: str) -> bool:
        known = self.closing_tags.get(tag)
        if known is None:
            known = self.closing_tags[tag] = f"</{tag}>" in self.text
            self.asked_at[tag] = self.number
        return known

    # -- the state machine ----------------------------------------------------------------
    def line(self, line: str, number: int) -> None:
        st = line.strip(WS)
        if self.in_block:
            self.note_swallowed(line, number)
        if st.startswith("```"):
            if self.in_block:
                if self.kind == TICKS:
                    self.append_unless_blank(line, number)
                    self.close_block()
                else:
                    self.findings.append(
                        Finding(
                            "dropped_fence",
                            f"fence line {number} is inside a protected "
                            f"block opened at line {self.block.start if self.block else '?'}, "
                            "so scout-ai deletes it",
                            number,
                        )
                    )
            else:
                self.open_block(TICKS, number)
                self.append_unless_blank(line, number)
            return
        if self.in_block and self.kind == SQUARE and st.endswith("]]"):
            self.append_unless_blank(line.replace("]]", "", 1), number)
            self.close_block()
            return
        if st.startswith("[["):
            self.open_block(SQUARE, number)
            self.append_unless_blank(line.replace("[[", "", 1), number)
            return
        if "{{{" in st and CMD_OPEN.match(st):
            self.open_block(CMD, number)
            self.append_unless_blank(
                CMD_OPEN_REWRITE.sub(r'<cmd_output cmd="\1">', line, count=1) if CMD_OPEN_REWRITE.match(line) else line,
                number,
            )
            return
        if self.in_block and self.kind == SQUARE and " }}}" in st and _cmd_close(st):
            self.append_unless_blank(_cmd_close_rewrite(line), number)
            self.close_block()
            return
        if self.in_block:
            closes = False
            if self.kind == XML:
                found = XML_CLOSE.search(st)
                if found:
                    if self.stack and self.stack[-1] == found.group(1):
                        self.stack.pop()
                    closes = not self.stack
            self.append(line, number)
            if closes:
                self.close_block()
            return
        if st.startswith("<"):
            found = XML_OPEN.match(st)
            if found and self.has_closing(found.group(1)):
                # never reset: a tag left open by a block that `[[` took over still has to be closed
                self.stack.append(found.group(1))
                self.open_block(XML, number, found.group(1))
                self.append(line, number)
                return
        header = HEADER.match(line)
        if header:
            self.header(header.group(1), header.group(2).strip(WS), number)
            return
        if ESCAPED.match(line):
            self.append(line[1:], number)
            return
        self.append(line, number)

    def header(self, role: str, inline: str, number: int) -> None:
        if self.snapshots is not None and role in RESPONSE_ROLES:
            self.snapshots[number] = _Snapshot(
                len(self.messages),
                len(self.findings),
                self.role,
                self.role_set,
                list(self.parts),
                self.header_line,
                self.header_role,
                self.first,
                self.last,
                self.synthetic_first,
                list(self.stack),
            )
        content = "".join(self.parts).strip(WS)
        start, end = self.current_lines()
        if content:
            self.emit(self.role, content, start, end)
        elif not self.messages:
            self.synthetic_first = not self.role_set
            self.emit(self.role, "", start, end)
        elif self.header_role in DIRECTIVES and self.header_line is not None:
            self._ignored_directive()
        if not inline:
            self.role = role
            self.role_set = True
            self.reset(role, number)
        else:
            self.emit(role, inline, number, number)
            if role in ("previous_response_id", "agent"):
                self.role = "user"
                self.role_set = False
            self.reset(None, None)

    def _ignored_directive(self) -> None:
        self.findings.append(
            Finding(
                "ignored_header",
                f"`{self.header_role}:` at line {self.header_line} has no "
                "content, so scout-ai's parser drops it (write it inline: "
                f"`{self.header_role}: VALUE`)",
                self.header_line,
            )
        )

    def finish(self, total_lines: int) -> Parsed:
        if self.in_block:
            self.finish_block(at_end=total_lines)
        raw = "".join(self.parts)
        if raw:
            start, end = self.current_lines()
            if start is None:
                start = end = self.header_line
            self.emit(self.role, raw.strip(WS), start, end)
        elif self.header_role in DIRECTIVES and self.header_line is not None:
            self._ignored_directive()
        return Parsed(self.messages, self.findings, self.synthetic_first)


def parse(text: str) -> Parsed:
    """``Chat.parse(text)``: messages with their source lines, and the hazards met on the way."""
    return _parse(text)[0]


def _parse(text: str, snapshots: bool = False) -> tuple[Parsed, _Parser]:
    lines = text.split("\n")
    while lines and lines[-1] == "":
        lines.pop()  # Ruby's split drops trailing empty fields
    parser = _Parser(text)
    if snapshots:
        parser.snapshots = {}
    if lines and lines[0].startswith(BOM) and HEADER.match(lines[0][1:]):
        # an editor's byte order mark: Ruby keeps it, so the first header does not match and is text
        parser.findings.append(
            Finding(
                "byte_order_mark",
                f"the file starts with a byte order mark (U+FEFF), which scout-ai keeps: "
                f"`{lines[0][1:].split(':')[0]}:` on line 1 is not a header but text of the first message "
                "(save the file without a BOM)",
                1,
            )
        )
    for number, line in enumerate(lines, 1):
        parser.number = number
        parser.line(line, number)
    return parser.finish(len(lines)), parser


# -- the chat as it stood before a line ---------------------------------------------------
RESPONSE_ROLES = frozenset({"assistant", "function_call"})


@dataclass(slots=True)
class _Snapshot:
    """The parser's state just before a response header: enough to finish the file cut there."""

    messages: int
    findings: int
    role: str
    role_set: bool
    parts: list[str]
    header_line: int | None
    header_role: str | None
    first: int | None
    last: int | None
    synthetic_first: bool
    stack: list[str]


class Chunks:
    """A text kept as the pieces it was read in (a file and its appends): ``in`` and ``find`` only."""

    def __init__(self, pieces: list[str]):
        self.pieces = pieces

    @classmethod
    def of(cls, text: str | Chunks, added: str) -> Chunks:
        pieces = [*(text.pieces if isinstance(text, Chunks) else [text]), added]
        if len(pieces) > 32:
            pieces = [pieces[0], "".join(pieces[1:])]  # many small appends: keep the list short
        return cls(pieces)

    def __len__(self) -> int:
        return sum(len(p) for p in self.pieces)

    def __contains__(self, needle: str) -> bool:
        return self.find(needle) >= 0

    def find(self, needle: str) -> int:
        offset, carry = 0, ""
        for piece in self.pieces:
            joined = carry + piece  # a needle may straddle two pieces
            at = joined.find(needle)
            if at >= 0:
                return offset - len(carry) + at
            carry = joined[-len(needle) + 1 :] if len(needle) > 1 else ""
            offset += len(piece)
        return -1


def _find(text: str | Chunks, needle: str) -> int:
    return text.find(needle)


def _tail(text: str | Chunks, count: int) -> str:
    if isinstance(text, Chunks):
        joined = ""
        for piece in reversed(text.pieces):
            joined = piece + joined
            if len(joined) >= count:
                break
        text = joined
    return text[max(0, len(text) - count) :]


class Marked:
    """One parse of a whole file that can also give the parse of the file cut before any response header.

    ``Chat.parse`` reads line by line, so the file cut before line L parses like the whole file up to
    L, then finishes. Two things differ and are replayed: the empty lines just before the cut (Ruby's
    split drops trailing empty fields), and an XML tag whose closing tag the whole file has only after
    the cut (then ``cut`` answers None and the caller parses the cut text itself).
    """

    def __init__(self, text: str | Chunks, resumed: tuple[Parsed, _Parser, list[str]] | None = None):
        self.text = text
        if resumed is None:
            assert isinstance(text, str)
            self.parsed, parser = _parse(text, snapshots=True)
            self.lines = text.split("\n")
        else:
            self.parsed, parser, self.lines = resumed
        self.snapshots = parser.snapshots or {}
        self._starts: list[int] | None = None
        self.asked = dict(parser.asked_at)
        self.closing = dict(parser.closing_tags)
        # each tag asked about: (line first asked, offset of its first closing tag or -1)
        self.tags = [(at, _find(text, f"</{tag}>")) for tag, at in parser.asked_at.items()]

    def extend(self, added: str) -> Marked | None:
        """The parse of this file with ``added`` appended, re-reading only from the last response header
        before the old end (None when an answer about an XML tag changes: parse it all again)."""
        text = Chunks.of(self.text, added)  # not one string: copying a large file's text costs more than parsing
        margin = max((len(t) for t in self.closing), default=0) + 3
        region = _tail(self.text, margin) + added  # a closing tag may straddle the old end
        for tag, known in self.closing.items():
            if not known and f"</{tag}>" in region:
                return None  # a tag read as text may now open a block
        line = max((n for n in self.snapshots if n < len(self.lines)), default=None)
        if line is None:
            return None
        snap = self.snapshots[line]
        parser = _Parser(text)
        parser.snapshots = {n: v for n, v in self.snapshots.items() if n < line}
        parser.messages = self.parsed.messages[: snap.messages]
        parser.findings = self.parsed.findings[: snap.findings]
        parser.role, parser.role_set = snap.role, snap.role_set
        parser.parts = list(snap.parts)
        parser.header_line, parser.header_role = snap.header_line, snap.header_role
        parser.first, parser.last = snap.first, snap.last
        parser.synthetic_first = snap.synthetic_first
        parser.stack = list(snap.stack)
        parser.asked_at = {t: n for t, n in self.asked.items() if n < line}
        parser.closing_tags = {t: self.closing[t] for t in parser.asked_at}
        every = self.lines[:-1] + (self.lines[-1] + added).split("\n")
        count = len(every)
        while count and every[count - 1] == "":
            count -= 1  # Ruby's split drops trailing empty fields
        for number in range(line, count + 1):
            parser.number = number
            parser.line(every[number - 1], number)
        return Marked(text, (parser.finish(count), parser, every))

    def offset(self, line: int) -> int:
        """Character offset where ``line`` (1-based) starts."""
        if self._starts is None:
            self._starts = [0, *accumulate(len(x) + 1 for x in self.lines)]
        return self._starts[line - 1]

    def cut(self, line: int, offset: int | None = None) -> Parsed | None:
        """``parse(text[:offset(line)])`` from the snapshot, or None when it cannot be replayed exactly."""
        found = self._replayed(line, offset, whole=True)
        return None if found is None else found[0]

    def cut_tail(self, line: int) -> tuple[int, Message | None] | None:
        """How many messages ``cut(line)`` holds and its last one, without copying the lists before the
        snapshot (a calls table asks this at every one of 100,000 calls; copying was quadratic)."""
        found = self._replayed(line, None, whole=False)
        if found is None:
            return None
        parsed, before = found
        added = parsed.messages
        if added:
            return before + len(added), added[-1]
        return before, self.parsed.messages[before - 1] if before else None

    def _replayed(self, line: int, offset: int | None, whole: bool) -> tuple[Parsed, int] | None:
        """The parse of the text before ``line`` replayed from its snapshot: with ``whole``, the messages and
        findings before the snapshot are copied in; without, only what the end of the cut adds is parsed
        (and the count before it returned)."""
        snap = self.snapshots.get(line)
        if snap is None:
            return None
        offset = self.offset(line) if offset is None else offset
        for asked, closing in self.tags:
            if asked < line and closing >= offset:
                return None  # the cut text lacks the closing tag the whole file had
        parser = _Parser("")
        parser.messages = self.parsed.messages[: snap.messages] if whole else []
        parser.findings = self.parsed.findings[: snap.findings] if whole else []
        parser.role, parser.role_set = snap.role, snap.role_set
        parts = list(snap.parts)
        blank = line - 2
        while blank >= 0 and self.lines[blank] == "" and parts[-2:] == ["\n", ""]:
            del parts[-2:]  # an empty line before the cut is not in the cut file's split
            blank -= 1
        parser.parts = parts
        parser.header_line, parser.header_role = snap.header_line, snap.header_role
        parser.first, parser.last = snap.first, snap.last
        parser.synthetic_first = snap.synthetic_first
        kept = line - 1
        while kept and self.lines[kept - 1] == "":
            kept -= 1
        return parser.finish(kept), snap.messages
