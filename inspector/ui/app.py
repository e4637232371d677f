"""The inspector app: it hosts. The chat, its plan and every action on it live on ``ChatScreen``.

The App holds what is the same whatever chat is shown: the theme and the command palette, the key
table's app keys (quit, help), the timing knobs, the log of notifications, and the holding of keys
typed while the focus moves (``keyhold``), since the focus moves across screens and dialogs.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import cast

from textual import events, on
from textual.app import App
from textual.binding import Binding
from textual.notifications import SeverityLevel
from textual.screen import Screen, ScreenResultCallbackType
from textual.widget import Widget

from inspector.core.setup import ChatSource, Setup

from .commands import InspectorCommands
from .contrast import separator
from .keyhold import KeyHolder
from .keymap import APP_ACTIONS, HOST_ACTIONS, bindings
from .messages import ChatShown, StartFailed, WorkerFailed
from .prefs import load_prefs, save_pref
from .screens.chat import VIEW_NAMES, ChatScreen
from .screens.corpus import CorpusScreen
from .screens.help import HelpScreen

QUIT_KEYS = ("q", "ctrl+q", "ctrl+c")


class InspectorApp(App[None]):
    CSS_PATH = "app.tcss"
    TITLE = "prompt-inspector"
    BINDINGS = [
        *bindings(a for a in APP_ACTIONS if a.action in HOST_ACTIONS),  # in dialogs too
        # a chat opened from the corpus view: Esc that nothing on the chat's screen took goes back
        Binding("escape", "back_to_corpus", "Back to the corpus", show=False),
    ]
    COMMANDS = App.COMMANDS | {InspectorCommands}

    debounce = 0.15  # seconds of no typing before a re-plan
    editor_wait = 0.1  # seconds values set at once wait for their plan before the editor shows them anyway
    detail_delay = 0.08  # seconds the cursor must rest before the detail pane loads
    search_delay = 0.15  # seconds typing in / must pause before it searches (a burst searches once)
    told_osc52 = False
    follow_every = 0.25  # seconds between looks at a followed file

    def __init__(
        self,
        source: ChatSource | None,
        setup: Setup,
        *,
        label: str | None = None,
        follow: bool = False,
        corpus: list[str] | None = None,
        input_format: str | None = None,
        theme: str | None = None,
    ) -> None:
        """One chat (``source``), or with ``corpus`` the corpus view of those paths (files, folders, globs)."""
        super().__init__()
        self.source = source
        self.setup = setup
        self.corpus = corpus
        self.input_format = input_format  # the corpus's chats' format (None: each detected)
        default = "corpus: " + " ".join(corpus) if corpus else (source.path if source is not None else "(no file)")
        self.label = label or default
        self.follow = follow
        self.start_error: str | None = None  # the chat could not be opened at start: the app exits with it
        self.notices: list[str] = []  # every notification's text, oldest first (tests read it)
        self.early_keys: list[events.Key] = []  # typed before the chat was on screen; replayed after
        self.key_holder = KeyHolder(self, self._dispatch_key)
        self.asked_theme = theme  # --theme: this run's theme (else the one remembered from the last run)
        self.context_window: int | None = None  # tokens: the token chart marks the calls over it
        self._theme_ready = False

    def get_default_screen(self) -> Screen[None]:
        if self.corpus:
            return CorpusScreen(self.corpus, self.setup, self.input_format)
        return ChatScreen(self.source, self.setup, self.label, self.follow)

    @property
    def chat(self) -> ChatScreen:
        """The screen of the chat: the bottom of the stack, under any dialog; in the corpus view, the chat
        opened from it (asked only when one is open)."""
        for screen in reversed(self.screen_stack):
            if isinstance(screen, ChatScreen):
                return screen
        raise LookupError("no chat is open")

    @property
    def corpus_screen(self) -> CorpusScreen | None:
        """The corpus view, when the app opened one (the bottom of the stack)."""
        base = self.screen_stack[0] if self.screen_stack else None
        return base if isinstance(base, CorpusScreen) else None

    def has_chat(self) -> bool:
        return any(isinstance(screen, ChatScreen) for screen in self.screen_stack)

    def action_back_to_corpus(self) -> None:
        """Esc on a chat opened from the corpus view: back to the corpus, as it was left."""
        if self.corpus_screen is not None and isinstance(self.screen, ChatScreen):
            self.pop_screen()

    def on_mount(self) -> None:
        # A thread worker busy with a big chat holds the GIL for a whole switch interval at a time, and
        # the event loop gives it up at every wait: at the default 5 ms a key took 100-300 ms to be
        # handled during a why search on 20,000 messages; at 1 ms, about 15 ms (benchmarks/run.py).
        sys.setswitchinterval(0.001)
        self.sub_title = self.label
        remembered = load_prefs().get("theme")
        wanted = self.asked_theme or remembered
        if isinstance(wanted, str) and wanted in self.available_themes:
            self.theme = wanted
        self._theme_ready = True  # from now on a change is the user's: remembered for the next run

    def get_css_variables(self) -> dict[str, str]:
        """The theme's variables and ``$separator``: the panes' borders and dividers, readable on every theme."""
        variables = super().get_css_variables()
        return {**variables, "separator": separator(variables)}

    def watch_theme(self, theme: str) -> None:
        if self._theme_ready:
            save_pref("theme", theme)

    # -- keys: held while the focus moves, and kept while the first chat loads -----------------
    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key) and self.corpus_screen is not None:
            # the corpus view acts on keys at once (its scoring never holds them); only focus moves are held
            if await self.key_holder.take(event, True):
                return
        elif isinstance(event, events.Key):
            loaded = bool(self.screen_stack) and self.chat.loaded
            if await self.key_holder.take(event, loaded):
                return
            # Keys typed while the first load runs would find nothing to act on and be lost: keep them
            # (quitting still works at once) and replay them, in order, once the rows are on screen.
            if (
                not loaded
                and self.chat.load_error is None
                and event.key not in QUIT_KEYS
                and len(self.screen_stack) == 1
            ):
                self.early_keys.append(event)
                return
        await super().on_event(event)

    async def _dispatch_key(self, key: events.Key) -> None:
        await super().on_event(key)

    @on(ChatShown)
    def _chat_shown(self) -> None:
        early, self.early_keys = self.early_keys, []
        for key in early:
            self.post_message(events.Key(key.key, key.character))

    @on(WorkerFailed)
    def _worker_failed(self, event: WorkerFailed) -> None:
        """A dialog's worker failed (the dialog says so in its own text): named in a notification too."""
        event.announce(self)

    @on(StartFailed)
    def _start_failed(self, event: StartFailed) -> None:
        if self.corpus_screen is not None and isinstance(self.screen, ChatScreen):
            # a chat opened from the corpus view could not be read: back to the corpus, which stays open
            self.pop_screen()
            self.notify(event.text, title="Cannot open", severity="error", markup=False, timeout=10)
            return
        self.start_error = event.text
        self.exit(return_code=2)

    def focus_then_replay(self, widget: Widget) -> None:
        """Move the focus to a widget only now being shown (the editor, the prompt bar, a dialog's field).

        The focus lands after the next refresh, and keys typed right after the key that opened
        it are already queued: they are held and replayed once the focus is there, so a burst
        like `t 150000` or `/needle` types into the field, not into the list.
        """
        self.key_holder.hold()

        def land() -> None:
            widget.focus()
            self.call_after_refresh(self.key_holder.landed)

        self.call_after_refresh(land)

    def push_dialog(self, screen: Screen[object], callback: Callable[[object], None]) -> None:
        """Open a dialog; keys typed while it opens (`e` then a path, `p` then a name) are held and
        replayed once its field has the focus, instead of landing on the list or the first button."""
        self.key_holder.hold()
        self.push_screen(screen, cast("ScreenResultCallbackType[object]", callback))
        tries = [50]  # a dialog that never mounts must not hold the keys for ever

        def land() -> None:
            tries[0] -= 1
            if not screen.is_mounted and tries[0] > 0:
                self.call_after_refresh(land)
                return
            # its on_mount asked for the focus (app.call_later): replayed after that has run
            self.call_after_refresh(self.key_holder.landed)

        self.call_after_refresh(land)

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        self.notices.append(message)
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)

    # -- what the palette asks ---------------------------------------------------------------
    async def palette_run(self, action: str) -> None:
        """Run an action chosen in the command palette (view actions go to the list, the rest to the chat)."""
        if not self.has_chat():
            # the corpus view with no chat open: its own actions, else a word on how to open a chat
            name = action.split("(")[0]
            corpus = self.corpus_screen
            if name in HOST_ACTIONS:
                await self.run_action(action)
            elif corpus is not None and hasattr(corpus, f"action_{name}"):
                await self.run_action(action, corpus)
            else:
                self.notify("open a chat first (Enter on a row of the corpus)", severity="warning")
            return
        if action.split("(")[0] in VIEW_NAMES:
            await self.run_action(action, self.chat.view)
        elif action.split("(")[0] in HOST_ACTIONS:
            await self.run_action(action)
        else:
            await self.run_action(action, self.chat)

    def go_to_row(self, row: int) -> None:
        if self.has_chat():
            self.chat.go_to_row(row)

    def action_help(self) -> None:
        self.push_screen(HelpScreen())


