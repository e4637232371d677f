"""A terminal resized under the app: the selected row stays in view, the strip keeps its cells, the
detail pane wraps at its new width."""

from __future__ import annotations

from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from .conftest import screen_text, settle

DEMO_CHAT = Path(__file__).resolve().parents[2] / "inspector" / "demo" / "demo.chat"


@asynccontextmanager
async def resized_at(make_app, row: int, width: int, height: int):
    """The demo at 120x40 with ``row`` selected, then the terminal resized: (app, pilot)."""
    app = make_app(DEMO_CHAT)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        app.go_to_row(row)
        await settle(app, pilot)
        await pilot.resize_terminal(width, height)
        await settle(app, pilot)
        yield app, pilot


async def test_the_selected_row_stays_in_view_and_the_strip_keeps_its_cells(make_app):
    async with resized_at(make_app, 150, 80, 24) as (app, pilot):
        lines = screen_text(app).splitlines()
        assert any(line.startswith("= 150 call      read_file") for line in lines)  # the list scrolled to it
        assert " row 150 · 151 of 183 shown" in lines
        strip = next(line for line in lines if line.startswith(" #150 over 60 calls"))
        assert strip == " #150 over 60 calls ▕·················====▏ sent at calls 51-60, to the last"
        app.go_to_row(4)
        await settle(app, pilot)
        strip = next(line for line in screen_text(app).splitlines() if line.startswith(" #4 over 60 calls"))
        # too long for 80 columns: the note gives way with an ellipsis, the cells stay
        assert strip == " #4 over 60 calls ▕=====✂✂✂✗✗▏ sent at calls 2-46, cut from 30, hidden from …"


@pytest.mark.frames  # Textual's own frames: the stale wrap showed only with them
async def test_the_detail_pane_wraps_again_at_its_new_width(make_app):
    async with resized_at(make_app, 4, 80, 30) as (app, pilot):
        lines = screen_text(app).splitlines()
        start = lines.index("│ #4  role function_call_output  tool read_file  id call_001  line 14          │")
        assert lines[start + 1 : start + 3] == [
            "│ dropped: 53rd newest output, beyond max_tool_outputs=40, tool characters     │",
            "│ before it 103,131 >= max_tool_chars 100,000                                  │",
        ]
        await pilot.resize_terminal(120, 40)
        await settle(app, pilot)
        text = screen_text(app)
        assert (
            "│ dropped: 53rd newest output, beyond max_tool_outputs=40, tool characters before it 103,131 >= max_tool_chars"
            in text
        )
