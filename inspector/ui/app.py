"""The inspector app: wires the core's results to the widgets. Logic lives in inspector.core.

State here: the inspection (chat + facts), the thresholds and strategies in force, the
prompt planned from them, and the tier/role filter. State that belongs to one widget lives
there: the search in the list (DualColumnView), the pinned A in the A/B panel, the sweep in
the threshold editor, why and the audit in their screens. Widgets report up by messages;
slow work runs in thread workers, and a worker that fails reaches one handler here
(``_worker_failed``), which says what failed and puts the screen back in a consistent state.
"""

from __future__ import annotations

import time
from bisect import bisect_left
from pathlib import Path

from textual import on, work
from textual.app import App, ComposeResult
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.timer import Timer
from textual.widgets import Footer
from textual.worker import Worker, get_current_worker

from inspector.core.errors import InputError, UsageError
from inspector.core.inspection import Inspection, open_inspection
from inspector.core.io.atomic import write_atomic
from inspector.core.present.detail import detail_text
from inspector.core.present.export import explain_bytes, prepared_bytes
from inspector.core.present.rows import CUT, RowModel, content_text, filter_rows, row_matches_tier, summary_totals
from inspector.core.scout.prepare import Prompt
from inspector.core.scout.settings import KEYS, Source, Thresholds
from inspector.core.scout.strategies import UnknownStrategy, known_strategies
from inspector.core.scout.totals import Totals

from .analysis import Replanners, edited_inspection
from .commands import InspectorCommands
from .keymap import APP_ACTIONS, VIEW_ACTIONS, bindings
from .messages import ChatLoaded, Exported, LoadFailed, Replanned, WorkerFailed, report_failure
from .results import ApplyFix, ExportChoice, FilterChoice, JumpTo, PresetChoice
from .screens.audit import AuditScreen
from .screens.export import ExportScreen
from .screens.filter import FilterScreen
from .screens.help import HelpScreen
from .screens.notes import NotesScreen
from .screens.presets import PresetsScreen
from .screens.why import WhyScreen
from .widgets.compare_panel import ComparePanel
from .widgets.detail import DetailPane
from .widgets.dual_view import DualColumnView
from .widgets.prompt_bar import PromptBar
from .widgets.summary import Banner, StatusLine, SummaryBar
from .widgets.thresholds import CHAT_CHOICE, ThresholdEditor

NEEDS_CHAT = {a.action for a in APP_ACTIONS} - {"quit", "help", "reload", "notes"}
VIEW_NAMES = {a.action.split("(")[0] for a in VIEW_ACTIONS}


