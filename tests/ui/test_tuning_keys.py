"""Tuning by keys: ↑/↓ step the focused value (shift: x10) and re-plan; ctrl+z undoes every change."""

from __future__ import annotations

import pytest

from inspector.ui.widgets.summary import SummaryBar

from .conftest import settle


def summary(app) -> str:
    return str(app.query_one(SummaryBar).render())


async def test_arrows_step_the_focused_value_and_replan(make_app):
    app = make_app()
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(app, pilot)
        await pilot.press("t")
        await settle(app, pilot)
        field = app.chat.editor.query_one("#th-full_tool_outputs")
        field.focus()
        await pilot.pause()
        await pilot.press("up")
        await settle(app, pilot, app.debounce + 0.05)
        assert field.value == "11" and app.chat.document.thresholds["full_tool_outputs"] == 11
        await pilot.press("shift+up", "shift+up", "down")
        await settle(app, pilot, app.debounce + 0.05)
        assert field.value == "30" and app.chat.document.thresholds["full_tool_outputs"] == 30
        for _ in range(4):
            await pilot.press("shift+down")
        await settle(app, pilot, app.debounce + 0.05)
        assert field.value == "0" and app.chat.document.thresholds["full_tool_outputs"] == 0  # never below zero


async def test_ctrl_z_undoes_edits_fixes_strategies_and_versions_in_turn(make_app):
    app = make_app()
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(app, pilot)
        assert "116 -> 90 sent" in summary(app)
        app.chat.set_threshold("full_tool_outputs", 54, "why fix", delay=0)
        await settle(app, pilot)
        await pilot.press("s")  # strategies: none
        await settle(app, pilot)
        await pilot.press("V")  # scout-ai version 1.2.6
        await settle(app, pilot)
        assert app.chat.scout_version == "1.2.6"
        await pilot.press("ctrl+z")
        await settle(app, pilot)
        assert app.chat.scout_version is None and app.notices[-1] == "undone: scout-ai version as inferred"
        await pilot.press("ctrl+z")
        await settle(app, pilot)
        assert app.chat.strategies is None and app.chat.document.thresholds["full_tool_outputs"] == 54
        await pilot.press("ctrl+z")
        await settle(app, pilot)
        assert app.chat.document.thresholds["full_tool_outputs"] == 10 and "116 -> 90 sent" in summary(app)
        assert app.notices[-1] == "undone: full_tool_outputs 10"
        await pilot.press("ctrl+z")
        await settle(app, pilot)
        assert app.notices[-1] == "nothing to undo"


@pytest.mark.slow  # in CI's thorough pass: the quick suite stays under a minute
async def test_keys_typed_in_one_field_are_one_step_back(make_app):
    app = make_app()
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(app, pilot)
        await pilot.press("t")
        await settle(app, pilot)
        field = app.chat.editor.query_one("#th-max_tool_chars")
        field.focus()
        await pilot.pause()
        await pilot.press("end", *["backspace"] * 6, *"50000")
        await settle(app, pilot, app.debounce + 0.05)
        assert app.chat.document.thresholds["max_tool_chars"] == 50_000
        await pilot.press("escape")
        await settle(app, pilot)
        await pilot.press("ctrl+z")
        await settle(app, pilot)
        assert app.chat.document.thresholds["max_tool_chars"] == 100_000
        assert app.chat.editor.query_one("#th-max_tool_chars").value == "100000"


async def test_the_header_says_chat_s_choice_only_when_the_chat_chose(make_app, tmp_path):
    chat = tmp_path / "chose.chat"
    # an option after the last assistant message chooses the strategies (scout-ai resets it at each answer)
    chat.write_text("user: q\nassistant: a\noption: prompt_strategies none\nuser: again\n", encoding="utf-8")
    app = make_app(chat)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(app, pilot)
        assert "strategies none (chat's choice)" in summary(app)
    app = make_app()  # the sample chooses nothing: scout-ai's default runs
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(app, pilot)
        assert "strategies shorten_tools (default)" in summary(app)


@pytest.mark.parametrize("size", [(80, 24), (100, 30)])
async def test_tab_never_lands_on_an_unseen_field_or_reset(make_app, size):
    """The sweep chart moves under the focused field and redraws: the field (or Reset) is scrolled to after."""
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        await pilot.press("t")
        await settle(app, pilot)
        editor = app.chat.editor
        seen = []
        for key in ["tab"] * 9 + ["shift+tab"] * 9:
            await pilot.press(key)
            await settle(app, pilot)
            focused = app.focused
            if focused is None or editor not in focused.ancestors:
                continue
            seen.append(focused.id)
            inside = focused.region.intersection(editor.region)
            assert inside.area == focused.region.area, (focused.id, focused.region, editor.region)
        assert "reset" in seen and "th-max_tool_outputs" in seen and "th-full_tool_calls" in seen


async def test_at_80x24_a_field_leaves_t_and_the_call_steps_to_the_screen_and_the_bar_shows_them(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("t")
        await settle(app, pilot)
        field = app.focused
        assert field is not None and (field.id or "").startswith("th-")
        value = field.value
        bar = app.screen.query_one("KeyBar")
        bar.bindings_changed(app.screen)
        drawn = str(bar.render())
        assert "t Close editor" in drawn and "< Call ◂" in drawn and "> Call ▸" in drawn
        await pilot.press("<", "<")
        await settle(app, pilot)
        last = len(app.chat.document.history)
        assert app.chat.document.call == last - 1 and field.value == value and app.focused is field
        await pilot.press(">")
        await settle(app, pilot)
        assert app.chat.document.call == last and field.value == value
        await pilot.press("end", "1", "t")  # typed digits still go in; t closes the editor
        await settle(app, pilot)
        assert field.value == value + "1" and not app.chat.editor.has_class("-open")
