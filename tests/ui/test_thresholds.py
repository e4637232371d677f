"""Live thresholds: edits re-plan and repaint both columns and the totals; invalid input is ignored."""

from __future__ import annotations

import pytest

from inspector.ui.widgets.summary import SummaryBar

from .conftest import edit, row_line, screen_text, settle, split


def summary(app) -> str:
    return str(app.query_one(SummaryBar).render())


async def test_threshold_change_updates_columns_and_totals(make_app):
    app = make_app()
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        assert split(row_line(app, 2))[1].strip() == "✗ dropped"
        await edit(app, pilot, "max_tool_chars", "1000000")
        assert app.chat.thresholds["max_tool_chars"] == 1_000_000
        assert "116 -> 116 sent │" in summary(app)
        assert "=116 ✂0 ✗0 │" in summary(app)
        assert "chars 217,838 -> 217,838 (tool 217,314 -> 217,314)" in summary(app)
        left, right = split(row_line(app, 2))
        assert left.startswith("=   2 call") and "read_file:" in right and "dropped" not in right
        source = str(app.chat.editor.query_one("#src-max_tool_chars").render())
        assert source.startswith("edited")


async def test_smaller_budget_cuts_more(make_app):
    app = make_app()
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        await edit(app, pilot, "max_tool_chars", "20_000")
        counts = app.chat.document.totals.tiers
        assert counts["truncated"] > 11 and app.chat.document.totals.tool_chars_after < 105_037
        assert f"(tool 217,314 -> {app.chat.document.totals.tool_chars_after:,})" in summary(app)


async def test_invalid_input_is_marked_and_ignored(make_app):
    app = make_app()
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        before = app.chat.document.prompt
        await edit(app, pilot, "full_tool_outputs", "1x")
        field = app.chat.editor.query_one("#th-full_tool_outputs")
        assert field.has_class("-invalid")
        assert app.chat.thresholds["full_tool_outputs"] == 1  # the valid prefix "1" was applied while typing
        await edit(app, pilot, "full_tool_outputs", "abc")
        assert field.has_class("-invalid") and app.chat.thresholds["full_tool_outputs"] == 1
        assert app.chat.document.prompt is not before


async def test_max_tool_outputs_follows_max_tool_calls(make_app):
    app = make_app()
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        await pilot.press("t")
        await pilot.pause()
        assert "follows max_tool_calls" in str(app.chat.editor.query_one("#src-max_tool_outputs").render())
        await edit(app, pilot, "max_tool_calls", "5")
        assert app.chat.thresholds["max_tool_outputs"] == 5
        assert app.chat.editor.query_one("#th-max_tool_outputs").value == "5"
        assert "follows max_tool_calls" in str(app.chat.editor.query_one("#src-max_tool_outputs").render())
        await edit(app, pilot, "max_tool_outputs", "30")
        await edit(app, pilot, "max_tool_calls", "6")
        assert app.chat.thresholds["max_tool_outputs"] == 30  # set itself: no longer follows
        field = app.chat.editor.query_one("#th-max_tool_outputs")
        field.focus()
        field.value = ""  # emptied: it follows again, and what is written back for scout-ai leaves it out
        await settle(app, pilot, app.debounce + 0.05)
        assert app.chat.thresholds.follows() and app.chat.thresholds["max_tool_outputs"] == 6
        assert not field.has_class("-invalid")
        assert "follows max_tool_calls" in str(app.chat.editor.query_one("#src-max_tool_outputs").render())
        await edit(app, pilot, "max_tool_calls", "7")
        assert app.chat.thresholds["max_tool_outputs"] == 7
        await pilot.press("ctrl+z", "ctrl+z")  # max_tool_calls 6, then max_tool_outputs set to 30 again
        await settle(app, pilot, app.debounce + 0.05)
        assert (app.chat.thresholds["max_tool_calls"], app.chat.thresholds["max_tool_outputs"]) == (6, 30)


async def test_reset_returns_to_loaded_values(make_app):
    app = make_app()
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        await edit(app, pilot, "max_tool_chars", "5")
        assert "116 -> 116 sent │" not in summary(app)
        await pilot.press("escape")
        assert app.focused is app.chat.view
        await pilot.press("u")
        await settle(app, pilot)
        assert app.chat.thresholds["max_tool_chars"] == 100_000
        assert app.chat.editor.query_one("#th-max_tool_chars").value == "100000"
        assert "116 -> 90 sent │" in summary(app)


async def test_strategy_list_is_switchable(make_app):
    app = make_app()
    async with app.run_test(size=(139, 50)) as pilot:
        await settle(app, pilot)
        assert "strategies shorten_tools (default)" in summary(app)
        await pilot.press("s")  # the chat's choice is shorten_tools: s goes straight on to none
        await settle(app, pilot)
        assert app.chat.strategies == "none"
        assert "strategies none" in summary(app) and "116 -> 116 sent │" in summary(app)
        assert split(row_line(app, 2))[1].strip() != "✗ dropped"
        await pilot.press("u")
        await settle(app, pilot)
        assert app.chat.strategies is None and "strategies shorten_tools" in summary(app)


