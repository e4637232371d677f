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
        """None when nothing changed; else what changed and the chat as it is now."""
        result = self.watch.poll()
        change = result.change
        if change is Change.SAME:
            return None
        if change is Change.VANISHED:
            return Update(change, None, f"{self.history.path} is gone; showing the last version read")
        if change is Change.APPENDED:
            old = self.history
            grown = old.grown(result.appended)
            if grown is not None:
                self.history = grown
                added = len(grown.source) - len(old.source)
                what = f"{len(result.appended):,} bytes appended ({added:+,} messages, {len(grown)} calls)"
                return Update(change, grown, what, True)
        try:
            history = self._reload()
        except InputError as exc:
            # a writer caught mid-write (half a JSON document): say so and try again at the next change
            self.watch.reset(None, b"")
            return Update(change, None, f"cannot read the chat now: {exc}")
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
