"""What the export and save-settings dialogs share: pick a format, a path that follows it, write or cancel.

The dialog only decides *what* and *where*; the app writes atomically with the core's writers.
A subclass names its heading, its choices (``options``), the default path for the current one, how a picked
button changes it (``pick``) and what the dialog dismisses with (``choice``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol, TypeVar

from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Button, Input, RadioButton, RadioSet, Static

from inspector.core.io.atomic import same_file
from inspector.core.present.sanitize import one_line

from ..widgets.burst_input import BurstInput
from .base import Dialog
from .confirm import ConfirmScreen

ChoiceT = TypeVar("ChoiceT")


class Asking(Protocol):
    """What ask_target needs of its dialog: a line to say things on, and the app to ask with."""

    @property
    def app(self) -> App[object]: ...

    def say(self, text: str, error: bool = False) -> None: ...


def ask_target(
    screen: Asking, source: str | None, text: str, done: Callable[[Path], object], included: Sequence[str] = ()
) -> None:
    """Check the path a dialog was given, ask before replacing a file, then call ``done(target)``.

    ``screen`` has ``say(text, error)``; the chat being inspected, the files it reads (``included``:
    its next load would change) and directories are refused.
    """
    text = text.strip()
    if not text:
        screen.say("give a file name", True)
        return
    target = Path(text).expanduser()
    if source and target.exists() and same_file(target, source):
        screen.say(f"refusing to overwrite the chat being inspected: {target}", True)
        return
    if target.exists() and any(same_file(target, path) for path in included):
        screen.say(f"refusing to overwrite a file the chat reads (import:, file: or directory:): {target}", True)
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


class WriteDialog(Dialog[ChoiceT]):
    """Dismisses with ``choice(target)`` or None."""

    BINDINGS = [
        Binding("escape", "close", "Close", show=False),
        # the path field has the focus from the start; a one-line field has no use for up and down
        Binding("up", "step_choice(-1)", "Previous format", show=False),
        Binding("down", "step_choice(1)", "Next format", show=False),
    ]
    RADIO_ID = "format"
    MESSAGE_ID = "write-message"

    def __init__(self, source: str | None, included: Sequence[str] = ()):
        super().__init__()
        self.source, self.included = source, included

    # -- what a subclass says ---------------------------------------------------------
    def heading(self) -> str:
        raise NotImplementedError

    def options(self) -> list[tuple[str, str, bool]]:
        """(label, button name, selected) for every choice."""
        raise NotImplementedError

    def default_path(self) -> str:
        raise NotImplementedError

    def pick(self, name: str | None) -> None:
        raise NotImplementedError

    def choice(self, target: Path) -> ChoiceT:
        raise NotImplementedError

    # -- shared -----------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        with Vertical(classes="box"):
            yield Static(Content(self.heading()))
            with RadioSet(id=self.RADIO_ID):
                for label, name, selected in self.options():
                    yield RadioButton(Content(label), value=selected, name=name)
            yield BurstInput(self.default_path(), id="path", select_on_focus=False)
            yield Static("", id=self.MESSAGE_ID, classes="hint")
            with Horizontal(classes="buttons"):
                yield Button("Write", id="write", variant="primary")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        self.query_one("#path", Input).focus()

    @on(RadioSet.Changed)
    def _picked(self, event: RadioSet.Changed) -> None:
        path = self.query_one("#path", Input)
        untouched = path.value == self.default_path()
        self.pick(event.pressed.name)
        if untouched:  # follow the format unless the user typed a name of their own
            path.value = self.default_path()
            path.cursor_position = len(path.value)  # typing goes on at the end, not where the old name ended

    def action_step_choice(self, step: int) -> None:
        """The choice before or after the one picked (the list's ends stop it), as if it were pressed."""
        buttons = list(self.query_one(f"#{self.RADIO_ID}", RadioSet).query(RadioButton))
        at = next((k for k, b in enumerate(buttons) if b.value), 0)
        target = min(max(at + step, 0), len(buttons) - 1)
        if target != at:
            buttons[target].value = True

    def say(self, text: str, error: bool = False) -> None:
        message = self.query_one(f"#{self.MESSAGE_ID}", Static)
        message.set_class(error, "error")
        message.update(Content(one_line(text, 500)))

    @on(Input.Submitted, "#path")
    @on(Button.Pressed, "#write")
    def _write(self, event: Input.Submitted | Button.Pressed) -> None:
        event.stop()
        text = self.query_one("#path", Input).value
        ask_target(self, self.source, text, lambda target: self.dismiss(self.choice(target)), self.included)

    @on(Button.Pressed, "#cancel")
    def _cancel(self) -> None:
        self.dismiss(None)