async def test_editor_toggles_and_typing_q_stays_text(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert not app.chat.editor.has_class("-open")
        await pilot.press("t")
        await pilot.pause()
        assert app.chat.editor.has_class("-open") and app.focused.id == "th-full_tool_calls"
        await pilot.press("end", "q")  # q is text in an input, not quit
        await settle(app, pilot, app.debounce + 0.05)
        assert app.is_running and app.focused.has_class("-invalid")
        await pilot.press("escape")  # Esc leaves the input, the editor stays open
        assert app.focused is app.chat.view and app.chat.editor.has_class("-open")
        await pilot.press("t")  # from the list, t moves back into the open editor
        await pilot.pause()
        assert app.focused.id == "th-full_tool_calls"
        await pilot.press("t")  # inside it, t closes it (it is never typed)
        await pilot.pause()
        assert not app.chat.editor.has_class("-open") and app.focused is app.chat.view


@pytest.mark.frames  # read off the screen, drawn for real
async def test_text_the_command_line_refuses_is_refused_under_its_field_and_the_plan_stays(make_app):
    app = make_app()
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        await edit(app, pilot, "max_tool_calls", "3-5")
        source = app.chat.editor.query_one("#src-max_tool_calls")
        assert str(source.render()) == "expects an integer, got '3-5': not applied, the plan kept"
        assert source.has_class("-error")
        # the editor's column, its wrapped lines joined: the message is read as shown
        column = " ".join(line.split("▏", 1)[1].strip() for line in screen_text(app).splitlines() if "▏" in line)
        assert "max_tool_calls 3-5 expects an integer, got '3-5': not applied, the plan kept" in " ".join(
            column.split()
        )
        assert app.chat.thresholds["max_tool_calls"] == 3  # "3" applied while typing; "3-" and "3-5" refused
        await edit(app, pilot, "max_tool_calls", "10+")
        assert str(source.render()) == "expects an integer, got '10+': not applied, the plan kept"
        assert app.chat.thresholds["max_tool_calls"] == 10
        await pilot.press("backspace")
        await settle(app, pilot, app.debounce + 0.05)
        # a value again (the one in force): its source is back, the error style gone
        assert not source.has_class("-error")
        assert str(source.render()).startswith("edited")


async def test_the_header_says_which_values_were_edited(make_app):
    app = make_app()
    async with app.run_test(size=(220, 50)) as pilot:
        await settle(app, pilot)
        first = screen_text(app).splitlines()[0]
        assert "edited" not in first
        await edit(app, pilot, "max_tool_chars", "20000")
        first = screen_text(app).splitlines()[0]
        assert first.rstrip().endswith("strategies shorten_tools (default) · edited: max_tool_chars"), first


async def test_a_value_read_from_text_is_explained_next_to_its_field_and_leads_the_banner(make_app):
    from inspector.demo import demo_chat_path

    app = make_app(demo_chat_path(), env={"MAX_TOOL_CHARS": "50k", "FULL_TOOL_OUTPUTS": "7"})
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(app, pilot)
        banner = str(app.query_one("#banner").render()).splitlines()
        assert banner[0] == (
            "threshold warning: MAX_TOOL_CHARS='50k' from the environment is read by scout-ai as 50 (i for all)"
        )
        assert banner[1].startswith("1 loader finding(s)")
        assert app.chat.document.thresholds["max_tool_chars"] == 50  # Ruby's to_i, as scout-ai runs
        await pilot.press("t")
        await settle(app, pilot)
        editor = app.chat.editor
        source = editor.query_one("#src-max_tool_chars")
        assert str(source.render()) == "environment (MAX_TOOL_CHARS)\n'50k' read as 50 (Ruby to_i)"
        assert source.has_class("-warning")
        plain = editor.query_one("#src-full_tool_outputs")  # a plain number needs no word
        assert str(plain.render()) == "environment (FULL_TOOL_OUTPUTS)" and not plain.has_class("-warning")
        field = editor.query_one("#th-max_tool_chars")
        field.focus()
        await pilot.press("end", "0")  # an edit is the user's number: the note goes
        await settle(app, pilot, app.debounce + 0.05)
        assert app.chat.document.thresholds["max_tool_chars"] == 500
        assert str(source.render()) == "edited (in the app)" and not source.has_class("-warning")


async def test_the_strategy_picker_offers_the_versions_chains_and_takes_a_typed_list(make_app):
    app = make_app()
    async with app.run_test(size=(140, 50)) as pilot:
        await settle(app, pilot)
        await pilot.press("t")
        await settle(app, pilot)
        editor = app.chat.editor
        assert "shorten_tools_epoch_increment,inbox" in editor.choices()  # 2.1's default chain
        typed = editor.query_one("#strategies-typed")
        typed.focus()
        await pilot.press(*"shorten_tools, bogus", "enter")
        await settle(app, pilot)
        error = str(editor.query_one("#strategies-error").render())
        assert error.startswith("unknown prompt strategy 'bogus'; known: shorten_tools, none")
        assert app.chat.strategies is None and typed.value == "shorten_tools, bogus"  # the plan stays
        await pilot.press("ctrl+u", *"shorten_tools , none", "enter")
        await settle(app, pilot)
        assert app.chat.strategies == "shorten_tools,none" and typed.value == ""
        assert str(editor.query_one("#strategies-error").render()) == ""
        assert editor.query_one("#strategies").value == "shorten_tools,none"  # the picker shows it
        assert "strategies shorten_tools,none" in str(app.query_one("#summary").render())
        await pilot.press("ctrl+z")  # one undo step
        await settle(app, pilot)
        assert app.chat.strategies is None
