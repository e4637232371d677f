"""Why, sweep chart, A/B compare and audit: the app's questions about forgetting (issue 5).

A mixin of the app, kept apart so app.py stays about wiring. Every answer comes from
inspector.core (trace, fixes, sweep, compare, audit) computed in thread workers; one
Replanner per open chat and strategy list lets them share cached plans, re-based on
the thresholds in force each time it is handed out.
"""

from __future__ import annotations

from textual import work
from textual.worker import get_current_worker

from inspector.core.analysis.compare import compare
from inspector.core.analysis.replan import Replanner
from inspector.core.analysis.sweep import axis, sweep
from inspector.core.inspection import Inspection
from inspector.core.scout.settings import Thresholds

from .messages import Compared, SweepDone
from .screens.audit import AuditScreen
from .screens.why import WhyScreen
from .widgets.compare_panel import ComparePanel
from .widgets.prompt_bar import PromptBar
from .widgets.sweep_chart import COLUMNS


class AnalysisMixin:
    _replanner: Replanner | None = None
    _replanner_for: tuple = ()
    pinned: Thresholds | None = None  # A of the A/B compare; B is always the current thresholds
    why_text: str = ""

    # -- shared state -------------------------------------------------------------------
    def analysis_inspection(self) -> Inspection:
        """The open chat as the app shows it: the thresholds and strategies being edited, the cached facts."""
        base = self.inspection
        strategies = self.strategies if self.strategies is not None else base.strategies
        return Inspection(base.chat, self.thresholds, strategies, facts=base.facts, epoch=base.epoch)

    def replanner(self) -> Replanner:
        key = (self.inspection, self.strategies)
        if self._replanner is None or self._replanner_for != key:
            # a reload or another strategy list plans differently: the cached plans are no use
            self._replanner = Replanner(self.analysis_inspection())
            self._replanner_for = key
        return self._replanner.rebased(self.thresholds)

    def analysis_refresh(self) -> None:
        """The plan changed (load, edit, strategies): recompute what is on screen."""
        self.request_sweep()
        self.request_compare()

    # -- why ------------------------------------------------------------------------------
    def action_why(self) -> None:
        self.query_one(PromptBar).open("why", self.why_text)

    def open_why(self, text: str) -> None:
        if not text:
            return
        self.why_text = text

        def done(result) -> None:
            if not result:
                return
            if result[0] == "jump":
                self.go_to_row(result[1])
                return
            _, fix, row = result
            self.set_threshold(fix.key, fix.value, "why fix", delay=0)
            self.go_to_row(row)
            self.notify(
                f"{fix.key} = {fix.value:,} applied: message #{row} is now {fix.tier} "
                f"(prompt {fix.delta_chars:+,} characters; u resets)",
                markup=False,
            )

        self.push_screen(WhyScreen(text, self.analysis_inspection(), self.replanner()), done)

    # -- sweep chart ----------------------------------------------------------------------
    def on_threshold_editor_key_focused(self, event) -> None:  # by name: @on needs Textual's metaclass
        self.request_sweep()

    def request_sweep(self) -> None:
        editor = self.editor
        if self.rows is None or not editor.has_class("-open"):
            return  # nobody would see it
        key = editor.chart_key
        editor.chart.waiting(key)
        self._sweep(key, self.thresholds, self.replanner(), self.analysis_inspection(), self.version)

    @work(thread=True, exclusive=True, group="sweep", description="sweep", exit_on_error=False)
    def _sweep(self, key: str, base: Thresholds, rp: Replanner, inspection: Inspection, version: int) -> None:
        worker = get_current_worker()
        rows = []
        for value in axis(inspection, key, COLUMNS):
            if worker.is_cancelled:
                return  # a newer edit or another key: this chart would be stale
            rows += sweep(inspection, key, [value], base, rp)
        now = sweep(inspection, key, [base[key]], base, rp)[0]
        if not worker.is_cancelled:
            self.post_message(SweepDone(key, base[key], rows + [now], version))

    def on_sweep_done(self, event: SweepDone) -> None:
        editor = self.editor
        if event.version != self.version or event.key != editor.chart_key:
            return
        editor.chart.show(event.key, event.current, event.rows[:-1], event.rows[-1])

    # -- A/B compare ----------------------------------------------------------------------
    @property
    def compare_panel(self) -> ComparePanel:
        return self.query_one("#compare", ComparePanel)

    def action_pin_compare(self) -> None:
        if self.pinned is not None:
            self.pinned = None
            self.compare_panel.close()
            self.notify("A/B compare: unpinned")
            return
        self.pinned = self.thresholds
        self.compare_panel.open(self.pinned.as_ints())
        self.notify("A/B compare: the current thresholds are pinned as A; edit them (t) to see what B changes")
        self.request_compare()

    def action_focus_compare(self) -> None:
        if self.pinned is None:
            self.notify("pin the current thresholds as A first (b)", severity="warning")
            return
        self.compare_panel.options.focus()

    def request_compare(self) -> None:
        if self.pinned is None or self.rows is None:
            return
        self._compare(self.analysis_inspection(), self.pinned, self.thresholds, self.replanner(), self.version)

    @work(thread=True, exclusive=True, group="compare", description="compare", exit_on_error=False)
    def _compare(self, inspection: Inspection, a: Thresholds, b: Thresholds, rp: Replanner, version: int) -> None:
        result = compare(inspection, a, b, rp)
        if not get_current_worker().is_cancelled:
            self.post_message(Compared(result, version))

    def on_compared(self, event: Compared) -> None:
        if event.version == self.version and self.pinned is not None:
            self.compare_panel.show(event.comparison)

    def on_compare_panel_jump(self, event: ComparePanel.Jump) -> None:
        self.go_to_row(event.row)

    # -- audit ----------------------------------------------------------------------------
    def action_audit(self) -> None:
        def picked(row) -> None:
            if row is not None:
                self.go_to_row(row)

        self.push_screen(AuditScreen(self.analysis_inspection(), self.replanner()), picked)
