"""Every key and action in one table: the bindings, the help screen and the command palette read it.

Keeping one table means a new action cannot be bound but missing from help or the palette.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from textual.binding import Binding, BindingType


@dataclass(frozen=True)
class Action:
    keys: str  # Textual key names, comma-separated
    action: str
    title: str  # shown in the Footer, the help screen and the palette
    help: str
    show: bool = False  # in the Footer
    shown_keys: str = ""  # how help writes the keys, when the key names read badly


APP_ACTIONS = (
    Action("q", "quit", "Quit", "quit the inspector", True, "q, ctrl+q"),
    Action("f1,question_mark", "help", "Help", "this list of keys", True, "?, F1"),
    Action(
        "slash",
        "search",
        "Search",
        "search the original content (Enter runs it; a capital makes the case count, as in w)",
        True,
        "/",
    ),
    Action("n", "next_match", "Next match", "jump to the next search hit"),
    Action("N", "prev_match", "Prev match", "jump to the previous search hit"),
    Action("right_square_bracket", "next_cut", "Next cut", "next truncated or dropped message", True, "]"),
    Action("left_square_bracket", "prev_cut", "Prev cut", "previous truncated or dropped message", False, "["),
    Action("g", "goto", "Go to #", "go to a message number (the # column), or a model call (call 12, c12)"),
    Action("f", "filter", "Filter", "filter rows by tier, role, tool and size; order them by size"),
    Action("F", "clear_filter", "Clear filter", "show every row again (the order stays)"),
    Action(
        "S",
        "sort",
        "Sort",
        "order the rows: the file's, original size, sent size (largest first): where the budget goes",
    ),
    Action(
        "t", "thresholds", "Thresholds", "move into the threshold editor; t inside closes it, Esc leaves it open", True
    ),
    Action("s", "cycle_strategies", "Strategies", "switch the strategy list (shorten_tools, none, ...)"),
    Action(
        "V",
        "cycle_version",
        "scout-ai version",
        "switch the scout-ai version whose prompt layer runs (seed, 1.2.6, 2.1)",
    ),
    Action("u", "reset_thresholds", "Reset", "reset thresholds, strategies and scout-ai version to the loaded ones"),
    Action(
        "ctrl+z",
        "undo",
        "Undo",
        "undo the last change of the settings: an edit, a fix, a preset, reset, the strategies or the version",
    ),
    Action("p", "presets", "Presets", "save or load a named threshold set"),
    Action(
        "P",
        "policy",
        "Policy",
        "plan the chat under another framework's context policy (LangChain, OpenAI Agents, Inspect, Anthropic, "
        "OpenHands) and edit its settings, or scout-ai's strategies again",
    ),
    Action(
        "K", "copy_settings", "Copy settings", "copy the settings in force as scout etc/config lines (key value prompt)"
    ),
    Action(
        "W",
        "save_settings",
        "Save settings",
        "save the settings in force to a file (etc/config or env lines); asks before replacing",
    ),
    Action("e", "export", "Export", "write the prepared prompt or the explanation to a file", True),
    Action("y", "copy('shown')", "Copy", "copy the selected message as the detail pane shows it (through OSC 52)"),
    Action("Y", "copy('raw')", "Copy raw", "copy its original content as stored (JSON as in the file)"),
    Action("ctrl+y", "copy('sent')", "Copy sent", "copy its model-visible content (what the model is sent)"),
    Action("h", "toggle_header", "Compact header", "one-line header with the figures; h again: two lines"),
    Action(
        "v", "open_external('shown','pager')", "Pager", "open the selected message in $PAGER, as the detail shows it"
    ),
    Action("m", "open_external('raw','pager')", "Pager (raw)", "open its original content as stored in $PAGER"),
    Action(
        "E", "open_external('shown','editor')", "Editor", "open it in $EDITOR as the detail shows it (a temporary copy)"
    ),
    Action("ctrl+e", "open_external('raw','editor')", "Editor (raw)", "open its original content as stored in $EDITOR"),
    Action("d", "toggle_detail", "Detail", "show/hide the detail pane"),
    Action("enter", "focus_detail", "Open detail", "move into the detail pane to scroll and select text"),
    Action("i", "notes", "Notes", "loader findings and threshold warnings"),
    Action("r", "reload", "Reload", "reload the chat file, keeping position and thresholds"),
    Action("w", "why", "Why", "why is a text hidden? trace it, see the rule and the fixes (1-9 applies one)", True),
    Action(
        "b",
        "pin_compare",
        "A/B",
        "pin the plan on screen as A (thresholds, strategies, version); change any to compare; b again unpins",
    ),
    Action("c", "focus_compare", "A/B list", "move into the A/B list of changed rows (Enter jumps to one)"),
    Action("a", "audit", "Audit", "forgetting audit: likely damage, Enter jumps to the message", True),
    Action(
        "less_than_sign,comma",
        "earlier_call",
        "Call ◂",
        "step back one model call: the chat as it stood then, and what that call was sent",
        True,
        "<, ,",
    ),
    Action(
        "greater_than_sign,full_stop",
        "later_call",
        "Call ▸",
        "step forward one model call (after the last one: the whole chat, the next call)",
        True,
        ">, .",
    ),
    Action("left_parenthesis", "step_calls(-10)", "Call -10", "step back ten model calls", False, "("),
    Action("right_parenthesis", "step_calls(10)", "Call +10", "step forward ten model calls", False, ")"),
    Action("left_curly_bracket", "step_calls(-100)", "Call -100", "step back a hundred model calls", False, "{"),
    Action("right_curly_bracket", "step_calls(100)", "Call +100", "step forward a hundred model calls", False, "}"),
    Action("L", "latest_call", "Latest", "back to the whole chat (what the next call would send)"),
    Action(
        "T",
        "toggle_tokens",
        "Tokens chart",
        "the prompt's tokens at every call, rebuilt and as the API recorded them; ←/→ in it step the calls",
    ),
    Action("o", "toggle_follow", "Follow", "follow the file while an agent writes it (appends and rewrites)"),
)

VIEW_ACTIONS = (
    Action("down,j", "move(1)", "Down", "next row", False, "↓, j"),
    Action("up,k", "move(-1)", "Up", "previous row", False, "↑, k"),
    Action("pagedown,ctrl+f,space", "page(1)", "Page down", "one page down (as in less)", False, "PgDn, ctrl+f, Space"),
    Action("pageup,ctrl+b", "page(-1)", "Page up", "one page up", False, "PgUp, ctrl+b"),
    Action("ctrl+d", "half_page(1)", "Half page down", "half a page down (as in less)", False, "ctrl+d"),
    Action("ctrl+u", "half_page(-1)", "Half page up", "half a page up (as in less)", False, "ctrl+u"),
    Action("home", "first", "First", "first row", False, "Home"),
    Action("end,G", "last", "Last", "last row", False, "End, G"),
)

CORPUS_ACTIONS = (
    Action("q", "quit", "Quit", "quit the inspector", True, "q, ctrl+q"),
    Action("f1,question_mark", "help", "Help", "this list of keys", True, "?, F1"),
    Action("enter", "open_chat", "Open chat", "open the chat at its first refetch (Esc comes back here)", True),
    Action("t", "thresholds", "Thresholds", "edit the settings every chat is scored under; t inside closes it", True),
    Action("s", "cycle_strategies", "Strategies", "switch the strategy list the corpus is scored under", True),
    Action("1", "sort('path')", "Sort: chat", "sort by the chat's path (again: reversed)"),
    Action("2", "sort('calls')", "Sort: calls", "sort by model calls, most first (again: reversed)"),
    Action("3", "sort('chars')", "Sort: chars", "sort by characters sent over every call (again: reversed)"),
    Action("4", "sort('tokens')", "Sort: tokens", "sort by the token estimate (again: reversed)"),
    Action("5", "sort('refetches')", "Sort: refetches", "sort by refetches, worst first (the default)", True),
)

OTHER_KEYS = (
    ("Esc", "close a dialog or the search bar; leave an input or the detail pane"),
    ("Tab, shift+Tab", "move between the list, the detail pane and the threshold editor"),
    ("ctrl+p", "command palette: every action, themes, go to message N"),
    ("in the detail", "Home/End (G) either end · o the original · v the model-visible part · Esc back"),
    ("mouse", "click a row to select it; the wheel scrolls"),
    ("in Why (w)", "Enter or 1-9 applies a fix (Enter on an occurrence jumps to it); i ignore case (on unless"),
    ("", "the text holds a capital, as in /), x regex;"),
    ("", "Esc stops a running fix search, Esc again closes"),
    ("Esc (a chat)", "opened from the corpus view: back to the corpus"),
    ("in the editor", "the sweep chart under the focused threshold: every value's prompt size and drops, ▲ now;"),
    ("", "↑/↓ step the value (shift: x10), PgDn/PgUp take the chart's next row, a click on a row applies it;"),
    ("", "from a number's field < and > still step the model calls and t closes the editor"),
)


HOST_ACTIONS = ("quit", "help")  # the App's own actions: a screen binds them as app.quit, app.help


def bindings(actions: Iterable[Action], on_screen: bool = False) -> list[BindingType]:
    """The key table's bindings; ``on_screen``: for a screen, whose host actions run on the App (the
    screen's keys are shown in the key bar in the table's order, quit first)."""
    # ctrl+q is Textual's own priority quit binding; ``q`` is ours, so typing q in an input stays text
    return [
        Binding(
            a.keys,
            f"app.{a.action}" if on_screen and a.action in HOST_ACTIONS else a.action,
            a.title,
            show=a.show,
            id=re.sub(r"\W+", "_", a.action).strip("_"),
        )
        for a in actions
    ]
