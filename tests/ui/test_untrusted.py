"""Chat content is data: no markup is parsed, no control character reaches the terminal."""

from __future__ import annotations

import pytest

from inspector.ui.widgets.detail import DetailPane

from .conftest import HOSTILE, row_line, screen_text, settle, split

CONTROLS = {chr(c) for c in range(0x20)} - {"\n"} | {"\x7f"}

pytestmark = pytest.mark.frames  # untrusted text through Textual's own frames too


async def test_markup_and_escapes_are_shown_literally(make_app, write_chat):
    app = make_app(write_chat(HOSTILE, name="[red]evil[@click=app.quit]x.json"))
    async with app.run_test(size=(200, 40)) as pilot:
        await settle(app, pilot)
        assert app.is_running
        left, right = split(row_line(app, 0))
        assert "[bold]not bold[/bold] and [/ and list[int] and [@click=app.quit]cli" in left
        assert "[bold]not bold[/bold] and [/ and list[int]" in right
        assert "[@click=app.quit]clickme[/]" in app.query_one(DetailPane).text
        user = row_line(app, 1)
        assert "title␛]0;PWNED␇ red␛[31mRED nul␀ bell␇ cr␍X" in user
        assert "[red]tool[/red]:" in row_line(app, 2) and "␛[2J[@click=app.quit]x[/]" in row_line(app, 3)
        assert "[red]evil[@click=app.quit]x.json" in str(app.query_one("#summary").render())
        app.go_to_row(1)
        await pilot.pause()
        detail = app.query_one(DetailPane).text
        assert "title␛]0;PWNED␇ red␛[31mRED" in detail
        text = screen_text(app)
        assert not CONTROLS & set(text)
        for y in range(4):
            for segment in app.chat.view.render_line(y):
                assert not CONTROLS & set(segment.text)
                assert segment.style is None or not segment.style.link  # no clickable action links


async def test_clicking_injected_action_text_does_nothing(make_app, write_chat):
    app = make_app(write_chat(HOSTILE))
    async with app.run_test(size=(139, 40)) as pilot:
        await settle(app, pilot)
        x = row_line(app, 0).index("[@click")
        await pilot.click(app.chat.view, offset=(x, 0))
        await pilot.pause()
        assert app.is_running


async def test_hostile_search_and_notifications(make_app, write_chat):
    app = make_app(write_chat(HOSTILE))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("slash", *"[/", "enter")
        await settle(app, pilot)
        assert app.chat.view.search_hits == [0, 2, 3]
        await pilot.press("slash")
        app.query_one("#prompt-bar").value = "[@click=app.quit]nomatch"
        await pilot.press("enter")
        await settle(app, pilot)
        assert app.is_running and any("[@click=app.quit]nomatch" in n for n in app.notices)
