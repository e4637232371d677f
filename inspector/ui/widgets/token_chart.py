"""The prompt's tokens at every model call, drawn: rebuilt (bars) and recorded by the API (dots), the
context window (calls over it marked !) and the call on screen. A call whose recorded prompt is further
from the rebuilt one than the fitted overhead explains (the trust check) is marked ?. ←/→ (shift: ten)
step through the calls; a click picks one.

Each column is one call, or a bucket of calls when there are more calls than columns (its largest
prompt). The text is built here from numbers only: nothing from the chat is drawn.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual import events, on
from textual.binding import Binding
from textual.content import Content
from textual.message import Message
from textual.widget import Widget

if TYPE_CHECKING:
    from typing import Unpack

    from .options import WidgetOptions

BARS = " ▁▂▃▄▅▆▇█"
ROWS = 3  # bar rows: 24 levels


@dataclass(frozen=True, slots=True)
class TokenSeries:
    """What the chart draws: per call (1-based: index k is call k+1) the rebuilt and recorded tokens."""

    tokenizer: str
    rebuilt: tuple[int, ...]
    recorded: tuple[int | None, ...]
    window: int | None = None
    unexplained: frozenset[int] = frozenset()  # calls the trust check flags
    budget: int | None = None  # the strategy's (or policy's) budget in tokens, drawn as a line (╌)
    budget_label: str = ""  # what it is: "max_tool_chars 100,000 / 4", "trigger"


def columns(total: int, width: int) -> list[tuple[int, int]]:
    """(first call, last call) per column."""
    cells = min(width, total)
    out = []
    for c in range(cells):
        first = c * total // cells
        last = max(first, (c + 1) * total // cells - 1)
        out.append((first + 1, last + 1))
    return out


def chart_lines(series: TokenSeries, current: int | None, width: int) -> list[str]:
    """The chart as text lines: a title, ROWS bar rows, then a row of recorded marks and the call marker."""
    total = len(series.rebuilt)
    if total == 0:
        return ["no model calls: nothing to chart"]
    spans = columns(total, max(1, width))
    rebuilt = [max(series.rebuilt[a - 1 : b]) for a, b in spans]
    recorded = [max((r for r in series.recorded[a - 1 : b] if r is not None), default=None) for a, b in spans]
    top = max([*rebuilt, *(r for r in recorded if r is not None), series.window or 0, series.budget or 0, 1])
    levels = [round(v * ROWS * 8 / top) for v in rebuilt]
    budget_row = None
    if series.budget is not None:  # the row the budget's level falls in: drawn where no bar reaches it
        budget_row = max(1, min(ROWS, -(-round(series.budget * ROWS * 8 / top) // 8)))
    rows = []
    for row in range(ROWS, 0, -1):
        base = (row - 1) * 8
        cells = [BARS[max(0, min(8, level - base))] for level in levels]
        if row == budget_row:
            cells = ["╌" if cell == " " else cell for cell in cells]
        rows.append("".join(cells))
    marks = []
    for (a, b), mine, theirs in zip(spans, rebuilt, recorded):
        if current is not None and a <= current <= b:
            marks.append("▲")
        elif series.window is not None and mine > series.window:
            marks.append("!")
        elif any(n in series.unexplained for n in range(a, b + 1)):
            marks.append("?")
        elif theirs is not None:
            marks.append("•")
        else:
            marks.append(" ")
    now = ""
    if current is not None and 1 <= current <= total:
        seen = series.recorded[current - 1]
        now = f" · call {current}: {series.rebuilt[current - 1]:,} rebuilt" + (
            f", {seen:,} recorded" if seen is not None else ""
        )
    window = ""
    if series.window is not None:
        over = sum(1 for n in series.rebuilt if n > series.window)
        window = f" · window {series.window:,}" + (f" ({over} over: !)" if over else "")
    flagged = f" · {len(series.unexplained):,} unexplained: ?" if series.unexplained else ""
    budget = f" · budget {series.budget:,} ({series.budget_label}): ╌" if series.budget is not None else ""
    title = (
        f"prompt tokens ({series.tokenizer}) over {total} calls: max {max(series.rebuilt):,}"
        f"{budget}{window}{flagged}{now}"
    )
    return [title, *rows, "".join(marks)]


class TokenChart(Widget, can_focus=True):
    DEFAULT_CSS = """
    TokenChart { height: 5; width: 1fr; background: $boost; color: $text; padding: 0 1; display: none; }
    TokenChart.-shown { display: block; }
    TokenChart:focus { background: $accent 20%; }
    """
    BINDINGS = [
        Binding("left", "step(-1)", "Call ◂", show=False),
        Binding("right", "step(1)", "Call ▸", show=False),
        Binding("shift+left", "step(-10)", "Call -10", show=False),
        Binding("shift+right", "step(10)", "Call +10", show=False),
        Binding("escape", "screen.focus_list", "Back to list", show=False),
        Binding("w", "window", "Context window", show=False),
    ]
    WINDOWS = (None, 8_192, 32_768, 128_000, 200_000, 1_000_000)  # w steps through them

    @dataclass
    class Step(Message):
        """Step ``by`` calls from the call on screen (the screen steps as < and > do)."""

        by: int

    @dataclass
    class Pick(Message):
        number: int

    @dataclass
    class Window(Message):
        """The context window the chart marks calls over (None: none)."""

        tokens: int | None

    def __init__(self, **kwargs: Unpack[WidgetOptions]) -> None:
        super().__init__(**kwargs)
        self.series: TokenSeries | None = None
        self.current: int | None = None
        self.text = "prompt tokens over the calls: counting…"

    def show(self, series: TokenSeries | None, current: int | None) -> None:
        self.series, self.current = series, current
        self.redraw()

    def redraw(self) -> None:
        width = max(1, (self.size.width or self.app.size.width) - 2)
        if self.series is None:
            self.text = "prompt tokens over the calls: counting…"
        else:
            lines = chart_lines(self.series, self.current, width)
            if len(lines[0]) > width:  # the title on one line, or the bars would be pushed out of the widget
                lines[0] = lines[0][: max(0, width - 1)] + "…"
            self.text = "\n".join(lines)
        self.refresh()

    def render(self) -> Content:
        return Content(self.text)

    @on(events.Resize)
    def _resize(self) -> None:
        self.redraw()

    def action_step(self, by: int) -> None:
        self.post_message(self.Step(by))

    def action_window(self) -> None:
        """The next context window (--context-window sets one at start)."""
        now = self.series.window if self.series is not None else None
        known = list(self.WINDOWS) if now in self.WINDOWS else [*self.WINDOWS, now]
        self.post_message(self.Window(known[(known.index(now) + 1) % len(known)]))

    @on(events.Click)
    def _click(self, event: events.Click) -> None:
        if self.series is None or not self.series.rebuilt:
            return
        spans = columns(len(self.series.rebuilt), max(1, self.size.width - 2))
        column = event.x - 1
        if 0 <= column < len(spans):
            self.post_message(self.Pick(spans[column][1]))
