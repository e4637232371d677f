"""The prompt's tokens over the calls (T): every call drawn, the call on screen marked, ←/→ step the calls."""

from __future__ import annotations

from pathlib import Path

from inspector.core import tokens
from inspector.core.calls.usage import CallTokens, call_usage, trust_check
from inspector.ui.widgets.token_chart import TokenSeries, chart_lines

from .conftest import settle

DEMO_CHAT = Path(__file__).resolve().parents[2] / "inspector" / "demo" / "demo.chat"


async def test_t_charts_every_call_and_arrows_step_the_call_on_screen(make_app):
    app = make_app(DEMO_CHAT)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("T")
        await settle(app, pilot)
        chart = app.chat.token_chart
        history = app.chat.document.history
        expected = CallTokens(history, tokens.get("o200k"))
        assert chart.series is not None and len(chart.series.rebuilt) == 60
        assert list(chart.series.rebuilt) == [expected.at(n) for n in range(1, 61)]
        recorded = [call_usage(history, n)[0] for n in range(1, 61)]
        assert list(chart.series.recorded) == [u.prompt if u is not None else None for u in recorded]
        assert chart.text.startswith("prompt tokens (o200k_base) over 60 calls: max ")
        assert app.focused is chart
        await pilot.press("left")  # from the whole chat to the last call
        await settle(app, pilot)
        assert app.chat.call == 60 and "call 60: " in chart.text and chart.text.splitlines()[-1].endswith("▲")
        await pilot.press("shift+left", "left")
        await settle(app, pilot)
        assert app.chat.call == 49 and "call 49: " in chart.text
        await pilot.press("right")
        await settle(app, pilot)
        assert app.chat.call == 50
        await pilot.press("escape", "T")  # back to the list; T again hides it
        await settle(app, pilot)
        assert not chart.has_class("-shown") and app.focused is app.chat.view


def test_chart_lines_mark_the_call_the_window_and_recorded_usage():
    series = TokenSeries("o200k_base", (10, 20, 40, 80), (None, 25, None, 90), window=50)
    lines = chart_lines(series, 2, 4)
    assert lines[0] == (
        "prompt tokens (o200k_base) over 4 calls: max 80 · window 50 (1 over: !) · call 2: 20 rebuilt, 25 recorded"
    )
    assert lines[-1] == " ▲ !"  # no record at call 1, the call on screen, call 4 over the window
    # scaled to the largest of the prompts, the records and the window (90): 24 levels over three rows
    assert lines[1:4] == ["   ▅", "  ▃█", "▃▅██"]


async def test_the_title_keeps_to_one_line_on_a_narrow_terminal(make_app):
    app = make_app(DEMO_CHAT)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("T", "left")
        await settle(app, pilot)
        lines = app.chat.token_chart.text.splitlines()
        assert len(lines) == 5 and len(lines[0]) == 76 and lines[0].endswith("…")
        assert lines[-1].endswith("▲")  # the call on screen (the last) still marked


def test_calls_the_trust_check_flags_are_marked():
    series = TokenSeries("o200k_base", (10, 20, 40, 80), (12, 22, 400, 82), unexplained=frozenset({3}))
    lines = chart_lines(series, None, 4)
    assert lines[0] == "prompt tokens (o200k_base) over 4 calls: max 80 · 1 unexplained: ?"
    assert lines[-1] == "••?•"


async def test_w_in_the_chart_steps_the_context_window_and_the_trust_check_runs(make_app, write_chat):
    app = make_app(DEMO_CHAT)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("T")
        await settle(app, pilot)
        chart = app.chat.token_chart
        assert chart.series is not None and chart.series.window is None
        history = app.chat.document.history
        points = [
            (n, r, b, history.call_counts(n).visible if r is not None else 0, None)
            for n, (r, b) in enumerate(zip(chart.series.recorded, chart.series.rebuilt), 1)
        ]
        assert chart.series.unexplained == frozenset(u.call for u in trust_check(points).unexplained)
        await pilot.press("w", "w")  # 8,192, then 32,768 tokens
        await settle(app, pilot)
        assert chart.series.window == 32_768 and app.context_window == 32_768
        over = sum(1 for n in chart.series.rebuilt if n > 32_768)
        assert ("window 32,768" + (f" ({over} over: !)" if over else "")) in chart.text
        assert app.notices[-1] == "context window: 32,768 tokens"


def test_the_budget_is_drawn_as_a_line_where_no_bar_reaches_it():
    series = TokenSeries("o200k_base", (10, 20, 40, 80), (None,) * 4, budget=50, budget_label="trigger")
    lines = chart_lines(series, None, 4)
    assert lines[0] == "prompt tokens (o200k_base) over 4 calls: max 80 · budget 50 (trigger): ╌"
    # 80 is the top (levels 3, 6, 12, 24 of 24); the budget's level, 15, falls in the second row, drawn
    # there where no bar reaches
    assert lines[1:4] == ["   █", "╌╌▄█", "▃▆██"]


async def test_the_chart_shows_the_strategys_budget_and_the_strip_the_calls_over_the_window(make_app):
    app = make_app(DEMO_CHAT)
    app.context_window = 20_000
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("T")
        await settle(app, pilot)
        chart = app.chat.token_chart
        assert chart.series is not None and chart.series.budget == 25_000
        assert "budget 25,000 (max_tool_chars 100,000 / 4): ╌" in chart.text
        over = [n for n, size in enumerate(chart.series.rebuilt, 1) if size > 20_000]
        assert over  # the demo's prompts pass 20,000 tokens
        await pilot.press("escape")
        app.chat.go_to_row(4)
        await settle(app, pilot, app.detail_delay + 0.05)
        strip = app.query_one("#strip")
        assert strip.shown is not None  # (label, tiers, call on screen, note): the note may be cut on screen
        assert strip.shown[3].endswith(f"; ! over the 20,000-token window at {len(over)} call(s), from call {over[0]}")


async def test_the_audit_lists_the_calls_over_the_apps_window(make_app):
    from .test_audit_panel import open_audit

    app = make_app(DEMO_CHAT)
    app.context_window = 20_000
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        screen = await open_audit(app, pilot)
        assert "over the 20,000-token window" in screen.list_text
