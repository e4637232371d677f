"""Every key, from the one table the bindings and the palette are built from."""

from __future__ import annotations

import textwrap

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from ..keymap import APP_ACTIONS, CORPUS_ACTIONS, OTHER_KEYS, VIEW_ACTIONS
from .base import Dialog

WIDTH = 66  # the dialog box is 76 columns less its border, padding and scrollbar


def _entry(keys: str, text: str) -> str:
    # a hanging indent keeps the key column clear when a description wraps
    return textwrap.fill(text, WIDTH, initial_indent=f"  {keys:<14} ", subsequent_indent=" " * 17)


def help_text() -> str:
    lines = ["Keys (also in the command palette, ctrl+p)", ""]
    corpus = tuple(a for a in CORPUS_ACTIONS if a.action not in ("quit", "help"))
    for title, actions in (
        ("In the list", VIEW_ACTIONS),
        ("Anywhere", APP_ACTIONS),
        ("In the corpus view (a folder or several chats opened)", corpus),
    ):
        lines.append(title)
        for a in actions:
            lines.append(_entry(a.shown_keys or a.keys.replace(",", ", "), f"{a.title}: {a.help}"))
        lines.append("")
    lines.append("Other")
    for keys, text in OTHER_KEYS:
        lines.append(_entry(keys, text))
    lines += [
        "",
        "Tiers: = full  ✂ truncated  ✗ dropped  ⊘ consumed  ! error  ? undecided",
        "Tokens are an estimate: characters / 4.",
    ]
    return "\n".join(lines)


class HelpScreen(Dialog[None]):
    BINDINGS = [Binding("escape,q,question_mark,f1", "close", "Close", show=False)]

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="box"):
            yield Static(Content(help_text()), id="help-text")
