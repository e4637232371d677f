"""The sweep chart under the threshold being edited: what each value of that key would send.

Two sparklines (prompt characters, dropped messages) over the key's whole useful range,
a marker under the current value, and a few rows of numbers. The app computes the rows
in a worker (core.sweep) and hands them down; this widget only draws them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual import events
from textual.content import Content
from textual.message import Message
from textual.widgets import Static

from inspector.core.analysis.sweep import SweepRow

if TYPE_CHECKING:
    from typing import Unpack

    from .options import WidgetOptions

BARS = "▁▂▃▄▅▆▇█"
TABLE_ROWS = 5  # sampled values besides the current one
COLUMNS = 24  # values charted: fits the editor (38 cells, less border, padding and scrollbar)


UNITS = ((6, "M"), (9, "G"), (12, "T"), (15, "P"))


def compact(n: int | float) -> str:
    """At most 7 cells for any integer: 105,561, 12.35M, 4.20T, then 9.9e399 (a 20,000-message chat has
    tens of millions of characters; a threshold can have hundreds of digits). Integer arithmetic only:
    a float overflows past about 1e308. A ratio (FLOAT_KEYS) is a float: 3 significant digits."""
    if isinstance(n, float):
        return f"{n:.3g}"
    if n < 1_000_000:
        return f"{n:,}"
    for power, unit in UNITS:
        hundredths = (n * 100 + 10**power // 2) // 10**power
        if hundredths < 100_000:
            return f"{hundredths // 100}.{hundredths % 100:02d}{unit}"
    exponent = int(math.log10(n))  # math.log10 takes an int of any size; its rounding is corrected below
    if 10**exponent > n:
        exponent -= 1
    elif 10 ** (exponent + 1) <= n:
        exponent += 1
    mantissa = n // 10 ** (exponent - 1)  # the first two digits, truncated
    if exponent >= 1000:
        return f"{mantissa // 10}e{exponent}"
    return f"{mantissa // 10}.{mantissa % 10}e{exponent}"


def sparkline(values: list[int]) -> str:
    """Bars scaled from zero, not from the minimum: 216,588 against 217,838 characters must look alike."""
    high = max(values)
    if high <= 0:
        return BARS[0] * len(values)
    return "".join(BARS[round(max(0, v) * (len(BARS) - 1) / high)] for v in values)


def marker_column(rows: list[SweepRow], current: int) -> int:
    """The column nearest the current value (the last one when it is past the range)."""
    return min(range(len(rows)), key=lambda i: (abs(rows[i].value - current), i))


def count(n: int) -> str:
    """At most 4 cells: 9,999 is 9999, 17,920 is 18k (message counts on a 20,000-message chat)."""
    return str(n) if n < 10_000 else f"{round(n / 1000)}k"


def _row_text(row: SweepRow, mark: str) -> str:
    if row.error:
        return f"{mark}{compact(row.value):>7}  scout-ai raises"
    return (
        f"{mark}{compact(row.value):>7} {count(row.messages):>5} {count(row.truncated):>4} "
        f"{count(row.dropped):>4} {compact(row.chars):>7}"
    )


def chart_lines(key: str, current: int, rows: list[SweepRow], now: SweepRow | None) -> list[str]:
    """The chart as plain lines; ``rows`` are the axis values, ``now`` the row at the current value."""
    head, table = chart_parts(key, current, rows, now)
    return head + [text for _, text in table]


def chart_parts(
    key: str, current: int, rows: list[SweepRow], now: SweepRow | None
) -> tuple[list[str], list[tuple[int | float, str]]]:
    """The lines above the table, and the table's rows with their values (a click applies one)."""
    if not rows:
        return [f"sweep {key}: nothing to chart"], []
    column = marker_column(rows, current)
    past = current > rows[-1].value
    lines = [
        f"{key} {compact(rows[0].value)}..{compact(rows[-1].value)}",
        "chars " + sparkline([r.chars for r in rows]),
        "drop  " + sparkline([r.dropped for r in rows]),
    ]
    label = "now, past the end" if past else "now"
    if column >= len(label) + 1:  # the label goes where it fits, so the line never wraps
        lines.append(" " * (6 + column - len(label) - 1) + f"{label} ▲")
    else:
        lines.append(" " * (6 + column) + f"▲ {label}")
    lines.append(f"  {'value':>7} {'sent':>5} {'✂':>4} {'✗':>4} {'chars':>7}")
    picks = {round(i * (len(rows) - 1) / (TABLE_ROWS - 1)) for i in range(TABLE_ROWS)}
    table = [(rows[i].value, rows[i]) for i in sorted(picks)]
    if now is not None:
        table = [t for t in table if t[0] != now.value] + [(now.value, now)]
    table.sort(key=lambda t: t[0])
    return lines, [(value, _row_text(row, "▶ " if row is now else "  ")) for value, row in table]


class SweepChart(Static):
    """A click on a row of its table applies that value; from the key's field, PgDn/PgUp move to the next
    row's value (the editor's keys: the chart takes no Tab stop between the fields)."""

    DEFAULT_CSS = """
    SweepChart { height: auto; margin-top: 1; padding: 0 0; color: $text; background: $boost; }
    SweepChart.-stale { color: $text-muted; }
    """

    @dataclass
    class Picked(Message):
        key: str
        value: int | float

    def __init__(self, **kwargs: Unpack[WidgetOptions]) -> None:
        super().__init__("", **kwargs)
        self.key: str | None = None
        self.lines: list[str] = []
        self.table: list[tuple[int | float, str]] = []  # the table's rows (the chart's last lines), by value

    def waiting(self, key: str) -> None:
        """A sweep for ``key`` is running: keep the old numbers, greyed, until it lands."""
        if key != self.key:
            self.key = key
            self.table = []
            self._set([f"sweep {key}: computing…"])
        self.add_class("-stale")

    def show(self, key: str, current: int, rows: list[SweepRow], now: SweepRow | None) -> None:
        self.key = key
        self.remove_class("-stale")
        head, self.table = chart_parts(key, current, rows, now)
        self._set(head + [text for _, text in self.table])

    def failed(self, error: str) -> None:
        self.remove_class("-stale")
        self.table = []
        self._set([f"sweep {self.key}: failed ({error})"])

    def next_value(self, current: int | float, step: int) -> int | float | None:
        """The table's value after ``current`` (step 1) or before it (-1); None past the ends."""
        values = [value for value, _ in self.table]
        if step > 0:
            return next((v for v in values if v > current), None)
        return next((v for v in reversed(values) if v < current), None)

    def on_click(self, event: events.Click) -> None:
        first = len(self.lines) - len(self.table)  # the table is the last lines
        row = event.y - first
        if self.key is not None and 0 <= row < len(self.table):
            self.post_message(self.Picked(self.key, self.table[row][0]))

    def _set(self, lines: list[str]) -> None:
        # numbers only, but never markup; a layout pass (the whole screen redrawn) only when the height changes
        width = self.content_region.width
        fits = all(len(line) <= width for line in (*lines, *self.lines))  # (a wrapped line changes it too)
        same_height = fits and len(lines) == len(self.lines)
        self.lines = lines
        self.update(Content("\n".join(lines)), layout=not same_height)

    @property
    def text(self) -> str:
        return "\n".join(self.lines)
