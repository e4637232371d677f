"""What a threshold change repaints, and what waits for that frame (the speed is in benchmarks/, not here).

A change re-plans in a worker; the list and the totals are repainted from its result. The strip's
timeline does not depend on the edited values and is not rebuilt; values set at once (a preset, a fix,
reset) reach the editor together with their plan, or after ``editor_wait`` when the plan is slow; the
sweep chart still running for the old values is stopped at once.
"""

from __future__ import annotations

import threading
from pathlib import Path

import inspector.ui.screens.chat as app_module
import inspector.ui.widgets.thresholds as thresholds_module
from inspector.core.calls.history import ChatHistory
from inspector.core.calls.timeline import message_tiers
from inspector.core.inspection import Inspection
from inspector.core.setup import Setup

from .conftest import settle

DEMO_CHAT = Path(__file__).resolve().parents[2] / "inspector" / "demo" / "demo.chat"


def summary(app) -> str:
    return str(app.query_one("#summary").render())


async def test_a_threshold_change_repaints_list_and_totals_and_the_strip_follows_it(make_app):
    app = make_app(DEMO_CHAT)
    async with app.run_test(size=(140, 44)) as pilot:
        await settle(app, pilot)
        app.go_to_row(4)
        await settle(app, pilot)
        strip = app.query_one("#strip")
        before, built = strip.text, app.chat.strip_generation
        assert before.startswith("#4 over 60 calls ▕=")
        assert "(tool 217,314 -> 105,037)" in summary(app)
        app.chat.apply_thresholds(app.chat.thresholds.with_value("max_tool_chars", 5_000, "edited"), None, delay=0)
        await settle(app, pilot)
        assert "=67 ✂23 ✗26 ⊘67 │ chars 221,331 -> 45,310 (tool 217,314 -> 44,786)" in summary(app)
        assert app.chat.view.current_row == 4 and "row 4 " in app.query_one("#status").text
        # the timeline is planned under the edit too: the CLI's `--set max_tool_chars=5000` history says the same
        await settle(app, pilot)
        assert app.chat.strip_generation == built + 1
        assert strip.text.startswith(
            "#4 over 60 calls ▕======✂✂✂✂✂✂✂✂✂✂✂✂✂✂✂✂✂✗✗✗✗✗✗✗▏ sent at calls 2-46, cut from 12,"
        )
        edited = ChatHistory(DEMO_CHAT, Setup.of(overrides={"max_tool_chars": "5000"}, config_files=[], env={}))
        assert (
            message_tiers(edited, 4).tiers
            == message_tiers(app.chat.document.history, 4, settings=app.chat.call_settings()).tiers
        )
        assert app.chat.thresholds["full_tool_calls"] == 0
        app.chat.apply_thresholds(app.chat.thresholds.with_value("full_tool_calls", 0, "edited"), None, delay=0)
        await settle(app, pilot)
        assert app.chat.strip_generation == built + 1  # a re-plan under the same values does not redo the timeline


async def test_values_set_at_once_reach_the_editor_with_their_plan_or_after_a_moment(make_app, monkeypatch):
    gate, blocking = threading.Event(), threading.Event()
    plan = Inspection.prompt

    def slow_plan(self, *args, **kwargs):
        if blocking.is_set():
            gate.wait(10)  # a strategy plugin that takes its time
        return plan(self, *args, **kwargs)

    monkeypatch.setattr(Inspection, "prompt", slow_plan)
    app = make_app()
    async with app.run_test(size=(160, 44)) as pilot:
        await settle(app, pilot)
        field = app.chat.editor.query_one("#th-max_tool_chars")
        assert field.value == "100000"
        app.editor_wait = 60.0
        blocking.set()
        app.chat.apply_thresholds(app.chat.thresholds.with_value("max_tool_chars", 5_000, "edited"), None, delay=0)
        await pilot.pause(0.05)
        assert field.value == "100000" and "-> 105,037" in summary(app)  # neither before the plan
        gate.set()
        await settle(app, pilot)
        assert field.value == "5000" and "-> 105,037" not in summary(app)  # both in the frame of the plan
        gate.clear()
        app.editor_wait = 0.01
        app.chat.apply_thresholds(app.chat.thresholds.with_value("max_tool_chars", 7_000, "edited"), None, delay=0)
        for _ in range(100):
            await pilot.pause(0.02)
            if field.value == "7000":
                break
        assert field.value == "7000"  # the plan is still running: the editor did not wait for it
        assert app.chat.document.settings.thresholds["max_tool_chars"] == 5_000
        gate.set()
        await settle(app, pilot)
        assert app.chat.document.settings.thresholds["max_tool_chars"] == 7_000


async def test_the_old_values_sweep_stops_when_a_value_changes(make_app, monkeypatch):
    gate, entered = threading.Event(), threading.Event()
    sweep = thresholds_module.sweep

    def slow_sweep(*args, **kwargs):
        entered.set()
        gate.wait(10)
        return sweep(*args, **kwargs)

    monkeypatch.setattr(thresholds_module, "sweep", slow_sweep)
    app = make_app()
    async with app.run_test(size=(160, 44)) as pilot:
        while not entered.is_set():
            await pilot.pause(0.02)
        old = next(w for w in app.workers if w.group == "sweep")
        app.chat.apply_thresholds(app.chat.thresholds.with_value("max_tool_chars", 5_000, "edited"), None, delay=0)
        assert old.is_cancelled  # at the change, not when the next sweep starts
        gate.set()
        await settle(app, pilot)
        assert "▶       0    90   23   26  45,310" in app.chat.editor.chart.text  # swept again for the new value


async def test_the_strip_line_comes_with_the_chat_and_fills_in_when_its_timeline_lands(make_app, monkeypatch):
    gate = threading.Event()
    tiers = app_module.message_tiers

    def slow_tiers(*args, **kwargs):
        gate.wait(10)
        return tiers(*args, **kwargs)

    monkeypatch.setattr(app_module, "message_tiers", slow_tiers)
    app = make_app(DEMO_CHAT)
    async with app.run_test(size=(139, 44)) as pilot:
        while app.chat.doc is None:
            await pilot.pause(0.02)
        await pilot.pause(0.05)
        strip = app.query_one("#strip")
        assert strip.has_class("-shown") and strip.text == "the selected message over 60 calls: computing…"
        gate.set()
        await settle(app, pilot)
        assert strip.text.startswith(f"#{app.chat.view.current_row} over 60 calls ▕")
