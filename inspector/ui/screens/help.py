"""Every key, from the one table the bindings and the palette are built from."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from ..keymap import APP_ACTIONS, OTHER_KEYS, VIEW_ACTIONS
from .base import Dialog


def help_text() -> str:
    lines = ["Keys (also in the command palette, ctrl+p)", ""]
    for title, actions in (("In the list", VIEW_ACTIONS), ("Anywhere", APP_ACTIONS)):
        lines.append(title)
        for a in actions:
            keys = a.shown_keys or a.keys.replace(",", ", ")
            lines.append(f"  {keys:<14} {a.title}: {a.help}")
        lines.append("")
    lines.append("Other")
    for keys, text in OTHER_KEYS:
        lines.append(f"  {keys:<14} {text}")
    lines += ["", "Tiers: = full  ✂ truncated  ✗ dropped  ⊘ consumed  ! error  ? not reached",
              "Tokens are an estimate: characters / 4."]
    return "\n".join(lines)


class HelpScreen(Dialog):
    BINDINGS = [Binding("escape,q,question_mark,f1", "close", "Close", show=False)]

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="box"):
            yield Static(Content(help_text()), id="help-text")
