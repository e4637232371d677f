"""The detail pane: the selected message in full, in a read-only, wrapping, virtualised TextArea.

A TextArea renders only what is on screen, so a 2 MB tool output opens quickly; the
text comes from core.detail already sanitized.
"""

from __future__ import annotations

from textual.widgets import TextArea


class DetailPane(TextArea):
    DEFAULT_CSS = """
    DetailPane { border: round $panel-lighten-2; border-title-color: $text-muted; }
    DetailPane:focus { border: round $accent; }
    """

    def __init__(self, **kwargs):
        super().__init__("", read_only=True, soft_wrap=True, show_line_numbers=False, **kwargs)
        self.border_title = "detail"
        self.shown_row: int | None = None

    # Wrapping costs about 0.3 s per million characters on the UI thread: past this, show the start.
    LIMIT = 400_000

    def show(self, row: int | None, text: str) -> None:
        if len(text) > self.LIMIT:
            text = (
                text[: self.LIMIT] + f"\n\n… {len(text) - self.LIMIT:,} more characters not shown here: "
                "y copies the whole original, e exports the prompt"
            )
        if row == self.shown_row and text == self.text:
            return  # a re-plan that did not change this message: keep the scroll position
        self.shown_row = row
        self.load_text(text)
        self.scroll_to(0, 0, animate=False)
