"""One input line at the bottom, for search (`/`), go-to (`g`) and why (`w`); hidden otherwise."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.binding import Binding
from textual.message import Message

from .burst_input import BurstInput

if TYPE_CHECKING:
    from typing import Unpack

    from .options import WidgetOptions

PLACEHOLDERS = {
    "search": "search original content, Enter to run, Esc to close",
    "goto": "message number (the # column), or a model call (call 12, c12); Enter to go",
    "why": "a text the model forgot, Enter to trace it (then i: ignore case, x: regex)",
}
TITLES = {"search": "search", "goto": "go to", "why": "why: trace a text"}


class PromptBar(BurstInput):
    DEFAULT_CSS = """
    PromptBar { dock: bottom; display: none; border: tall $accent; height: 3; }
    PromptBar.-open { display: block; }
    """
    BINDINGS = [Binding("escape", "close", "Close", show=False)]

    @dataclass
    class Done(Message):
        """Enter: run ``value`` in ``mode``; the App also puts the focus back on the list."""

        mode: str
        value: str

    class Closed(Message):
        """Esc: nothing to run; the App puts the focus back on the list."""

    def __init__(self, **kwargs: Unpack[WidgetOptions]) -> None:
        super().__init__(**kwargs)
        self.mode = "search"
        self.last: dict[str, str] = {}  # what each mode ran last: / and w open with it

    def open(self, mode: str, value: str | None = None) -> None:
        self.mode = mode
        self.placeholder = PLACEHOLDERS[mode]
        self.border_title = TITLES[mode]
        self.value = self.last.get(mode, "") if value is None else value
        self.add_class("-open")  # the App moves the focus here (focus_then_replay keeps keys typed meanwhile)

    def action_close(self) -> None:
        self.remove_class("-open")
        self.screen.set_focus(None)  # now: keys typed next reach the App's bindings, not a hidden bar
        self.post_message(self.Closed())

    async def action_submit(self) -> None:
        value = self.value
        self.remove_class("-open")
        self.last[self.mode] = value
        self.screen.set_focus(None)  # now: keys typed next reach the App's bindings, not a hidden bar
        self.post_message(self.Done(self.mode, value))
