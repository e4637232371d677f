"""Messages from workers to the widgets that asked, and from widgets up to the App.

Results come back as messages, never as shared state. A worker that raises is reported
up as WorkerFailed by whoever owns it, and the App's one handler shows it and puts the
screen back in a consistent state.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.dom import DOMNode
from textual.message import Message
from textual.worker import Worker, WorkerState

from inspector.core.analysis.compare import Comparison
from inspector.core.analysis.sweep import SweepRow
from inspector.core.calls.history import ChatHistory
from inspector.core.calls.live import Update
from inspector.core.calls.timeline import Timeline
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
    history: ChatHistory | None = None  # the model calls of the chat


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
    rows: list[SweepRow]  # one per chart column, then the row at the current value
    generation: int  # which request it answers: a newer one may be on its way

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, SweepDone)


@dataclass
class Compared(Message):
    comparison: Comparison
    generation: int

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, Compared)


@dataclass
class CallShown(Message):
    """The chat as it stood before a model call (``number`` None: the whole chat, the next call)."""

    number: int | None
    inspection: Inspection
    rows: RowModel
    prompt: Prompt
    totals: Totals
    order: list[int] | None
    thresholds: Thresholds
    version: int
    row: int | None = None  # the row to select (None: the last message, just above the response)


@dataclass
class StripReady(Message):
    """The tiers of one message over every call, for the strip under the list."""

    index: int
    timeline: Timeline
    version: int


@dataclass
class Followed(Message):
    """A followed chat changed (or could not be read)."""

    update: Update


@dataclass
class WorkerFailed(Message):
    """A worker raised: its owner reports it up; the App's one handler shows it and recovers."""

    worker: Worker[object]
    owner: DOMNode

    @property
    def what(self) -> str:
        return self.worker.description or self.worker.name or "a background task"

    @property
    def error_text(self) -> str:
        error = self.worker.error
        return f"{type(error).__name__}: {error}" if error is not None else "unknown error"


def report_failure(owner: DOMNode, event: Worker.StateChanged) -> None:
    """Called by each worker owner's StateChanged handler (that message does not bubble)."""
    if event.state == WorkerState.ERROR:
        owner.post_message(WorkerFailed(event.worker, owner))
