"""The editor shows the settings of the strategies in force, and the header names the scout-ai version."""

from __future__ import annotations

from inspector.ui.widgets.summary import SummaryBar

from .conftest import edit, settle


def _shown(app) -> list[str]:
    return [w.id[3:] for w in app.chat.editor.query("Input") if (w.id or "").startswith("th-") and w.display]


async def test_editor_lists_the_epoch_settings_and_edits_replan(make_app):
    app = make_app()
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        app.chat.set_strategies("shorten_tools_epoch_increment")  # as the editor's strategy list does
        await settle(app, pilot, app.debounce + 0.1)
        header = str(app.query_one(SummaryBar).render())
        assert "scout-ai 2.1  ·  strategies shorten_tools_epoch_increment" in header
        await pilot.press("t")
        await pilot.pause()
        shown = _shown(app)
        assert shown[0] == "epoch_tool_call_threshold" and len(shown) == 10 and "max_tool_chars" not in shown
        before = app.chat.document.totals.tiers["truncated"]
        await edit(app, pilot, "epoch_tool_call_threshold", "5")
        assert app.chat.thresholds.setting("epoch_tool_call_threshold") == 5
        assert app.chat.document.totals.tiers["truncated"] != before  # the windows moved: another plan
        assert str(app.chat.editor.query_one("#src-epoch_tool_call_threshold").render()).startswith("edited")
        await edit(app, pilot, "epoch_increment_compacted_growth_ratio", "0.5")
        assert app.chat.thresholds.setting("epoch_increment_compacted_growth_ratio") == 0.5


async def test_editor_shows_the_five_thresholds_for_shorten_tools(make_app):
    app = make_app()
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        await pilot.press("t")
        await pilot.pause()
        assert _shown(app) == [
            "full_tool_calls",
            "full_tool_outputs",
            "max_tool_calls",
            "max_tool_outputs",
            "max_tool_chars",
        ]
        assert "scout-ai seed  ·  strategies shorten_tools" in str(app.query_one(SummaryBar).render())


async def test_V_switches_the_scout_ai_version(make_app):
    app = make_app()
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        assert "scout-ai seed  ·  strategies shorten_tools" in str(app.query_one(SummaryBar).render())
        seed_chars = app.chat.document.totals.chars_after
        await pilot.press("V")
        await settle(app, pilot, app.debounce + 0.1)
        assert "scout-ai 1.2.6  ·  strategies shorten_tools" in str(app.query_one(SummaryBar).render())
        assert "scout-ai version: 1.2.6" in app.notices
        assert app.chat.document.totals.chars_after > seed_chars  # 1.2.6 cuts outputs to 400 characters, not 200
        await pilot.press("V")
        await settle(app, pilot, app.debounce + 0.1)
        assert "scout-ai 2.1  ·  strategies shorten_tools" in str(app.query_one(SummaryBar).render())
        await pilot.press("V")
        await settle(app, pilot, app.debounce + 0.1)
        assert "scout-ai seed" in str(app.query_one(SummaryBar).render())


async def test_K_copies_the_settings_as_scout_config_lines(make_app):
    app = make_app()
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        await edit(app, pilot, "max_tool_chars", "5000")
        app.set_focus(None)
        await pilot.press("K")
        await pilot.pause()
        assert app.clipboard.splitlines() == [
            "full_tool_calls 0 prompt",
            "full_tool_outputs 10 prompt",
            "max_tool_calls 40 prompt",
            "max_tool_chars 5000 prompt",
        ]  # max_tool_outputs follows max_tool_calls: no line pins it
        assert "copied 4 etc/config lines (key value prompt) for scout-ai" in app.notices


async def test_a_strategy_picked_with_the_editor_open_adds_its_rows_with_their_values_unedited(make_app):
    app = make_app()
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        await pilot.press("t")
        await pilot.pause()
        assert _shown(app) == list(app.chat.active_keys(None))  # only the five rows are made at first
        assert not app.chat.editor.query("#th-epoch_size")
        app.chat.set_strategies("shorten_tools_epoch_increment")
        await settle(app, pilot, app.debounce + 0.1)
        shown = _shown(app)
        assert shown[0] == "epoch_tool_call_threshold" and len(shown) == 10 and "max_tool_chars" not in shown
        for key in shown:
            field = app.chat.editor.query_one(f"#th-{key}")
            assert field.value == str(app.chat.thresholds.setting(key)) and not field.has_class("-invalid")
            source = str(app.chat.editor.query_one(f"#src-{key}").render())
            assert source == app.chat.thresholds.values[key].describe_source() and not source.startswith("edited")
        assert all(value.source != "edited" for value in app.chat.thresholds.values.values())
        app.chat.set_strategies(None)  # back to the chat's choice: the five rows again, the epoch ones hidden
        await settle(app, pilot, app.debounce + 0.1)
        assert _shown(app) == list(app.chat.active_keys(None))


async def test_u_after_s_and_V_goes_back_to_the_loaded_strategies_and_version(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        loaded = str(app.query_one(SummaryBar).render()).splitlines()
        totals = app.chat.document.totals
        await pilot.press("s")
        await settle(app, pilot, app.debounce + 0.1)
        await pilot.press("V")
        await settle(app, pilot, app.debounce + 0.1)
        assert "scout-ai 1.2.6" in str(app.query_one(SummaryBar).render())
        await pilot.press("u")
        await settle(app, pilot, app.debounce + 0.1)
        assert str(app.query_one(SummaryBar).render()).splitlines() == loaded
        assert app.chat.document.totals == totals and app.chat.strategies is None and app.chat.scout_version is None
        assert app.notices[-1] == "thresholds, strategies and scout-ai version reset to the loaded ones (ctrl+z undoes)"
        await pilot.press("ctrl+z")  # one step back: the strategies and the version picked before u
        await settle(app, pilot, app.debounce + 0.1)
        assert "scout-ai 1.2.6" in str(app.query_one(SummaryBar).render()) and app.chat.strategies is not None
        await pilot.press("u", "u")
        await settle(app, pilot, app.debounce + 0.1)
        assert app.notices[-1] == "the loaded settings are in force already: nothing to reset"
