"""Where the budget goes: the size filter, the orders by original and sent size (S), and `/` searching as
the text is typed."""

from __future__ import annotations

import pytest

from inspector.core.present.rows import RowOrder, row_sizes
from inspector.ui.document import RowFilter
from inspector.ui.screens.filter import FilterScreen, parse_size

from .conftest import settle, until


def shown(app) -> list[int]:
    view = app.chat.view
    return [view.row_at(k) for k in range(view.count)]


def test_sizes_parse_as_typed():
    assert [parse_size(t) for t in ("", " 5000 ", "5,000", "5k", "1.5M", "2_000")] == [
        None,
        5000,
        5000,
        5000,
        1_500_000,
        2000,
    ]
    for bad in ("-3", "5 kb", "３", "k", "1e3"):
        with pytest.raises(ValueError, match="not a size"):
            parse_size(bad)


async def test_s_orders_by_original_then_sent_size_and_back(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        doc = app.chat.document
        original, sent = row_sizes(doc.rows, doc.prompt)
        await pilot.press("g", *"41", "enter")
        await settle(app, pilot)
        await pilot.press("S")
        await settle(app, pilot)
        rows = shown(app)
        assert len(rows) == 116 and sorted(rows) == list(range(116))
        assert [original[r] for r in rows] == sorted(original, reverse=True)
        assert app.chat.view.current_row == 41  # the row stays selected where it now stands
        assert "sorted: original size, largest first (S: next order)" in app.query_one("#status").text
        await pilot.press("home")
        assert app.chat.view.render_line(0).text.split()[1] == str(rows[0])  # the biggest is drawn first
        await pilot.press("S")
        await settle(app, pilot)
        rows = shown(app)
        assert [sent[r] for r in rows] == sorted(sent, reverse=True)
        # a tie keeps the file's order: the dropped rows (0 sent) come last, in order
        zero = [r for r in rows if sent[r] == 0]
        assert zero == sorted(zero) and rows[-len(zero) :] == zero
        assert "sorted: sent size" in app.query_one("#status").text
        await pilot.press("S")
        await settle(app, pilot)
        assert app.chat.view.order is None and "sorted:" not in app.query_one("#status").text


async def test_size_filter_from_the_dialog_and_n_walks_hits_in_list_order(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        doc = app.chat.document
        original, sent = row_sizes(doc.rows, doc.prompt)
        await pilot.press("f")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, FilterScreen)
        screen.query_one("#min-chars").focus()
        await pilot.press(*"3kb", "enter")  # refused under the field, the dialog stays
        await pilot.pause()
        assert app.screen is screen
        assert "not a size: '3kb'" in str(screen.query_one("#filter-error").render())
        await pilot.press("backspace", "tab")
        await pilot.press("down", "down", "enter")  # the order: sent size
        await pilot.press("shift+tab")
        await pilot.press("enter")
        await settle(app, pilot)
        assert app.chat.row_filter == RowFilter(min_chars=3000, order=RowOrder.SENT)
        rows = shown(app)
        assert rows and all(original[r] >= 3000 for r in rows)
        assert len(rows) == sum(1 for size in original if size >= 3000)
        assert [sent[r] for r in rows] == sorted((sent[r] for r in rows), reverse=True)
        status = app.query_one("#status").text
        assert "at least 3,000 chars (F clears)" in status and "sorted: sent size" in status
        # n and N go down and up the list as it is sorted, not by message number
        await pilot.press("home", "/", *"FAILED", "enter")
        await settle(app, pilot)
        hits = set(app.chat.view.search_hits)
        in_list = [r for r in rows if r in hits]
        assert len(in_list) >= 2 and app.chat.view.current_row == in_list[0]
        await pilot.press("n")
        assert app.chat.view.current_row == in_list[1]
        await pilot.press("N", "N")
        assert app.chat.view.current_row == in_list[-1]  # wrapped round from the top
        await pilot.press("F")  # the filter goes, the order stays
        await settle(app, pilot)
        assert app.chat.view.count == 116 and app.chat.row_filter == RowFilter(order=RowOrder.SENT)


async def test_slash_searches_as_typed_and_esc_puts_the_row_back(make_app):
    app = make_app()
    app.search_delay = 0.01
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("g", *"5", "enter")
        await settle(app, pilot)
        await pilot.press("/", *"FAIL")
        await until(app, pilot, lambda: app.chat.view.search_query == "FAIL")
        await settle(app, pilot)
        view = app.chat.view
        assert view.current_row == 8 and view.search_hits[:2] == [8, 16]
        assert app.query_one("#prompt-bar").has_class("-open")  # still typing
        assert "search 'FAIL'" in app.query_one("#status").text
        assert not any("no match" in n for n in app.notices)
        await pilot.press(*"zzz")  # no match now: the cursor goes back to where typing began, quietly
        await until(app, pilot, lambda: app.chat.view.search_query == "FAILzzz")
        await settle(app, pilot)
        assert view.search_hits == [] and view.current_row == 5
        assert not any("no match" in n for n in app.notices)
        await pilot.press("backspace", "backspace", "backspace")
        await until(app, pilot, lambda: app.chat.view.search_query == "FAIL")
        await settle(app, pilot)
        assert view.current_row == 8
        await pilot.press("escape")  # Esc: no search, back on row 5
        await settle(app, pilot)
        assert view.search_query == "" and view.search_hits == [] and view.current_row == 5
        await pilot.press("/", *"FAILED", "enter")  # Enter keeps it, and says so when nothing matches
        await settle(app, pilot)
        assert view.search_query == "FAILED" and view.current_row == 8
        await pilot.press("/", *"qqzzxx", "enter")
        await settle(app, pilot)
        assert any("no match for 'qqzzxx'" in n for n in app.notices), app.notices
