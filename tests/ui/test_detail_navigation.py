"""The detail pane can be walked: either end, the original and model-visible parts, the search hit."""

from __future__ import annotations

import json

from inspector.ui.widgets.detail import DetailPane

from .conftest import screen_text, settle

LINES = [f"log line {i:04d} " + "x" * 60 for i in range(160)]  # about 12k characters, one per line
LINES[120] = "log line 0120 the NEEDLE is here"


def long_chat(write_chat):
    call = {"name": "read_log", "arguments": {"path": "app.log"}, "id": "c1"}
    output = {"name": "read_log", "content": "\n".join(LINES), "id": "c1"}
    return write_chat(
        [
            {"role": "user", "content": "read the log"},
            {"role": "function_call", "content": json.dumps(call)},
            {"role": "function_call_output", "content": json.dumps(output)},
            {"role": "assistant", "content": "done"},
        ]
    )


async def test_home_end_o_and_v_move_through_a_long_cut_message(make_app):
    app = make_app()  # message #41: 6,435 characters over 70 lines, cut to a few hundred
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        await pilot.press("g", *"41", "enter")
        await settle(app, pilot)
        await pilot.press("enter")  # into the pane
        await pilot.pause()
        pane = app.query_one(DetailPane)
        assert app.focused is pane and pane.shown_row == 41
        assert "model-visible (shortened)" not in screen_text(app)  # far below the original
        await pilot.press("v")
        await pilot.pause()
        assert "──────── model-visible (shortened) ────────" in screen_text(app)
        await pilot.press("o")
        await pilot.pause()
        assert "──────── original ────────" in screen_text(app)
        await pilot.press("end")
        await pilot.pause()
        text = screen_text(app)
        assert "FAILED tests/test_retry.py::test_backoff" in text and "#41  role" not in text
        await pilot.press("home")
        await pilot.pause()
        assert "#41  role function_call_output" in screen_text(app)
        await pilot.press("G")
        await pilot.pause()
        assert "#41  role" not in screen_text(app)
        await pilot.press("escape")
        assert app.focused is app.chat.view


async def test_a_search_hit_is_selected_and_scrolled_to_in_the_detail(make_app, write_chat):
    app = make_app(long_chat(write_chat))
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("slash", *"needle", "enter")
        await settle(app, pilot)
        pane = app.query_one(DetailPane)
        assert app.chat.view.current_row == 2 and pane.shown_row == 2
        assert pane.selected_text == "NEEDLE"
        assert "log line 0120 the NEEDLE is here" in screen_text(app)
