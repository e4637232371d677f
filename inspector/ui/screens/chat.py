"""The screen of one loaded chat: the list, the header, the editor, the strip, and every action on them.

State here is one ``Document`` (the chat on screen and the plan it shows, replaced whole per plan),
what the user asks for next (``Settings``: the editor's values and the strategy list), and the row
filter. Workers are handed their inputs as arguments and post a new Document back; they never read
this screen's attributes from their thread. The screen owns the follow of its file. Widgets own
their data (the search in the list, A in the A/B panel, the sweep in the editor) and report their
own workers' failures; a failure of the screen's own workers lands in ``_worker_failed``.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import tempfile
import time
from bisect import bisect_left
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, cast

from textual import on, work
from textual.app import ComposeResult, SuspendNotSupported
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.timer import Timer
from textual.widget import Widget
from textual.worker import Worker, get_current_worker

from inspector.core import tokens
from inspector.core.analysis.replan import Replanner
from inspector.core.calls.history import ChatHistory
from inspector.core.calls.live import Follower
from inspector.core.calls.timeline import CallSettings, index_at, message_tiers
from inspector.core.calls.usage import CallTokens, call_usage, trust_check
from inspector.core.errors import InputError, UsageError
from inspector.core.inspection import Inspection
from inspector.core.io.atomic import write_atomic
from inspector.core.model import Finding
from inspector.core.peers.registry import POLICIES, Param, PolicySettings, get, settings_for
from inspector.core.policies.decision import Tier
from inspector.core.present.detail import detail_text
from inspector.core.present.export import explain_bytes, prepared_bytes
from inspector.core.present.provenance import origin_text
from inspector.core.present.rows import CUT, RowOrder, content_text, row_matches_tier
from inspector.core.present.sanitize import one_line
from inspector.core.present.search import ignores_case
from inspector.core.present.settings_lines import as_env, as_scout_config, strategy_to_write
from inspector.core.present.timeline import calls_count, calls_range
from inspector.core.scout import versions
from inspector.core.scout.decision_text import describe
from inspector.core.scout.settings import KEYS, SETTING_KEYS, Source, Thresholds, Value, keys_for
from inspector.core.scout.strategies import UnknownStrategy, parse_spec, strategy_choices
from inspector.core.setup import ChatSource, Setup
from inspector.core.yielding import pause_if_due

from ..analysis import Replanners
from ..document import Document, RowFilter, Settings, open_document, plan_call, refiltered, replan
from ..keymap import APP_ACTIONS, VIEW_ACTIONS, bindings
from ..messages import (
    CallShown,
    ChatLoaded,
    ChatShown,
    Exported,
    Followed,
    HeaderTokens,
    LoadFailed,
    Replanned,
    StartFailed,
    StripReady,
    TokensCounted,
    WorkerFailed,
    report_failure,
)
from ..results import ApplyFix, ExportChoice, JumpTo, JumpToCall, PresetChoice, SettingsChoice
from ..widgets.call_strip import CallStrip
from ..widgets.compare_panel import ComparePanel, Pinned
from ..widgets.detail import DetailPane
from ..widgets.dual_view import DualColumnView
from ..widgets.footer import KeyBar
from ..widgets.prompt_bar import PromptBar
from ..widgets.summary import Banner, ExactTokens, StatusLine, SummaryBar
from ..widgets.thresholds import CHAT_CHOICE, ThresholdEditor
from ..widgets.token_chart import TokenChart, TokenSeries
from .audit import AuditScreen
from .export import ExportScreen
from .filter import FilterScreen
from .notes import Note, NotesScreen
from .policy import PolicyChoice, PolicyScreen
from .presets import PresetsScreen
from .save_settings import SaveSettingsScreen
from .why import WhyScreen

if TYPE_CHECKING:
    from collections.abc import Callable

    from textual.screen import ScreenResultCallbackType

VIEW_NAMES = {a.action.split("(")[0] for a in VIEW_ACTIONS}
FOLLOWING = "◉ following"  # the header's badge while the file is followed
UNDO_DEPTH = 200  # changes kept for ctrl+z
CALL_TYPED = re.compile(r"c(?:all)?\s*([0-9]+)", re.IGNORECASE | re.ASCII)  # `g call 12`, `g c12`

# what a finding does to the prompt, worst first: a role the model is sent by mistake, a chat that is
# already a prepared prompt (every cut is a second one), then the
# parser traps that swallow lines, then notes about what scout-ai would do on another run
HARM = {"unknown_role": 0, "already_prepared": 1, "previous_response_id": 9}


COPIED = {"shown": "as the detail pane shows it", "raw": "the original as stored", "sent": "model-visible content"}


class Host(Protocol):
    """What the screen asks of the App that hosts it (the App is not imported here: it imports this)."""

    debounce: float
    editor_wait: float
    detail_delay: float
    search_delay: float
    told_osc52: bool  # a copy said once that it goes through the terminal
    follow_every: float

    def focus_then_replay(self, widget: Widget) -> None: ...

    def push_dialog(self, screen: Screen[object], callback: Callable[[object], None]) -> None: ...


def by_harm(findings: list[Finding]) -> list[Finding]:
    return sorted(findings, key=lambda f: (HARM.get(f.kind, 5), f.line or 0))


def findings_line(findings: list[Finding]) -> str:
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
    return f"{len(findings):,} loader finding(s), i for all: " + " · ".join(parts)


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


def _without_name(exc: UsageError, policy: str) -> str:
    """A policy's refusal shown under its settings: the policy's name goes without saying there."""
    return str(exc).removeprefix(f"{policy}: ").removeprefix(f"{policy} ")


def budget_of(whole: Inspection, settings: CallSettings) -> tuple[int | None, str]:
    """The budget the plan keeps the prompt under, in tokens, and what it is (None: it has none in tokens):
    shorten_tools' max_tool_chars (characters of tool outputs, / 4: an estimate), LangChain's trigger and
    max_tokens, Inspect's threshold."""
    policy = whole.policy
    if policy is not None:
        values = policy.as_dict()
        for key in ("trigger", "max_tokens"):
            if isinstance(values.get(key), int):
                return values[key], key
        if "threshold" in values and values["threshold"] != "always":
            from inspector.core.peers.inspect_ai import threshold_tokens

            return threshold_tokens(values["threshold"], values["context_window"]), "threshold"
        return None, ""
    names = whole.strategy_names() if settings.strategies is None else settings.strategies.split(",")
    if names is not None and "shorten_tools" in names:
        chars = (settings.thresholds or whole.thresholds).setting("max_tool_chars")
        return int(chars) // 4, f"max_tool_chars {int(chars):,} / 4"
    return None, ""


