"""The header: file, format, strategies and the totals that move with every change.

Data (file names, finding texts) is assembled as plain Content, never parsed as markup.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual import events, on
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Static

from inspector.core.present.sanitize import one_line
from inspector.core.scout.totals import Totals

from .dual_view import GLYPHS, LABELS

if TYPE_CHECKING:
    from typing import Unpack

    from .options import WidgetOptions


@dataclass(frozen=True, slots=True)
class ExactTokens:
    """The header's tokens as a tokenizer counts them: every message before, what is sent after."""

    tokenizer: str
    before: int
    after: int


def _counts(totals: Totals, short: bool) -> str:
    if short:
        return " ".join(f"{GLYPHS[t]}{n:,}" for t, n in totals.shown_tiers().items())
    return "  ".join(f"{GLYPHS[t]} {n:,} {LABELS[t]}" for t, n in totals.shown_tiers().items())


def totals_variants(totals: Totals, exact: ExactTokens | None = None) -> list[str]:
    """The figures from the fullest wording to the tersest: the header takes the first that fits.
    ``exact``: the tokens as the tokenizer counts them, once counted (until then the estimate).

    Numbers are never cut: a narrower terminal drops words and parts, not digits.
    """
    sent = f"{totals.messages:,} -> {totals.visible_messages:,} sent"
    # the prompt's characters, every role: what the sweep chart, why's fixes and calls count
    chars = f"chars {totals.chars_before:,} -> {totals.chars_after:,}"
    tool = f"tool {totals.tool_chars_before:,} -> {totals.tool_chars_after:,}"
    if exact is None:
        tokens = f"~tokens {totals.tokens_before:,} -> {totals.tokens_after:,}"
        named = f"{tokens} (estimate: chars/4)"
    else:
        tokens = f"tokens {exact.before:,} -> {exact.after:,}"
        named = f"{tokens} ({exact.tokenizer})"
    return [
        f"messages {sent}  │  {_counts(totals, False)}  │  prompt {chars} ({tool})  │  {named}",
        f"messages {sent}  │  {_counts(totals, False)}  │  prompt {chars} ({tool})  │  {tokens}",
        f"{sent} │ {_counts(totals, True)} │ {chars} ({tool}) │ {tokens}",
        f"{sent} │ {_counts(totals, True)} │ {chars} │ {tokens}",
        f"{sent} │ {_counts(totals, True)} │ {chars}",
        f"{totals.messages:,}->{totals.visible_messages:,} │ {_counts(totals, True)} │ "
        f"chars {totals.chars_before:,}->{totals.chars_after:,}",
    ]


def fitting(variants: list[str], width: int) -> str:
    return next((v for v in variants if len(v) <= width), variants[-1])


def summary_lines(
    file: str,
    fmt: str,
    strategies: str,
    totals: Totals,
    width: int = 10_000,
    compact: bool = False,
    version: str = "",
    where: str = "",
    exact: ExactTokens | None = None,
) -> list[str]:
    """The header as lines of at most ``width`` cells where possible: two lines, or one when ``compact``.
    ``where``: the call on screen and the follow badge, short (``call 30/60 · following``), which the
    compact line keeps however narrow it is."""
    name = one_line(file, 200)
    short_name = one_line(file.rsplit("/", 1)[-1], 80)
    strategies = one_line(strategies, 80)
    # what plans it: "strategies shorten_tools", or another framework's "policy NAME (settings)"
    plan = strategies if strategies.startswith("policy ") else f"strategies {strategies}"
    figures = totals_variants(totals, exact)
    scout = f"  ·  scout-ai {one_line(version, 40)}" if version else ""
    if compact:
        at = f"{one_line(where, 80)} · " if where else ""
        return [
            fitting(
                [f"{short_name} · {at}{strategies} · {v}" for v in figures] + [f"{at}{v}" for v in figures],
                width,
            )
        ]
    first = fitting(
        [
            f"{name}  ·  format {one_line(fmt, 40)}{scout}  ·  {plan}",
            f"{short_name}  ·  format {one_line(fmt, 40)}{scout}  ·  {plan}",
            f"{short_name}{scout}  ·  {plan}",  # the version matters more than the format
            f"{short_name}  ·  format {one_line(fmt, 40)}  ·  {plan}",
            f"{short_name} · {plan}",
            f"{short_name} · {strategies}",
        ],
        width,
    )
    return [first, fitting(figures, width)]


class SummaryBar(Widget):
    """Two fixed lines (one when compact): new totals repaint this widget alone, never the layout.

    A Static with ``height: auto`` asked for a layout pass on every update, and a layout pass
    re-renders the whole screen: half the time of a threshold change on a large chat.
    """

    DEFAULT_CSS = """
    SummaryBar { height: 2; background: $panel; color: $text; padding: 0 1;
                 text-wrap: nowrap; text-overflow: ellipsis; }
    SummaryBar.-compact { height: 1; }
    """

    shown: tuple[str, ...] = ()

    def __init__(self, text: str = "", **kwargs: Unpack[WidgetOptions]) -> None:
        super().__init__(**kwargs)
        # what was last shown, redrawn on a resize
        self.figures: tuple[str, str, str, Totals, str, str, ExactTokens | None] | None = None
        self.content = Content(one_line(text, 400))

    @property
    def compact(self) -> bool:
        """One line instead of two (h toggles it)."""
        return self.has_class("-compact")

    @compact.setter
    def compact(self, value: bool) -> None:
        self.set_class(value, "-compact")  # the height changes: this one is a layout pass

    def show(
        self,
        file: str,
        fmt: str,
        strategies: str,
        totals: Totals,
        version: str = "",
        where: str = "",
        exact: ExactTokens | None = None,
    ) -> None:
        self.figures = (file, fmt, strategies, totals, version, where, exact)
        width = (self.size.width or self.app.size.width) - 2  # less the padding
        lines = summary_lines(file, fmt, strategies, totals, width, self.compact, version, where, exact)
        if tuple(lines) != self.shown:
            self.shown = tuple(lines)
            self._set(Content.assemble((lines[0], "bold"), *[x for line in lines[1:] for x in ("\n", line)]))

    def redraw(self) -> None:
        if self.figures is not None:
            self.show(*self.figures)

    @on(events.Resize)
    def _resize(self) -> None:
        self.redraw()

    def show_text(self, text: str) -> None:
        self.figures = None
        self.shown = ()
        self._set(Content(one_line(text, 400)))

    def _set(self, content: Content) -> None:
        self.content = content
        self.refresh()  # no layout: the height is fixed

    def render(self) -> Content:
        return self.content


class Banner(Static):
    """scout-ai errors and loader findings; hidden when there are none."""

    DEFAULT_CSS = """
    Banner { height: auto; max-height: 3; padding: 0 1; display: none; }
    Banner.-error { display: block; background: $error 30%; color: $text; }
    Banner.-warning { display: block; background: $warning 25%; color: $text; max-height: 1;
                      text-wrap: nowrap; text-overflow: ellipsis; }
    """

    shown: tuple[tuple[str, ...], bool] | tuple[()] = ()

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

    def __init__(self, **kwargs: Unpack[WidgetOptions]) -> None:
        super().__init__(**kwargs)
        self.text = ""

    def show(self, text: str) -> None:
        text = one_line(text, 400)
        if text != self.text:
            self.text = text
            self.refresh()  # no layout: the size never changes

    def render(self) -> Content:
        return Content(self.text)
