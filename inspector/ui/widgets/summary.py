"""The header: file, format, strategies and the totals that move with every change.

Data (file names, finding texts) is assembled as plain Content, never parsed as markup.
"""

from __future__ import annotations

from textual.content import Content
from textual.widget import Widget
from textual.widgets import Static

from inspector.core.present.sanitize import one_line
from inspector.core.scout.totals import Totals

from .dual_view import GLYPHS, LABELS


def summary_lines(file: str, fmt: str, strategies: str, totals: Totals, version: str = "") -> tuple[str, str]:
    counts = "  ".join(f"{GLYPHS[t]} {n:,} {LABELS[t]}" for t, n in totals.shown_tiers().items())
    scout = f"  ·  scout-ai {version}" if version else ""
    first = f"{one_line(file, 200)}  ·  format {one_line(fmt, 40)}{scout}  ·  strategies {one_line(strategies, 80)}"
    second = (
        f"messages {totals.messages:,} -> {totals.visible_messages:,} sent  │  {counts}  │  "
        f"tool chars {totals.tool_chars_before:,} -> {totals.tool_chars_after:,}  │  "
        f"~tokens {totals.tokens_before:,} -> {totals.tokens_after:,} (estimate: chars/4)"
    )
    return first, second


class SummaryBar(Static):
    DEFAULT_CSS = """
    SummaryBar { height: auto; background: $panel; color: $text; padding: 0 1; }
    """

    shown: tuple = ()

    def show(self, file: str, fmt: str, strategies: str, totals: Totals, version: str = "") -> None:
        first, second = summary_lines(file, fmt, strategies, totals, version)
        if (first, second) != self.shown:  # an update costs a layout pass: skip it when nothing changed
            self.shown = (first, second)
            self.update(Content.assemble((first, "bold"), "\n", Content(second)))

    def show_text(self, text: str) -> None:
        self.update(Content(one_line(text, 400)))


class Banner(Static):
    """scout-ai errors and loader findings; hidden when there are none."""

    DEFAULT_CSS = """
    Banner { height: auto; max-height: 3; padding: 0 1; display: none; }
    Banner.-error { display: block; background: $error 30%; color: $text; }
    Banner.-warning { display: block; background: $warning 25%; color: $text; max-height: 1;
                      text-wrap: nowrap; text-overflow: ellipsis; }
    """

    shown: tuple = ()

    def show_lines(self, lines: list[str], error: bool) -> None:
        if (tuple(lines), error) == self.shown:
            return
        self.shown = (tuple(lines), error)
        self.set_class(bool(lines) and error, "-error")
        self.set_class(bool(lines) and not error, "-warning")
        self.update(Content("\n".join(one_line(line, 600) for line in lines[:3])))


class StatusLine(Widget):
    """One fixed line; repainting it must not trigger a layout pass on every cursor move."""

    DEFAULT_CSS = """
    StatusLine { height: 1; width: 1fr; background: $boost; color: $text-muted; padding: 0 1; }
    """

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.text = ""

    def show(self, text: str) -> None:
        text = one_line(text, 400)
        if text != self.text:
            self.text = text
            self.refresh()  # no layout: the size never changes

    def render(self) -> Content:
        return Content(self.text)
