"""The policy dialog (P): plan the chat under another framework's context policy, or scout-ai's again.

Every setting of the chosen policy is a field with its default and where its value comes from; the
values are checked as the command line checks them (the library's own bounds), and a refused value is
named in the dialog while the plan on screen stays as it was.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Button, Input, Label, Select, Static

from inspector.core.errors import UsageError
from inspector.core.peers.registry import POLICIES, SCOUT, PolicySettings, settings_for
from inspector.core.present.sanitize import one_line

from .base import Dialog


@dataclass(frozen=True, slots=True)
class PolicyChoice:
    """What the dialog dismisses with: a policy (None: scout-ai's strategies) and its settings as typed."""

    policy: str | None
    settings: dict[str, str]


class PolicyScreen(Dialog[PolicyChoice]):
    DEFAULT_CSS = """
    PolicyScreen > .box { width: 90; }
    PolicyScreen #policy-fields { height: auto; margin: 1 0; }
    PolicyScreen .field { height: 1; }
    PolicyScreen .field Label { width: 20; }
    PolicyScreen .field Input { width: 1fr; height: 1; border: none; padding: 0 1; background: $boost; }
    PolicyScreen .field Input:focus { background: $accent 30%; }
    PolicyScreen .field .about { width: 34; color: $text-muted; padding-left: 1; }
    """

    def __init__(self, current: PolicySettings | None):
        super().__init__()
        self.current = current
        self.chosen = current.spec.name if current is not None else SCOUT

    def compose(self) -> ComposeResult:
        with Vertical(classes="box"):
            yield Static(Content("Policy: whose context policy plans the chat"))
            options = [("scout-ai's strategies", SCOUT), *((name, name) for name in POLICIES)]
            yield Select(options, value=self.chosen, allow_blank=False, id="policy-name")
            yield Static("", id="policy-about", classes="hint")
            yield Vertical(id="policy-fields")
            yield Static("", id="policy-message", classes="hint")
            with Horizontal(classes="buttons"):
                yield Button("Apply", id="apply", variant="primary")
                yield Button("Cancel", id="cancel")

    async def on_mount(self) -> None:
        await self._show_fields()
        self.query_one("#policy-name", Select).focus()

    async def _show_fields(self) -> None:
        fields = self.query_one("#policy-fields", Vertical)
        await fields.remove_children()
        about = self.query_one("#policy-about", Static)
        if self.chosen == SCOUT:
            about.update(Content("scout-ai's prompt strategies (s switches them, t edits their thresholds)"))
            return
        spec = POLICIES[self.chosen]
        kind = "exact" if spec.exact else "approximate"
        about.update(Content(one_line(f"{spec.library} ({kind}){': ' + spec.note if spec.note else ''}", 300)))
        shown = self.current if self.current is not None and self.current.spec.name == self.chosen else None
        rows = []
        for param in spec.params:
            value = shown.as_dict()[param.name] if shown is not None else param.default
            source = shown.source(param.name) if shown is not None else "default"
            default = "required" if param.required else f"default {param.show(param.default) or '(none)'}"
            rows.append(
                Horizontal(
                    Label(Content(param.name)),
                    Input(param.show(value), id=f"set-{param.name}", placeholder=default),
                    Static(Content(one_line(f"{default}; {source}", 60)), classes="about"),
                    classes="field",
                )
            )
        await fields.mount_all(rows)

    @on(Select.Changed, "#policy-name")
    async def _picked(self, event: Select.Changed) -> None:
        self.chosen = str(event.value)
        self.say("")
        await self._show_fields()

    def values(self) -> dict[str, str]:
        """The settings typed that differ from the policy's defaults (what --set would give)."""
        if self.chosen == SCOUT:
            return {}
        spec = POLICIES[self.chosen]
        out = {}
        for param in spec.params:
            text = self.query_one(f"#set-{param.name}", Input).value.strip()
            if text != param.show(param.default) and not (text == "" and param.default in (None, (), "")):
                out[param.name] = text
        return out

    def say(self, text: str, error: bool = False) -> None:
        message = self.query_one("#policy-message", Static)
        message.set_class(error, "error")
        message.update(Content(one_line(text, 500)))

    @on(Input.Submitted)
    @on(Button.Pressed, "#apply")
    def _apply(self, event: Input.Submitted | Button.Pressed) -> None:
        event.stop()
        if self.chosen == SCOUT:
            self.dismiss(PolicyChoice(None, {}))
            return
        values = self.values()
        try:
            settings_for(self.chosen, values)  # refused as the command line refuses it: said here, plan kept
        except UsageError as exc:
            self.say(str(exc), True)
            return
        self.dismiss(PolicyChoice(self.chosen, values))

    @on(Button.Pressed, "#cancel")
    def _cancel(self) -> None:
        self.dismiss(None)
