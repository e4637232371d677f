"""Both columns in one Line-API widget: row i is original message i, so the columns cannot drift.

A row costs one cached Strip; 20,000 messages scroll like 20 because only the rows on
screen are ever rendered. Text arrives sanitized from the core and goes out as Segments,
never through markup.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import TYPE_CHECKING

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style as RichStyle
from textual import events, on, work
from textual.cache import LRUCache
from textual.color import Color
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.worker import Worker, get_current_worker

from inspector.core.model import Finding
from inspector.core.policies import decision as d
from inspector.core.present.rows import RowModel
from inspector.core.present.search import find_rows
from inspector.core.scout.prepare import Prompt

from ..contrast import readable
from ..keymap import VIEW_ACTIONS, bindings
from ..messages import SearchDone, report_failure
from ..searching import next_hit

if TYPE_CHECKING:
    from typing import Unpack

    from .options import WidgetOptions

GLYPHS = {
    d.FULL: "=",
    d.TRUNCATED: "✂",
    d.DROPPED: "✗",
    d.CONSUMED: "⊘",
    d.ERROR: "!",
    d.UNDECIDED: "?",
    d.INSERTED: "+",
    d.INJECTED: "»",
    d.CLEARED: "▯",
}
LABELS = {
    d.FULL: "full",
    d.TRUNCATED: "truncated",
    d.DROPPED: "dropped",
    d.CONSUMED: "consumed",
    d.ERROR: "error",
    d.UNDECIDED: "undecided",
    d.INSERTED: "inserted",
    d.INJECTED: "injected",
    d.CLEARED: "cleared",
}


FLAG = "⚑"
SHORT_ROLES = {"system": "sys", "assistant": "asst", "output": "out", "developer": "dev"}
TEXT_PARTS = ("full", "truncated", "dropped", "cleared", "consumed", "error", "undecided", "gutter", "role", "tool")


def fit(text: str, width: int) -> str:
    """Exactly ``width`` cells, with an ellipsis when cut (cell-aware: CJK and emoji measured)."""
    if width <= 0:
        return ""
    if text.isascii() and text.isprintable():  # one cell per character: no grapheme splitting
        return text[: width - 1] + "…" if len(text) > width else text.ljust(width)
    if len(text) > 4 * width + 8:
        # measure a head, not the whole preview (splitting a long one into graphemes costs a millisecond a
        # row): when its first half is already too wide, the cut falls well inside it, the same cut
        head = text[: 4 * width + 8]
        if cell_len(head[: 2 * width + 4]) > width:
            return set_cell_size(head, width - 1) + "…"
    if cell_len(text) > width:
        return set_cell_size(text, width - 1) + "…"
    return set_cell_size(text, width)


def _fg(style: RichStyle) -> RichStyle:
    """A component style without its background, so the row's (cursor, hit) background shows."""
    return (
        style + RichStyle(bgcolor=None)
        if style.bgcolor is None
        else RichStyle.from_color(style.color)
        + RichStyle(bold=style.bold, italic=style.italic, strike=style.strike, dim=style.dim)
    )


