"""Messages from workers to the app: results come back as messages, never as shared state."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from inspector.core.inspection import Inspection
from inspector.core.present.rows import RowModel
from inspector.core.scout.prepare import Prompt
from inspector.core.scout.settings import Thresholds
from inspector.core.scout.totals import Totals


@dataclass
class ChatLoaded(Message):
    inspection: Inspection
    rows: RowModel
    prompt: Prompt
    totals: Totals
    loaded: Thresholds  # the values resolved at load (what "reset" returns to)
    elapsed: float


@dataclass
class LoadFailed(Message):
    text: str  # one line: file[:line]: what


@dataclass
class Replanned(Message):
    prompt: Prompt
    thresholds: Thresholds
    strategies: str | None
    totals: Totals
    order: list[int] | None  # rows shown under the current filter (None: all)
    version: int

    def can_replace(self, message: Message) -> bool:  # only the newest plan matters
        return isinstance(message, Replanned)


@dataclass
class SearchDone(Message):
    query: str
    hits: list[int]


@dataclass
class Exported(Message):
    path: str
    size: int


@dataclass
class SweepDone(Message):
    key: str
    current: int  # the focused key's value the sweep was run around
    rows: list  # SweepRow, one per chart column
    version: int  # the app's plan version it belongs to

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, SweepDone)


@dataclass
class Compared(Message):
    comparison: object  # core.compare.Comparison
    version: int

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, Compared)
