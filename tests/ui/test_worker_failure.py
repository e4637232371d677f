"""One handler for failed workers: a notification naming what failed, and a screen that agrees with itself."""

from __future__ import annotations

import pytest
from textual.widgets import Select

from inspector.core.scout.strategies import register_strategy, unregister_strategy
from inspector.ui.widgets.summary import SummaryBar

from .conftest import screen_text, settle


@pytest.fixture
def exploding_strategy():
    def explode(messages):
        raise RuntimeError("plugin exploded")

    register_strategy("explodes", explode)
    yield "explodes"
    unregister_strategy("explodes")


async def test_a_raising_plugin_strategy_is_reported_and_editor_and_view_agree(make_app, exploding_strategy):
    app = make_app()
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(app, pilot)
        assert app.chat.strategy_choices[-1] == exploding_strategy
        for _ in range(4):  # (chat's choice: shorten_tools) -> none -> ..._epoch -> ..._epoch_increment -> inbox
            await pilot.press("s")
            await settle(app, pilot)
        assert "strategies inbox" in str(app.query_one(SummaryBar).render())
        await pilot.press("s")  # -> 2.1's default chain
        await settle(app, pilot)
        assert app.chat.strategies == "shorten_tools_epoch_increment,inbox"
        await pilot.press("s")  # -> explodes: the plan worker raises
        await settle(app, pilot)
        chain = "shorten_tools_epoch_increment,inbox"
        expected = f"planning the prompt failed: RuntimeError: plugin exploded; back to the plan on screen (strategies {chain})"
        assert expected in app.notices
        # the editor shows what the list was planned with, not the strategy that failed
        assert app.chat.strategies == chain
        assert app.chat.editor.query_one("#strategies", Select).value == chain
        assert f"strategies {chain}" in str(app.query_one(SummaryBar).render())
        assert app.is_running
        await pilot.press("u")  # and the app goes on: back to the loaded values, planned normally
        await settle(app, pilot)
        assert app.chat.strategies is None
        assert app.chat.editor.query_one("#strategies", Select).value == "(chat's choice)"
        assert "strategies shorten_tools (default)\n116 -> 90 sent" in str(app.query_one(SummaryBar).render())


async def test_a_failing_search_worker_is_reported_and_the_status_cleared(make_app, monkeypatch):
    import inspector.ui.widgets.dual_view as dual_view

    def broken(rows, query, cancelled):
        raise ValueError("index broke")

    monkeypatch.setattr(dual_view, "find_rows", broken)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("slash", *"pytest", "enter")
        await settle(app, pilot)
        assert "search failed: ValueError: index broke" in app.notices
        assert app.chat.view.search_query == "" and "search" not in app.query_one("#status").text


async def test_a_failing_audit_says_so_in_its_title_and_a_notification(make_app, monkeypatch):
    import inspector.ui.screens.audit as audit_module

    def broken(*args, **kwargs):
        raise ValueError("audit broke")

    monkeypatch.setattr(audit_module, "audit", broken)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("a")
        await settle(app, pilot)
        assert "audit failed: ValueError: audit broke" in app.notices
        assert "ValueError: audit broke" in screen_text(app)
        assert app.is_running
