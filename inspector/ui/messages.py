"""Messages from workers to the widgets that asked, and from widgets up to the App.

Results come back as messages, never as shared state. A worker that raises is reported
as WorkerFailed to whoever owns it: a widget shows its own failure, the chat screen puts
itself back in a consistent state.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.dom import DOMNode
from textual.message import Message
from textual.worker import Worker, WorkerState

from inspector.core.analysis.compare import Comparison
from inspector.core.analysis.sweep import SweepRow
from inspector.core.calls.live import Update
from inspector.core.calls.timeline import Timeline
from inspector.core.corpus.discover import Discovery
from inspector.core.corpus.score import ChatScore

from .document import Document
from .widgets.token_chart import TokenSeries

if TYPE_CHECKING:
    from .widgets.summary import ExactTokens  # summary imports the list, which imports this module


@dataclass
class ChatLoaded(Message):
    """A chat was read (at start, or again): its whole-chat document."""

    document: Document
    elapsed: float


@dataclass
class ChatShown(Message):
    """The first chat is on screen: the App replays the keys typed while it loaded."""


@dataclass
class LoadFailed(Message):
    text: str  # one line: file[:line]: what


@dataclass
class StartFailed(Message):
    """The chat could not be opened at start: the App exits with this line, as the CLI would."""

    text: str


@dataclass
class Replanned(Message):
    document: Document  # the same chat under the settings asked for
    generation: int

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
    """The chat as it stood before a model call (``document.call`` None: the whole chat, the next call)."""

    document: Document
    generation: int
    row: int | None = None  # the row to select (None: the last message, just above the response)


@dataclass
class StripReady(Message):
    """The tiers of one message over every call, for the strip under the list."""

    index: int
    timeline: Timeline
    version: int
    calls: int  # how many calls the history it was computed on has


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
    def summary(self) -> str:
        """One line: what failed and why (the notification every owner shows)."""
        return f"{self.what} failed: {self.error_text}"

    def announce(self, node: DOMNode) -> None:
        node.app.notify(self.summary, title="Failed", severity="error", markup=False)

    @property
    def error_text(self) -> str:
        error = self.worker.error
        return f"{type(error).__name__}: {error}" if error is not None else "unknown error"


def report_failure(owner: DOMNode, event: Worker.StateChanged) -> None:
    """Called by each worker owner's StateChanged handler (that message does not bubble)."""
    if event.state == WorkerState.ERROR:
        owner.post_message(WorkerFailed(event.worker, owner))


@dataclass
class CorpusFound(Message):
    """The corpus view's paths were searched: the chats to score and the files skipped."""

    discovery: Discovery


@dataclass
class CorpusScored(Message):
    """One chat of the corpus scored (``done`` of ``total`` so far) under the settings of ``generation``."""

    score: ChatScore
    done: int
    total: int
    generation: int


@dataclass
class CorpusDone(Message):
    """Every chat scored under the settings of ``generation``."""

    generation: int
    elapsed: float


@dataclass
class CorpusCharted(Message):
    """The corpus summed at each value of one key: (value, chars, refetches), chats ``done`` of ``total``."""

    key: str
    current: int | float
    points: list[tuple[int | float, int, int]]
    done: int
    total: int
    generation: int

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, CorpusCharted)


@dataclass
class TokensCounted(Message):
    """The prompt's tokens at every call of one history (for the token chart)."""

    history: object  # the ChatHistory counted (compared by identity)
    settings: tuple[object, ...]  # the CallSettings key it was counted under
    series: TokenSeries


@dataclass
class HeaderTokens(Message):
    """The header's tokens counted exactly for one plan (``prompt``, compared by identity)."""

    prompt: object
    tokens: ExactTokens

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, HeaderTokens)