class ChatScreen(Screen[None]):
    BINDINGS = bindings(APP_ACTIONS, on_screen=True)
    # the model call to show once the chat is first loaded (None: the whole chat); set before the screen is
    # pushed (the corpus view opens a chat at its first refetch)
    initial_call: int | None = None

    def __init__(self, source: ChatSource | None, setup: Setup, label: str, follow: bool = False) -> None:
        super().__init__()
        self.source = source
        self.setup = setup  # as opened: what u goes back to (thresholds, strategies and version)
        self.label = label
        self.doc: Document | None = None  # the chat on screen and its plan
        self.wanted: Settings | None = None  # what the next plan is made under (the editor shows it)
        self.row_filter = RowFilter()
        self.generation = 0  # which plan or call the screen waits for: a newer one makes older ones stale
        self.strip_generation = 0
        self.strip_settings: tuple[object, ...] | None = None  # what the strip on screen was planned under
        self.load_error: str | None = None
        self.load_seconds: float | None = None
        self.last_export: Path | None = None
        self.replanners = Replanners()
        self.strategy_choices = [CHAT_CHOICE, *strategy_choices()]
        self.following = follow
        self.follower: Follower | None = None
        self._editor_due = False  # values set at once, not yet in the editor (show_editor_with_plan)
        self._plan_timer: Timer | None = None
        self._detail_timer: Timer | None = None
        # `/` searches as the text is typed: from the row and with the query it was opened on (Esc goes back)
        self._typed_search: tuple[int | None, str] | None = None
        self._typed_timer: Timer | None = None
        self._editor_timer: Timer | None = None
        self._strip_timer: Timer | None = None
        self._follow_timer: Timer | None = None
        self._follow_worker: Worker[None] | None = None
        self._call_target: tuple[int | None, int | None] | None = None  # (call, message kept) asked, not shown
        self._retrace_why = False  # a followed chat grew: an open why traces it again
        self._exact: tuple[object, ExactTokens] | None = None  # the header's exact tokens, for one prompt
        self._exact_chat: object = None  # the chat those tokens counted before (same chat: not counted again)
        # the chart's counts: for one history under one call setting
        self._token_series: tuple[ChatHistory, tuple[object, ...], TokenSeries] | None = None
        self._undo: list[tuple[Settings, str | None]] = []  # settings (and version) before each change
        self._undoing = False
        self._typing: str | None = None  # the field the last remembered change was typed in

    @property
    def host(self) -> Host:
        return cast(Host, self.app)

    # -- what the tests and the App read -------------------------------------------------
    @property
    def document(self) -> Document:
        """The chat on screen (only asked once it is loaded)."""
        assert self.doc is not None, "no chat is loaded yet"
        return self.doc

    @property
    def settings(self) -> Settings:
        assert self.wanted is not None, "no chat is loaded yet"
        return self.wanted

    @property
    def thresholds(self) -> Thresholds:
        return self.settings.thresholds

    @property
    def strategies(self) -> str | None:
        return self.settings.strategies if self.wanted is not None else self.setup.strategies

    @property
    def path(self) -> str | None:
        return self.source.path if self.source is not None else None

    @property
    def loaded(self) -> bool:
        return self.doc is not None

    def read_files(self) -> list[str]:
        """The files the chat on screen reads (import:, file:, directory:): an export never replaces them."""
        return self.doc.inspection.chat.read_files if self.doc is not None else []

    # -- layout ------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield SummaryBar("loading…", id="summary")
        yield Banner(id="banner")
        with Horizontal(id="body"):
            with Vertical(id="left"):
                yield DualColumnView(id="view")
                yield StatusLine(id="status")
                yield CallStrip(id="strip")
                yield TokenChart(id="tokens")
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
        self.view.focus()
        self.load(self.setup, None)
        if self.following:
            self._start_following()
        if self.app.size.width >= 140:
            await self.editor.open()  # room for it: show the values from the start (the load runs meanwhile)

    def open_prompt_bar(self, mode: str, value: str | None = None) -> None:
        bar = self.query_one(PromptBar)
        bar.open(mode, value)
        self.host.focus_then_replay(bar)

    def push_dialog(self, screen: Screen[object], callback: Callable[[object], None]) -> None:
        self.host.push_dialog(screen, callback)

    def push(self, screen: Screen[object], callback: Callable[[object], None] | None = None) -> None:
        self.app.push_screen(screen, cast("ScreenResultCallbackType[object] | None", callback))

    # -- loading -------------------------------------------------------------------------
    @work(thread=True, exclusive=True, group="load", description="loading the chat", exit_on_error=False)
    def load(self, setup: Setup, keep: Settings | None) -> None:
        started = time.perf_counter()
        try:
            if self.source is None:
                raise InputError("no chat file given")
            history = ChatHistory(self.source, setup)
            doc = open_document(history, keep, self.row_filter)
        except (InputError, UsageError, UnknownStrategy) as exc:
            self.post_message(LoadFailed(str(exc)))
            return
        self.post_message(ChatLoaded(doc, time.perf_counter() - started))

    @on(ChatLoaded)
    def _loaded(self, event: ChatLoaded) -> None:
        row = self.view.current_row if self.doc is not None else None
        doc = self.doc = event.document
        self.wanted = doc.settings
        self.load_error, self.load_seconds = None, event.elapsed
        self.follower = Follower(doc.history)
        self.generation += 1
        self.view.set_tail([])
        self.view.set_data(doc.rows, doc.prompt, doc.order, row, doc.inspection.chat.findings)
        self._editor_due = False
        self.show_editor()
        self.editor.set_chat_label(self.chat_strategy_label)
        self._place_strip()
        self._show_summary()
        # the selected row's detail in the same frame: filled a moment later it would cost a layout pass of
        # its own just as the first keys arrive
        self.show_detail()
        self.refresh_bindings()  # actions that needed a chat are now available
        self.app.post_message(ChatShown())  # the App replays the keys typed before this
        if self.view.search_query:
            self.view.search(self.view.search_query)
        # the sweep chart and the A/B compare after the first frame: their workers would hold the GIL
        # while the list and the totals are painted
        self.call_after_refresh(self._after_painted, self.generation)

    @on(ChatLoaded)
    def _show_initial_call(self) -> None:
        """After the first load (``_loaded`` ran: handlers run in the order defined), step to ``initial_call``."""
        number, self.initial_call = self.initial_call, None
        if number is not None and self.doc is not None and 1 <= number <= len(self.doc.history):
            self.show_call(number)

    @on(LoadFailed)
    def _load_failed(self, event: LoadFailed) -> None:
        self.load_error = event.text
        if self.doc is None:
            # nothing was ever shown: exit at once, as the CLI would (a failed reload keeps the app open)
            self.app.post_message(StartFailed(event.text))
            return
        # a reload that failed: what is on screen is the last chat that loaded, and says so
        self.query_one(Banner).show_lines([f"Reload failed, showing the last good load: {event.text}"], error=True)
        self.notify(f"reload failed: {event.text}", severity="error", markup=False, timeout=10)

    # -- one handler for the screen's own workers that fail --------------------------------
    @on(Worker.StateChanged)
    def _worker_state(self, event: Worker.StateChanged) -> None:
        report_failure(self, event)

    @on(WorkerFailed)
    def _worker_failed(self, event: WorkerFailed) -> None:
        event.stop()
        group, error = event.worker.group, event.error_text
        if group == "load":
            self.post_message(LoadFailed(f"{self.path}: cannot inspect ({error})"))
            return
        text = event.summary
        if group == "plan" and self.doc is not None:
            # the editor shows what was asked for, the list what was planned before: make them agree again
            self.wanted = self.doc.settings
            self.generation += 1  # a re-plan still queued is for the values just abandoned
            self._editor_due = False
            self.show_editor()
            self._show_summary()
            self.analysis_refresh()  # their workers were stopped when the change was asked for
            text += f"; back to the plan on screen (strategies {self.doc.prompt.strategy_label})"
        elif group == "search":
            self.view.search("")
        self.notify(text, title="Failed", severity="error", markup=False, timeout=10)

    # -- re-planning ---------------------------------------------------------------------
    def schedule_replan(self, delay: float | None = None) -> None:
        if self._plan_timer is not None:
            self._plan_timer.stop()
        delay = self.host.debounce if delay is None else delay
        self.generation += 1
        self._call_target = None  # a step under way is dropped: the plan is made for the chat on screen
        # the sweep chart and the A/B compare still running are for the values just left: stop them now,
        # so they do not hold the GIL while the new plan is painted (they are asked again after that frame)
        self.app.workers.cancel_group(self.editor, "sweep")
        self.app.workers.cancel_group(self.compare_panel, "compare")
        if delay <= 0:
            self._request_plan(self.generation)
        else:
            generation = self.generation
            self._plan_timer = self.set_timer(delay, lambda: self._request_plan(generation))

    def _request_plan(self, generation: int) -> None:
        if self.doc is not None and self.wanted is not None:
            self.replan(self.doc, self.wanted, self.row_filter, generation)

    @work(thread=True, exclusive=True, group="plan", description="planning the prompt", exit_on_error=False)
    def replan(self, doc: Document, settings: Settings, row_filter: RowFilter, generation: int) -> None:
        planned = replan(doc, settings, row_filter)
        if not get_current_worker().is_cancelled:
            self.post_message(Replanned(planned, generation))

    @on(Replanned)
    def _replanned(self, event: Replanned) -> None:
        if event.generation != self.generation:
            return  # a newer change is on its way
        doc = self.doc = event.document
        if self.follower is not None:
            self.follower.history = doc.history  # another policy: the follow plans under it too
        self.show_pending_editor()
        self.view.set_changed(set(doc.changes))
        self.view.set_prompt(doc.prompt, doc.order)
        self._show_summary()
        # the detail pane, the sweep chart and the A/B compare after the frame: the list and the totals are
        # what the user waits for, and the analyses' workers would hold the GIL while they are painted
        self.call_after_refresh(self._after_painted, event.generation)

    def _after_painted(self, generation: int) -> None:
        if generation != self.generation or self.doc is None:
            return  # a newer change: it schedules its own
        self._schedule_detail(0)
        self.request_tokens()
        self.request_header_tokens()
        if self.strip_settings is not None and self.doc.plan_key() != self.strip_settings:
            self._schedule_strip(0)  # the timeline is planned under the edits too
        self.analysis_refresh()

    @on(ThresholdEditor.Edited)
    def _edited(self, event: ThresholdEditor.Edited) -> None:
        if self.wanted is None or self.wanted.thresholds.setting(event.key) == event.value:
            return
        self.set_threshold(event.key, event.value, typed=True)

    def action_leave_editor(self, close: bool) -> None:
        """Esc in the editor (back to the list, it stays open) or t (close it); the focus moves at once."""
        if close:
            self.editor.remove_class("-open")
        self.set_focus(self.view)

    def active_keys(self, strategies: str | None) -> list[str]:
        """The settings the strategies in force read (the editor shows those)."""
        if self.doc is None:
            return list(KEYS)
        inspection = self.doc.inspection
        spec = strategies if strategies is not None else inspection.with_strategies(None).strategy_spec
        version = inspection.version_for(spec)
        names = parse_spec(spec, version.default, validate=False)
        return keys_for([] if callable(names) else list(names)) or list(KEYS)

    def set_threshold(
        self,
        key: str,
        value: int | float,
        where: str = "in the app",
        delay: float | None = None,
        typed: bool = False,
    ) -> None:
        """One value changed by the user (typed, or a fix applied from Why): editor, sources, re-plan."""
        wanted = self.settings
        thresholds = wanted.thresholds.with_value(key, value, Source.EDITED, where)
        self._edit(replace(wanted, thresholds=thresholds), key if typed else None, delay)

    def _edit(self, settings: Settings, typing: str | None, delay: float | None) -> None:
        """An edit of the settings in force, one undo step (per field typed in): the editor shows it (the
        field being typed in keeps its text: sources, and max_tool_outputs when it follows), then it plans."""
        self._remember(typing)
        self.wanted = settings
        if typing is not None:
            self._editor_due = False  # this shows the latest values: a show still pending would retype the field
            self.show_editor(typing=typing)
        else:
            self.show_editor_with_plan()
        self.schedule_replan(delay)

    @on(ThresholdEditor.FollowAsked)
    def _follow_asked(self) -> None:
        wanted = self.wanted
        if wanted is None or wanted.thresholds.follows():
            return
        # its source says it follows; the emptied field stays
        self._edit(replace(wanted, thresholds=wanted.thresholds.following()), "max_tool_outputs", None)

    @on(ThresholdEditor.StrategiesPicked)
    def _strategies_picked(self, event: ThresholdEditor.StrategiesPicked) -> None:
        self.set_strategies(event.strategies)

    @on(ThresholdEditor.ResetPressed)
    def _reset_pressed(self) -> None:
        self.action_reset_thresholds()

    def set_strategies(self, strategies: str | None) -> None:
        """A scout-ai strategy list (None: the chat's choice): scout-ai's strategies plan, whatever policy did."""
        if self.wanted is None:
            return
        self.apply_settings(self._as_scout(replace(self.wanted, strategies=strategies)))

    def apply_thresholds(self, thresholds: Thresholds, strategies: str | None, delay: float = 0) -> None:
        """scout-ai's thresholds and strategies (a preset): planned by scout-ai's strategies."""
        self.apply_settings(self._as_scout(Settings(thresholds, strategies)), delay)

    def apply_settings(self, settings: Settings, delay: float = 0, remember: bool = True) -> None:
        """Everything a plan is made under at once (undo, reset, a preset, a strategy list or policy picked);
        ``remember``: an undo step (a caller that changes the version too takes it first)."""
        if self.wanted is None:
            return
        if settings == self.wanted:
            self.show_editor()  # what the editor may show instead (a policy that needs a value first) goes
            return
        if remember:
            self._remember()
        self.wanted = settings
        self.show_editor_with_plan()
        self.schedule_replan(delay)

    def _as_scout(self, settings: Settings) -> Settings:
        """``settings`` planned by scout-ai's strategies: no policy, the --set values the chat was opened with
        (when they were scout-ai's)."""
        return replace(settings, policy=None, overrides=self.setup.overrides if self.setup.policy is None else ())

    def show_editor(self, typing: str | None = None) -> None:
        wanted = self.settings
        policy = wanted.policy_settings()
        if policy is not None:
            self.editor.show_policy(policy, self.policy_sources(policy.spec.name, wanted.overrides), typing=typing)
            return
        self.editor.show(wanted.thresholds, wanted.strategies, self.active_keys(wanted.strategies), typing=typing)

    def policy_sources(self, policy: str, overrides: tuple[tuple[str, str], ...]) -> dict[str, str]:
        """Where each setting given comes from: the command line (--set, as the chat was opened with it) or
        edited here; a setting not given is the policy's default."""
        launched = self.setup.overrides_dict() if self.setup.policy == policy else {}
        return {key: "--set" if launched.get(key) == text else "edited" for key, text in overrides}

    def show_editor_with_plan(self) -> None:
        """Values set at once (a preset, a fix, reset, another strategy list) go into the editor in the frame
        that shows their plan, not one frame before it: a frame drawn first takes the screen's next refresh
        slot, and the list and the totals then wait for the one after (30-40 ms instead of about 10).
        A plan that takes longer than ``editor_wait`` does not hold the editor back."""
        self._editor_due = True
        if self._editor_timer is not None:
            self._editor_timer.stop()
        if self.host.editor_wait > 0:
            self._editor_timer = self.set_timer(self.host.editor_wait, self.show_pending_editor)
        else:
            self.show_pending_editor()

    def show_pending_editor(self) -> None:
        if self._editor_due:
            self._editor_due = False
            self.show_editor()

    # -- the analysis tools (why, sweep chart, A/B compare, audit) -----------------------
    def analysis_inspection(self) -> Inspection:
        """The chat on screen under the settings planned for it: what every analysis answers about."""
        return self.document.inspection

    def replanner(self) -> Replanner:
        return self.replanners.get(self.document.inspection)

    def analysis_refresh(self) -> None:
        """The plan changed (load, edit, strategies, version, call): recompute what is on screen."""
        if self.doc is None:
            return
        self.request_sweep()
        self.compare_panel.request(self.analysis_inspection(), self.replanner())

    def request_sweep(self) -> None:
        if self.doc is not None and (self.wanted is None or self.wanted.policy is None):  # a policy: no chart
            self.editor.request_sweep(self.analysis_inspection(), self.doc.thresholds, self.replanner())

    @on(ThresholdEditor.KeyFocused)
    def _key_focused(self) -> None:
        self.request_sweep()

    def action_why(self) -> None:
        self.open_prompt_bar("why")

    def open_why(self, text: str) -> None:
        if not text or self.doc is None:
            return
        doc = self.doc

        def done(result: object) -> None:
            if isinstance(result, JumpToCall):
                self.show_call(result.number, result.row)
            elif isinstance(result, JumpTo):
                self.go_to_row(result.row)
            elif isinstance(result, ApplyFix) and self.document.inspection.policy is not None:
                fix, policy = result.fix, self.document.inspection.policy
                self.set_policy_values(policy.spec.name, {fix.key: str(fix.value)}, delay=0)
                self.go_to_row(result.row)
                self.notify(
                    f"{fix.key} = {fix.value:,} applied to {policy.spec.name}: message #{result.row} is now sent "
                    f"(prompt {fix.delta_chars:+,} characters; ctrl+z undoes)",
                    markup=False,
                )
            elif isinstance(result, ApplyFix):
                fix = result.fix
                self.set_threshold(fix.key, fix.value, "why fix", delay=0)
                self.go_to_row(result.row)
                self.notify(
                    f"{fix.key} = {fix.value:,} applied: message #{result.row} is now {fix.tier} "
                    f"(prompt {fix.delta_chars:+,} characters; u resets)",
                    markup=False,
                )

        screen = WhyScreen(
            text,
            doc.inspection,
            self.replanner(),
            ignore_case=ignores_case(text),  # as / searches: a capital asks for the case
            history=doc.history,
            call=doc.call,
            settings=doc.call_settings(),
        )
        self.push(cast("Screen[object]", screen), done)

    def action_pin_compare(self) -> None:
        panel = self.compare_panel
        if panel.pinned is not None:
            panel.unpin()
            self.notify("A/B compare: unpinned")
            return
        inspection = self.document.inspection
        panel.pin(Pinned(inspection.thresholds, inspection.setup))
        self.notify(
            "A/B compare: the plan on screen is pinned as A; edit the thresholds (t), the strategies (s) or the "
            "version (V) to see what B changes"
        )
        panel.request(inspection, self.replanner())

    def action_focus_compare(self) -> None:
        if self.compare_panel.pinned is None:
            self.notify("pin the current thresholds as A first (b)", severity="warning")
            return
        self.set_focus(self.compare_panel.options)

    @on(ComparePanel.Changed)
    def _compare_changed(self, event: ComparePanel.Changed) -> None:
        self.view.set_marked(event.rows)

    @on(ComparePanel.Jump)
    def _compare_jump(self, event: ComparePanel.Jump) -> None:
        self.go_to_row(event.row)

    def action_audit(self) -> None:
        doc = self.document

        def picked(result: object) -> None:
            if isinstance(result, JumpToCall):
                self.show_call(result.number, result.row)
            elif isinstance(result, JumpTo):
                self.go_to_row(result.row)

        window = getattr(self.app, "context_window", None)
        screen = AuditScreen(doc.inspection, self.replanner(), doc.history, doc.call_settings(), window)
        self.push(cast("Screen[object]", screen), picked)

    # -- what is shown -------------------------------------------------------------------
    def _show_summary(self) -> None:
        doc = self.document
        chat, prompt = doc.inspection.chat, doc.prompt
        policy = doc.inspection.policy
        version = prompt.version
        if policy is not None:  # another framework's policy: its name, the settings given, exact or not
            name = policy.spec.name  # "approximate" before the settings: a narrow header keeps it
            given = policy.label().removeprefix(name)
            strategies = f"policy {name}{'' if policy.spec.exact else ' (approximate)'}{given}"
            version = ""  # no scout-ai version plans it (the editor names the library reproduced)
        else:
            origin = "" if doc.strategies is not None else f" ({self._unpicked_origin(doc.inspection)})"
            values = origin_text(doc.inspection.thresholds, self.active_keys(doc.strategies))
            strategies = prompt.strategy_label + origin + (f" · {values}" if values else "")
        exact = self._exact[1] if self._exact is not None and self._exact[0] is doc.prompt else None
        self.query_one(SummaryBar).show(
            self.call_label(), chat.format, strategies, doc.totals, version, self._where(), exact
        )
        lines, error = [], False
        warnings = self.thresholds.warnings
        if warnings:  # first: it explains the numbers on screen (a value scout-ai read from a text)
            more = f" (+{len(warnings) - 1:,} more, i for all)" if len(warnings) > 1 else " (i for all)"
            lines.append(f"threshold warning: {warnings[0]}{more}")
        if prompt.error is not None:
            error = True
            lines.append(f"{prompt.error.raiser} would raise, so nothing is sent: {prompt.describe_error()}")
        elif policy is not None:
            outcome = getattr(prompt.planner, "outcome", lambda: None)()
            if outcome is not None:  # the name here too: a narrow header cuts it
                approximate = "" if policy.spec.exact else " (approximate)"
                summary = outcome.summary.removesuffix(" (approximate)")  # said by the name, which stays
                lines.append(f"{policy.spec.name}{approximate}: {summary}")
        if chat.findings:
            lines.append(findings_line(chat.findings))
        self.query_one(Banner).show_lines(lines, error)
        self._show_status()

    @staticmethod
    def _unpicked_origin(inspection: Inspection) -> str:
        """Where the strategy list comes from when the user picks none: "chat's choice" only when the chat
        chose; "scout config" (2.x: the config or PROMPT_STRATEGY); else the version's "default"."""
        if inspection.chat.strategies is not None:
            return "chat's choice"
        if inspection.version.strategies_from_config and inspection.config_strategies is not None:
            return "scout config"
        return "default"

    def _show_status(self) -> None:
        view = self.view
        parts = []
        if view.count:
            parts.append(f"row {view.current_row} · {view.cursor + 1} of {view.count:,} shown")
        doc = self.doc
        if doc is not None and doc.call is not None and doc.changes:
            parts.append(f"• {len(doc.changes):,} row(s) changed tier since call {doc.call - 1}")
        rf = self.row_filter
        if rf.active:
            tier = "truncated or dropped" if rf.tier == CUT else rf.tier or "any"
            tool = f", tool {rf.tool}" if rf.tool else ""
            size = f", at least {rf.min_chars:,} chars" if rf.min_chars is not None else ""
            parts.append(f"filter: tier {tier}, role {rf.role or 'any'}{tool}{size} (F clears)")
        if rf.order is not RowOrder.FILE:
            parts.append(f"sorted: {rf.order.label} (S: next order)")
        if view.search_query:
            hits = view.search_hits
            current = view.current_row
            at = bisect_left(hits, current) + 1 if current in hits else 0
            # counted in messages, like the # column (why counts occurrences, and says in how many messages)
            if not hits:
                parts.append(f"search {view.search_query!r}: no message matches")
            else:
                where = f"{at} of {len(hits):,}" if at else f"{len(hits):,}"
                case = "any case" if ignores_case(view.search_query) else "this case: a capital was typed"
                parts.append(f"search {view.search_query!r} ({case}): message {where} matching (n/N)")
        self.query_one(StatusLine).show("  ·  ".join(parts) or "no rows")

    @on(DualColumnView.Highlighted)
    def _highlighted(self, event: DualColumnView.Highlighted) -> None:
        self._show_status()
        self._schedule_detail(self.host.detail_delay)
        self._schedule_strip(self.host.detail_delay)

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
        doc = self.doc
        if row is None or doc is None:
            pane.show(None, "No row selected." if doc is not None else pane.text)
            return
        view = self.view
        query = view.search_query if row in view.hits else ""
        pane.show(row, self.detail_of(doc, row), query)
        pane.border_title = f"detail · #{row}"

    @staticmethod
    def detail_of(doc: Document, row: int) -> str:
        """The row as the detail pane shows it (whole: the pane itself shows a long one's start)."""
        text = detail_text(doc.rows, doc.prompt, doc.thresholds, row, doc.inspection.chat.findings)
        change = doc.changes.get(row)
        if change is not None and doc.call is not None:
            head, _, rest = text.partition("\n")
            cause = describe(change.decision, doc.thresholds)
            text = f"{head}\nsince call {doc.call - 1}: {change.before} -> {change.after}: {cause}\n{rest}"
        return text

    # -- navigation ----------------------------------------------------------------------
    def go_to_row(self, row: int, focus: bool = True) -> None:
        if self.doc is None:
            return
        rows = self.doc.rows
        if not 0 <= row < len(rows):
            self.notify(f"no message #{row}; the rows are 0 to {len(rows) - 1}", severity="warning")
            return
        self.view.go_to_row(row)
        if self.view.current_row != row:
            self.notify(f"message #{row} is hidden by the filter; showing the next row", severity="warning")
        if focus:
            self.view.focus()  # may run as a dialog closes: the focus lands once this screen is back

    def go_to(self, typed: str) -> None:
        """`g`: a message number (the # column), or a model call (`call 12`, `c12`)."""
        text = typed.strip()
        call = CALL_TYPED.fullmatch(text)
        if call is not None:
            doc = self._with_calls()
            if doc is None:
                return
            number, total = int(call.group(1)), len(doc.history)
            if not 1 <= number <= total:
                self.notify(f"no call {number}; the calls are 1 to {total}", severity="warning")
                return
            self.show_call(number, keep=self._kept_message())
            return
        text = text.lstrip("#")
        if text.isascii() and text.isdigit():
            self.go_to_row(int(text), focus=False)
        elif text:
            self.notify("a message number is digits only, a call `call N` or `cN`", severity="warning")

    def _jump_to_cut(self, step: int) -> None:
        doc, view = self.document, self.view
        position = view.cursor + step
        while 0 <= position < view.count:
            if row_matches_tier(doc.rows, doc.prompt, view.row_at(position), CUT):
                view.cursor = position
                return
            position += step
        self.notify("no more truncated or dropped messages that way", severity="information")

    def action_next_cut(self) -> None:
        self._jump_to_cut(1)

    def action_prev_cut(self) -> None:
        self._jump_to_cut(-1)

    # Focus moves with set_focus, at once: Widget.focus() lands a refresh later, and keys
    # typed right after (Enter then End, a fix then j) would still go to the old widget.
    def action_focus_list(self) -> None:
        self.set_focus(self.view)

    def action_focus_detail(self) -> None:
        self.show_detail()  # the current row now, not when its Highlighted message arrives after the next keys
        self.set_focus(self.query_one(DetailPane))

    def action_toggle_header(self) -> None:
        bar = self.query_one(SummaryBar)
        bar.compact = not bar.compact
        bar.redraw()

    def action_toggle_detail(self) -> None:
        self.query_one(DetailPane).toggle_class("-hidden")

    def action_goto(self) -> None:
        self.open_prompt_bar("goto", "")

    def action_search(self) -> None:
        self._typed_search = (self.view.current_row, self.view.search_query)
        self.open_prompt_bar("search", self.view.search_query)

    @on(PromptBar.Changed)
    def _search_typed(self, event: PromptBar.Changed) -> None:
        """Search as the text is typed (after a short pause, so a burst searches once)."""
        bar = event.input
        if not isinstance(bar, PromptBar) or bar.mode != "search" or self._typed_search is None:
            return
        if self._typed_timer is not None:
            self._typed_timer.stop()
        origin = self._typed_search[0]
        self._typed_timer = self.set_timer(
            self.host.search_delay, lambda: self._search_now(bar.value, origin) if bar.has_class("-open") else None
        )

    def _search_now(self, query: str, origin: int | None) -> None:
        if query != self.view.search_query:
            self.view.search(query, origin if origin is not None else 0)

    def _end_typed_search(self) -> tuple[int | None, str] | None:
        typed, self._typed_search = self._typed_search, None
        if self._typed_timer is not None:
            self._typed_timer.stop()
            self._typed_timer = None
        return typed

    @on(PromptBar.Closed)
    def _prompt_closed(self) -> None:
        typed = self._end_typed_search()
        if not self.is_current:
            return  # the app is closing (a key typed just before quitting): nothing to focus
        if typed is not None and typed[1] != self.view.search_query:  # Esc: the search and the row as before
            row, query = typed
            self.view.search(query, land=False)
            if row is not None:
                self.view.go_to_row(row)
        if self.focused is None:
            self.set_focus(self.view)

    @on(PromptBar.Done)
    def _prompt_done(self, event: PromptBar.Done) -> None:
        if not self.is_current:
            return  # the app is closing (a key typed just before quitting): nothing to act on
        if self.focused is None:  # keys typed after Enter may have moved it already (Enter again: the detail)
            self.set_focus(self.view)
        if event.mode == "why":
            self.open_why(event.value)
            return
        if event.mode == "goto":
            self.go_to(event.value)
            return
        typed = self._end_typed_search()
        self.view.search(event.value, typed[0] if typed is not None and typed[0] is not None else None)

    @on(DualColumnView.Searched)
    def _searched(self, event: DualColumnView.Searched) -> None:
        self._schedule_detail(0)  # the hit in the detail pane is selected (or the selection cleared)
        if event.incremental and self._typed_search is not None:
            self._show_status()  # while typing, the status line counts the hits; Enter's answer notifies
            return
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

    # -- filters -------------------------------------------------------------------------
    def action_filter(self) -> None:
        def picked(result: object) -> None:
            if isinstance(result, RowFilter):
                self.set_filter(result)

        rows = self.document.rows
        screen = FilterScreen(self.row_filter, rows.roles(), rows.tool_names())
        self.push(cast("Screen[object]", screen), picked)

    def set_filter(self, row_filter: RowFilter) -> None:
        row = self.view.current_row
        self.row_filter = row_filter
        doc = self.doc = refiltered(self.document, row_filter)
        self.view.set_data(doc.rows, doc.prompt, doc.order, row, doc.inspection.chat.findings)
        self._show_status()
        if doc.order is not None and not doc.order:
            self.notify("no rows match this filter", severity="warning")

    def action_clear_filter(self) -> None:
        """Every row again, in the order chosen (S changes that)."""
        self.set_filter(RowFilter(order=self.row_filter.order))

    def action_sort(self) -> None:
        """The next order: the file's, the original size, the sent size (largest first); the row stays."""
        order = self.row_filter.order.following()
        self.set_filter(replace(self.row_filter, order=order))
        self.view.scroll_to_cursor()
        self.notify(f"rows in {order.label}", markup=False, timeout=3)

    # -- thresholds, strategies, versions, presets ---------------------------------------
    async def action_thresholds(self) -> None:
        """Open the editor and move into it; from inside it (its own t binding) t closes it. Under another
        framework's policy it shows that policy's settings."""
        editor = self.editor
        await editor.open()
        if not editor.has_focus_within:
            self.host.focus_then_replay(editor.entry_field())

    @property
    def chat_strategy_label(self) -> str:
        """What the chat's own choice (no --strategies, no pick) resolves to."""
        if self.doc is None:
            return ""
        spec = parse_spec(self.doc.inspection.with_strategies(None).strategy_spec)
        return getattr(spec, "__name__", "custom") if callable(spec) else ",".join(spec) or "(empty list)"

    def action_policy(self) -> None:
        """The policy dialog: another framework's policy and its settings, or scout-ai's strategies again."""
        if self.doc is None:
            return

        def done(choice: PolicyChoice | None) -> None:
            if choice is None:
                return
            self.switch_policy(choice.policy, choice.settings)  # checked by the dialog
            if choice.policy is None:
                self.notify("policy: scout-ai's strategies", markup=False)
                return
            settings = self.document.inspection.policy
            label = settings.label() if settings is not None else choice.policy
            self.notify(f"policy: {label}", markup=False)

        self.push(cast("Screen[object]", PolicyScreen(self.document.inspection.policy)), done)  # type: ignore[arg-type]

    def switch_policy(self, name: str | None, settings: dict[str, str] | None = None) -> None:
        """Plan under another framework's policy ``name`` with ``settings`` as typed (checked: a UsageError for
        what it refuses; None: scout-ai's strategies, with the --set values the chat was opened with) from
        now on: the re-plan gives the chat on screen, every call, a reload and the follow the policy."""
        if self.wanted is None:
            return
        if name is None:
            self.apply_settings(self._as_scout(self.wanted))
            return
        settings_for(name, settings or {})
        self.apply_settings(replace(self.wanted, policy=name, overrides=tuple((settings or {}).items())))

    @on(ThresholdEditor.PolicyPicked)
    def _policy_picked(self, event: ThresholdEditor.PolicyPicked) -> None:
        self.pick_policy(event.policy)

    def pick_policy(self, name: str) -> None:
        """A policy picked in the editor's list: planned with its defaults; one that needs a value first
        (trim_messages's max_tokens) shows its settings with the one to fill in marked, the plan kept."""
        if self.wanted is not None and self.wanted.policy == name:
            self.show_editor()  # its settings in force (a policy shown to fill in goes)
            return
        try:
            self.switch_policy(name)
        except UsageError as exc:
            spec = get(name)
            defaults = PolicySettings(spec, tuple((p.name, p.default) for p in spec.params), frozenset())
            message = _without_name(exc, spec.name)
            self.editor.show_policy(defaults, {}, {self._blamed(spec.params, message, None): message})
            self.notify(f"{exc}; type it in the editor (the plan on screen is kept)", severity="warning", markup=False)
            return
        self.notify(f"policy: {name} (its defaults)", markup=False)

    @staticmethod
    def _blamed(params: tuple[Param, ...], message: str, typing: str | None) -> str:
        """The setting a refusal is shown under: the one typed in, else the first the message names."""
        if typing is not None:
            return typing
        return next((p.name for p in params if p.name in message), params[0].name if params else "")

    @on(ThresholdEditor.PolicyEdited)
    def _policy_edited(self, event: ThresholdEditor.PolicyEdited) -> None:
        self.set_policy_values(event.policy, event.texts, typing=event.key)

    def set_policy_values(
        self, policy: str, texts: dict[str, str], typing: str | None = None, delay: float | None = None
    ) -> bool:
        """Settings of ``policy`` as typed (``typing``: the field typed in; every field's text is given then; a
        fix gives one), each checked as the command line checks it: a refused one is marked in the editor
        with its message and the plan on screen stays; else they plan (debounced, one undo step per field).
        A setting is given when it was, when it is typed, or when it differs from its default."""
        wanted = self.settings
        spec = get(policy)
        before = dict(wanted.overrides) if wanted.policy == policy else {}
        overrides: dict[str, str] = {}
        errors: dict[str, str] = {}
        for param in spec.params:
            text = texts.get(param.name)
            if text is None:
                if param.name in before:
                    overrides[param.name] = before[param.name]
                continue
            text = text.strip()
            if param.name not in before and param.name != typing and text == param.show(param.default):
                continue
            try:
                param.parse(text, spec.name)
            except UsageError as exc:  # under its field: the policy and the text typed go without saying
                errors[param.name] = str(exc).removeprefix(f"{spec.name}: {param.name}={text!r}: ")
                continue
            overrides[param.name] = text
        if not errors:
            try:
                settings_for(policy, overrides)  # the library's own checks across settings, a required one
            except UsageError as exc:
                message = _without_name(exc, spec.name)
                errors[self._blamed(spec.params, message, typing)] = message
        if errors:
            self.editor.mark_policy(policy, errors)
            return False
        asked = replace(wanted, policy=policy, overrides=tuple(overrides.items()))
        if asked == wanted:
            self.editor.mark_policy(policy, {})
            return True
        self._edit(asked, typing, delay)
        return True

    def action_cycle_strategies(self) -> None:
        policy = self.wanted.policy if self.wanted is not None else None
        # the policies that plan with their defaults (trim_messages needs its max_tokens: t or P sets it)
        names = [name for name, spec in POLICIES.items() if not any(p.required for p in spec.params)]
        if policy is not None:  # the policies come after scout-ai's strategies, each with its defaults
            at = names.index(policy) if policy in names else -1
            if at + 1 < len(names):
                self.switch_policy(names[at + 1])
                self.notify(f"policy: {names[at + 1]} (its defaults; t edits its settings)", markup=False)
            else:
                self.set_strategies(None)
                self.notify("strategies: scout-ai's again", markup=False)
            return
        current = self.strategies if self.strategies is not None else CHAT_CHOICE
        chat = self.chat_strategy_label
        last = [c for c in self.strategy_choices if c != chat or current == chat][-1]
        if current == last and names:
            self.switch_policy(names[0])
            self.notify(f"policy: {names[0]} (its defaults; t edits its settings)", markup=False)
            return
        # the chat's choice and the same list named explicitly plan alike: one stop in the cycle, not two
        choices = [c for c in self.strategy_choices if c != chat or current == chat]
        following = choices[(choices.index(current) + 1) % len(choices)] if current in choices else choices[0]
        self.set_strategies(None if following == CHAT_CHOICE else following)
        origin = self._unpicked_origin(self.document.inspection)
        shown = f"{chat} ({origin})" if following == CHAT_CHOICE else following
        self.notify(f"strategies: {shown}", markup=False)

    def action_cycle_version(self) -> None:
        if self.doc is None:
            return
        inspection = self.doc.inspection
        spec = self.strategies if self.strategies is not None else inspection.with_strategies(None).strategy_spec
        order = [v.name for v in versions.ORDER]
        current = inspection.version_for(spec).name
        following = order[(order.index(current) + 1) % len(order)]
        self.switch_version(following)
        self.notify(f"scout-ai version: {following}", markup=False)

    def switch_version(self, name: str | None) -> None:
        """Plan under scout-ai version ``name`` (None: inferred) from now on: the chat on screen, every call,
        a reload and the follow all take it (new values: workers holding the old ones plan those unchanged)."""
        doc = self.document
        self._remember()
        history = doc.history.with_setup(doc.history.setup.with_version(name))
        self.doc = replace(doc, history=history, inspection=doc.inspection.with_version(name))
        if self.follower is not None:
            self.follower.history = history
        self.show_editor_with_plan()
        self.schedule_replan(0)

    # -- undo: every change of the settings, the version with them ---------------------------
    def _remember(self, typing: str | None = None) -> None:
        """Keep the settings in force before a change (keys typed in one field are one change)."""
        if self._undoing or self.wanted is None:
            return
        if typing is not None and typing == self._typing:
            return  # the same field typed in again: one step back undoes the whole value
        self._typing = typing
        entry = (self.wanted, self.scout_version)
        if not self._undo or self._undo[-1] != entry:
            self._undo.append(entry)
            del self._undo[:-UNDO_DEPTH]

    def action_undo(self) -> None:
        if not self._undo:
            self.notify("nothing to undo", severity="information")
            return
        settings, version = self._undo.pop()
        before, was = self.settings, self.scout_version
        self._undoing, self._typing = True, None
        try:
            if version != was:
                self.switch_version(version)
            self.apply_settings(settings)
        finally:
            self._undoing = False
        back = [
            f"{k} {settings.thresholds.setting(k):,}"
            for k in SETTING_KEYS
            if settings.thresholds.setting(k) != before.thresholds.setting(k)
        ]
        if settings.strategies != before.strategies:
            back.append(f"strategies {settings.strategies or CHAT_CHOICE}")
        if settings.policy != before.policy:
            back.append(f"policy {settings.policy or 'none (scout-ai strategies)'}")
        elif settings.policy is not None and settings.overrides != before.overrides:
            now = dict(before.overrides)
            back += [f"{k} {v}" for k, v in settings.overrides if now.get(k) != v]
            back += [f"{k} default" for k in now if k not in dict(settings.overrides)]
        if version != was:
            back.append(f"scout-ai version {version or 'as inferred'}")
        self.notify("undone: " + (", ".join(back) or "the settings before"), markup=False)

    @property
    def scout_version(self) -> str | None:
        return self.doc.history.setup.version if self.doc is not None else self.setup.version

    def _strategy_to_write(self) -> str | None:
        """The strategy list picked, for a settings file, when the version reads it there and it is not the
        version's default."""
        if self.doc is None:
            return None
        return strategy_to_write(self.strategies, self.doc.inspection.version_for(self.strategies))

    def action_copy_settings(self) -> None:
        if self.wanted is None:
            return
        keys = self.active_keys(self.strategies)
        text = as_scout_config(self.thresholds, keys, self._strategy_to_write())
        self.app.copy_to_clipboard(text)
        self.notify(f"copied {len(text.splitlines())} etc/config lines (key value prompt) for scout-ai", markup=False)

    def action_save_settings(self) -> None:
        if self.wanted is None:
            return
        keys = self.active_keys(self.strategies)
        thresholds = self.thresholds  # the settings on screen when W was pressed are the ones written
        strategies = self._strategy_to_write()
        chat_path = self.path

        def picked(result: object) -> None:
            if not isinstance(result, SettingsChoice):
                return
            write = as_env if result.fmt == "env" else as_scout_config
            text = write(thresholds, keys, strategies)
            try:  # a few hundred bytes: written at once, atomically, never over the chat
                path = write_atomic(result.target, text.encode(), [chat_path or ""], self.read_files())
            except (InputError, OSError) as exc:
                self.notify(f"settings not saved: {exc}", severity="error", markup=False, timeout=8)
                return
            kind = "environment" if result.fmt == "env" else "etc/config"
            self.notify(f"saved {len(text.splitlines())} {kind} lines to {path.resolve()}", markup=False, timeout=8)

        screen = SaveSettingsScreen(self.path, len(keys), included=self.read_files())
        self.push(cast("Screen[object]", screen), picked)

    def action_reset_thresholds(self) -> None:
        if self.doc is None:
            return
        setup, policy = self.setup, self.settings.policy
        loaded = Settings(self.doc.loaded, setup.strategies, setup.policy, setup.overrides)
        if loaded == self.wanted and self.scout_version == setup.version:
            self.notify("the loaded settings are in force already: nothing to reset", markup=False)
            return
        self._remember()  # one undo step, the version with the rest
        if self.scout_version != setup.version:
            self.switch_version(setup.version)
        self.apply_settings(loaded, remember=False)
        also = "" if policy is None and setup.policy is None else ", policy"
        self.notify(
            f"thresholds, strategies{also} and scout-ai version reset to the loaded ones (ctrl+z undoes)",
            markup=False,
        )

    def action_presets(self) -> None:
        def picked(result: object) -> None:
            if not isinstance(result, PresetChoice):
                return
            thresholds = self.thresholds
            for key, value in result.thresholds.items():  # the five, and the epoch settings when saved
                if value is not None:
                    thresholds = thresholds.with_value(key, value, Source.PRESET, result.name)
            if result.thresholds.get("max_tool_outputs", 0) is None:  # the preset lets it follow max_tool_calls
                follows = Value("max_tool_outputs", thresholds["max_tool_calls"], Source.FOLLOWS)
                thresholds = replace(thresholds, values={**thresholds.values, "max_tool_outputs": follows})
            if result.scout_version is not None:
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
        version = self.document.prompt.version or None
        self.push_dialog(cast("Screen[object]", PresetsScreen(every, self.strategies, version)), picked)

    # -- export, copy, notes, reload ------------------------------------------------------
    def action_export(self) -> None:
        def picked(result: object) -> None:
            if isinstance(result, ExportChoice):
                self.export(result)

        screen = ExportScreen(self.path, included=self.read_files(), about=self._export_about())
        self.push_dialog(cast("Screen[object]", screen), picked)

    def _export_about(self) -> str:
        """What the export holds: the plan on screen, its size in messages, characters and tokens (the
        tokenizer named; the estimate until the exact count is in)."""
        doc = self.doc
        if doc is None:
            return ""
        totals = doc.totals
        exact = self._exact[1] if self._exact is not None and self._exact[0] is doc.prompt else None
        if exact is not None:
            tokens_text = f"{exact.after:,} tokens ({exact.tokenizer})"
        else:
            tokens_text = f"~{(totals.chars_after + 3) // 4:,} tokens (estimate: characters / 4)"
        where = f"call {doc.call}" if doc.call is not None else "the whole chat"
        return (
            f"the plan on screen ({where}): {totals.visible_messages:,} messages sent, "
            f"{totals.chars_after:,} characters, {tokens_text}"
        )

    def export(self, choice: ExportChoice) -> None:
        """Write the plan on screen (the one the list shows, not one re-planned from loose values)."""
        self._export(self.document, choice, self.path or "", self.read_files())

    @work(thread=True, group="export", description="export", exit_on_error=False)
    def _export(self, doc: Document, choice: ExportChoice, chat_path: str, included: list[str]) -> None:
        try:
            prompt = doc.prompt
            if choice.kind == "prepare":
                data = prepared_bytes(prompt, choice.fmt)
            else:
                data = explain_bytes(doc.inspection, prompt, choice.fmt, call=doc.call)
            path = write_atomic(choice.target, data, [chat_path], included)
        except (InputError, UsageError, OSError) as exc:
            self.app.call_from_thread(self.notify, f"not exported: {exc}", severity="error", markup=False, timeout=8)
            return
        self.post_message(Exported(str(path.resolve()), len(data)))

    @on(Exported)
    def _exported(self, event: Exported) -> None:
        self.last_export = Path(event.path)
        self.notify(f"wrote {event.size:,} bytes to {event.path}", title="Exported", markup=False, timeout=8)

    def message_text(self, row: int, which: str) -> str | None:
        """The row's text: ``shown`` as the detail pane shows it (the decision, then the content decoded),
        ``raw`` the original content as stored (JSON as in the file), ``sent`` what the model is sent of
        it (None: nothing)."""
        doc = self.document
        if which == "shown":
            return self.detail_of(doc, row)
        if which == "raw":
            return content_text(doc.rows.original_content(row))
        return self.model_visible_text(row)

    def action_copy(self, which: str = "shown") -> None:
        """Copy through the terminal (OSC 52): the first copy says so and what to do when nothing arrives."""
        row = self.view.current_row
        if row is None or self.doc is None:
            return
        text = self.message_text(row, which)
        if text is None:
            self.notify(f"message #{row} is not sent to the model: nothing to copy", severity="warning")
            return
        self.app.copy_to_clipboard(text)
        what = COPIED[which]
        note = ""
        if not self.host.told_osc52:
            self.host.told_osc52 = True
            note = (
                " through the terminal (OSC 52); if nothing pastes, the terminal or tmux (set-clipboard off) "
                "blocks it: v or E opens the text to copy from"
            )
        self.notify(f"copied {len(text):,} characters of message #{row} ({what}){note}", markup=False, timeout=8)

    def model_visible_text(self, row: int) -> str | None:
        """What the model is sent of this row's content; None when it is sent nothing."""
        doc = self.document
        index = doc.rows.message_index(row)
        if index is None or doc.prompt.error is not None:
            return None
        tier = doc.prompt.tier_of(index)
        if tier == Tier.FULL:
            return content_text(doc.rows.original_content(row))
        if tier == Tier.TRUNCATED:
            return content_text(doc.prompt.visible_content(index))
        return None

    def action_open_external(self, which: str, program: str) -> None:
        """Open the selected message (``shown``, ``raw`` or ``sent``: see message_text) in $PAGER or $EDITOR
        (``pager``/``editor``)."""
        row = self.view.current_row
        if row is None or self.doc is None:
            return
        text = self.message_text(row, which)
        if text is None:
            self.notify(f"message #{row} is not sent to the model: nothing to open", severity="warning")
            return
        command = external_command(program)
        with tempfile.TemporaryDirectory(prefix="prompt-inspector-") as folder:
            path = Path(folder) / f"message-{row}-{which}.txt"
            path.write_text(text, encoding="utf-8", errors="surrogateescape")
            try:
                with self.app.suspend():
                    code = run_external(command, path)
            except SuspendNotSupported:  # no terminal to hand over (tests, a web driver): run it anyway
                code = run_external(command, path)
        if code is None:
            self.notify(f"cannot run {command[0]!r} (set ${program.upper()})", severity="error", markup=False)
        elif code != 0:
            self.notify(f"{command[0]} exited with status {code}", severity="warning", markup=False)

    def action_notes(self) -> None:
        notes = []
        if self.load_error:
            notes.append(Note(f"cannot open: {self.load_error}"))
        doc = self.doc
        if doc is not None:
            if doc.prompt.error is not None:
                notes.append(Note(f"scout-ai error: {doc.prompt.error.describe()}"))
            findings = by_harm(doc.inspection.chat.findings)
            for f, rows in zip(findings, doc.rows.finding_rows(findings), strict=True):
                text = f"finding ({f.kind})" + (f" line {f.line}" if f.line else "") + f": {f.message}"
                notes.append(Note(text, tuple(rows)))
        for warning in self.wanted.thresholds.warnings if self.wanted is not None else ():
            notes.append(Note(f"threshold warning: {warning}"))

        def picked(result: object) -> None:
            if isinstance(result, JumpTo):
                self.go_to_row(result.row)

        self.push(cast("Screen[object]", NotesScreen(notes)), picked)

    def action_reload(self) -> None:
        setup = self.doc.history.setup if self.doc is not None else self.setup  # the version switched to stays
        self.load(setup, self.wanted)
        self.notify("reloading; position and thresholds are kept", markup=False)

    # -- model calls: step back in time ----------------------------------------------------
    def call_label(self) -> str:
        doc = self.doc
        badge = f"  ·  {FOLLOWING}" if self.following else ""
        if doc is None or not len(doc.history):
            return self.label + badge
        if doc.call is None:
            return f"{self.label}{badge}  ·  next call (after {calls_count(len(doc.history))}; < steps back)"
        return f"{self.label}{badge}  ·  call {doc.call} of {len(doc.history):,}"

    def _where(self) -> str:
        """The call on screen and the follow badge, short: what the compact header keeps."""
        doc = self.doc
        parts = []
        if doc is not None and len(doc.history):
            total = len(doc.history)
            parts.append("next call" if doc.call is None else f"call {doc.call}/{total}")
        if self.following:
            parts.append(FOLLOWING)
        return " · ".join(parts)

    def action_earlier_call(self) -> None:
        self.action_step_calls(-1)

    def action_later_call(self) -> None:
        self.action_step_calls(1)

    def action_step_calls(self, step: int) -> None:
        """``step`` calls back (< 0) or forward; presses typed before the last step is shown count from the
        call it asked for, so `<<<<` steps four calls. The selected message stays selected where it was
        written before the new call, so the strip's cell moves under a fixed message."""
        doc = self._with_calls()
        if doc is None:
            return
        total = len(doc.history)
        current = self._call_target[0] if self._call_target is not None else doc.call
        position = current if current is not None else total + 1
        if step < 0 and position <= 1:
            self.notify("this is the first model call", severity="information")
            return
        if step > 0 and current is None:
            self.notify("this is the whole chat (what the next call would send)", severity="information")
            return
        target = max(1, position + step)
        self.show_call(target if target <= total else None, keep=self._kept_message())

    def _kept_message(self) -> int | None:
        """The whole-chat message to keep selected while stepping (the one a step under way keeps); None when
        the cursor is on the last row: then the newest message at the new call is selected, as at its end."""
        if self._call_target is not None:
            return self._call_target[1]
        view = self.view
        if view.count and view.cursor >= view.count - 1:
            return None
        return self._whole_index(view.current_row)

    def action_latest_call(self) -> None:
        doc = self._with_calls()
        if doc is not None and doc.call is not None:
            self.show_call(None)

    def _with_calls(self) -> Document | None:
        doc = self.doc
        if doc is None or not len(doc.history):
            self.notify("no model calls in this chat (no assistant or function_call message)", severity="warning")
            return None
        return doc

    @property
    def call(self) -> int | None:
        return self.doc.call if self.doc is not None else None

    def call_settings(self) -> CallSettings:
        return self.document.call_settings()

    def show_call(
        self,
        number: int | None,
        row: int | None = None,
        history: ChatHistory | None = None,
        keep: int | None = None,
    ) -> None:
        """Show the chat as it stood before call ``number`` (None: the whole chat); ``row`` selects a row there,
        else ``keep`` (a message of the whole chat) where it was written before the call. ``history``: the
        chat's newer history (a followed file grew)."""
        doc = self.document
        self.generation += 1  # a re-plan still queued is for the chat on screen before
        self._call_target = (number, keep)
        wanted = self.settings
        edited = wanted.thresholds.key() != doc.loaded.key()
        self._build_call(history or doc.history, number, wanted, edited, self.row_filter, row, keep, self.generation)

    @work(thread=True, exclusive=True, group="call", description="showing a model call", exit_on_error=False)
    def _build_call(
        self,
        history: ChatHistory,
        number: int | None,
        settings: Settings,
        edited: bool,
        row_filter: RowFilter,
        row: int | None,
        keep: int | None,
        generation: int,
    ) -> None:
        doc = plan_call(history, number, settings, row_filter, edited)
        if row is None and keep is not None:
            at = keep if number is None else index_at(history, number, keep)
            row = doc.rows.numbers.row_of_message(at) if at is not None else None
        if not get_current_worker().is_cancelled:
            self.post_message(CallShown(doc, generation, row))

    @on(CallShown)
    def _call_shown(self, event: CallShown) -> None:
        if event.generation != self.generation:
            return
        self._call_target = None
        row = self.view.current_row
        at_end = row is not None and self.view.cursor >= self.view.count - 1
        old = self.document
        doc = self.doc = event.document
        if not old.edited:
            self.wanted = replace(self.settings, thresholds=doc.loaded)  # each call under its own config lines
        if self.follower is not None:
            self.follower.history = doc.history
        self.view.set_tail(self._tail())
        last = len(doc.rows) - 1
        if event.row is not None:
            row = min(event.row, last)  # asked for (why, audit)
        elif doc.call is not None or at_end or row is None:
            row = last  # at a call: the last message before the response; the whole chat: stay at the newest
        else:
            row = min(row, last)
        self.view.set_changed(set(doc.changes))
        self.view.set_data(doc.rows, doc.prompt, doc.order, row, doc.inspection.chat.findings)
        if doc.call is not None and event.row is None:
            self.view.scroll_end(animate=False, immediate=True)  # the response rows under the last message
        self._editor_due = False
        self.show_editor()
        self._show_summary()
        # the detail pane, the strip's timeline and the open analyses after the frame: their workers would
        # hold the GIL while the new call is painted (key to frame 250 ms at 20,000 messages, 60 without)
        self.call_after_refresh(self._after_call_painted, event.generation)

    def _after_call_painted(self, generation: int) -> None:
        if generation != self.generation:
            return  # a newer step: it schedules its own
        self._schedule_detail(0)
        self._schedule_strip(0)
        self.request_tokens()
        self.request_header_tokens()
        self.analysis_refresh()
        if self._retrace_why:
            self._retrace_why = False
            why = self.app.screen
            if isinstance(why, WhyScreen) and self.doc is not None:
                doc = self.doc
                why.retrace(doc.inspection, self.replanner(), doc.history, doc.call, doc.call_settings())

    def _tail(self) -> list[tuple[str, str]]:
        """The rows after the messages at a call: the response it produced, and what came later."""
        doc = self.doc
        if doc is None or doc.call is None:
            return []
        history, number = doc.history, doc.call
        call = history.call(number)
        out = []
        for message in history.source[call.start : call.end]:
            role = message.fields.get("role")
            content = message.fields.get("content")
            preview = one_line(content if isinstance(content, str) else str(content), 300)
            out.append(("▶", f"call {number}'s response (written by the model, not sent): {role}  {preview}"))
        later = len(history.source) - call.end
        if later:
            out.append(("…", f"{later:,} later message(s) not yet written at this call (> steps forward, L: latest)"))
        return out

    # -- the token chart: the prompt's tokens at every call --------------------------------
    @property
    def token_chart(self) -> TokenChart:
        return self.query_one("#tokens", TokenChart)

    def action_toggle_tokens(self) -> None:
        chart = self.token_chart
        chart.toggle_class("-shown")
        if chart.has_class("-shown"):
            self.request_tokens()
            self.set_focus(chart)
        elif chart.has_focus:
            self.set_focus(self.view)

    def request_tokens(self) -> None:
        doc = self.doc
        chart = self.token_chart
        if doc is None or not chart.has_class("-shown"):
            return
        history, settings = doc.history, doc.call_settings()
        known = self._token_series
        if known is not None and known[0] is history and known[1] == settings.key():
            chart.show(known[2], doc.call)
            return
        chart.show(None, doc.call)
        self._count_tokens(history, history.setup.tokenizer, settings)

    @work(thread=True, exclusive=True, group="tokens", description="counting tokens", exit_on_error=False)
    def _count_tokens(self, history: ChatHistory, name: str, settings: CallSettings) -> None:
        """Every call planned as the strip plans it (the edits on screen, else each call's own)."""
        tokenizer = tokens.get(name)
        counter = CallTokens(history, tokenizer) if settings.key() == CallSettings().key() else None
        worker = get_current_worker()
        rebuilt, recorded = [], []
        for number in range(1, len(history) + 1):
            if not number & 63:
                pause_if_due()
                if worker.is_cancelled:
                    return
            if counter is not None:
                rebuilt.append(counter.at(number))
            else:
                prompt = history.at(number).prompt(settings.thresholds, settings.strategies)
                sent = prompt.messages() if prompt.error is None else []
                rebuilt.append(sum(tokenizer.count_content(m.fields.get("content")) for m in sent))
            usage, _ = call_usage(history, number)
            recorded.append(usage.prompt if usage is not None else None)
        label = tokens.ENCODINGS.get(name, name)
        points: list[tuple[int, int | None, int, int, int | None]] = [
            (n, r, b, history.call_counts(n).visible if r is not None else 0, None)
            for n, (r, b) in enumerate(zip(recorded, rebuilt), 1)
        ]
        flagged = frozenset(u.call for u in trust_check(points).unexplained)
        window = getattr(self.app, "context_window", None)
        budget, what = budget_of(history.whole, settings)
        series = TokenSeries(label, tuple(rebuilt), tuple(recorded), window, flagged, budget, what)
        self.post_message(TokensCounted(history, settings.key(), series))

    @on(TokenChart.Window)
    def _window_picked(self, event: TokenChart.Window) -> None:
        self._schedule_strip(0)  # the strip says which calls are over it
        self.app.context_window = event.tokens  # type: ignore[attr-defined]
        known = self._token_series
        if known is not None:
            series = replace(known[2], window=event.tokens)
            self._token_series = (known[0], known[1], series)
            self.token_chart.show(series, self.document.call)
        self.notify(
            f"context window: {event.tokens:,} tokens" if event.tokens else "context window: none", markup=False
        )

    @on(TokensCounted)
    def _tokens_counted(self, event: TokensCounted) -> None:
        doc = self.doc
        if doc is None or event.history is not doc.history or event.settings != doc.call_settings().key():
            return  # a newer history (a followed file grew) or other settings: counted again when asked
        self._token_series = (doc.history, event.settings, event.series)
        self.token_chart.show(event.series, doc.call)
        if getattr(self.app, "context_window", None) is not None:
            self._schedule_strip(0)  # the strip says which calls are over the window

    def request_header_tokens(self) -> None:
        """The header's tokens as the tokenizer counts them, off the UI thread: the estimate shows meanwhile."""
        doc = self.doc
        if doc is None or (self._exact is not None and self._exact[0] is doc.prompt):
            return
        chat = doc.inspection.chat
        known = self._exact[1].before if self._exact is not None and self._exact_chat is chat else None
        self._count_header_tokens(doc, doc.history.setup.tokenizer, known)

    @work(thread=True, exclusive=True, group="header-tokens", description="counting tokens", exit_on_error=False)
    def _count_header_tokens(self, doc: Document, name: str, known_before: int | None) -> None:
        """``known_before``: the chat's own count, when only the plan changed (a re-plan counts what is sent)."""
        if name == "estimate":
            return  # the header's estimate is the count
        tokenizer = tokens.get(name)
        worker = get_current_worker()
        before = known_before or 0
        for k, message in enumerate(doc.inspection.chat.messages if known_before is None else ()):
            if not k & 255:
                pause_if_due()
                if worker.is_cancelled:
                    return
            before += tokenizer.count_content(message.fields.get("content"))
        sent = doc.prompt.messages() if doc.prompt.error is None else []
        after = sum(tokenizer.count_content(m.fields.get("content")) for m in sent)
        label = tokens.ENCODINGS.get(name, name)
        self.post_message(HeaderTokens(doc.prompt, ExactTokens(label, before, after)))

    @on(HeaderTokens)
    def _header_tokens(self, event: HeaderTokens) -> None:
        if self.doc is not None and event.prompt is self.doc.prompt:
            self._exact = (event.prompt, event.tokens)
            self._exact_chat = self.doc.inspection.chat
            self._show_summary()

    @on(TokenChart.Step)
    def _chart_step(self, event: TokenChart.Step) -> None:
        self.action_step_calls(event.by)

    @on(TokenChart.Pick)
    def _chart_pick(self, event: TokenChart.Pick) -> None:
        self.show_call(event.number, keep=self._kept_message())

    # -- the strip: the selected message over every call ----------------------------------
    def _schedule_strip(self, delay: float) -> None:
        if self._strip_timer is not None:
            self._strip_timer.stop()
        if delay <= 0:
            self.request_strip()
        else:
            self._strip_timer = self.set_timer(delay, self.request_strip)

    def _whole_index(self, row: int | None) -> int | None:
        """The selected message's index in the whole chat (None: a consumed row, or not in the whole chat)."""
        doc = self.doc
        if row is None or doc is None:
            return None
        index = doc.rows.message_index(row)
        if index is None:
            return None
        if doc.call is None:
            return index
        message = doc.inspection.chat.messages[index]
        whole = doc.history.whole.chat.messages
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
        calls = len(self.doc.history) if self.doc is not None else 0
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
        doc = self.doc
        if doc is None or not len(doc.history):
            strip.remove_class("-shown")
            return
        strip.add_class("-shown")
        index = self._whole_index(self.view.current_row)
        if index is None:
            strip.show(
                "calls",
                [None] * len(doc.history),
                doc.call,
                "no timeline for this row (consumed, or not in the chat now)",
            )
            return
        self.strip_generation += 1
        settings = doc.call_settings()
        self.strip_settings = doc.plan_key()
        self._build_strip(doc.history, index, settings, self.strip_generation)

    @work(thread=True, exclusive=True, group="strip", description="the message's timeline", exit_on_error=False)
    def _build_strip(self, history: ChatHistory, index: int, settings: CallSettings, generation: int) -> None:
        worker = get_current_worker()
        line = message_tiers(history, index, lambda: worker.is_cancelled, settings)
        if not worker.is_cancelled:
            self.post_message(StripReady(index, line, generation, len(history)))

    @on(StripReady)
    def _strip_ready(self, event: StripReady) -> None:
        if event.version != self.strip_generation or self.doc is None:
            return
        line = event.timeline
        total = event.calls
        tiers: list[str | None] = [None] * total
        if line.first is not None:
            for k, tier in enumerate(line.tiers):
                tiers[line.first - 1 + k] = tier
        first = line.first
        cut = None if first is None else next((first + k for k, t in enumerate(line.tiers) if t == "truncated"), None)
        if line.first is None:
            note = "written after the last call"
        elif line.last_seen is None:
            note = f"never sent ({calls_range(line.first, total)})"
        else:
            note = f"sent at {calls_range(line.first, line.last_seen)}"
            note += f", cut from {cut}" if cut is not None and cut <= line.last_seen else ""
            note += f", hidden from {line.hidden_from}" if line.hidden_from is not None else ", to the last"
        note += self._over_window_note(total)
        try:
            strip = self.query_one(CallStrip)
        except NoMatches:  # the app is closing
            return
        strip.show(f"#{self.view.current_row} over {calls_count(total)}", tiers, self.doc.call, note)

    def _over_window_note(self, total: int) -> str:
        """The calls whose prompt is over the context window (once the token chart has counted them)."""
        window = getattr(self.app, "context_window", None)
        known = self._token_series
        if window is None or known is None or self.doc is None or known[0] is not self.doc.history:
            return ""
        over = [n for n, size in enumerate(known[2].rebuilt, 1) if size > window]
        if not over or len(known[2].rebuilt) != total:
            return ""
        return f"; ! over the {window:,}-token window at {len(over)} call(s), from call {over[0]}"

    # -- follow the file (the screen's: it is this chat's file) ----------------------------
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
        if self.doc is not None:
            self._show_summary()

    def _start_following(self) -> None:
        if self._follow_timer is None:
            self._follow_timer = self.set_interval(self.host.follow_every, self._poll_follow)

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
        if update.history is None or self.doc is None:
            self.query_one(Banner).show_lines([update.message], error=False)
            self.notify(update.message, severity="warning", markup=False, timeout=6)
            return
        call = self.doc.call
        # the view keeps its place: the call on screen stays (its chat has not changed), the whole chat grows;
        # a cursor on the last row stays on the newest message
        number = None if call is None else min(call, len(update.history)) or None
        self._retrace_why = True  # an open why traces the grown chat once it is on screen
        self.show_call(number, history=update.history)
        self.notify(update.message, title="Followed", markup=False, timeout=3)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if self.doc is None:
            return action in ("reload", "notes")  # the rest act on a loaded chat
        if action in ("next_match", "prev_match") and not self.view.search_hits:
            return None  # shown greyed out
        return True
