"""A multi-megabyte message: the detail pane shows its start and says what it left out; copy takes it all."""

from __future__ import annotations

import json

import pytest

from inspector.ui.widgets.detail import DetailPane

from .conftest import settle


@pytest.mark.slow  # a multi-megabyte message through the detail pane and the clipboard: the thorough pass
async def test_huge_message_detail_is_capped_and_copy_is_whole(make_app, write_chat):
    body = "x" * 600_000 + "\n" + "y" * 100_000
    path = write_chat(
        [
            {"role": "user", "content": "go"},
            {"role": "function_call_output", "content": json.dumps({"name": "cat", "content": body, "id": "1"})},
        ]
    )
    app = make_app(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("j")
        await settle(app, pilot)
        pane = app.query_one(DetailPane)
        assert len(pane.text) < 401_000
        assert pane.text.endswith(
            "more characters not shown here: y copies it whole, Y the original as stored, e exports the prompt"
        )
        await pilot.press("Y")
        await pilot.pause()
        assert len(app.clipboard) == len(json.dumps({"name": "cat", "content": body, "id": "1"}))
        await pilot.press("y")  # as the pane shows it, but whole: the pane's cap is not copied
        await pilot.pause()
        assert len(app.clipboard) > 700_000 and "more characters not shown here" not in app.clipboard
        assert app.clipboard.startswith("#1  role function_call_output  tool cat")
