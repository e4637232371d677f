"""One line under the list: the selected message's tier at every model call, and where the view is.

Each cell is one call (or a bucket of calls when there are more calls than cells: sent when any call in
it sent the message, full before truncated, else the worst tier in it): ``=`` sent full, ``✂``
truncated, ``✗`` dropped, ``·`` not written yet. The cell of the call on screen is shown in reverse.
Text is plain Content, never markup.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import events, on
from textual.content import Content
from textual.widget import Widget

from inspector.core.policies import decision as d

if TYPE_CHECKING:
    from typing import Unpack

    from .options import WidgetOptions

CELLS: dict[str, str] = {
    d.FULL: "=",
    d.TRUNCATED: "✂",
    d.DROPPED: "✗",
    d.CLEARED: "▯",  # another framework's placeholder: none of the text seen
    d.ERROR: "!",
    d.UNDECIDED: "?",
    d.CONSUMED: "⊘",
}
WORST = (d.ERROR, d.UNDECIDED, d.CONSUMED, d.DROPPED, d.CLEARED, d.TRUNCATED, d.FULL)
SENT = (d.FULL, d.TRUNCATED)  # a bucket where any call sent the message reads as sent: "did it see it then?"


def strip_cells(tiers: list[str | None], width: int) -> list[tuple[int, int, str]]:
    """(first call, last call, cell) for each cell; ``tiers[k]`` is call k+1's tier (None: not written)."""
    total = len(tiers)
    if total == 0 or width <= 0:
        return []
    cells = min(width, total)
    out = []
    for c in range(cells):
        first = c * total // cells
        last = max(first, (c + 1) * total // cells - 1)
        bucket = [t for t in tiers[first : last + 1] if t is not None]
        if not bucket:
            out.append((first + 1, last + 1, "·"))
            continue
        shown = next((t for t in SENT if t in bucket), None) or next((t for t in WORST if t in bucket), bucket[0])
        out.append((first + 1, last + 1, CELLS.get(shown, "?")))
    return out


class CallStrip(Widget):
    DEFAULT_CSS = """
    CallStrip { height: 1; width: 1fr; background: $boost; color: $text; padding: 0 1; display: none;
                text-wrap: nowrap; text-overflow: ellipsis; }
    CallStrip.-shown { display: block; }
    """

    def __init__(self, **kwargs: Unpack[WidgetOptions]) -> None:
        super().__init__(**kwargs)
        self.content = Content("")
        self.text = ""
        self.shown: tuple[str, list[str | None], int | None, str] | None = None  # redrawn at a new width

    def show(self, label: str, tiers: list[str | None], current: int | None, note: str) -> None:
        self.shown = (label, tiers, current, note)
        room = self.size.width - 2  # less the padding
        width = max(10, room - len(label) - 3 - min(len(note), 60) - 2)
        cells = strip_cells(tiers, width)
        # on a narrow terminal the note gives way, never the cells (a wrapped line would hide them)
        space = room - len(label) - 2 - len(cells) - 2
        if len(note) > space:
            note = note[: max(0, space - 1)] + "…" if space > 0 else ""
        parts: list[tuple[str, str] | str] = [label + " ▕"]
        for first, last, cell in cells:
            here = current is not None and first <= current <= last
            parts.append((cell, "reverse") if here else cell)
        parts.append("▏ " + note[:200])
        content = Content.assemble(*parts)
        self.text = content.plain
        self.content = content
        self.refresh()

    @on(events.Resize)
    def _resized(self, event: events.Resize) -> None:
        if self.shown is not None:
            self.show(*self.shown)

    def show_text(self, text: str) -> None:
        self.shown = None
        self.content = Content(text)
        self.text = text
        self.refresh()

    def clear(self) -> None:
        self.shown = None
        self.content = Content("")
        self.text = ""
        self.refresh()

    def render(self) -> Content:
        return self.content
