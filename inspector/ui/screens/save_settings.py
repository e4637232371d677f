"""Save settings dialog: the settings in force as etc/config lines (or env lines) to a file.

Same path field and the same "replace it?" question as the export dialog (``ask_target``); the app
writes atomically, so the file holds exactly ``thresholds --format scout-config`` (or ``env``).
"""

from __future__ import annotations

from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Button, Input, RadioButton, RadioSet, Static

from inspector.core.present.sanitize import one_line

from ..results import SettingsChoice
from ..widgets.burst_input import BurstInput
from .base import Dialog
from .export import ask_target

FORMATS = (("scout-config", "etc/config lines (key value prompt)"), ("env", "environment lines (KEY=VALUE)"))
SUFFIXES = {"scout-config": "scout-config", "env": "env"}


def default_path(source: str | None, fmt: str) -> str:
    stem = Path(source).stem if source else "chat"
    return f"{stem}.settings.{SUFFIXES[fmt]}"


class SaveSettingsScreen(Dialog):
    """Dismisses with a SettingsChoice or None."""

    BINDINGS = [Binding("escape", "close", "Close", show=False)]

    def __init__(self, source: str | None, count: int, fmt: str = "scout-config"):
        super().__init__()
        self.source, self.count, self.fmt = source, count, fmt

    def compose(self) -> ComposeResult:
        with Vertical(classes="box"):
            yield Static(
                Content(f"Save the {self.count} settings in force (Enter in the path field writes, Esc cancels)")
            )
            with RadioSet(id="format"):
                for fmt, label in FORMATS:
                    yield RadioButton(Content(label), value=fmt == self.fmt, name=fmt)
            yield BurstInput(default_path(self.source, self.fmt), id="path", select_on_focus=False)
            yield Static("", id="settings-message", classes="hint")
            with Horizontal(classes="buttons"):
                yield Button("Write", id="write", variant="primary")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        self.query_one("#path", Input).focus()

    @on(RadioSet.Changed, "#format")
    def _picked(self, event: RadioSet.Changed) -> None:
        path = self.query_one("#path", Input)
        untouched = path.value == default_path(self.source, self.fmt)
        self.fmt = event.pressed.name or "scout-config"
        if untouched:  # follow the format unless the user typed a name of their own
            path.value = default_path(self.source, self.fmt)
            path.cursor_position = len(path.value)

    def say(self, text: str, error: bool = False) -> None:
        message = self.query_one("#settings-message", Static)
        message.set_class(error, "error")
        message.update(Content(one_line(text, 500)))

    @on(Input.Submitted, "#path")
    @on(Button.Pressed, "#write")
    def _write(self, event) -> None:
        event.stop()
        text = self.query_one("#path", Input).value
        ask_target(self, self.source, text, lambda target: self.dismiss(SettingsChoice(self.fmt, target)))

    @on(Button.Pressed, "#cancel")
    def _cancel(self) -> None:
        self.dismiss(None)
