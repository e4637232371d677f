"""Loader findings and threshold warnings, in full (the banner shows only the first); Enter on a finding
jumps to the message it is about."""

from __future__ import annotations

from dataclasses import dataclass

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from inspector.core.present.sanitize import display_text

from ..results import JumpTo
from .base import Dialog


@dataclass(frozen=True)
class Note:
    text: str
    rows: tuple[int, ...] = ()  # the messages it is about (the list marks them ⚑)


class NotesScreen(Dialog[JumpTo]):
    DEFAULT_CSS = """
    NotesScreen > .box { width: 110; }
    NotesScreen #notes-list { height: auto; max-height: 70vh; border: none; padding: 0; background: $panel; }
    """

    def __init__(self, notes: list[Note]):
        super().__init__()
        self.notes = notes

    def compose(self) -> ComposeResult:
        with Vertical(classes="box"):
            yield Static(Content("Notes"), id="notes-title")
            if not self.notes:
                yield Static(Content("No loader findings or threshold warnings."), id="notes-text")
            else:
                yield OptionList(*(self._option(k, note) for k, note in enumerate(self.notes)), id="notes-list")
            yield Static(
                Content("Enter: jump to the message a finding is about (⚑ in the list) · Esc: close"), classes="hint"
            )

    @staticmethod
    def _option(k: int, note: Note) -> Option:
        rows = note.rows
        where = ""
        if rows:
            where = " → " + ", ".join(f"#{r}" for r in rows[:6]) + (" …" if len(rows) > 6 else "")
        return Option(Content(display_text(note.text) + where), id=str(k))

    def on_mount(self) -> None:
        if self.notes:
            self.query_one("#notes-list", OptionList).focus()

    @property
    def text(self) -> str:
        """What the dialog lists, a line per note."""
        if not self.notes:
            return str(self.query_one("#notes-text", Static).render())
        options = self.query_one("#notes-list", OptionList)
        return "\n".join(str(options.get_option_at_index(i).prompt) for i in range(options.option_count))

    @on(OptionList.OptionSelected, "#notes-list")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        assert event.option.id is not None  # every option is made with its note's index
        note = self.notes[int(event.option.id)]
        if not note.rows:
            self.notify("this note is about no one message", severity="warning")
            return
        self.dismiss(JumpTo(note.rows[0]))
