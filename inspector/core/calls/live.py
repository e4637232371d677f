"""A chat followed while it is written: each poll gives the chat's new history, or says what went wrong."""

from __future__ import annotations

from dataclasses import dataclass

from inspector.core.calls.history import ChatHistory
from inspector.core.errors import InputError
from inspector.core.io.follow import SEAM, Change, Watch


@dataclass(frozen=True, slots=True)
class Update:
    change: Change
    history: ChatHistory | None  # the chat now (None: keep showing the last one read)
    message: str  # one line for the user
    incremental: bool = False  # only the appended part was read


class Follower:
    def __init__(self, history: ChatHistory):
        self.history = history
        self.watch = Watch(history.path, history.size, history.tail(SEAM))

    def poll(self) -> Update | None:
        """None when nothing changed; else what changed and the chat as it is now.

        A file that cannot be read now (caught mid-write, swapped for a FIFO, grown past the size limit,
        changed while read) is "cannot read the chat now" and the last chat read stays: the watch keeps
        the size and seam of that chat, so the next append is checked against what was really read, and
        this state of the file is not reported again."""
        before = self.watch.state()
        result = self.watch.poll()
        change = result.change
        if change is Change.SAME:
            return None
        if change is Change.VANISHED:
            return Update(change, None, f"{self.history.path} is gone; showing the last version read")
        if change is Change.REFUSED:
            self.watch.hold()
            return Update(change, None, f"cannot read the chat now: {result.message}")
        if change is Change.APPENDED:
            old = self.history
            try:
                grown = old.grown(result.appended)
            except MemoryError:
                grown = None
            if grown is not None:
                self.history = grown
                added = len(grown.source) - len(old.source)
                what = f"{len(result.appended):,} bytes appended ({added:+,} messages, {len(grown)} calls)"
                return Update(change, grown, what, True)
        try:
            history = self._reload()
        except (InputError, MemoryError) as exc:
            # a writer caught mid-write (half a JSON document): say so and try again at the next change
            self.watch.restore(before)
            self.watch.hold()
            reason = "ran out of memory" if isinstance(exc, MemoryError) else str(exc)
            return Update(change, None, f"cannot read the chat now: {reason}")
        self.history = history
        what = {
            Change.APPENDED: "appended to",
            Change.REWRITTEN: "rewritten",
            Change.SHRUNK: "shorter than before (truncated); read again",
            Change.RETURNED: "there again",
        }[change]
        return Update(change, history, f"{history.path} {what}")

    def _reload(self) -> ChatHistory:
        old = self.history
        history = ChatHistory(old.chat_source, old.setup)  # the setup followed whole: version, strategies...
        self.watch.reset(history.size, history.tail(SEAM))
        return history
