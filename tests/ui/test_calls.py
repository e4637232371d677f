"""Model calls in the app: stepping (< > L), the header, the response rows, the strip, why and audit jumps, follow."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from .conftest import screen_text, settle, view_lines

DEMO_CHAT = Path(__file__).resolve().parents[2] / "inspector" / "demo" / "demo.chat"


async def test_stepping_back_shows_the_chat_as_it_stood_and_the_response(make_app):
    app = make_app(DEMO_CHAT)
    async with app.run_test(size=(139, 44)) as pilot:
        await settle(app, pilot)
        assert "next call (after 60 calls; < steps back)" in screen_text(app)
        await pilot.press("end")  # on the newest message: each call shows its newest, the response under it
        await settle(app, pilot)
        await pilot.press("less_than_sign")
        await settle(app, pilot)
        assert app.chat.call == 60 and "call 60 of 60" in screen_text(app)
        assert len(app.chat.document.rows) == len(app.chat.document.inspection.chat.messages) + len(
            app.chat.document.inspection.chat.consumed
        )
        await pilot.press("comma", "comma")
        await settle(app, pilot)
        assert app.chat.call == 58 and "call 58 of 60" in screen_text(app)
        lines = view_lines(app)
        response = [line for line in lines if line.startswith("▶ call 58's response")]
        assert len(response) == 1 and "function_call" in response[0]
        assert any(line.startswith("… ") and "later message(s) not yet written" in line for line in lines)
        await pilot.press("greater_than_sign")
        await settle(app, pilot)
        assert app.chat.call == 59
        await pilot.press("full_stop")
        await settle(app, pilot)
        assert app.chat.call == 60
        await pilot.press("full_stop")
        await settle(app, pilot)
        assert app.chat.call is None and not any(line.startswith("▶") for line in view_lines(app))
        await pilot.press("full_stop")
        await settle(app, pilot)
        assert app.notices[-1] == "this is the whole chat (what the next call would send)"
        await pilot.press("comma", "comma")
        await settle(app, pilot)
        await pilot.press("L")
        await settle(app, pilot)
        assert app.chat.call is None and "next call (after 60 calls" in screen_text(app)


async def test_the_first_call_and_the_prompt_at_a_call(make_app):
    app = make_app(DEMO_CHAT)
    async with app.run_test(size=(139, 44)) as pilot:
        await settle(app, pilot)
        app.chat.show_call(1)
        await settle(app, pilot)
        assert "call 1 of 60" in screen_text(app)
        assert app.chat.document.totals.visible_messages == 2
        await pilot.press("comma")
        await settle(app, pilot)
        assert app.notices[-1] == "this is the first model call"


async def test_the_strip_shows_the_selected_message_over_every_call(make_app):
    app = make_app(DEMO_CHAT)
    async with app.run_test(size=(140, 44)) as pilot:
        await settle(app, pilot)
        app.go_to_row(4)  # the read_file output holding reconnect_backoff_ms
        await settle(app, pilot)
        strip = app.query_one("#strip")
        assert strip.text.startswith("#4 over 60 calls ▕=")
        assert strip.text.endswith("▏ sent at calls 2-46, cut from 30, hidden from 47")
        assert "=✂" in strip.text and "✂✗" in strip.text
        await pilot.press("comma")
        await settle(app, pilot)  # at call 60 the row is the last message; back to row 4
        app.go_to_row(4)
        await settle(app, pilot)
        assert strip.text.endswith("▏ sent at calls 2-46, cut from 30, hidden from 47")


async def test_why_offers_the_timeline_and_jumps_to_the_call_last_seen(make_app):
    app = make_app(DEMO_CHAT)
    async with app.run_test(size=(139, 44)) as pilot:
        await settle(app, pilot)
        app.chat.open_why("reconnect_backoff_ms: 7350")
        await settle(app, pilot)
        screen = app.screen
        assert "calls: written before call 2; last sent at call 29; at call 30: truncated" in screen.list_text
        await pilot.press("l")
        await settle(app, pilot)
        assert app.chat.call == 29 and app.chat.view.current_row == 4
        assert "call 29 of 60" in screen_text(app)
        assert app.chat.document.prompt.tier_of(3) == "full"


async def test_audit_repeated_call_jumps_to_the_call_that_repeated(make_app):
    app = make_app(DEMO_CHAT)
    async with app.run_test(size=(139, 44)) as pilot:
        await settle(app, pilot)
        await pilot.press("a")
        await settle(app, pilot)
        screen = app.screen
        assert "repeated call" in screen.list_text
        index = next(i for i, f in enumerate(screen.findings) if f.kind == "repeated_call")
        finding = screen.findings[index]
        screen.query_one("#audit-list").highlighted = index
        await pilot.press("enter")
        await settle(app, pilot)
        call = app.chat.document.history.call_of(app.chat.document.history.whole.chat.messages[finding.messages[2]])
        assert app.chat.call == call and f"call {call} of 60" in screen_text(app)
        assert any(line.startswith(f"▶ call {call}'s response") for line in view_lines(app))


async def test_export_works_at_the_selected_call(make_app, tmp_path):
    app = make_app(DEMO_CHAT)
    async with app.run_test(size=(139, 44)) as pilot:
        await settle(app, pilot)
        app.chat.show_call(3)
        await settle(app, pilot)
        from inspector.ui.results import ExportChoice

        app.chat.export(ExportChoice("prepare", "json", tmp_path / "out.json"))
        await settle(app, pilot)
        expected = app.chat.document.history.at(3).prompt()
        from inspector.core.io.printers import render

        assert (tmp_path / "out.json").read_bytes() == render("json", expected.messages())


async def test_follow_picks_up_appends_and_renames_without_a_key(make_app, tmp_path):
    path = tmp_path / "live.chat"
    path.write_text("user:\n\nhello\n\nassistant:\n\nfirst\n", encoding="utf-8")
    app = make_app(path, follow=True)
    app.follow_every = 0.05
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert "after 1 call;" in screen_text(app)
        with open(path, "a", encoding="utf-8") as handle:
            handle.write("\nuser:\n\nagain\n\nassistant:\n\nsecond answer\n")
        await settle(app, pilot, 0.3)
        assert "after 2 calls" in screen_text(app)
        assert any("second answer" in line for line in view_lines(app))
        new = tmp_path / "live.tmp"
        new.write_text("user:\n\nrewritten\n\nassistant:\n\nonly\n", encoding="utf-8")
        os.replace(new, path)
        await settle(app, pilot, 0.3)
        assert any("rewritten" in line for line in view_lines(app)) and "after 1 call;" in screen_text(app)
        path.unlink()
        await settle(app, pilot, 0.3)
        assert f"{path} is gone; showing the last version read" in app.notices
        await pilot.press("o")
        await settle(app, pilot)
        assert app.notices[-1] == "no longer following the file" and not app.chat.following


async def test_the_calls_follow_a_version_switch(make_app):
    from inspector.ui.widgets.summary import SummaryBar

    def header() -> str:
        return str(app.query_one(SummaryBar).render())

    app = make_app(DEMO_CHAT)
    async with app.run_test(size=(139, 44)) as pilot:
        await settle(app, pilot)
        await pilot.press("less_than_sign", "comma")  # call 59 built under the version at load
        await settle(app, pilot)
        assert app.chat.call == 59
        start = app.chat.document.inspection.version.name
        await pilot.press("full_stop")
        await settle(app, pilot)
        assert app.chat.call == 60
        app.set_focus(None)
        await pilot.press("V")
        await settle(app, pilot, app.debounce + 0.1)
        switched = app.chat.document.inspection.version.name
        assert switched != start and f"scout-ai {switched}" in header()
        await pilot.press("comma")  # a call built before the switch
        await settle(app, pilot)
        assert (
            app.chat.call == 59
            and app.chat.document.inspection.version.name == switched
            and f"scout-ai {switched}" in header()
        )
        await pilot.press("comma")  # a call built after it
        await settle(app, pilot)
        assert (
            app.chat.call == 58
            and app.chat.document.inspection.version.name == switched
            and f"scout-ai {switched}" in header()
        )
        await pilot.press("full_stop", "full_stop", "full_stop")  # and the whole chat
        await settle(app, pilot)
        assert (
            app.chat.call is None
            and app.chat.document.inspection.version.name == switched
            and f"scout-ai {switched}" in header()
        )


async def test_one_call_reads_in_the_singular(make_app):
    traps = Path(__file__).resolve().parents[2] / "sample_chats" / "traps.chat"
    app = make_app(traps)
    async with app.run_test(size=(139, 44)) as pilot:
        await settle(app, pilot)
        text = screen_text(app)
        assert "next call (after 1 call; < steps back)" in text
        assert "#0 over 1 call ▕=▏ sent at call 1, to the last" in text


async def test_why_and_the_strip_plan_every_call_under_the_edited_thresholds(make_app):
    app = make_app(DEMO_CHAT)
    async with app.run_test(size=(139, 44)) as pilot:
        await settle(app, pilot)
        app.chat.set_threshold("full_tool_outputs", 54, "why fix", delay=0)  # what why's fix [1] sets
        await settle(app, pilot)
        app.go_to_row(4)
        await settle(app, pilot)
        # the CLI says the same: why demo.chat 'reconnect_backoff_ms: 7350' --timeline --set full_tool_outputs=54
        assert app.query_one("#strip").text.endswith("▏ sent at calls 2-60, to the last")
        app.chat.open_why("reconnect_backoff_ms: 7350")
        await settle(app, pilot)
        text = app.screen.list_text
        assert "calls: written before call 2; still sent at the last call (60)" in text
        assert "truncated" not in text.split("calls:")[1].splitlines()[0]


async def test_stepping_keeps_the_selected_message_and_its_strip_cell_moves(make_app):
    app = make_app(DEMO_CHAT)
    async with app.run_test(size=(140, 44)) as pilot:
        await settle(app, pilot)
        app.go_to_row(4)  # the read_file output: written before call 2
        await settle(app, pilot)
        for call in (60, 59, 58):
            await pilot.press("less_than_sign")
            await settle(app, pilot)
            assert app.chat.call == call and app.chat.view.current_row == 4
            strip = app.query_one("#strip").text
            assert strip.startswith("#4 over 60 calls") and strip.endswith("hidden from 47")
        app.chat.show_call(2)
        await settle(app, pilot)
        await pilot.press("less_than_sign")  # call 1: the message was not written yet, the newest is selected
        await settle(app, pilot)
        doc = app.chat.document
        assert doc.call == 1 and app.chat.view.current_row == len(doc.rows) - 1


async def test_a_burst_of_steps_counts_every_press(make_app):
    from .test_burst_keys import queue_keys

    app = make_app(DEMO_CHAT)
    async with app.run_test(size=(140, 44)) as pilot:
        await settle(app, pilot)
        app.go_to_row(4)
        await settle(app, pilot)
        queue_keys(app, ["less_than_sign"] * 4)  # typed faster than a call is planned
        await settle(app, pilot)
        assert app.chat.call == 57 and app.chat.view.current_row == 4
        queue_keys(
            app,
            ["greater_than_sign"] * 2,
        )
        await settle(app, pilot)
        assert app.chat.call == 59 and app.chat.view.current_row == 4


@pytest.mark.slow  # in CI's thorough pass: the quick suite stays under a minute
async def test_steps_of_ten_and_a_hundred_and_g_takes_a_call(make_app):
    app = make_app(DEMO_CHAT)
    async with app.run_test(size=(140, 44)) as pilot:
        await settle(app, pilot)
        await pilot.press("left_parenthesis")
        await settle(app, pilot)
        assert app.chat.call == 51  # the whole chat stands for call 61
        await pilot.press("right_parenthesis")
        await settle(app, pilot)
        assert app.chat.call is None
        await pilot.press("left_curly_bracket")
        await settle(app, pilot)
        assert app.chat.call == 1  # no call before the first
        await pilot.press("g", *"call 30", "enter")
        await settle(app, pilot)
        assert app.chat.call == 30 and "call 30 of 60" in screen_text(app)
        await pilot.press("g", *"c5", "enter")
        await settle(app, pilot)
        assert app.chat.call == 5
        await pilot.press("g", *"c99", "enter")
        await settle(app, pilot)
        assert app.chat.call == 5 and app.notices[-1] == "no call 99; the calls are 1 to 60"
        await pilot.press("g", *"7", "enter")
        await settle(app, pilot)
        assert app.chat.view.current_row == 7 and app.chat.call == 5


async def test_rows_whose_tier_changed_since_the_call_before_are_marked_with_the_cause(make_app):
    app = make_app(DEMO_CHAT)
    async with app.run_test(size=(140, 44)) as pilot:
        await settle(app, pilot)
        app.go_to_row(4)
        await settle(app, pilot)
        app.chat.show_call(30, row=4)  # the config dump is first cut at call 30 (the strip: "cut from 30")
        await settle(app, pilot)
        doc = app.chat.document
        change = doc.changes[4]
        assert (change.before, change.after) == ("full", "truncated")
        assert any(line.startswith("✂•  4 output") or line.startswith("✂• 4 output") for line in view_lines(app))
        detail = app.query_one("#detail").text
        assert "since call 29: full -> truncated: truncated: 26th newest output, beyond full_tool_outputs=10" in detail
        assert f"• {len(doc.changes)} row(s) changed tier since call 29" in screen_text(app)
        # every marked row really changed, and no other did
        before = doc.history.at(29).prompt()
        for row in range(len(doc.rows)):
            index = doc.rows.message_index(row)
            if index is None or index >= len(before.original):
                continue
            assert (row in doc.changes) == (before.tier_of(index) != doc.prompt.tier_of(index)), row


def test_a_strip_cell_of_many_calls_reads_as_sent_when_any_of_them_sent_the_message():
    from inspector.core.policies import decision as d
    from inspector.ui.widgets.call_strip import strip_cells

    tiers = [None, d.FULL, d.DROPPED, d.DROPPED, d.TRUNCATED, d.DROPPED, d.DROPPED, d.DROPPED]
    # two calls a cell: (1,2) not yet then full, (3,4) dropped, (5,6) truncated once, (7,8) dropped
    assert strip_cells(tiers, 4) == [(1, 2, "="), (3, 4, "✗"), (5, 6, "✂"), (7, 8, "✗")]
    assert strip_cells([d.FULL, d.TRUNCATED], 1) == [(1, 2, "=")]  # full before truncated
    assert strip_cells([d.ERROR, d.DROPPED], 1) == [(1, 2, "!")]  # nothing sent: the worst
    assert strip_cells([None, None], 1) == [(1, 2, "·")]
    assert [c for _, _, c in strip_cells(tiers, 8)] == ["·", "=", "✗", "✗", "✂", "✗", "✗", "✗"]  # one call a cell
