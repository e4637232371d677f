"""A modal dialog with a bordered box in the middle and Escape to close."""

from __future__ import annotations

from textual.binding import Binding
from textual.screen import ModalScreen


class Dialog(ModalScreen):
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