class InspectorApp(App):
    CSS_PATH = "app.tcss"
    TITLE = "prompt-inspector"
    BINDINGS = bindings(APP_ACTIONS)
    COMMANDS = App.COMMANDS | {InspectorCommands}

    debounce = 0.15  # seconds of no typing before a re-plan
    detail_delay = 0.08  # seconds the cursor must rest before the detail pane loads

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
    ):
        super().__init__()
        self.scout_version = scout_version
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
        self.load_error: str | None = None
        self.load_seconds: float | None = None
        self.last_export: Path | None = None
        self.replanners = Replanners()
        self._plan_timer: Timer | None = None
        self._detail_timer: Timer | None = None
        self.strategy_choices = [CHAT_CHOICE, *known_strategies()]
        self.notices: list[str] = []  # every notification's text, oldest first (tests read it)

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
                yield ComparePanel(id="compare")
                yield DetailPane(id="detail")
            yield ThresholdEditor(list(self.strategy_choices), id="editor")
        yield PromptBar(id="prompt-bar")
        yield Footer(compact=True)

    @property
    def view(self) -> DualColumnView:
        return self.query_one("#view", DualColumnView)

    @property
    def editor(self) -> ThresholdEditor:
        return self.query_one("#editor", ThresholdEditor)

    @property
    def compare_panel(self) -> ComparePanel:
        return self.query_one("#compare", ComparePanel)

    def on_mount(self) -> None:
        self.sub_title = self.label
        if self.size.width >= 140:
            self.editor.add_class("-open")  # room for it: show the values from the start
        self.view.focus()
        self.load()

    # -- loading ----------------------------------------------------------------------
    @work(thread=True, exclusive=True, group="load", description="loading the chat", exit_on_error=False)
    def load(self, keep: Thresholds | None = None) -> None:
        started = time.perf_counter()
        try:
            if self.path is None:
                raise InputError("no chat file given")
            inspection = open_inspection(
                self.path,
                input_format=self.input_format,
                overrides=self.overrides,
                config_files=self.config_files,
                env=self.env,
                scout_version=self.scout_version,
            )
            rows = RowModel(inspection.chat, inspection.facts)
            thresholds = keep or inspection.thresholds
            prompt = inspection.prompt(thresholds, self.strategies)
            totals = summary_totals(rows, prompt)
        except (InputError, UsageError, UnknownStrategy) as exc:
            self.post_message(LoadFailed(str(exc)))
            return
        self.post_message(
            ChatLoaded(inspection, rows, prompt, totals, inspection.thresholds, time.perf_counter() - started)
        )

    @on(ChatLoaded)
    def _loaded(self, event: ChatLoaded) -> None:
        row = self.view.current_row if self.rows is not None else None
        self.inspection, self.rows, self.prompt, self.totals = event.inspection, event.rows, event.prompt, event.totals
        self.loaded_thresholds = event.loaded
        self.thresholds = self.thresholds or event.loaded
        self.planned = (self.thresholds, self.strategies)
        self.load_error, self.load_seconds = None, event.elapsed
        self.version += 1
        order = filter_rows(self.rows, self.prompt, self.filter_tier, self.filter_role)
        self.view.set_data(self.rows, self.prompt, order, row)
        self.editor.show(self.thresholds, self.strategies)
        self._show_summary()
        self.refresh_bindings()  # actions that needed a chat are now available
        if self.view.search_query:
            self.view.search(self.view.search_query)
        self.analysis_refresh()

    @on(LoadFailed)
    def _load_failed(self, event: LoadFailed) -> None:
        self.load_error = event.text
        self.query_one(Banner).show_lines([f"Cannot open: {event.text}"], error=True)
        self.query_one(SummaryBar).show_text(f"{self.label}: not loaded (r to retry, q to quit)")
        self.query_one(DetailPane).show(None, f"Cannot open the chat.\n\n{event.text}")

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
            self.editor.show(self.thresholds, self.strategies)
            self._show_summary()
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
        order = filter_rows(self.rows, prompt, self.filter_tier, self.filter_role)
        if not worker.is_cancelled:
            self.post_message(Replanned(prompt, thresholds, strategies, totals, order, version))

    @on(Replanned)
    def _replanned(self, event: Replanned) -> None:
        if event.version != self.version:
            return  # a newer change is on its way
        self.prompt, self.totals = event.prompt, event.totals
        self.planned = (event.thresholds, event.strategies)
        self.view.set_prompt(event.prompt, event.order)
        self._show_summary()
        self._schedule_detail(0)
        self.analysis_refresh()

    @on(ThresholdEditor.Edited)
    def _edited(self, event: ThresholdEditor.Edited) -> None:
        if self.thresholds is None or self.thresholds[event.key] == event.value:
            return
        self.set_threshold(event.key, event.value)

    def set_threshold(self, key: str, value: int, where: str = "in the app", delay: float | None = None) -> None:
        """One value changed by the user (typed, or a fix applied from Why): editor, sources, re-plan."""
        self.thresholds = self.thresholds.with_value(key, value, Source.EDITED, where)
        self.editor.show(self.thresholds, self.strategies)  # sources, and max_tool_outputs when it follows
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
            self.editor.show(self.thresholds, strategies)
            self.schedule_replan(0)

    def apply_thresholds(self, thresholds: Thresholds, strategies: str | None, delay: float = 0) -> None:
        self.thresholds, self.strategies = thresholds, strategies
        self.editor.show(thresholds, strategies)
        self.schedule_replan(delay)

    # -- the analysis tools (why, sweep chart, A/B compare, audit) ---------------------
    def analysis_inspection(self) -> Inspection:
        return edited_inspection(self.inspection, self.thresholds, self.strategies)

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
        self.query_one(PromptBar).open("why")

    def open_why(self, text: str) -> None:
        if not text:
            return

        def done(result: ApplyFix | JumpTo | None) -> None:
            if isinstance(result, JumpTo):
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

        self.push_screen(WhyScreen(text, self.analysis_inspection(), self.replanner()), done)

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
        self.compare_panel.options.focus()

    @on(ComparePanel.Jump)
    def _compare_jump(self, event: ComparePanel.Jump) -> None:
        self.go_to_row(event.row)

    def action_audit(self) -> None:
        def picked(result: JumpTo | None) -> None:
            if result is not None:
                self.go_to_row(result.row)

        self.push_screen(AuditScreen(self.analysis_inspection(), self.replanner()), picked)

    # -- what is shown ----------------------------------------------------------------
    def _show_summary(self) -> None:
        chat = self.inspection.chat
        strategies = self.prompt.strategy_label
        self.query_one(SummaryBar).show(self.label, chat.format, strategies, self.totals)
        lines, error = [], False
        if self.prompt.error is not None:
            error = True
            lines.append(f"scout-ai would raise, so nothing is sent: {self.prompt.error.describe()}")
        if chat.findings:
            first = chat.findings[0]
            where = f"line {first.line}: " if first.line else ""
            more = f" (+{len(chat.findings) - 1} more)" if len(chat.findings) > 1 else ""
            lines.append(f"{len(chat.findings)} loader finding(s), i for all: {where}{first.message}{more}")
        if self.thresholds.warnings:
            lines.append(f"threshold warning: {self.thresholds.warnings[0]} (i for all)")
        self.query_one(Banner).show_lines(lines, error)
        self._show_status()

    def _show_status(self) -> None:
        view = self.view
        parts = []
        if view.count:
            parts.append(f"row {view.current_row} · {view.cursor + 1} of {view.count:,} shown")
        if self.filter_tier or self.filter_role:
            tier = "truncated or dropped" if self.filter_tier == CUT else self.filter_tier or "any"
            parts.append(f"filter: tier {tier}, role {self.filter_role or 'any'} (F clears)")
        if view.search_query:
            hits = view.search_hits
            current = view.current_row
            at = bisect_left(hits, current) + 1 if current in hits else 0
            where = f"{at} of {len(hits)}" if at else f"{len(hits)} hit(s)"
            parts.append(f"search {view.search_query!r}: {where} (n/N)")
        self.query_one(StatusLine).show("  ·  ".join(parts) or "no rows")

    @on(DualColumnView.Highlighted)
    def _highlighted(self, event: DualColumnView.Highlighted) -> None:
        self._show_status()
        self._schedule_detail(self.detail_delay)

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
        pane.show(row, detail_text(self.rows, self.prompt, self.thresholds, row))
        pane.border_title = f"detail · #{row}"

    # -- navigation -------------------------------------------------------------------
    def go_to_row(self, row: int) -> None:
        if self.rows is None:
            return
        if not 0 <= row < len(self.rows):
            self.notify(f"no message #{row}; the rows are 0 to {len(self.rows) - 1}", severity="warning")
            return
        self.view.go_to_row(row)
        if self.view.current_row != row:
            self.notify(f"message #{row} is hidden by the filter; showing the next row", severity="warning")
        self.view.focus()

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

    def action_focus_list(self) -> None:
        self.view.focus()

    def action_focus_detail(self) -> None:
        self.query_one(DetailPane).focus()

    def action_toggle_detail(self) -> None:
        self.query_one(DetailPane).toggle_class("-hidden")

    def action_goto(self) -> None:
        self.query_one(PromptBar).open("goto", "")

    def action_search(self) -> None:
        self.query_one(PromptBar).open("search", self.view.search_query)

    @on(PromptBar.Closed)
    def _prompt_closed(self) -> None:
        self.view.focus()

    @on(PromptBar.Done)
    def _prompt_done(self, event: PromptBar.Done) -> None:
        self.view.focus()
        if event.mode == "why":
            self.open_why(event.value)
            return
        if event.mode == "goto":
            text = event.value.strip().lstrip("#")
            if text.isdigit():
                self.go_to_row(int(text))
            elif text:
                self.notify("a message number is digits only", severity="warning")
            return
        self.view.search(event.value)

    @on(DualColumnView.Searched)
    def _searched(self, event: DualColumnView.Searched) -> None:
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
                self.set_filter(result.tier, result.role)

        self.push_screen(FilterScreen(self.filter_tier, self.filter_role, self.rows.roles()), picked)

    def set_filter(self, tier: str | None, role: str | None) -> None:
        row = self.view.current_row
        self.filter_tier, self.filter_role = tier, role
        order = filter_rows(self.rows, self.prompt, tier, role)
        self.view.set_data(self.rows, self.prompt, order, row)
        self._show_status()
        if order is not None and not order:
            self.notify("no rows match this filter", severity="warning")

    def action_clear_filter(self) -> None:
        self.set_filter(None, None)

    # -- thresholds, strategies, presets ---------------------------------------------
    def action_thresholds(self) -> None:
        editor = self.editor
        if editor.has_class("-open"):
            editor.remove_class("-open")
            self.view.focus()
            return
        editor.add_class("-open")
        self.call_after_refresh(lambda: self.editor.query_one(f"#th-{KEYS[0]}").focus())

    def action_cycle_strategies(self) -> None:
        current = self.strategies if self.strategies is not None else CHAT_CHOICE
        choices = self.strategy_choices
        following = choices[(choices.index(current) + 1) % len(choices)] if current in choices else choices[0]
        self.set_strategies(None if following == CHAT_CHOICE else following)
        self.notify(f"strategies: {following}", markup=False)

    def action_reset_thresholds(self) -> None:
        if self.loaded_thresholds is not None:
            self.apply_thresholds(self.loaded_thresholds, self.initial_strategies)
            self.notify("thresholds reset to the loaded values")

    def action_presets(self) -> None:
        def picked(result: PresetChoice | None) -> None:
            if result is None:
                return
            thresholds = self.thresholds
            for key in KEYS:
                thresholds = thresholds.with_value(key, result.thresholds[key], Source.PRESET, result.name)
            self.apply_thresholds(thresholds, result.strategies or self.strategies)
            self.notify(f"preset {result.name!r} loaded", markup=False)

        self.push_screen(PresetsScreen(self.thresholds.as_ints(), self.strategies), picked)

    # -- export, copy, notes, reload, help --------------------------------------------
    def action_export(self) -> None:
        def picked(result: ExportChoice | None) -> None:
            if result is not None:
                self.export(result)

        self.push_screen(ExportScreen(self.path), picked)

    @work(thread=True, group="export", description="export", exit_on_error=False)
    def export(self, choice: ExportChoice) -> None:
        try:
            prompt = self.inspection.prompt(self.thresholds, self.strategies)
            if choice.kind == "prepare":
                data = prepared_bytes(prompt, choice.fmt)
            else:
                data = explain_bytes(self.inspection, prompt, choice.fmt)
            path = write_atomic(choice.target, data, [self.path])
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

    def action_notes(self) -> None:
        lines = []
        if self.load_error:
            lines.append(f"cannot open: {self.load_error}")
        if self.prompt is not None and self.prompt.error is not None:
            lines.append(f"scout-ai error: {self.prompt.error.describe()}")
        if self.inspection is not None:
            for f in self.inspection.chat.findings:
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

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action in NEEDS_CHAT:
            if len(self.screen_stack) > 1:
                return False  # a dialog is open: its keys only
            if self.rows is None:
                return False
            if action in ("next_match", "prev_match") and not self.view.search_hits:
                return None  # shown greyed out
            if action == "focus_compare" and self.compare_panel.pinned is None:
                return None
        return not (action == "reload" and len(self.screen_stack) > 1)


def run_app(args, overrides: dict[str, str], config_files) -> int:
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
    )
    app.run()
    return app.return_code or 0
