"""The detail pane, copy, search with n/N, and the tier/role filter."""

from __future__ import annotations

from inspector.ui.document import RowFilter
from inspector.ui.widgets.detail import DetailPane

from .conftest import edit, row_line, screen_text, settle, split


async def test_detail_explains_a_truncated_message(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        app.go_to_row(41)
        await pilot.pause()
        text = app.query_one(DetailPane).text
        assert "#41  role function_call_output  tool run_tests  id call_019" in text
        assert (
            "truncated: 35th newest output, beyond full_tool_outputs=10, tool characters before it 101,794 "
            ">= max_tool_chars 100,000"
        ) in text
        assert "<...6435 - ccf40...> replaces the middle of a string of 6,435 characters" in text
        assert '──────── original ────────\n{\n  "name": "run_tests",' in text  # pretty-printed JSON
        assert "──────── model-visible (shortened) ────────" in text
        assert "characters: 6,554 original -> 267 sent" in text


async def test_detail_follows_threshold_changes(make_app):
    app = make_app()
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        app.go_to_row(2)
        await pilot.pause()
        assert "dropped: call with 53 newer outputs, beyond max_tool_calls=40" in app.query_one(DetailPane).text
        await edit(app, pilot, "max_tool_calls", "60")
        text = app.query_one(DetailPane).text
        assert text.splitlines()[1].startswith("full: call with 53 newer outputs")


async def test_enter_focuses_detail_and_d_toggles_it(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("enter")
        assert isinstance(app.focused, DetailPane)
        await pilot.press("escape")
        await pilot.press("shift+tab")
        app.chat.view.focus()
        await pilot.press("d")
        assert not app.query_one(DetailPane).display
        await pilot.press("d")
        assert app.query_one(DetailPane).display


async def test_capital_y_puts_the_original_content_on_the_clipboard(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("j", "Y")
        assert app.clipboard == app.chat.document.inspection.chat.messages[1].fields["content"]
        size = len(app.clipboard)
        assert any(f"copied {size} characters of message #1" in n for n in app.notices)


async def test_search_finds_hits_and_n_N_move_between_them(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("slash")
        assert app.focused.id == "prompt-bar"
        await pilot.press(*"backoff", "enter")
        await settle(app, pilot)
        hits = app.chat.view.search_hits
        assert hits[:4] == [3, 4, 8, 16] and len(hits) == 16  # no capital: any case, in original content
        assert app.chat.view.current_row == hits[0]
        status = str(app.query_one("#status").render())
        assert "search 'backoff' (any case): message 1 of 16" in status
        await pilot.press("n")
        assert app.chat.view.current_row == hits[1]
        await pilot.press("N")
        assert app.chat.view.current_row == hits[0]
        await pilot.press("N")
        assert app.chat.view.current_row == hits[-1]  # wraps around
        await pilot.press("home")
        hit_bg = {seg.style.bgcolor for seg in app.chat.view.render_line(3)}
        plain_bg = {seg.style.bgcolor for seg in app.chat.view.render_line(2)}
        assert hit_bg != plain_bg  # hits are highlighted in the list


async def test_search_without_match_says_so(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("slash", *"zzqqxx", "enter")
        await settle(app, pilot)
        assert app.chat.view.search_hits == [] and app.chat.view.current_row == 0
        assert any("no match for 'zzqqxx'" in n for n in app.notices)


async def test_filter_by_tier_and_role(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("f")
        await pilot.pause()
        screen = app.screen
        screen.query_one("#tier").focus()
        await pilot.press("down", "down", "enter")  # "truncated"
        await pilot.press("a")
        await pilot.pause()
        assert app.chat.row_filter.tier == "truncated" and app.chat.view.count == 11
        assert all(line.startswith("✂") for line in [app.chat.view.render_line(y).text for y in range(11)])
        assert "filter: tier truncated, role any" in str(app.query_one("#status").render())
        app.chat.set_filter(RowFilter(role="user"))
        await pilot.pause()
        assert app.chat.view.count == sum(
            1 for m in app.chat.document.inspection.chat.messages if m.fields["role"] == "user"
        )
        assert "user" in split(app.chat.view.render_line(0).text)[0]
        await pilot.press("F")
        await pilot.pause()
        assert app.chat.view.count == 116 and app.chat.row_filter.tier is None


async def test_filter_cut_then_threshold_change_refilters(make_app):
    app = make_app()
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        app.chat.set_filter(RowFilter("cut"))
        await pilot.pause()
        assert app.chat.view.count == 37
        await edit(app, pilot, "max_tool_chars", "1000000")
        assert app.chat.view.count == 0
        await pilot.press("escape", "F")
        await pilot.pause()
        assert row_line(app, 0).startswith("=   0")


async def test_a_loader_finding_marks_its_row_is_repeated_in_its_detail_and_enter_in_notes_jumps_there(make_app):
    from inspector.demo import demo_chat_path
    from inspector.ui.screens.notes import NotesScreen

    app = make_app(demo_chat_path())
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        doc = app.chat.document
        (finding,) = doc.inspection.chat.findings
        rows = doc.rows
        row = next(r for r in range(len(rows)) if rows.message(r).line == finding.line)
        assert rows.finding_rows([finding]) == [[row]] and app.chat.view.flagged == {row}
        app.go_to_row(row)
        await pilot.pause()
        assert row_line(app, row)[1] == "⚑" and row_line(app, row - 1)[1] == " "
        text = app.query_one(DetailPane).text
        assert f"loader finding (previous_response_id): {finding.message}" in text
        app.go_to_row(row - 1)  # another row: nothing about it
        await pilot.pause()
        assert "loader finding" not in app.query_one(DetailPane).text
        app.go_to_row(0)
        await pilot.pause()
        await pilot.press("i")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, NotesScreen)
        assert f"finding (previous_response_id) line {finding.line}: " in screen.text
        assert screen.text.endswith(f" → #{row}")
        await pilot.press("enter")
        await settle(app, pilot)
        assert app.screen is app.chat and app.chat.view.current_row == row
        assert "loader finding (previous_response_id)" in app.query_one(DetailPane).text


async def test_the_detail_hint_follows_the_focus(make_app):
    from inspector.ui.widgets.detail import HINT_FROM_LIST, HINT_INSIDE

    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert HINT_FROM_LIST in screen_text(app) and HINT_INSIDE not in screen_text(app)
        await pilot.press("enter")
        await pilot.pause()
        assert HINT_INSIDE in screen_text(app) and HINT_FROM_LIST not in screen_text(app)
        await pilot.press("o")  # in here o jumps to the original (from the list it would follow the file)
        await pilot.pause()
        assert not app.chat.following
        await pilot.press("escape")
        await pilot.pause()
        assert HINT_FROM_LIST in screen_text(app)
