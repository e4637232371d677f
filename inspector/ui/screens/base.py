"""A modal dialog with a bordered box in the middle and Escape to close."""

from __future__ import annotations

from typing import TypeVar

from textual.binding import Binding
from textual.screen import ModalScreen

ResultT = TypeVar("ResultT")


class Dialog(ModalScreen[ResultT]):
    """Dismisses with a ``ResultT`` (the dialog's answer) or None (closed)."""

    DEFAULT_CSS = """
    Dialog { align: center middle; }
    Dialog > .box {
        width: 76; max-width: 95%; height: auto; max-height: 90%;
        border: round $accent; background: $panel; padding: 0 1;
    }
    Dialog .hint { color: $text-muted; }
    Dialog .error { color: $error; }
    Dialog Horizontal.buttons { height: auto; align-horizontal: right; margin-top: 1; }
    Dialog Horizontal.buttons Button { margin-left: 1; }
    """
    BINDINGS = [Binding("escape", "close", "Close", show=False)]

    def action_close(self) -> None:
        self.dismiss(None)
