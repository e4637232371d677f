"""Filter rows by tier, role, tool name and size, and order them by size; the answer is a RowFilter."""

from __future__ import annotations

import re

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Button, Input, RadioButton, RadioSet, Static

from inspector.core.policies import decision as d
from inspector.core.present.rows import RowOrder
from inspector.core.present.sanitize import one_line

from ..document import RowFilter
from .base import Dialog

ANY = "any"
TIER_CHOICES = ("cut", d.TRUNCATED, d.DROPPED, d.FULL, d.CONSUMED, d.ERROR, d.UNDECIDED)
TIER_TEXT = {"cut": "truncated or dropped"}
SIZE = re.compile(r"(\d+(?:\.\d+)?)\s*([km]?)", re.IGNORECASE)
SCALE = {"": 1, "k": 1_000, "m": 1_000_000}


def parse_size(text: str) -> int | None:
    """``5000``, ``5,000``, ``5k``, ``1.5m``: a count of characters; empty: no size filter. ValueError names
    what is wrong."""
    value = text.strip().replace(",", "").replace("_", "")
    if not value:
        return None
    match = SIZE.fullmatch(value)
    if match is None or not match.group(1).isascii():
        raise ValueError(f"not a size: {one_line(text, 30)!r} (a number of characters: 5000, 5k, 1.5m)")
    return int(float(match.group(1)) * SCALE[match.group(2).lower()])


class FilterScreen(Dialog[RowFilter]):
    DEFAULT_CSS = """
    FilterScreen Horizontal.sets { height: auto; }
    FilterScreen RadioSet { width: 1fr; height: auto; max-height: 14; }
    FilterScreen Horizontal.size { height: auto; margin-top: 1; }
    FilterScreen Horizontal.size .label { width: auto; padding: 1 1 0 0; }
    FilterScreen #min-chars { width: 16; }
    FilterScreen #order { width: auto; height: auto; }
    """
    BINDINGS = [Binding("escape", "close", "Close", show=False), Binding("a", "apply", "Apply", show=False)]

    def __init__(self, current: RowFilter, roles: list[str], tools: list[str] | None = None):
        super().__init__()
        self.current, self.roles, self.tools = current, roles[:40], (tools or [])[:60]

    def compose(self) -> ComposeResult:
        now = self.current
        with Vertical(classes="box"):
            yield Static(
                Content("Filter rows: pick with ↑↓ and Space/Enter, Tab to the next list, then Apply (a or Enter)")
            )
            with Horizontal(classes="sets"):
                with RadioSet(id="tier"):
                    yield RadioButton(Content("any tier"), value=now.tier is None, name=ANY)
                    for t in TIER_CHOICES:
                        yield RadioButton(Content(TIER_TEXT.get(t, t)), value=now.tier == t, name=t)
                with RadioSet(id="role"):
                    yield RadioButton(Content("any role"), value=now.role is None, name=ANY)
                    for r in self.roles:
                        yield RadioButton(Content(one_line(r, 30)), value=now.role == r, name=r)
                with RadioSet(id="tool"):
                    yield RadioButton(Content("any tool"), value=now.tool is None, name=ANY)
                    for t in self.tools:
                        yield RadioButton(Content(one_line(t, 30)), value=now.tool == t, name=t)
            with Horizontal(classes="size"):
                yield Static(Content("at least"), classes="label")
                size = "" if now.min_chars is None else str(now.min_chars)
                yield Input(size, placeholder="any size", id="min-chars")
                yield Static(Content("characters (original)"), classes="label")
            with Horizontal(classes="size"):
                yield Static(Content("order:"), classes="label")
                with RadioSet(id="order"):
                    for order in RowOrder:
                        yield RadioButton(Content(order.label), value=now.order is order, name=order.value)
            yield Static("", id="filter-error", classes="error")
            with Horizontal(classes="buttons"):
                yield Button("Apply (a)", id="apply", variant="primary")
                yield Button("Clear", id="clear")

    @staticmethod
    def _picked(radio: RadioSet) -> str | None:
        button = radio.pressed_button
        return None if button is None or button.name == ANY else button.name

    def action_apply(self) -> None:
        try:
            min_chars = parse_size(self.query_one("#min-chars", Input).value)
        except ValueError as exc:
            self.query_one("#filter-error", Static).update(Content(str(exc)))
            self.query_one("#min-chars", Input).focus()
            return
        order = self._picked(self.query_one("#order", RadioSet))
        self.dismiss(
            RowFilter(
                self._picked(self.query_one("#tier", RadioSet)),
                self._picked(self.query_one("#role", RadioSet)),
                self._picked(self.query_one("#tool", RadioSet)),
                min_chars,
                RowOrder(order) if order is not None else RowOrder.FILE,
            )
        )

    @on(Input.Submitted, "#min-chars")
    @on(Button.Pressed, "#apply")
    def _apply(self) -> None:
        self.action_apply()

    @on(Input.Changed, "#min-chars")
    def _typed(self) -> None:
        self.query_one("#filter-error", Static).update("")

    @on(Button.Pressed, "#clear")
    def _clear(self) -> None:
        self.dismiss(RowFilter())
