"""A loaded chat: messages with role, content, their other keys and where they came from."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(slots=True, eq=False)
class Message:
    """One message as handed to the prompt strategies.

    ``fields`` is the message mapping in its original key order (role, content and
    any extra keys); output writes it back in that order, as scout-ai does.
    """

    fields: dict[str, Any]
    line: int | None = None  # first source line (1-based), when the format has lines
    end_line: int | None = None
    source: str | None = None  # the file it came from, when not the chat itself (imports)

    @property
    def role(self) -> Any:
        return self.fields.get("role")

    @property
    def content(self) -> Any:
        return self.fields.get("content")

    @property
    def extra(self) -> dict[str, Any]:
        return {k: v for k, v in self.fields.items() if k not in ("role", "content")}

    def with_content(self, content: Any) -> Message:
        fields = dict(self.fields)
        fields["content"] = content
        return Message(fields, self.line, self.end_line, self.source)

    @classmethod
    def make(
        cls, role: str, content: Any, line: int | None = None, end_line: int | None = None, **extra: Any
    ) -> Message:
        return cls({"role": role, "content": content, **extra}, line, end_line)


class Spilled(Protocol):
    """Where a spilled message is read again (io.formats.spill.Spill)."""

    def element(self, piece: int, position: int, length: int) -> dict[str, Any]: ...


class SpilledMessage(Message):
    """A tool message of a lean read (``prepare`` of a large JSON chat): its content was checked as it was
    read and left in the file, so the chat is never held whole. What the plan needs of it is kept: its
    role, its content's length and what the tool check found (``scanned``, see tool_facts.scan_tool).
    ``fields`` reads the message again (message ``position`` of ``piece``), on first use only (the few the
    prompt sends)."""

    __slots__ = ("_cached", "_home", "kind_role", "length", "piece", "position", "scanned")

    def __init__(self, role: str, length: int, scanned: tuple[Any, ...], home: Spilled, piece: int, position: int):
        self.line = self.end_line = self.source = None
        self.kind_role = role
        self.length = length
        self.scanned = scanned
        self._home: Spilled | None = home
        self.piece = piece
        self.position = position
        self._cached: dict[str, Any] | None = None

    @property
    def fields(self) -> dict[str, Any]:
        if self._cached is None:
            assert self._home is not None
            self._cached, self._home = self._home.element(self.piece, self.position, self.length), None
        return self._cached

    @fields.setter
    def fields(self, value: dict[str, Any]) -> None:
        self._cached, self._home = value, None

    @property
    def role(self) -> Any:
        return self.kind_role

    def __repr__(self) -> str:
        return f"SpilledMessage({self.kind_role!r}, {self.length} chars)"


@dataclass(frozen=True, slots=True)
class Finding:
    """Something the loader noticed: a parser hazard, a skipped directive, an encoding repair."""

    kind: str
    message: str
    line: int | None = None
    swallowed: int = 0  # header-like lines taken into content by a hazard
    indices: tuple[int, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "message": self.message,
            "line": self.line,
            "swallowed": self.swallowed,
            "indices": list(self.indices),
        }


@dataclass(slots=True, eq=False)
class Consumed:
    """A stored message removed or rewritten before the strategies ran (tier ``consumed``)."""

    message: Message
    step: str  # e.g. "clear", "option", "meta", "previous_response_id", "import"
    reason: str
    before: int  # index of the prompt message it stood before (len(messages) at the end)


@dataclass(frozen=True, slots=True)
class WireShape:
    """What a Chat Completions file said that scout's one-message-per-call form cannot: which calls
    shared an assistant message with the message before them, and which tool messages had no ``name``.
    The other frameworks' policies read the chat in that shape, so it converts back to what the file held."""

    joined: frozenset[int] = (
        frozenset()
    )  # function_call indices in the same assistant message as the call or text before
    unnamed: frozenset[int] = frozenset()  # function_call_output indices whose tool message had no name


@dataclass(slots=True, eq=False, repr=False)
class Chat:
    """Everything the inspector knows about one stored chat."""

    messages: list[Message]  # what reaches prepare_prompt
    path: str | None = None
    format: str = "json"
    findings: list[Finding] = field(default_factory=list)
    consumed: list[Consumed] = field(default_factory=list)
    read_files: list[str] = field(default_factory=list)  # files pre-processing read (import:, file:, directory:)
    # Threshold values set by the chat itself (scout `config:` lines): key -> (raw value, line)
    config: dict[str, tuple[str, int | None]] = field(default_factory=dict)
    strategies: str | None = None  # `prompt_strategies` chosen by the chat, None for the default
    strategies_line: int | None = None
    # scout-ai options the chat sets (option/sticky_option/endpoint/model/backend/...): key -> (value, line)
    options: dict[str, tuple[object, int | None]] = field(default_factory=dict)
    locator: Callable[[int], int | None] | None = None  # finds a message's line lazily (large JSON files)
    wire: WireShape | None = None  # a Chat Completions file's grouping of calls (None: one response per run)

    def line_of(self, index: int) -> int | None:
        message = self.messages[index]
        if message.line is not None:
            return message.line
        return self.locator(index) if self.locator is not None else None

    def __len__(self) -> int:
        return len(self.messages)

    def __repr__(self) -> str:  # cheap: debug output and worker descriptions must not walk every message
        return f"Chat({self.path!r}, format={self.format!r}, {len(self.messages)} messages)"
