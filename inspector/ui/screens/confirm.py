"""Yes/no question; the answer is the dismiss value."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Button, Static

from inspector.core.present.sanitize import one_line

from .base import Dialog


class ConfirmScreen(Dialog[bool]):
    BINDINGS = [Binding("escape,n", "answer(False)", "No", show=False), Binding("y", "answer(True)", "Yes", show=False)]

    def __init__(self, question: str):
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(classes="box"):
            yield Static(Content(one_line(self.question, 500)))
            with Horizontal(classes="buttons"):
                yield Button("Replace (y)", id="yes", variant="warning")
                yield Button("Cancel (n)", id="no")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")
