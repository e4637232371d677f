"""Loader findings and threshold warnings, in full (the banner shows only the first)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from inspector.core.present.sanitize import display_text

from .base import Dialog


class NotesScreen(Dialog[None]):
    def __init__(self, lines: list[str]):
        super().__init__()
        self.lines = lines

    def compose(self) -> ComposeResult:
        text = "\n".join(self.lines) if self.lines else "No loader findings or threshold warnings."
        with VerticalScroll(classes="box"):
            yield Static(Content("Notes (Esc to close)\n\n" + display_text(text)), id="notes-text")
