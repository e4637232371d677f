"""A chat on which scout-ai raises sends nothing: no row of the list, summary or detail says full or sent."""

from __future__ import annotations

import json

from inspector.ui.widgets.detail import DetailPane

from .conftest import row_line, screen_text, settle, split


async def test_rows_of_a_raising_chat_are_undecided_and_say_why(make_app, write_chat):
    newer = json.dumps({"name": "t", "id": "a", "content": "ok"})
    path = write_chat(
        [
            {"role": "user", "content": "go"},
            {"role": "function_call_output", "content": "{broken"},
            {"role": "function_call_output", "content": newer},
        ]
    )
    app = make_app(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        # the older row was never reached, the newer one was decided before the raise: neither is sent
        assert split(row_line(app, 0))[1].strip() == "? not reached: scout-ai raised on message 1 first"
        assert split(row_line(app, 1))[1].strip().startswith("! scout-ai raises JSON::ParserError")
        assert split(row_line(app, 2))[1].strip() == "? not sent: decided before scout-ai raised on message 1"
        assert "3 -> 0 sent │ =0 ✂0 ✗0 !1 ?2 │" in screen_text(app)
        await pilot.press("G")
        await settle(app, pilot)
        detail = app.query_one(DetailPane).text
        assert (
            "undecided: decided full (recent-N band) before scout-ai raised on message 1, so nothing is sent" in detail
        )
        await pilot.press("ctrl+y")
        await pilot.pause()
        assert app.notices[-1] == "message #2 is not sent to the model: nothing to copy"
