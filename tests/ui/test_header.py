"""The header fits: two lines at any width (words go before digits), one line in compact mode (h)."""

from __future__ import annotations

import pytest

from inspector.ui.widgets.summary import SummaryBar

from .conftest import screen_text, settle, view_lines


@pytest.mark.parametrize(
    ("size", "second"),
    [
        ((80, 24), "116 -> 90 sent │ =79 ✂11 ✗26 │ chars 217,838 -> 105,561"),
        (
            (120, 40),
            "116 -> 90 sent │ =79 ✂11 ✗26 │ chars 217,838 -> 105,561 (tool 217,314 -> 105,037) │ tokens 62,065 -> 30,213",
        ),
        (
            (200, 60),
            "messages 116 -> 90 sent  │  = 79 full  ✂ 11 truncated  ✗ 26 dropped  │  "
            "prompt chars 217,838 -> 105,561 (tool 217,314 -> 105,037)  │  tokens 62,065 -> 30,213 (o200k_base)",
        ),
    ],
)
async def test_the_header_is_two_whole_lines_at_every_size(make_app, size, second):
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        lines = screen_text(app).split("\n")
        assert lines[1].strip() == second
        assert lines[2].startswith("=   0 system")  # the rows start on the third line
        assert app.query_one(SummaryBar).size.height == 2


async def test_h_toggles_a_one_line_header_and_80_columns_keep_readable_previews(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("h")
        await pilot.pause()
        lines = screen_text(app).split("\n")
        # the call on screen stays, however narrow: here the whole chat, what the next call would send
        assert lines[0].strip() == "next call · 116 -> 90 sent │ =79 ✂11 ✗26 │ chars 217,838 -> 105,561"
        assert lines[1].startswith("=   0 system")
        left = view_lines(app)[2].partition("│")[0]
        assert left.startswith('✗   2 call      read_file: {"path": "ser')  # 15+ characters of preview
        app.chat.show_call(30)
        await settle(app, pilot)
        assert screen_text(app).split("\n")[0].strip().startswith("call 30/54 · ")
        await pilot.press("o")  # following: the badge too
        await settle(app, pilot)
        assert screen_text(app).split("\n")[0].strip().startswith("call 30/54 · ◉ following · ")
        await pilot.press("h")
        await pilot.pause()
        assert app.query_one(SummaryBar).size.height == 2
        assert "◉ following" in screen_text(app).split("\n")[0]


async def test_the_header_counts_tokens_with_the_tokenizer_named_once_counted(make_app):
    from inspector.core import tokens

    app = make_app()
    async with app.run_test(size=(200, 40)) as pilot:
        await settle(app, pilot)
        doc = app.chat.document
        counter = tokens.get("o200k")
        before = sum(counter.count_content(m.fields.get("content")) for m in doc.inspection.chat.messages)
        after = sum(counter.count_content(m.fields.get("content")) for m in doc.prompt.messages())
        assert (before, after) == (62_065, 30_213)
        line = screen_text(app).split("\n")[1]
        assert line.endswith(f"tokens {before:,} -> {after:,} (o200k_base)")
    app = make_app(tokenizer="estimate")  # the estimate, labelled as such
    async with app.run_test(size=(200, 40)) as pilot:
        await settle(app, pilot)
        assert screen_text(app).split("\n")[1].endswith("~tokens 54,460 -> 26,391 (estimate: chars/4)")
