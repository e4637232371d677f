"""The inspector app: wires the core's results to the widgets. Logic lives in inspector.core.

State here: the inspection (chat + facts), the thresholds and strategies in force, the
prompt planned from them, and the tier/role filter. State that belongs to one widget lives
there: the search in the list (DualColumnView), the pinned A in the A/B panel, the sweep in
the threshold editor, why and the audit in their screens. Widgets report up by messages;
slow work runs in thread workers, and a worker that fails reaches one handler here
(``_worker_failed``), which says what failed and puts the screen back in a consistent state.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from bisect import bisect_left
from dataclasses import replace
from pathlib import Path

from textual import events, on, work
from textual.app import App, ComposeResult, SuspendNotSupported
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.timer import Timer
from textual.widget import Widget
from textual.worker import Worker, get_current_worker

from inspector.core.calls.history import ChatHistory
from inspector.core.calls.live import Follower
from inspector.core.calls.timeline import CallSettings, message_tiers
from inspector.core.errors import InputError, UsageError
from inspector.core.inspection import Inspection
from inspector.core.io.atomic import write_atomic
from inspector.core.policies.decision import Tier
from inspector.core.present.detail import detail_text
from inspector.core.present.export import explain_bytes, prepared_bytes
from inspector.core.present.rows import CUT, RowModel, content_text, filter_rows, row_matches_tier, summary_totals
from inspector.core.present.sanitize import one_line
from inspector.core.present.settings_lines import as_env, as_scout_config
from inspector.core.present.timeline import calls_count, calls_range
from inspector.core.scout import versions
from inspector.core.scout.prepare import Prompt
from inspector.core.scout.settings import KEYS, SETTING_KEYS, Source, Thresholds, Value, keys_for
from inspector.core.scout.strategies import UnknownStrategy, known_strategies, parse_spec
from inspector.core.scout.totals import Totals
from inspector.core.setup import ChatSource, Setup

from .analysis import Replanners
from .commands import InspectorCommands
from .keymap import APP_ACTIONS, VIEW_ACTIONS, bindings
from .messages import (
    CallShown,
    ChatLoaded,
    Exported,
    Followed,
    LoadFailed,
    Replanned,
    StripReady,
    WorkerFailed,
    report_failure,
)
from .results import ApplyFix, ExportChoice, FilterChoice, JumpTo, JumpToCall, PresetChoice, SettingsChoice
from .screens.audit import AuditScreen
from .screens.export import ExportScreen
from .screens.filter import FilterScreen
from .screens.help import HelpScreen
from .screens.notes import NotesScreen
from .screens.presets import PresetsScreen
from .screens.save_settings import SaveSettingsScreen
from .screens.why import WhyScreen
from .widgets.call_strip import CallStrip
from .widgets.compare_panel import ComparePanel
from .widgets.detail import DetailPane
from .widgets.dual_view import DualColumnView
from .widgets.footer import KeyBar
from .widgets.prompt_bar import PromptBar
from .widgets.summary import Banner, StatusLine, SummaryBar
from .widgets.thresholds import CHAT_CHOICE, ThresholdEditor

NEEDS_CHAT = {a.action.split("(")[0] for a in APP_ACTIONS} - {"quit", "help", "reload", "notes"}
QUIT_KEYS = ("q", "ctrl+q", "ctrl+c")
# keys whose binding moves the focus (to the next field; out of the editor, the bar, a dialog)
FOCUS_KEYS = ("tab", "shift+tab", "escape")
KEY_LOST = 0.5  # seconds after which such a key that no binding took stops holding the keys typed after it
VIEW_NAMES = {a.action.split("(")[0] for a in VIEW_ACTIONS}


# what a finding does to the prompt, worst first: a role the model is sent by mistake, a chat that is
# already a prepared prompt (every cut is a second one), then the
# parser traps that swallow lines, then notes about what scout-ai would do on another run
HARM = {"unknown_role": 0, "already_prepared": 1, "previous_response_id": 9}


def by_harm(findings: list) -> list:
    return sorted(findings, key=lambda f: (HARM.get(f.kind, 5), f.line or 0))


def findings_line(findings: list) -> str:
    """The banner's one line: unknown roles named, then the worst other finding."""
    ordered = by_harm(findings)
    unknown = [f for f in ordered if f.kind == "unknown_role"]
    parts = []
    if unknown:
        names = [m.group(1) for f in unknown if (m := re.search(r"role `([^`]*)`", f.message))]
        parts.append(f"unknown role(s) sent as is: {', '.join(names) or len(unknown)}")
    rest = [f for f in ordered if f.kind != "unknown_role"]
    if rest:
        first = rest[0]
        parts.append((f"line {first.line}: " if first.line else "") + first.message)
    return f"{len(findings)} loader finding(s), i for all: " + " · ".join(parts)


def external_command(program: str) -> list[str]:
    """$PAGER (less) or $EDITOR (vi), split like a shell would."""
    fallback = "less" if program == "pager" else "vi"
    return shlex.split(os.environ.get(program.upper(), "") or fallback)


def run_external(command: list[str], path: Path) -> int | None:
    """The program's exit status, or None when it cannot be started."""
    try:
        return subprocess.run([*command, str(path)], check=False).returncode
    except OSError:
        return None


