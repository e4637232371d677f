"""The detail pane: the selected message in full, in a read-only, wrapping, virtualised TextArea.

A TextArea renders only what is on screen, so a 2 MB tool output opens quickly; the
text comes from core.detail already sanitized. Home/End (G) go to either end, o and v
to the original and the model-visible parts (the model-visible part of a long cut
message sits far below its original), and a search hit in the message is selected.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import events, on
from textual.binding import Binding
from textual.widgets import TextArea
from textual.widgets.text_area import Selection

from inspector.core.present.detail import RULE
from inspector.core.present.search import ignores_case

if TYPE_CHECKING:
    from typing import Unpack

    from .options import WidgetOptions

SECTIONS = {"original": f"{RULE} original", "visible": f"{RULE} model-visible"}
# the hint follows the focus: o and v jump to the sections only in here (from the list they follow the
# file and open the pager)
HINT_FROM_LIST = "Enter: into it, then o original · v model-visible"
HINT_INSIDE = "o original · v model-visible · Home/End · Esc: back to the list"


class DetailPane(TextArea):
    DEFAULT_CSS = """
    DetailPane { border: round $separator; border-title-color: $text-muted; border-subtitle-color: $text-muted; }
    DetailPane:focus { border: round $accent; }
    """
    BINDINGS = [
        Binding("escape", "screen.focus_list", "Back to list", show=False),  # at once: keys typed next go to the list
        Binding("home", "top", "Top", show=False),
        Binding("end,G", "bottom", "Bottom", show=False),
        Binding("o", "section('original')", "Original", show=False),
        Binding("v", "section('visible')", "Model-visible", show=False),
    ]

    def __init__(self, **kwargs: Unpack[WidgetOptions]) -> None:
        super().__init__("", read_only=True, soft_wrap=True, show_line_numbers=False, **kwargs)
        self.border_title = "detail"
        self.border_subtitle = HINT_FROM_LIST
        self.shown_row: int | None = None
        self.shown_query = ""
        self.wrapped_for: int | None = None  # the wrap width the text was last wrapped at

    # Wrapping costs about 0.3 s per million characters on the UI thread: past this, show the start.
    LIMIT = 400_000

    def show(self, row: int | None, text: str, query: str = "") -> None:
        """``query``: the search in force when this row is one of its hits (selected and scrolled to)."""
        if len(text) > self.LIMIT:
            text = (
                text[: self.LIMIT] + f"\n\n… {len(text) - self.LIMIT:,} more characters not shown here: "
                "y copies it whole, Y the original as stored, e exports the prompt"
            )
        if row == self.shown_row and text == self.text and query == self.shown_query:
            return  # a re-plan that did not change this message: keep the scroll position
        self.shown_row, self.shown_query = row, query
        self.load_text(text)
        self.wrapped_for = self.wrap_width
        if not (query and self.select_text(query)):
            self.move_cursor((0, 0))
            self.scroll_to(0, 0, animate=False)

    def on_focus(self) -> None:
        self.border_subtitle = HINT_INSIDE

    def on_blur(self) -> None:
        self.border_subtitle = HINT_FROM_LIST

    @on(events.Resize)
    def _resized(self, event: events.Resize) -> None:
        self.call_after_refresh(self._rewrap_if_stale)

    def _rewrap_if_stale(self) -> None:
        """TextArea re-wraps in its own resize handler at the width it has then; resized together with
        the list (a terminal resize, the editor opening) that was still the old one, and a wrapped line
        lost its middle. Wrapped again once the layout has settled, at the width it now has."""
        width = self.wrap_width
        if width != self.wrapped_for:
            self.wrapped_for = width
            self.soft_wrap = False  # the public way to re-wrap: each change of soft_wrap wraps anew
            self.soft_wrap = True

    def section_line(self, section: str) -> int | None:
        """The line where the original (``original``) or model-visible (``visible``) part starts."""
        marker = SECTIONS[section]
        return next((i for i, line in enumerate(self.text.split("\n")) if line.startswith(marker)), None)

    def select_text(self, query: str) -> bool:
        """Select the first occurrence of ``query`` (the search's case rule) in the original part and scroll
        to it."""
        lines = self.text.split("\n")
        start = self.section_line("original") or 0
        fold = ignores_case(query)
        needle = query.lower() if fold else query
        for number in range(start + 1, len(lines)):
            column = (lines[number].lower() if fold else lines[number]).find(needle)
            if column >= 0:
                self.selection = Selection((number, column), (number, column + len(query)))
                self.scroll_cursor_visible(center=True, animate=False)
                return True
        return False

    def action_top(self) -> None:
        self.move_cursor((0, 0))
        self.scroll_home(animate=False)

    def action_bottom(self) -> None:
        self.move_cursor(self.document.end)
        self.scroll_end(animate=False)
        # a text loaded a moment ago is measured on the next refresh: scroll again then
        self.call_after_refresh(self.scroll_end, animate=False)

    def action_section(self, section: str) -> None:
        line = self.section_line(section)
        if line is None:
            self.notify(f"this message has no {'original' if section == 'original' else 'model-visible'} part")
            return
        self.move_cursor((line, 0))
        self.scroll_to(y=self.wrapped_document.location_to_offset((line, 0)).y, animate=False)