class DualColumnView(ScrollView, can_focus=True):
    COMPONENT_CLASSES = {
        "dual--full",
        "dual--truncated",
        "dual--dropped",
        "dual--cleared",
        "dual--consumed",
        "dual--error",
        "dual--undecided",
        "dual--struck",
        "dual--cursor",
        "dual--gutter",
        "dual--role",
        "dual--tool",
        "dual--hit",
        "dual--divider",
        "dual--response",
    }
    DEFAULT_CSS = """
    DualColumnView {
        background: $surface;
        overflow-x: hidden;
        & > .dual--full { color: $text; }
        & > .dual--truncated { color: $text-warning; }
        & > .dual--dropped { color: $text-muted; }
        & > .dual--cleared { color: $text-muted; text-style: italic; }
        & > .dual--consumed { color: $text-secondary; text-style: italic; }
        & > .dual--error { color: $text-error; text-style: bold; }
        & > .dual--undecided { color: $text-muted; text-style: italic; }
        & > .dual--struck { text-style: strike; }
        & > .dual--cursor { background: $accent 25%; }
        & > .dual--gutter { color: $text-muted; }
        & > .dual--role { text-style: bold; }
        & > .dual--tool { color: $text-primary; }
        & > .dual--hit { background: $primary 20%; }
        & > .dual--divider { color: $separator; }
        & > .dual--response { color: $accent; text-style: bold; }
    }
    DualColumnView:focus > .dual--cursor { background: $accent 45%; }
    """
    BINDINGS = bindings(VIEW_ACTIONS)

    cursor: reactive[int] = reactive(0, repaint=False, init=False)

    @dataclass
    class Highlighted(Message):
        row: int

    @dataclass
    class Searched(Message):
        """A search finished (or was cleared): the status line and the notice are the App's."""

        query: str
        hits: list[int]
        landed: bool = False  # the cursor moved to a hit (False: none, or every hit is filtered out)
        incremental: bool = False  # asked while the query is typed: the final one comes with Enter

    def __init__(self, **kwargs: Unpack[WidgetOptions]) -> None:
        super().__init__(**kwargs)
        self.rows: RowModel | None = None
        self.prompt: Prompt | None = None
        self.order: list[int] | None = None  # rows shown in list order, None: every row in file order
        # a list sorted by size: each shown row's position, and the shown rows in file order
        self._positions: dict[int, int] | None = None
        self._by_number: list[int] = []
        self.hits: set[int] = set()  # rows painted as search hits
        self.marked: set[int] = set()  # rows the A/B compare lists as changed
        self.changed: set[int] = set()  # at a call: rows whose tier differs from the call before
        self.flagged: set[int] = set()  # rows a loader finding is about
        self.search_query = ""
        self.search_hits: list[int] = []  # sorted rows whose original content matches
        self._search_from: int | None = None  # the row a search typed incrementally counts from
        self._land = True
        self._cache: LRUCache[tuple[int, int, bool, bool, int], Strip] = LRUCache(2000)  # see render_line's key
        self._version = 0
        self.rendered_rows = 0  # strips built, for tests and the benchmark
        self._style_map: dict[str, dict[str, RichStyle]] | None = None  # per row background (part_styles)
        self._base: RichStyle | None = None  # the widget's own style (rich_style walks the DOM each time)
        # rows drawn after the messages, never selectable: at a model call, the response it produced
        # and how many messages were written after it
        self.tail: list[tuple[str, str]] = []  # (gutter mark, text)

    # -- data (attributes down) -------------------------------------------------------
    def set_data(
        self,
        rows: RowModel | None,
        prompt: Prompt | None,
        order: list[int] | None = None,
        row: int | None = None,
        findings: Sequence[Finding] = (),
    ) -> None:
        """``findings``: the loader's, whose rows are marked (the detail pane repeats them)."""
        self.rows, self.prompt = rows, prompt
        self.flagged = {r for found in rows.finding_rows(findings) for r in found} if rows is not None else set()
        self._set_order(order)
        self._invalidate()
        self.virtual_size = Size(0, self.count + len(self.tail))
        self.go_to_row(row if row is not None else self.current_row or 0)

    def set_prompt(self, prompt: Prompt, order: list[int] | None = None) -> None:
        """A re-plan: the same rows under another prompt. The cursor stays on its row, and says nothing
        when it is still there (the App refreshes the detail pane itself; the strip does not change)."""
        row = self.current_row
        self.prompt = prompt
        self._set_order(order)
        self._invalidate()
        self.virtual_size = Size(0, self.count + len(self.tail))
        if row is not None and self.current_row == row:
            self.scroll_to_cursor()
        else:
            self.go_to_row(row or 0)

    def set_tail(self, tail: list[tuple[str, str]]) -> None:
        self.tail = tail
        self._invalidate()
        self.virtual_size = Size(0, self.count + len(tail))

    def set_marked(self, rows: set[int]) -> None:
        if rows != self.marked:
            self.marked = rows
            self._invalidate()

    def set_changed(self, rows: set[int]) -> None:
        if rows != self.changed:
            self.changed = rows
            self._invalidate()

    def set_hits(self, hits: set[int]) -> None:
        self.hits = hits
        self._invalidate()

    def _set_order(self, order: list[int] | None) -> None:
        self.order = order
        if order is None or all(a < b for a, b in pairwise(order)):
            self._positions, self._by_number = None, []
        else:
            self._positions = {row: k for k, row in enumerate(order)}
            self._by_number = sorted(order)

    def _invalidate(self) -> None:
        self._version += 1
        self._cache.clear()
        self.refresh()

    @property
    def count(self) -> int:
        if self.rows is None:
            return 0
        return len(self.order) if self.order is not None else len(self.rows)

    def row_at(self, position: int) -> int:
        return self.order[position] if self.order is not None else position

    def position_of(self, row: int) -> int:
        """Position of ``row``, or of the first shown row after it (the last one if none)."""
        if self.order is None:
            return max(0, min(row, self.count - 1))
        if self._positions is None:
            return min(bisect_left(self.order, row), max(0, self.count - 1))
        found = self._positions.get(row)
        if found is not None:
            return found
        numbers = self._by_number
        at = bisect_left(numbers, row)
        return self._positions[numbers[at]] if at < len(numbers) else (self._positions[numbers[-1]] if numbers else 0)

    @property
    def current_row(self) -> int | None:
        return self.row_at(self.cursor) if 0 <= self.cursor < self.count else None

    def go_to_row(self, row: int) -> None:
        position = self.position_of(row)
        if position == self.cursor:
            self.watch_cursor(position, position)
        self.cursor = position

    # -- search (the original content; a thread worker finds the rows) ------------------
    def search(self, query: str, origin: int | None = None, land: bool = True) -> None:
        """Find ``query``; the cursor lands on the first hit from the current row, or from ``origin`` (a
        query typed incrementally: each keystroke looks again from where the typing began); ``land``
        False: the hits are painted and the cursor stays (a search put back)."""
        self.search_query = query
        self._search_from = origin
        self._land = land
        if not query or self.rows is None:
            self.search_hits = []
            self.set_hits(set())
            if origin is not None:
                self.go_to_row(origin)
            self.post_message(self.Searched(query, [], incremental=origin is not None))
            return
        self._search(query)

    @work(thread=True, exclusive=True, group="search", description="search", exit_on_error=False)
    def _search(self, query: str) -> None:
        worker = get_current_worker()
        rows = self.rows
        if rows is None:  # set_data took the rows away since search() asked
            return
        hits = find_rows(rows, query, lambda: worker.is_cancelled)
        if not worker.is_cancelled:
            self.post_message(SearchDone(query, hits))

    @on(SearchDone)
    def _search_done(self, event: SearchDone) -> None:
        if event.query != self.search_query:
            return
        self.search_hits = event.hits
        self.set_hits(set(event.hits))
        origin = self._search_from
        if not self._land:
            self.post_message(self.Searched(event.query, event.hits, False, True))
            return
        if origin is not None and self.shows(origin):
            self.go_to_row(origin)
        landed = bool(event.hits) and self.jump_to_match(1, include_current=True)
        if origin is not None and not landed:
            self.go_to_row(origin)
        self.post_message(self.Searched(event.query, event.hits, landed, origin is not None))

    @on(Worker.StateChanged)
    def _worker_state(self, event: Worker.StateChanged) -> None:
        report_failure(self, event)

    def shows(self, row: int) -> bool:
        """Is ``row`` in the list under the current filter?"""
        if self.order is None:
            return 0 <= row < self.count
        position = self.position_of(row)
        return position < self.count and self.row_at(position) == row

    def jump_to_match(self, step: int, include_current: bool = False) -> bool:
        """Move to the next (step 1) or previous (-1) hit the filter shows, in the list's order; False when
        there is none."""
        if self._positions is not None:  # sorted by size: the next hit down the list, not by number
            return self._jump_in_list(step, include_current)
        row = next_hit(self.search_hits, self.current_row or 0, step, self.shows, include_current)
        if row is None:
            return False
        self.go_to_row(row)
        return True

    def _jump_in_list(self, step: int, include_current: bool) -> bool:
        order, hits, count = self.order or [], set(self.search_hits), self.count
        start = self.cursor if include_current else self.cursor + step
        for k in range(count):
            position = (start + k * step) % count if count else 0
            if order[position] in hits:
                self.go_to_row(order[position])
                return True
        return False

    # -- cursor -----------------------------------------------------------------------
    def validate_cursor(self, value: int) -> int:
        return max(0, min(value, self.count - 1)) if self.count else 0

    def watch_cursor(self, old: int, new: int) -> None:
        # content rows: refresh_line subtracts the scroll offset itself
        self.refresh_line(old)
        self.refresh_line(new)
        self.scroll_to_cursor()
        if self.count:
            self.post_message(self.Highlighted(self.row_at(new)))

    def scroll_to_cursor(self) -> None:
        height = max(1, self.scrollable_content_region.height)
        top = round(self.scroll_offset.y)
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False, immediate=True)
        elif self.cursor >= top + height:
            self.scroll_to(y=self.cursor - height + 1, animate=False, immediate=True)

    def action_move(self, delta: int) -> None:
        self.cursor += delta

    def action_page(self, direction: int) -> None:
        height = max(1, self.scrollable_content_region.height)
        self.cursor += direction * height
        self.scroll_to(y=self.scroll_offset.y + direction * height, animate=False, immediate=True)
        self.scroll_to_cursor()

    def action_half_page(self, direction: int) -> None:
        half = max(1, self.scrollable_content_region.height // 2)
        self.cursor += direction * half
        self.scroll_to(y=self.scroll_offset.y + direction * half, animate=False, immediate=True)
        self.scroll_to_cursor()

    def action_first(self) -> None:
        self.cursor = 0

    def action_last(self) -> None:
        self.cursor = max(0, self.count - 1)

    @on(events.Click)
    def _click(self, event: events.Click) -> None:
        position = self.scroll_offset.y + event.y
        if 0 <= position < self.count:
            self.cursor = position
        self.focus()

    # -- drawing ----------------------------------------------------------------------
    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._cache.clear()
        self._style_map = None  # cached strips hold the old theme's colours
        self._base = None

    @on(events.Resize)
    def _resize(self, event: events.Resize) -> None:
        self._cache.clear()
        self.virtual_size = Size(0, self.count + len(self.tail))
        self.call_after_refresh(self.scroll_to_cursor)  # a shorter list must still show the selected row

    def part_styles(self, ground: str = "") -> dict[str, RichStyle]:
        """Foreground parts of the component styles, computed once per theme (and focus), each readable
        (contrast.py) on the row's background: ``ground`` "" a plain row, "cursor" or "hit" a row under
        the cursor or a search hit, whose text is made readable on that background."""
        if self._style_map is None:
            get = self.get_component_rich_style
            styles = {name.removeprefix("dual--"): _fg(get(name)) for name in self.COMPONENT_CLASSES}
            styles["cursor"] = RichStyle(bgcolor=get("dual--cursor").bgcolor)
            styles["hit"] = RichStyle(bgcolor=get("dual--hit").bgcolor)
            maps = {"": styles}
            base = self.rich_style
            background = base.bgcolor
            if not (base.color is None or base.color.is_default or background is None or background.is_default):
                # (an ANSI theme leaves colours to the terminal)
                plain = Color.from_rich_color(background)
                maps[""] = self._readable_on(styles, plain)
                for name in ("cursor", "hit"):
                    fill = styles[name].bgcolor
                    assert fill is not None  # the cursor's and the hit's are the component styles' own
                    # a fill so strong that even white (or black) text fails AA on it is toned back
                    # toward the background first (a mid-tone accent at 45%: 4.2:1 for white)
                    toned = readable(Color.from_rich_color(fill), [plain.get_contrast_text(1.0)], plain)
                    styles = {**styles, name: RichStyle(bgcolor=toned.rich_color)}
                    maps[name] = self._readable_on(styles, toned)
            self._style_map = maps
        return self._style_map.get(ground, self._style_map[""])

    @staticmethod
    def _readable_on(styles: dict[str, RichStyle], fill: Color) -> dict[str, RichStyle]:
        """``styles`` with every text part (and the column divider) readable on ``fill``."""
        fixed_styles = dict(styles)
        text = fill.get_contrast_text(1.0)  # white on dark, black on light
        for part in (*TEXT_PARTS, "divider"):
            colour = styles[part].color
            if colour is not None and not colour.is_default:
                fixed = readable(Color.from_rich_color(colour), [fill], text)
                fixed_styles[part] = styles[part] + RichStyle(color=fixed.rich_color)
        return fixed_styles

    @property
    def base_style(self) -> RichStyle:
        if self._base is None:
            self._base = self.rich_style
        return self._base

    def render_line(self, y: int) -> Strip:
        position = self.scroll_offset.y + y
        width = self.scrollable_content_region.width
        if self.rows is not None and self.prompt is not None and 0 <= position - self.count < len(self.tail):
            mark, text = self.tail[position - self.count]
            styles = self.part_styles("hit")  # drawn on the hit's background, as toned for its text
            style = self.base_style + styles["response"] + styles["hit"]
            return Strip([Segment(fit(f"{mark} {text}", width), style)]).crop_extend(0, width, self.base_style)
        if self.rows is None or self.prompt is None or position >= self.count:
            return Strip.blank(width, self.base_style)
        row = self.row_at(position)
        key = (row, width, position == self.cursor, row in self.hits, self._version)
        strip = self._cache.get(key)
        if strip is None:
            strip = self._render_row(row, width, position == self.cursor, row in self.hits)
            self._cache[key] = strip
        return strip

    def _render_row(self, row: int, width: int, is_cursor: bool, is_hit: bool) -> Strip:
        self.rendered_rows += 1
        rows, prompt = self.rows, self.prompt
        assert rows is not None and prompt is not None  # render_line draws a row only with both
        tier, right_text = rows.right(row, prompt)
        role, tool, preview = rows.left(row)
        ground = "cursor" if is_cursor else "hit" if is_hit else ""
        styles = self.part_styles(ground)
        base = self.base_style
        if ground:
            # only the background (the text colours are those readable on it)
            base = base + styles[ground]
        tier_style = base + styles[tier]
        digits = len(str(max(0, len(rows) - 1)))
        # Δ: the row differs between the pinned A and the current B (A/B compare); •: at a call, its tier
        # differs from the call before; ⚑: a loader finding is about it (i lists them)
        flag = "Δ" if row in self.marked else "•" if row in self.changed else FLAG if row in self.flagged else " "
        gutter = f"{GLYPHS.get(tier, ' ')}{flag}{row:>{digits}} "
        col = max(4, (width - len(gutter) - 1) // 2)
        right_width = max(0, width - len(gutter) - 1 - col)
        segments = [Segment(gutter[:2], tier_style), Segment(gutter[2:], base + styles["gutter"])]
        segments += self._cell(role, tool, preview, col, tier_style, base, styles)
        segments.append(Segment("│", base + styles["divider"]))
        if tier in (d.FULL, d.TRUNCATED):
            mark = "✂ " if tier == d.TRUNCATED else ""
            segments += self._cell(role, tool, mark + right_text, right_width, tier_style, base, styles)
        elif tier == d.DROPPED:
            segments.append(Segment(fit(f"✗ {LABELS[tier]}", right_width), tier_style + styles["struck"]))
        else:
            segments.append(Segment(fit(f"{GLYPHS.get(tier, '')} {right_text}", right_width), tier_style))
        return Strip(segments).crop_extend(0, width, self.base_style)

    @staticmethod
    def _cell(
        role: str,
        tool: str,
        text: str,
        width: int,
        tier_style: RichStyle,
        base: RichStyle,
        styles: dict[str, RichStyle],
    ) -> list[Segment]:
        # a narrow column keeps room for the text: a shorter role and a capped tool name
        role_cell = (fit(role, 9) if width >= 30 else fit(SHORT_ROLES.get(role, role), 4)) + " "
        tool_cell = f"{fit(tool, max(4, width // 3)) if cell_len(tool) + 2 > width // 3 else tool}: " if tool else ""
        used = cell_len(role_cell) + cell_len(tool_cell)
        if used >= width:
            return [Segment(fit(role_cell + tool_cell, width), tier_style)]
        return [
            Segment(role_cell, tier_style + styles["role"]),
            Segment(tool_cell, base + styles["tool"]),
            Segment(fit(text, width - used), tier_style),
        ]