class InspectorApp(App):
    CSS_PATH = "app.tcss"
    TITLE = "prompt-inspector"
    BINDINGS = bindings(APP_ACTIONS)
    COMMANDS = App.COMMANDS | {InspectorCommands}

    debounce = 0.15  # seconds of no typing before a re-plan
    editor_wait = 0.1  # seconds values set at once wait for their plan before the editor shows them anyway
    detail_delay = 0.08  # seconds the cursor must rest before the detail pane loads
    follow_every = 0.25  # seconds between looks at a followed file

    def __init__(
        self,
        path: str | Path | None,
        overrides: dict[str, str] | None = None,
        config_files: list[Path] | None = None,
        strategies: str | None = None,
        input_format: str | None = None,
        env: dict[str, str] | None = None,
        label: str | None = None,
        scout_version: str | None = None,
        follow: bool = False,
    ):
        super().__init__()
        self.scout_version = scout_version
        self.initial_scout_version = scout_version  # what u goes back to (None: inferred, as at load)
        self.path = str(path) if path is not None else None
        self.label = label or self.path or "(no file)"
        self.overrides, self.config_files, self.env = overrides or {}, config_files, env
        self.input_format = input_format
        self.initial_strategies = strategies
        self.strategies: str | None = strategies
        self.inspection: Inspection | None = None
        self.rows: RowModel | None = None
        self.prompt: Prompt | None = None
        self.totals: Totals | None = None
        self.thresholds: Thresholds | None = None
        self.loaded_thresholds: Thresholds | None = None
        # what the prompt on screen was planned with: a failed re-plan goes back to it
        self.planned: tuple[Thresholds | None, str | None] = (None, strategies)
        self.version = 0
        self.filter_tier: str | None = None
        self.filter_role: str | None = None
        self.filter_tool: str | None = None  # a tool name
        self.load_error: str | None = None
        self.start_error: str | None = None  # the chat could not be opened at start: the app exits with it
        self.load_seconds: float | None = None
        self.last_export: Path | None = None
        self.replanners = Replanners()
        self._plan_timer: Timer | None = None
        self._detail_timer: Timer | None = None
        self._editor_timer: Timer | None = None
        self._editor_due = False  # values set at once, not yet in the editor (show_editor_with_plan)
        self.strategy_choices = [CHAT_CHOICE, *known_strategies()]
        self.notices: list[str] = []  # every notification's text, oldest first (tests read it)
        self.early_keys: list[events.Key] = []  # typed before the chat was on screen; replayed after
        # keys typed while the focus moves (see focus_then_replay); those typed before it that reached the
        # widget losing the focus and came back unhandled; the moves under way; a Tab or Esc not yet handled
        self.held_keys: list[events.Key] | None = None
        self.returned_keys: list[events.Key] = []
        self.landing = 0
        self.pending_key: events.Key | None = None
        # model calls: the chat's history, the call on screen (None: the whole chat, i.e. the next call)
        self.history: ChatHistory | None = None
        self.call: int | None = None
        self.call_version = 0
        self.strip_version = 0
        self.strip_settings: tuple | None = None  # what the strip on screen was planned under
        self.following = follow
        self.follower: Follower | None = None
        self._follow_timer: Timer | None = None
        self._follow_worker: Worker | None = None
        self._strip_timer: Timer | None = None

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key) and await self._held(event):
            return
        # Keys typed while the first load runs would find nothing to act on and be lost: keep them
        # (quitting still works at once) and replay them, in order, once the rows are on screen.
        if (
            isinstance(event, events.Key)
            and self.rows is None
            and self.load_error is None
            and event.key not in QUIT_KEYS
            and len(self.screen_stack) == 1
        ):
            self.early_keys.append(event)
            return
        await super().on_event(event)

    async def _held(self, key: events.Key) -> bool:
        """Whether ``key`` waits for the focus to move (kept to be replayed in order), or was handled here.

        A key reaches the focused widget's queue at once, so the keys typed after one that moves the
        focus are already in the old widget's queue when it takes effect. A key that comes back
        unhandled (``is_forwarded``) while a move is under way typed before the move; a fresh one, after.
        Tab and Esc are held for too: their binding runs only when they come back from the field they
        leave, and the keys behind them must reach where the focus goes (`5 Tab 7`, `5 Esc e` typed fast).
        """
        if key.is_forwarded:
            if key is self.pending_key:
                self.pending_key = None
                if not self.landing:
                    await super().on_event(key)  # the focus moves now
                    # what the keys before it posted (a choice's Changed) is handled before those after it
                    self.call_after_refresh(self._release_if_done)
                    return True
            if self.landing:
                self.returned_keys.append(key)
                return True
            return False
        if self.held_keys is not None:
            self.held_keys.append(key)
            return True
        if key.key in FOCUS_KEYS and self.rows is not None:
            self.held_keys, self.pending_key = [], key
            self.set_timer(KEY_LOST, lambda: self._key_lost(key))
        return False

    def _key_lost(self, key: events.Key) -> None:
        """A Tab or Esc some widget took for itself never comes back: stop waiting for it."""
        if self.pending_key is key:
            self.pending_key = None
            self._release_if_done()

    def _landed(self) -> None:
        self.landing -= 1
        self._release_if_done()

    def _release_if_done(self) -> None:
        if not self.landing and self.pending_key is None:
            self.release_held_keys()

    def open_prompt_bar(self, mode: str, value: str | None = None) -> None:
        bar = self.query_one(PromptBar)
        bar.open(mode, value)
        self.focus_then_replay(bar)

    def focus_then_replay(self, widget: Widget) -> None:
        """Move the focus to a widget only now being shown (the editor, the prompt bar, a dialog's field).

        The focus lands after the next refresh, and keys typed right after the key that opened
        it are already queued: they are held and replayed once the focus is there, so a burst
        like `t 150000` or `/needle` types into the field, not into the list.
        """
        self._hold()

        def land() -> None:
            widget.focus()
            self.call_after_refresh(self._landed)

        self.call_after_refresh(land)

    def _hold(self) -> None:
        self.landing += 1
        if self.held_keys is None:  # already holding (a dialog opening, a Tab): keep what it holds
            self.held_keys = []

    def release_held_keys(self) -> None:
        """Replay what was held, in the order typed: the keys that came back from the old widget were all
        typed before the ones held as they arrived."""
        held = [*self.returned_keys, *(self.held_keys or [])]
        self.returned_keys, self.held_keys = [], None
        for key in held:
            self.post_message(events.Key(key.key, key.character))

    def push_dialog(self, screen: Screen, callback) -> None:
        """Open a dialog; keys typed while it opens (`e` then a path, `p` then a name) are held and
        replayed once its field has the focus, instead of landing on the list or the first button."""
        self._hold()
        self.push_screen(screen, callback)
        tries = [50]  # a dialog that never mounts must not hold the keys for ever

        def land() -> None:
            tries[0] -= 1
            if not screen.is_mounted and tries[0] > 0:
                self.call_after_refresh(land)
                return
            # its on_mount asked for the focus (app.call_later): replayed after that has run
            self.call_after_refresh(self._landed)

        self.call_after_refresh(land)

    def read_files(self) -> list[str]:
        """The files the chat on screen reads (import:, file:, directory:): an export never replaces them."""
        return self.inspection.chat.read_files if self.inspection is not None else []

    def notify(self, message: str, **kwargs) -> None:
        self.notices.append(message)
        super().notify(message, **kwargs)

    # -- layout -----------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield SummaryBar("loading…", id="summary")
        yield Banner(id="banner")
        with Horizontal(id="body"):
            with Vertical(id="left"):
                yield DualColumnView(id="view")
                yield StatusLine(id="status")
                yield CallStrip(id="strip")
                yield ComparePanel(id="compare")
                yield DetailPane(id="detail")
            yield ThresholdEditor(list(self.strategy_choices), id="editor")
        yield PromptBar(id="prompt-bar")
        yield KeyBar()

    @property
    def view(self) -> DualColumnView:
        return self.query_one("#view", DualColumnView)

    @property
    def editor(self) -> ThresholdEditor:
        return self.query_one("#editor", ThresholdEditor)

    @property
    def compare_panel(self) -> ComparePanel:
        return self.query_one("#compare", ComparePanel)

    async def on_mount(self) -> None:
        # A thread worker busy with a big chat holds the GIL for a whole switch interval at a time, and
        # the event loop gives it up at every wait: at the default 5 ms a key took 100-300 ms to be
        # handled during a why search on 20,000 messages; at 1 ms, about 15 ms (benchmarks/run.py).
        sys.setswitchinterval(0.001)
        self.sub_title = self.label
        self.view.focus()
        self.load()
        if self.following:
            self._start_following()
        if self.size.width >= 140:
            await self.editor.open()  # room for it: show the values from the start (the load runs meanwhile)

    # -- loading ----------------------------------------------------------------------
    @work(thread=True, exclusive=True, group="load", description="loading the chat", exit_on_error=False)
    def load(self, keep: Thresholds | None = None) -> None:
        started = time.perf_counter()
        try:
            if self.path is None:
                raise InputError("no chat file given")
            setup = Setup.of(
                overrides=self.overrides,
                config_files=self.config_files,
                env=self.env,
                strategies=self.initial_strategies,
                version=self.scout_version,
            )
            history = ChatHistory(ChatSource.of(self.path, self.input_format), setup)
            inspection = history.whole
            rows = history.rows_at(None, inspection)
            thresholds = keep or inspection.thresholds
            prompt = inspection.prompt(thresholds, self.strategies)
            totals = summary_totals(rows, prompt)
        except (InputError, UsageError, UnknownStrategy) as exc:
            self.post_message(LoadFailed(str(exc)))
            return
        self.post_message(
            ChatLoaded(inspection, rows, prompt, totals, inspection.thresholds, time.perf_counter() - started, history)
        )

    @on(ChatLoaded)
    def _loaded(self, event: ChatLoaded) -> None:
        row = self.view.current_row if self.rows is not None else None
        self.inspection, self.rows, self.prompt, self.totals = event.inspection, event.rows, event.prompt, event.totals
        self.loaded_thresholds = event.loaded
        self.thresholds = self.thresholds or event.loaded
        self.planned = (self.thresholds, self.strategies)
        self.load_error, self.load_seconds = None, event.elapsed
        self.history, self.call = event.history, None
        self.follower = Follower(event.history) if event.history is not None else None
        self.version += 1
        self.call_version += 1
        order = filter_rows(self.rows, self.prompt, self.filter_tier, self.filter_role, self.filter_tool)
        self.view.set_tail([])
        self.view.set_data(self.rows, self.prompt, order, row)
        self._editor_due = False
        self.editor.show(self.thresholds, self.strategies, self.active_keys(self.strategies))
        self.editor.set_chat_label(self.chat_strategy_label)
        self._place_strip()
        self._show_summary()
        # the selected row's detail in the same frame: filled a moment later it would cost a layout pass of
        # its own just as the first keys arrive
        self.show_detail()
        self.refresh_bindings()  # actions that needed a chat are now available
        early, self.early_keys = self.early_keys, []
        for key in early:
            self.post_message(events.Key(key.key, key.character))
        if self.view.search_query:
            self.view.search(self.view.search_query)
        # the sweep chart and the A/B compare after the first frame: their workers would hold the GIL
        # while the list and the totals are painted
        self.call_after_refresh(self._after_replan_painted, self.version)

    @on(LoadFailed)
    def _load_failed(self, event: LoadFailed) -> None:
        self.load_error = event.text
        if self.inspection is None:
            # nothing was ever shown: exit at once, as the CLI would (a failed reload keeps the app open)
            self.start_error = event.text
            self.exit(return_code=2)
            return
        # a reload that failed: what is on screen is the last chat that loaded, and says so
        self.query_one(Banner).show_lines([f"Reload failed, showing the last good load: {event.text}"], error=True)
        self.notify(f"reload failed: {event.text}", severity="error", markup=False, timeout=10)

    # -- one handler for every worker that fails ----------------------------------------
    @on(Worker.StateChanged)
    def _worker_state(self, event: Worker.StateChanged) -> None:
        report_failure(self, event)  # the App's own workers (load, plan, export) report like the others

    @on(WorkerFailed)
    def _worker_failed(self, event: WorkerFailed) -> None:
        event.stop()
        group, error = event.worker.group, event.error_text
        if group == "load":
            self.post_message(LoadFailed(f"{self.path}: cannot inspect ({error})"))
            return
        text = f"{event.what} failed: {error}"
        if group == "plan":
            # the editor shows what was asked for, the list what was planned before: make them agree again
            thresholds, strategies = self.planned
            self.thresholds, self.strategies = thresholds or self.thresholds, strategies
            self.version += 1  # a re-plan still queued is for the values just abandoned
            self._editor_due = False
            self.editor.show(self.thresholds, self.strategies, self.active_keys(self.strategies))
            self._show_summary()
            self.analysis_refresh()  # their workers were stopped when the change was asked for
            text += f"; back to the plan on screen (strategies {self.prompt.strategy_label})"
        elif group == "search":
            self.view.search("")
        elif group == "sweep":
            self.editor.chart.failed(error)
        elif group == "compare":
            self.compare_panel.failed(error)
        self.notify(text, title="Failed", severity="error", markup=False, timeout=10)

    # -- re-planning ------------------------------------------------------------------
    def schedule_replan(self, delay: float | None = None) -> None:
        if self._plan_timer is not None:
            self._plan_timer.stop()
        delay = self.debounce if delay is None else delay
        self.version += 1
        # the sweep chart and the A/B compare still running are for the values just left: stop them now,
        # so they do not hold the GIL while the new plan is painted (they are asked again after that frame)
        self.workers.cancel_group(self.editor, "sweep")
        self.workers.cancel_group(self.compare_panel, "compare")
        if delay <= 0:
            self.replan(self.thresholds, self.strategies, self.version)
        else:
            version = self.version
            self._plan_timer = self.set_timer(delay, lambda: self.replan(self.thresholds, self.strategies, version))

    @work(thread=True, exclusive=True, group="plan", description="planning the prompt", exit_on_error=False)
    def replan(self, thresholds: Thresholds, strategies: str | None, version: int) -> None:
        if self.inspection is None:
            return
        worker = get_current_worker()
        prompt = self.inspection.prompt(thresholds, strategies)  # a raising plugin goes to _worker_failed
        totals = summary_totals(self.rows, prompt)
        order = filter_rows(self.rows, prompt, self.filter_tier, self.filter_role, self.filter_tool)
        if not worker.is_cancelled:
            self.post_message(Replanned(prompt, thresholds, strategies, totals, order, version))

    @on(Replanned)
    def _replanned(self, event: Replanned) -> None:
        if event.version != self.version:
            return  # a newer change is on its way
        self.prompt, self.totals = event.prompt, event.totals
        self.planned = (event.thresholds, event.strategies)
        self.show_pending_editor()
        self.view.set_prompt(event.prompt, event.order)
        self._show_summary()
        # the detail pane, the sweep chart and the A/B compare after the frame: the list and the totals are
        # what the user waits for, and the analyses' workers would hold the GIL while they are painted
        self.call_after_refresh(self._after_replan_painted, event.version)

    def _after_replan_painted(self, version: int) -> None:
        if version != self.version:
            return  # a newer change: it schedules its own
        self._schedule_detail(0)
        if self.strip_settings is not None and self.call_settings().key() != self.strip_settings:
            self._schedule_strip(0)  # the timeline is planned under the edits too
        self.analysis_refresh()

    @on(ThresholdEditor.Edited)
    def _edited(self, event: ThresholdEditor.Edited) -> None:
        if self.thresholds is None or self.thresholds.setting(event.key) == event.value:
            return
        self.set_threshold(event.key, event.value, typed=True)

    def action_leave_editor(self, close: bool) -> None:
        """Esc in the editor (back to the list, it stays open) or t (close it); the focus moves at once."""
        if close:
            self.editor.remove_class("-open")
        self.screen.set_focus(self.view)

    def active_keys(self, strategies: str | None) -> list[str]:
        """The settings the strategies in force read (the editor shows those)."""
        inspection = self.inspection
        if inspection is None:
            return list(KEYS)
        spec = strategies if strategies is not None else inspection.strategy_spec
        version = inspection.version_for(spec)
        names = parse_spec(spec, version.default, validate=False)
        return keys_for([] if callable(names) else names) or list(KEYS)

    def set_threshold(
        self,
        key: str,
        value: int | float,
        where: str = "in the app",
        delay: float | None = None,
        typed: bool = False,
    ) -> None:
        """One value changed by the user (typed, or a fix applied from Why): editor, sources, re-plan."""
        self.thresholds = self.thresholds.with_value(key, value, Source.EDITED, where)
        if typed:
            # sources, and max_tool_outputs when it follows; the field being typed in keeps its text
            self._editor_due = False  # this shows the latest values: a show still pending would retype the field
            self.editor.show(self.thresholds, self.strategies, self.active_keys(self.strategies), typing=key)
        else:
            self.show_editor_with_plan()
        self.schedule_replan(delay)

    @on(ThresholdEditor.StrategiesPicked)
    def _strategies_picked(self, event: ThresholdEditor.StrategiesPicked) -> None:
        self.set_strategies(event.strategies)

    @on(ThresholdEditor.ResetPressed)
    def _reset_pressed(self) -> None:
        self.action_reset_thresholds()

    def set_strategies(self, strategies: str | None) -> None:
        self.strategies = strategies
        if self.rows is not None:
            self.show_editor_with_plan()
            self.schedule_replan(0)

    def apply_thresholds(self, thresholds: Thresholds, strategies: str | None, delay: float = 0) -> None:
        self.thresholds, self.strategies = thresholds, strategies
        self.show_editor_with_plan()
        self.schedule_replan(delay)

    def show_editor_with_plan(self) -> None:
        """Values set at once (a preset, a fix, reset, another strategy list) go into the editor in the frame
        that shows their plan, not one frame before it: a frame drawn first takes the screen's next refresh
        slot, and the list and the totals then wait for the one after (30-40 ms instead of about 10).
        A plan that takes longer than ``editor_wait`` does not hold the editor back."""
        self._editor_due = True
        if self._editor_timer is not None:
            self._editor_timer.stop()
        if self.editor_wait > 0:
            self._editor_timer = self.set_timer(self.editor_wait, self.show_pending_editor)
        else:
            self.show_pending_editor()

    def show_pending_editor(self) -> None:
        if self._editor_due:
            self._editor_due = False
            self.editor.show(self.thresholds, self.strategies, self.active_keys(self.strategies))

    # -- the analysis tools (why, sweep chart, A/B compare, audit) ---------------------
    def analysis_inspection(self) -> Inspection:
        """The chat on screen under the settings on screen: what every analysis answers about."""
        inspection = self.inspection
        return inspection.with_setup(inspection.setup.with_strategies(self.strategies), self.thresholds)

    def replanner(self):
        return self.replanners.get(self.inspection, self.thresholds, self.strategies)

    def analysis_refresh(self) -> None:
        """The plan changed (load, edit, strategies): recompute what is on screen."""
        self.request_sweep()
        if self.rows is not None:
            self.compare_panel.request(self.analysis_inspection(), self.thresholds, self.replanner())

    def request_sweep(self) -> None:
        if self.rows is not None:
            self.editor.request_sweep(self.analysis_inspection(), self.thresholds, self.replanner())

    @on(ThresholdEditor.KeyFocused)
    def _key_focused(self) -> None:
        self.request_sweep()

    def action_why(self) -> None:
        self.open_prompt_bar("why")

    def open_why(self, text: str) -> None:
        if not text:
            return

        def done(result: ApplyFix | JumpTo | JumpToCall | None) -> None:
            if isinstance(result, JumpToCall):
                self.show_call(result.number, result.row)
            elif isinstance(result, JumpTo):
                self.go_to_row(result.row)
            elif isinstance(result, ApplyFix):
                fix = result.fix
                self.set_threshold(fix.key, fix.value, "why fix", delay=0)
                self.go_to_row(result.row)
                self.notify(
                    f"{fix.key} = {fix.value:,} applied: message #{result.row} is now {fix.tier} "
                    f"(prompt {fix.delta_chars:+,} characters; u resets)",
                    markup=False,
                )

        self.push_screen(
            WhyScreen(
                text,
                self.analysis_inspection(),
                self.replanner(),
                history=self.history,
                call=self.call,
                settings=self.call_settings(),
            ),
            done,
        )

    def action_pin_compare(self) -> None:
        panel = self.compare_panel
        if panel.pinned is not None:
            panel.unpin()
            self.notify("A/B compare: unpinned")
            return
        panel.pin(self.thresholds)
        self.notify("A/B compare: the current thresholds are pinned as A; edit them (t) to see what B changes")
        panel.request(self.analysis_inspection(), self.thresholds, self.replanner())

    def action_focus_compare(self) -> None:
        if self.compare_panel.pinned is None:
            self.notify("pin the current thresholds as A first (b)", severity="warning")
            return
        self.screen.set_focus(self.compare_panel.options)

    @on(ComparePanel.Changed)
    def _compare_changed(self, event: ComparePanel.Changed) -> None:
        self.view.set_marked(event.rows)

    @on(ComparePanel.Jump)
    def _compare_jump(self, event: ComparePanel.Jump) -> None:
        self.go_to_row(event.row)

    def action_audit(self) -> None:
        def picked(result: JumpTo | JumpToCall | None) -> None:
            if isinstance(result, JumpToCall):
                self.show_call(result.number, result.row)
            elif result is not None:
                self.go_to_row(result.row)

        self.push_screen(AuditScreen(self.analysis_inspection(), self.replanner(), self.history), picked)

    # -- what is shown ----------------------------------------------------------------
    def _show_summary(self) -> None:
        chat = self.inspection.chat
        strategies = self.prompt.strategy_label + (" (chat's choice)" if self.strategies is None else "")
        self.query_one(SummaryBar).show(
            self.call_label(), chat.format, strategies, self.totals, getattr(self.prompt, "version", "")
        )
        lines, error = [], False
        if self.prompt.error is not None:
            error = True
            lines.append(f"scout-ai would raise, so nothing is sent: {self.prompt.error.describe()}")
        if chat.findings:
            lines.append(findings_line(chat.findings))
        if self.thresholds.warnings:
            lines.append(f"threshold warning: {self.thresholds.warnings[0]} (i for all)")
        self.query_one(Banner).show_lines(lines, error)
        self._show_status()

    def _show_status(self) -> None:
        view = self.view
        parts = []
        if view.count:
            parts.append(f"row {view.current_row} · {view.cursor + 1} of {view.count:,} shown")
        if self.filter_tier or self.filter_role or self.filter_tool:
            tier = "truncated or dropped" if self.filter_tier == CUT else self.filter_tier or "any"
            tool = f", tool {self.filter_tool}" if self.filter_tool else ""
            parts.append(f"filter: tier {tier}, role {self.filter_role or 'any'}{tool} (F clears)")
        if view.search_query:
            hits = view.search_hits
            current = view.current_row
            at = bisect_left(hits, current) + 1 if current in hits else 0
            # counted in messages, like the # column (why counts occurrences, and says in how many messages)
            if not hits:
                parts.append(f"search {view.search_query!r}: no message matches")
            else:
                where = f"{at} of {len(hits):,}" if at else f"{len(hits):,}"
                parts.append(f"search {view.search_query!r} (any case): message {where} matching (n/N)")
        self.query_one(StatusLine).show("  ·  ".join(parts) or "no rows")

    @on(DualColumnView.Highlighted)
    def _highlighted(self, event: DualColumnView.Highlighted) -> None:
        self._show_status()
        self._schedule_detail(self.detail_delay)
        self._schedule_strip(self.detail_delay)

    def _schedule_detail(self, delay: float) -> None:
        if self._detail_timer is not None:
            self._detail_timer.stop()
        if delay <= 0:
            self.show_detail()
        else:
            self._detail_timer = self.set_timer(delay, self.show_detail)

    def show_detail(self) -> None:
        try:
            row = self.view.current_row
            pane = self.query_one(DetailPane)
        except NoMatches:  # a timer firing while the app shuts down
            return
        if row is None or self.rows is None:
            pane.show(None, "No row selected." if self.rows is not None else pane.text)
            return
        view = self.view
        query = view.search_query if row in view.hits else ""
        pane.show(row, detail_text(self.rows, self.prompt, self.thresholds, row), query)
        pane.border_title = f"detail · #{row}"

    # -- navigation -------------------------------------------------------------------
    def go_to_row(self, row: int, focus: bool = True) -> None:
        if self.rows is None:
            return
        if not 0 <= row < len(self.rows):
            self.notify(f"no message #{row}; the rows are 0 to {len(self.rows) - 1}", severity="warning")
            return
        self.view.go_to_row(row)
        if self.view.current_row != row:
            self.notify(f"message #{row} is hidden by the filter; showing the next row", severity="warning")
        if focus:
            self.view.focus()  # may run as a dialog closes: the focus lands once the main screen is back

    def _jump_to_cut(self, step: int) -> None:
        view = self.view
        position = view.cursor + step
        while 0 <= position < view.count:
            if row_matches_tier(self.rows, self.prompt, view.row_at(position), CUT):
                view.cursor = position
                return
            position += step
        self.notify("no more truncated or dropped messages that way", severity="information")

    def action_next_cut(self) -> None:
        self._jump_to_cut(1)

    def action_prev_cut(self) -> None:
        self._jump_to_cut(-1)

    # Focus moves with screen.set_focus, at once: Widget.focus() lands a refresh later, and keys
    # typed right after (Enter then End, a fix then j) would still go to the old widget.
    def action_focus_list(self) -> None:
        self.screen.set_focus(self.view)

    def action_focus_detail(self) -> None:
        self.show_detail()  # the current row now, not when its Highlighted message arrives after the next keys
        self.screen.set_focus(self.query_one(DetailPane))

    def action_toggle_header(self) -> None:
        bar = self.query_one(SummaryBar)
        bar.compact = not bar.compact
        bar.redraw()

    def action_toggle_detail(self) -> None:
        self.query_one(DetailPane).toggle_class("-hidden")

    def action_goto(self) -> None:
        self.open_prompt_bar("goto", "")

    def action_search(self) -> None:
        self.open_prompt_bar("search", self.view.search_query)

    @on(PromptBar.Closed)
    def _prompt_closed(self) -> None:
        if not self.screen_stack:
            return  # the app is closing (a key typed just before quitting): nothing to focus
        if self.focused is None:
            self.screen.set_focus(self.view)

    @on(PromptBar.Done)
    def _prompt_done(self, event: PromptBar.Done) -> None:
        if not self.screen_stack:
            return  # the app is closing (a key typed just before quitting): nothing to act on
        if self.focused is None:  # keys typed after Enter may have moved it already (Enter again: the detail)
            self.screen.set_focus(self.view)
        if event.mode == "why":
            self.open_why(event.value)
            return
        if event.mode == "goto":
            text = event.value.strip().lstrip("#")
            if text.isdigit():
                self.go_to_row(int(text), focus=False)
            elif text:
                self.notify("a message number is digits only", severity="warning")
            return
        self.view.search(event.value)

    @on(DualColumnView.Searched)
    def _searched(self, event: DualColumnView.Searched) -> None:
        self._schedule_detail(0)  # the hit in the detail pane is selected (or the selection cleared)
        if event.query and not event.hits:
            self.notify(f"no match for {event.query!r}", severity="warning", markup=False)
        elif event.hits and not event.landed:
            self.notify("every match is hidden by the filter", severity="warning")
        self._show_status()

    def _jump_to_match(self, step: int) -> None:
        if not self.view.jump_to_match(step):
            self.notify("every match is hidden by the filter", severity="warning")

    def action_next_match(self) -> None:
        self._jump_to_match(1)

    def action_prev_match(self) -> None:
        self._jump_to_match(-1)

    # -- filters ----------------------------------------------------------------------
    def action_filter(self) -> None:
        def picked(result: FilterChoice | None) -> None:
            if result is not None:
                self.set_filter(result.tier, result.role, result.tool)

        rows = self.rows
        screen = FilterScreen(self.filter_tier, self.filter_role, rows.roles(), self.filter_tool, rows.tool_names())
        self.push_screen(screen, picked)

    def set_filter(self, tier: str | None, role: str | None, tool: str | None = None) -> None:
        row = self.view.current_row
        self.filter_tier, self.filter_role, self.filter_tool = tier, role, tool
        order = filter_rows(self.rows, self.prompt, tier, role, tool)
        self.view.set_data(self.rows, self.prompt, order, row)
        self._show_status()
        if order is not None and not order:
            self.notify("no rows match this filter", severity="warning")

    def action_clear_filter(self) -> None:
        self.set_filter(None, None)

    # -- thresholds, strategies, presets ---------------------------------------------
    async def action_thresholds(self) -> None:
        """Open the editor and move into it; from inside it (its own t binding) t closes it."""
        editor = self.editor
        await editor.open()
        if not editor.has_focus_within:
            self.focus_then_replay(editor.entry_field())

    @property
    def chat_strategy_label(self) -> str:
        """What the chat's own choice (no --strategies, no pick) resolves to."""
        spec = parse_spec(self.inspection.strategy_spec) if self.inspection is not None else []
        return getattr(spec, "__name__", "custom") if callable(spec) else ",".join(spec) or "(empty list)"

    def action_cycle_strategies(self) -> None:
        current = self.strategies if self.strategies is not None else CHAT_CHOICE
        chat = self.chat_strategy_label
        # the chat's choice and the same list named explicitly plan alike: one stop in the cycle, not two
        choices = [c for c in self.strategy_choices if c != chat or current == chat]
        following = choices[(choices.index(current) + 1) % len(choices)] if current in choices else choices[0]
        self.set_strategies(None if following == CHAT_CHOICE else following)
        shown = f"{chat} (the chat's choice)" if following == CHAT_CHOICE else following
        self.notify(f"strategies: {shown}", markup=False)

    def action_cycle_version(self) -> None:
        if self.inspection is None:
            return
        spec = self.strategies if self.strategies is not None else self.inspection.strategy_spec
        order = [v.name for v in versions.ORDER]
        current = self.inspection.version_for(spec).name
        following = order[(order.index(current) + 1) % len(order)]
        self.switch_version(following)
        self.show_editor_with_plan()
        self.schedule_replan(0)
        self.notify(f"scout-ai version: {following}", markup=False)

    def switch_version(self, name: str | None) -> None:
        """Plan under scout-ai version ``name`` (None: inferred) from now on: the chat on screen, every call
        and a reload all take it (new values: workers holding the old ones plan them unchanged)."""
        self.inspection = self.inspection.with_version(name)
        if self.history is not None:
            self.history = self.history.with_setup(self.history.setup.with_version(name))
            if self.follower is not None:
                self.follower.history = self.history
        self.scout_version = name

    def action_copy_settings(self) -> None:
        if self.thresholds is None:
            return
        keys = self.active_keys(self.strategies)
        self.copy_to_clipboard(as_scout_config(self.thresholds, keys))
        self.notify(f"copied {len(keys)} etc/config lines (key value prompt) for scout-ai", markup=False)

    def action_save_settings(self) -> None:
        if self.thresholds is None:
            return
        keys = self.active_keys(self.strategies)
        thresholds = self.thresholds  # the settings on screen when W was pressed are the ones written

        def picked(result: SettingsChoice | None) -> None:
            if result is None:
                return
            text = as_env(thresholds, keys) if result.fmt == "env" else as_scout_config(thresholds, keys)
            try:  # a few hundred bytes: written at once, atomically, never over the chat
                path = write_atomic(result.target, text.encode(), [self.path], self.read_files())
            except (InputError, OSError) as exc:
                self.notify(f"settings not saved: {exc}", severity="error", markup=False, timeout=8)
                return
            kind = "environment" if result.fmt == "env" else "etc/config"
            self.notify(f"saved {len(keys)} {kind} lines to {path.resolve()}", markup=False, timeout=8)

        self.push_screen(SaveSettingsScreen(self.path, len(keys), included=self.read_files()), picked)

    def action_reset_thresholds(self) -> None:
        if self.loaded_thresholds is not None:
            if self.scout_version != self.initial_scout_version and self.inspection is not None:
                self.switch_version(self.initial_scout_version)
            self.apply_thresholds(self.loaded_thresholds, self.initial_strategies)
            self.notify("thresholds, strategies and scout-ai version reset to the loaded ones")

    def action_presets(self) -> None:
        def picked(result: PresetChoice | None) -> None:
            if result is None:
                return
            thresholds = self.thresholds
            for key, value in result.thresholds.items():  # the five, and the epoch settings when saved
                if value is not None:
                    thresholds = thresholds.with_value(key, value, Source.PRESET, result.name)
            if result.thresholds.get("max_tool_outputs", 0) is None:  # the preset lets it follow max_tool_calls
                follows = Value("max_tool_outputs", thresholds["max_tool_calls"], Source.FOLLOWS)
                thresholds = replace(thresholds, values={**thresholds.values, "max_tool_outputs": follows})
            if result.scout_version is not None and self.inspection is not None:
                self.switch_version(result.scout_version)
            self.apply_thresholds(thresholds, result.strategies or self.strategies)
            self.notify(f"preset {result.name!r} loaded", markup=False)

        # the five, and the settings of the strategies in force (the epoch keys when they run)
        wanted = set(KEYS) | set(self.active_keys(self.strategies))
        every: dict[str, int | float | None] = {
            key: self.thresholds.setting(key) for key in SETTING_KEYS if key in wanted
        }
        if self.thresholds.follows():
            every["max_tool_outputs"] = None  # saved as "follows max_tool_calls", not as today's number
        version = getattr(self.prompt, "version", "") or None
        self.push_dialog(PresetsScreen(every, self.strategies, version), picked)

    # -- export, copy, notes, reload, help --------------------------------------------
    def action_export(self) -> None:
        def picked(result: ExportChoice | None) -> None:
            if result is not None:
                self.export(result)

        self.push_dialog(ExportScreen(self.path, included=self.read_files()), picked)

    @work(thread=True, group="export", description="export", exit_on_error=False)
    def export(self, choice: ExportChoice) -> None:
        try:
            prompt = self.inspection.prompt(self.thresholds, self.strategies)
            if choice.kind == "prepare":
                data = prepared_bytes(prompt, choice.fmt)
            else:
                data = explain_bytes(self.inspection, prompt, choice.fmt)
            path = write_atomic(choice.target, data, [self.path], self.read_files())
        except (InputError, UsageError, OSError) as exc:
            self.call_from_thread(self.notify, f"not exported: {exc}", severity="error", markup=False, timeout=8)
            return
        self.post_message(Exported(str(path.resolve()), len(data)))

    @on(Exported)
    def _exported(self, event: Exported) -> None:
        self.last_export = Path(event.path)
        self.notify(f"wrote {event.size:,} bytes to {event.path}", title="Exported", markup=False, timeout=8)

    def action_copy(self) -> None:
        row = self.view.current_row
        if row is None:
            return
        text = content_text(self.rows.original_content(row))
        self.copy_to_clipboard(text)
        self.notify(f"copied {len(text):,} characters of message #{row} (original content)", markup=False)

    def model_visible_text(self, row: int) -> str | None:
        """What the model is sent of this row's content; None when it is sent nothing."""
        index = self.rows.message_index(row)
        if index is None or self.prompt.error is not None:
            return None
        tier = self.prompt.tier_of(index)
        if tier == Tier.FULL:
            return content_text(self.rows.original_content(row))
        if tier == Tier.TRUNCATED:
            return content_text(self.prompt.visible_content(index))
        return None

    def action_copy_visible(self) -> None:
        row = self.view.current_row
        if row is None:
            return
        text = self.model_visible_text(row)
        if text is None:
            self.notify(f"message #{row} is not sent to the model: nothing to copy", severity="warning")
            return
        self.copy_to_clipboard(text)
        self.notify(f"copied {len(text):,} characters of message #{row} (model-visible content)", markup=False)

    def action_open_external(self, which: str, program: str) -> None:
        """Open the selected message (``original`` or ``visible``) in $PAGER or $EDITOR (``pager``/``editor``)."""
        row = self.view.current_row
        if row is None:
            return
        text = content_text(self.rows.original_content(row)) if which == "original" else self.model_visible_text(row)
        if text is None:
            self.notify(f"message #{row} is not sent to the model: nothing to open", severity="warning")
            return
        command = external_command(program)
        with tempfile.TemporaryDirectory(prefix="prompt-inspector-") as folder:
            path = Path(folder) / f"message-{row}-{which}.txt"
            path.write_text(text, encoding="utf-8", errors="surrogateescape")
            try:
                with self.suspend():
                    code = run_external(command, path)
            except SuspendNotSupported:  # no terminal to hand over (tests, a web driver): run it anyway
                code = run_external(command, path)
        if code is None:
            self.notify(f"cannot run {command[0]!r} (set ${program.upper()})", severity="error", markup=False)
        elif code != 0:
            self.notify(f"{command[0]} exited with status {code}", severity="warning", markup=False)

    def action_notes(self) -> None:
        lines = []
        if self.load_error:
            lines.append(f"cannot open: {self.load_error}")
        if self.prompt is not None and self.prompt.error is not None:
            lines.append(f"scout-ai error: {self.prompt.error.describe()}")
        if self.inspection is not None:
            for f in by_harm(self.inspection.chat.findings):
                lines.append(f"finding ({f.kind})" + (f" line {f.line}" if f.line else "") + f": {f.message}")
        for warning in self.thresholds.warnings if self.thresholds else ():
            lines.append(f"threshold warning: {warning}")
        self.push_screen(NotesScreen(lines))

    def action_reload(self) -> None:
        self.load(self.thresholds)
        self.notify("reloading; position and thresholds are kept", markup=False)

    def action_help(self) -> None:
        self.push_screen(HelpScreen())

    async def palette_run(self, action: str) -> None:
        """Run an action chosen in the command palette (view actions go to the list)."""
        if action.split("(")[0] in VIEW_NAMES:
            await self.run_action(action, self.view)
        else:
            await self.run_action(action)

    # -- model calls: step back in time ---------------------------------------------------
    def call_label(self) -> str:
        history = self.history
        if history is None or not len(history):
            return self.label
        if self.call is None:
            return f"{self.label}  ·  next call (after {calls_count(len(history))}; < steps back)"
        return f"{self.label}  ·  call {self.call} of {len(history)}"

    def action_earlier_call(self) -> None:
        if not self._has_calls():
            return
        current = self.call if self.call is not None else len(self.history) + 1
        if current <= 1:
            self.notify("this is the first model call", severity="information")
            return
        self.show_call(current - 1)

    def action_later_call(self) -> None:
        if not self._has_calls():
            return
        if self.call is None:
            self.notify("this is the whole chat (what the next call would send)", severity="information")
            return
        self.show_call(self.call + 1 if self.call < len(self.history) else None)

    def action_latest_call(self) -> None:
        if self._has_calls() and self.call is not None:
            self.show_call(None)

    def _has_calls(self) -> bool:
        if self.history is None or not len(self.history):
            self.notify("no model calls in this chat (no assistant or function_call message)", severity="warning")
            return False
        return True

    def show_call(self, number: int | None, row: int | None = None) -> None:
        """Show the chat as it stood before call ``number`` (None: the whole chat); ``row`` selects a row there."""
        self.call_version += 1
        self.version += 1  # a re-plan still queued is for the chat on screen before
        edited = self.thresholds_edited()
        self._build_call(
            self.history, number, None if edited else "own", self.thresholds, self.strategies, row, self.call_version
        )

    def thresholds_edited(self) -> bool:
        """Whether the settings on screen differ from the loaded ones: then every call is planned under
        them; else each call under its own chat's config lines, as scout-ai ran it."""
        return self.loaded_thresholds is not None and self.thresholds.key() != self.loaded_thresholds.key()

    def call_settings(self) -> CallSettings:
        """What the strip and Why's timelines plan every call under: what show_call plans a call under."""
        return CallSettings(self.thresholds if self.thresholds_edited() else None, self.strategies)

    @work(thread=True, exclusive=True, group="call", description="showing a model call", exit_on_error=False)
    def _build_call(self, history, number, own, thresholds, strategies, row, version) -> None:
        worker = get_current_worker()
        inspection = history.whole if number is None else history.at(number)
        if own is not None:
            thresholds = inspection.thresholds  # not edited: each call under its own chat's config lines
        rows = history.rows_at(number, inspection)
        prompt = inspection.prompt(thresholds, strategies)
        totals = summary_totals(rows, prompt)
        order = filter_rows(rows, prompt, self.filter_tier, self.filter_role, self.filter_tool)
        if not worker.is_cancelled:
            self.post_message(CallShown(number, inspection, rows, prompt, totals, order, thresholds, version, row))

    @on(CallShown)
    def _call_shown(self, event: CallShown) -> None:
        if event.version != self.call_version:
            return
        row = self.view.current_row
        at_end = row is not None and self.view.cursor >= self.view.count - 1
        self.call = event.number
        self.inspection, self.rows, self.prompt, self.totals = event.inspection, event.rows, event.prompt, event.totals
        if self.thresholds.as_tuple() == (self.loaded_thresholds or self.thresholds).as_tuple():
            self.thresholds = self.loaded_thresholds = event.thresholds
        self.planned = (self.thresholds, self.strategies)
        self.view.set_tail(self._tail())
        last = len(self.rows) - 1
        if event.row is not None:
            row = min(event.row, last)  # asked for (why, audit)
        elif event.number is not None or at_end or row is None:
            row = last  # at a call: the last message before the response; the whole chat: stay at the newest
        else:
            row = min(row, last)
        self.view.set_data(self.rows, self.prompt, event.order, row)
        if event.number is not None and event.row is None:
            self.view.scroll_end(animate=False, immediate=True)  # the response rows under the last message
        self._editor_due = False
        self.editor.show(self.thresholds, self.strategies, self.active_keys(self.strategies))
        self._show_summary()
        # the detail pane, the strip's timeline and the open analyses after the frame: their workers would
        # hold the GIL while the new call is painted (key to frame 250 ms at 20,000 messages, 60 without)
        self.call_after_refresh(self._after_call_painted, event.version)

    def _after_call_painted(self, version: int) -> None:
        if version != self.call_version:
            return  # a newer step: it schedules its own
        self._schedule_detail(0)
        self._schedule_strip(0)
        self.analysis_refresh()

    def _tail(self) -> list[tuple[str, str]]:
        """The rows after the messages at a call: the response it produced, and what came later."""
        if self.call is None or self.history is None:
            return []
        history = self.history
        call = history.call(self.call)
        out = []
        for message in history.source[call.start : call.end]:
            role = message.fields.get("role")
            content = message.fields.get("content")
            preview = one_line(content if isinstance(content, str) else str(content), 300)
            out.append(("▶", f"call {self.call}'s response (written by the model, not sent): {role}  {preview}"))
        later = len(history.source) - call.end
        if later:
            out.append(("…", f"{later:,} later message(s) not yet written at this call (> steps forward, L: latest)"))
        return out

    # -- the strip: the selected message over every call --------------------------------
    def _schedule_strip(self, delay: float) -> None:
        if self._strip_timer is not None:
            self._strip_timer.stop()
        if delay <= 0:
            self.request_strip()
        else:
            self._strip_timer = self.set_timer(delay, self.request_strip)

    def _whole_index(self, row: int | None) -> int | None:
        """The selected message's index in the whole chat (None: a consumed row, or not in the whole chat)."""
        if row is None or self.rows is None or self.history is None:
            return None
        index = self.rows.message_index(row)
        if index is None:
            return None
        if self.call is None:
            return index
        message = self.inspection.chat.messages[index]
        whole = self.history.whole.chat.messages
        if index < len(whole) and (whole[index] is message or whole[index].fields == message.fields):
            return index
        return None

    def _place_strip(self) -> None:
        """Show or hide the strip's line with the chat, in the frame that shows the chat: shown later, when
        its timeline lands, it would cost a layout pass of its own just as the first keys arrive."""
        try:
            strip = self.query_one(CallStrip)
        except NoMatches:
            return
        calls = len(self.history) if self.history is not None else 0
        if calls and not strip.has_class("-shown"):
            strip.add_class("-shown")
            strip.show_text(f"the selected message over {calls_count(calls)}: computing…")
        elif not calls:
            strip.remove_class("-shown")

    def request_strip(self) -> None:
        try:
            strip = self.query_one(CallStrip)
        except NoMatches:
            return
        history = self.history
        if history is None or not len(history):
            strip.remove_class("-shown")
            return
        strip.add_class("-shown")
        index = self._whole_index(self.view.current_row)
        if index is None:
            strip.show(
                "calls", [None] * len(history), self.call, "no timeline for this row (consumed, or not in the chat now)"
            )
            return
        self.strip_version += 1
        settings = self.call_settings()
        self.strip_settings = settings.key()
        self._build_strip(history, index, settings, self.strip_version)

    @work(thread=True, exclusive=True, group="strip", description="the message's timeline", exit_on_error=False)
    def _build_strip(self, history, index: int, settings: CallSettings, version: int) -> None:
        worker = get_current_worker()
        line = message_tiers(history, index, lambda: worker.is_cancelled, settings)
        if not worker.is_cancelled:
            self.post_message(StripReady(index, line, version))

    @on(StripReady)
    def _strip_ready(self, event: StripReady) -> None:
        if event.version != self.strip_version or self.history is None:
            return
        line = event.timeline
        total = len(self.history)
        tiers: list = [None] * total
        if line.first is not None:
            for k, tier in enumerate(line.tiers):
                tiers[line.first - 1 + k] = tier
        cut = next((line.first + k for k, t in enumerate(line.tiers) if t == "truncated"), None)
        if line.first is None:
            note = "written after the last call"
        elif line.last_seen is None:
            note = f"never sent ({calls_range(line.first, total)})"
        else:
            note = f"sent at {calls_range(line.first, line.last_seen)}"
            note += f", cut from {cut}" if cut is not None and cut <= line.last_seen else ""
            note += f", hidden from {line.hidden_from}" if line.hidden_from is not None else ", to the last"
        try:
            strip = self.query_one(CallStrip)
        except NoMatches:  # the app is closing
            return
        strip.show(f"#{self.view.current_row} over {calls_count(total)}", tiers, self.call, note)

    # -- follow the file ----------------------------------------------------------------
    def action_toggle_follow(self) -> None:
        self.following = not self.following
        if self.following:
            self._start_following()
            self.notify("following the file: appends and rewrites show up as they happen (o stops)")
        else:
            if self._follow_timer is not None:
                self._follow_timer.stop()
                self._follow_timer = None
            self.notify("no longer following the file")
        self._show_summary()

    def _start_following(self) -> None:
        if self._follow_timer is None:
            self._follow_timer = self.set_interval(self.follow_every, self._poll_follow)

    def _poll_follow(self) -> None:
        # one look at a time, never cancelled: a look cut short could lose an append it already read
        running = self._follow_worker is not None and not self._follow_worker.is_finished
        if self.follower is not None and self.following and not running:
            self._follow_worker = self._follow(self.follower)

    @work(thread=True, group="follow", description="following the file", exit_on_error=False)
    def _follow(self, follower: Follower) -> None:
        update = follower.poll()
        if update is not None:
            self.post_message(Followed(update))

    @on(Followed)
    def _followed(self, event: Followed) -> None:
        update = event.update
        if update.history is None:
            self.query_one(Banner).show_lines([update.message], error=False)
            self.notify(update.message, severity="warning", markup=False, timeout=6)
            return
        newest = self.call is None
        self.history = update.history
        # the view keeps its place: the call on screen stays (its chat has not changed), the whole chat grows;
        # a cursor on the last row stays on the newest message
        self.show_call(None if newest else min(self.call, len(update.history)) or None)
        self.notify(update.message, title="Followed", markup=False, timeout=3)

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action in NEEDS_CHAT:
            if len(self.screen_stack) > 1:
                return False  # a dialog is open: its keys only
            if self.rows is None:
                return False
            if action in ("next_match", "prev_match") and not self.view.search_hits:
                return None  # shown greyed out
        return not (action == "reload" and len(self.screen_stack) > 1)


def run_app(args, overrides: dict[str, str], config_files) -> tuple[int, str | None]:
    """Run the app; (exit status, the one-line error when the chat could not be opened at start)."""
    from inspector.demo import demo_chat_path

    path, label = args.chat, None
    if path is None:
        path = demo_chat_path()
        label = f"{path.name} (bundled demo)"
    app = InspectorApp(
        path,
        overrides,
        config_files,
        strategies=args.strategies,
        input_format=args.input_format,
        label=label,
        scout_version=args.scout_version,
        follow=getattr(args, "follow", False),
    )
    app.run()
    return app.return_code or 0, app.start_error
