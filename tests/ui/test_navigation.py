"""Moving around: keys, page keys, jumps to cuts, go to number, mouse."""

from __future__ import annotations

from textual.events import MouseScrollDown

from .conftest import row_line, settle


async def test_line_keys_move_the_cursor_and_repaint_it(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        view = app.chat.view
        await pilot.press("j", "j", "down")
        assert view.cursor == 3 and app.query_one("#detail").shown_row == 3
        await pilot.press("k", "up")
        assert view.cursor == 1
        await pilot.press("up", "up")
        assert view.cursor == 0  # clamped


async def test_page_home_end_keys(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        view = app.chat.view
        height = view.scrollable_content_region.height
        await pilot.press("pagedown")
        assert view.cursor == height and view.scroll_offset.y > 0
        await pilot.press("ctrl+f")
        assert view.cursor == 2 * height
        await pilot.press("pageup", "ctrl+b")
        assert view.cursor == 0
        await pilot.press("end")
        assert view.cursor == 115 and view.scroll_offset.y == 116 - height
        assert row_line(app, 115).startswith("= 115 assistant")
        await pilot.press("home")
        assert view.cursor == 0 and view.scroll_offset.y == 0
        await pilot.press("G")
        assert view.cursor == 115


async def test_cursor_refresh_targets_content_rows_after_scrolling(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        view = app.chat.view
        await pilot.press("end", "k")
        # the highlighted strip is the cursor row, not a viewport-relative one
        y = view.cursor - view.scroll_offset.y
        cursor_bg = {seg.style.bgcolor for seg in view.render_line(y) if seg.style}
        other_bg = {seg.style.bgcolor for seg in view.render_line(y - 1) if seg.style}
        assert cursor_bg != other_bg
        assert view.render_line(y).text.startswith("= 114")


async def test_next_and_previous_cut(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("right_square_bracket")
        assert app.chat.view.current_row == 2  # first dropped
        await pilot.press("end", "left_square_bracket")
        assert app.chat.view.current_row == 58  # last truncated
        assert app.chat.document.rows.tier(58, app.chat.document.prompt) == "truncated"
        await pilot.press("right_square_bracket")
        assert app.chat.view.current_row == 58  # nothing after it
        assert any("no more truncated" in n for n in app.notices)


async def test_go_to_message_number(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("g")
        assert app.focused.id == "prompt-bar"
        await pilot.press("7", "0", "enter")
        await pilot.pause()
        assert app.chat.view.current_row == 70 and app.focused is app.chat.view
        assert row_line(app, 70).startswith("=  70 call")
        await pilot.press("g", "9", "9", "9", "enter")
        await pilot.pause()
        assert app.chat.view.current_row == 70
        assert any("no message #999" in n for n in app.notices)
        await pilot.press("g", "escape")
        assert app.focused is app.chat.view


async def test_mouse_click_selects_and_wheel_scrolls(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        view = app.chat.view
        await pilot.click(view, offset=(10, 5))
        await pilot.pause()
        assert view.cursor == 5 and app.query_one("#detail").shown_row == 5
        # Pilot has no wheel helper in 8.2.8: post the event the terminal driver would
        view.post_message(MouseScrollDown(view, 10, 5, 0, 1, 0, False, False, False, screen_x=10, screen_y=8))
        await pilot.pause()
        assert view.scroll_offset.y > 0
        await pilot.click(view, offset=(10, 0))
        await pilot.pause()
        assert view.cursor == view.scroll_offset.y
