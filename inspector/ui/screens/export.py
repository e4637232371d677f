"""Export dialog: pick a format and a path; refuses the source chat, asks before replacing a file.

The dialog only decides *what* and *where*; the app writes atomically with the core's
writers, so the bytes equal ``prompt-inspector prepare``/``explain`` output.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Button, Input, RadioButton, RadioSet, Static

from inspector.core.io.atomic import same_file
from inspector.core.io.printers import printer_names
from inspector.core.present.export import EXPLAIN_FORMATS
from inspector.core.present.sanitize import one_line

from ..results import ExportChoice
from ..widgets.burst_input import BurstInput
from .base import Dialog
from .confirm import ConfirmScreen

EXTENSIONS = {"json": "json", "jsonl": "jsonl", "table": "txt", "markdown": "md"}


def choices() -> list[tuple[str, str]]:
    """(kind, format) for every printer, then the explanation report formats."""
    return [("prepare", f) for f in printer_names()] + [("explain", f) for f in EXPLAIN_FORMATS]


def default_path(source: str | None, kind: str, fmt: str) -> str:
    stem = Path(source).stem if source else "chat"
    suffix = "prompt" if kind == "prepare" else "explain"
    return f"{stem}.{suffix}.{EXTENSIONS.get(fmt, fmt)}"


def ask_target(screen, source: str | None, text: str, done: Callable[[Path], object]) -> None:
    """Check the path a dialog was given, ask before replacing a file, then call ``done(target)``.

    ``screen`` has ``say(text, error)``; the chat being inspected and directories are refused.
    Shared by the export dialog and the settings dialog so both ask the same way.
    """
    text = text.strip()
    if not text:
        screen.say("give a file name", True)
        return
    target = Path(text).expanduser()
    if source and target.exists() and same_file(target, source):
        screen.say(f"refusing to overwrite the chat being inspected: {target}", True)
        return
    if target.is_dir():
        screen.say(f"{target} is a directory; give a file name", True)
        return
    if target.exists():

        def answered(yes: bool | None) -> None:
            if yes:
                done(target)
            else:
                screen.say("not replaced; pick another name")

        screen.app.push_screen(ConfirmScreen(f"{target} exists. Replace it?"), answered)
        return
    done(target)


class ExportScreen(Dialog):
    """Dismisses with an ExportChoice or None."""

    BINDINGS = [Binding("escape", "close", "Close", show=False)]

    def __init__(self, source: str | None, kind: str = "prepare", fmt: str = "json"):
        super().__init__()
        self.source = source
        self.kind, self.fmt = kind, fmt

    def compose(self) -> ComposeResult:
        with Vertical(classes="box"):
            yield Static(Content("Export (Enter in the path field writes, Esc cancels)"))
            with RadioSet(id="what"):
                for kind, fmt in choices():
                    label = f"prepared prompt as {fmt}" if kind == "prepare" else f"explanation report as {fmt}"
                    yield RadioButton(Content(label), value=(kind, fmt) == (self.kind, self.fmt), name=f"{kind}:{fmt}")
            yield BurstInput(default_path(self.source, self.kind, self.fmt), id="path", select_on_focus=False)
            yield Static("", id="export-message", classes="hint")
            with Horizontal(classes="buttons"):
                yield Button("Write", id="write", variant="primary")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        self.query_one("#path", Input).focus()

    @on(RadioSet.Changed, "#what")
    def _picked(self, event: RadioSet.Changed) -> None:
        path = self.query_one("#path", Input)
        untouched = path.value == default_path(self.source, self.kind, self.fmt)
        self.kind, self.fmt = (event.pressed.name or "prepare:json").split(":", 1)
        if untouched:  # follow the format unless the user typed a name of their own
            path.value = default_path(self.source, self.kind, self.fmt)
            path.cursor_position = len(path.value)  # typing goes on at the end, not where the old name ended

    def say(self, text: str, error: bool = False) -> None:
        message = self.query_one("#export-message", Static)
        message.set_class(error, "error")
        message.update(Content(one_line(text, 500)))

    @on(Input.Submitted, "#path")
    @on(Button.Pressed, "#write")
    def _write(self, event) -> None:
        event.stop()
        text = self.query_one("#path", Input).value
        ask_target(self, self.source, text, lambda target: self.dismiss(ExportChoice(self.kind, self.fmt, target)))

    @on(Button.Pressed, "#cancel")
    def _cancel(self) -> None:
        self.dismiss(None)