def is_corpus(paths: list[str]) -> bool:
    """Several paths, a directory, or a glob that names no file as it is: the corpus view."""
    if len(paths) != 1:
        return len(paths) > 1
    path = paths[0]
    if Path(path).is_dir():
        return True
    return bool(set("*?[") & set(path)) and not Path(path).exists()


def run_app(
    args: argparse.Namespace, overrides: dict[str, str], config_files: list[Path] | None
) -> tuple[int, str | None]:
    """Run the app; (exit status, the one-line error when the chat could not be opened at start).

    ``args.chat``: the paths given (a list, or one path or None): none opens the bundled demo, one file
    opens that chat, a directory, a glob or several paths open the corpus view.
    """
    from inspector.demo import demo_chat_path

    given = args.chat
    paths: list[str] = [] if given is None else [given] if isinstance(given, str) else list(given)
    setup = Setup.of(
        overrides=overrides,
        config_files=config_files,
        strategies=args.strategies,
        version=args.scout_version,
        policy=getattr(args, "policy", None),
    )
    follow = bool(getattr(args, "follow", False))
    theme = getattr(args, "theme", None)
    window = getattr(args, "context_window", None)
    if theme is not None:
        from textual.theme import BUILTIN_THEMES

        if theme not in BUILTIN_THEMES:
            return 2, f"unknown --theme {theme!r}; known: {', '.join(sorted(BUILTIN_THEMES))}"
    if is_corpus(paths):
        if follow:
            return 2, "--follow follows one chat file, not a corpus (a directory, a glob or several paths)"
        app = InspectorApp(None, setup, corpus=paths, input_format=args.input_format, theme=theme)
    else:
        path, label = (paths[0], None) if paths else (str(demo_chat_path()), None)
        if not paths:
            label = f"{Path(path).name} (bundled demo)"
        app = InspectorApp(ChatSource.of(path, args.input_format), setup, label=label, follow=follow, theme=theme)
    app.context_window = window
    # SIGTERM/SIGHUP (a closed terminal): an orderly exit that restores the terminal (alternate screen,
    # mouse reporting), after removing the temporary file of an export being written in a worker thread
    import asyncio
    import signal

    from inspector.core.io.atomic import remove_temporaries

    def ended(signum: int, frame: object) -> None:
        remove_temporaries()
        try:
            asyncio.get_running_loop().call_soon_threadsafe(lambda: app.exit(None, 128 + signum))
        except RuntimeError:  # before the app's loop runs, or after: exit as the default handler would
            raise SystemExit(128 + signum) from None

    wanted = [getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)]
    previous = {signum: signal.signal(signum, ended) for signum in wanted}
    try:
        app.run()
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    return app.return_code or 0, app.start_error
