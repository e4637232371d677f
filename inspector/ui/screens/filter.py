"""Filter rows by tier, role and tool name; the result is a FilterChoice."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Button, RadioButton, RadioSet, Static

from inspector.core.policies import decision as d
from inspector.core.present.sanitize import one_line

from ..results import FilterChoice
from .base import Dialog

ANY = "any"
TIER_CHOICES = ("cut", d.TRUNCATED, d.DROPPED, d.FULL, d.CONSUMED, d.ERROR, d.UNDECIDED)
TIER_TEXT = {"cut": "truncated or dropped"}


class FilterScreen(Dialog[FilterChoice]):
    DEFAULT_CSS = """
    FilterScreen Horizontal.sets { height: auto; }
    FilterScreen RadioSet { width: 1fr; height: auto; max-height: 14; }
    """
    BINDINGS = [Binding("escape", "close", "Close", show=False), Binding("a", "apply", "Apply", show=False)]

    def __init__(
        self,
        tier: str | None,
        role: str | None,
        roles: list[str],
        tool: str | None = None,
        tools: list[str] | None = None,
    ):
        super().__init__()
        self.tier, self.role, self.roles = tier, role, roles[:40]
        self.tool, self.tools = tool, (tools or [])[:60]

    def compose(self) -> ComposeResult:
        with Vertical(classes="box"):
            yield Static(Content("Filter rows: pick with ↑↓ and Space/Enter, Tab to the next list, then Apply (a)"))
            with Horizontal(classes="sets"):
                with RadioSet(id="tier"):
                    yield RadioButton(Content("any tier"), value=self.tier is None, name=ANY)
                    for t in TIER_CHOICES:
                        yield RadioButton(Content(TIER_TEXT.get(t, t)), value=self.tier == t, name=t)
                with RadioSet(id="role"):
                    yield RadioButton(Content("any role"), value=self.role is None, name=ANY)
                    for r in self.roles:
                        yield RadioButton(Content(one_line(r, 30)), value=self.role == r, name=r)
                with RadioSet(id="tool"):
                    yield RadioButton(Content("any tool"), value=self.tool is None, name=ANY)
                    for t in self.tools:
                        yield RadioButton(Content(one_line(t, 30)), value=self.tool == t, name=t)
            with Horizontal(classes="buttons"):
                yield Button("Apply (a)", id="apply", variant="primary")
                yield Button("Clear", id="clear")

    @staticmethod
    def _picked(radio: RadioSet) -> str | None:
        button = radio.pressed_button
        return None if button is None or button.name == ANY else button.name

    def action_apply(self) -> None:
        tier, role = self._picked(self.query_one("#tier", RadioSet)), self._picked(self.query_one("#role", RadioSet))
        self.dismiss(FilterChoice(tier, role, self._picked(self.query_one("#tool", RadioSet))))

    @on(Button.Pressed, "#apply")
    def _apply(self) -> None:
        self.action_apply()

    @on(Button.Pressed, "#clear")
    def _clear(self) -> None:
        self.dismiss(FilterChoice(None, None, None))
