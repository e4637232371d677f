"""A/B compare: `b` pins the thresholds as A; edits are B; the panel lists the rows that differ."""

from __future__ import annotations

from inspector.core.analysis.compare import compare
from inspector.core.inspection import open_inspection
from inspector.core.setup import Setup

from .conftest import DEMO, edit, settle


async def test_pin_edit_lists_changed_rows_and_totals(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        panel = app.chat.compare_panel
        assert not panel.display
        await pilot.press("b")
        await settle(app, pilot)
        assert panel.display and app.chat.compare_panel.pinned.thresholds == app.chat.document.loaded
        assert "B equals A" in panel.text and "no row differs" in panel.text
        await edit(app, pilot, "max_tool_chars", "213862")
        text = panel.text
        assert "A/B: max_tool_chars 100,000 → 213,862" in text
        assert "A → B: sent 90 → 115 · ✂ 11 → 0 · ✗ 26 → 1 · chars 105,561 → 217,738 (+112,177)" in text
        assert "36 row(s) differ" in text
        assert "#3     ✗ dropped → = full" + " " * 9 + "+3,353  output read_file" in text
        assert "#31    ✂ truncated → = full" + " " * 7 + "+7,910  output grep_logs" in text
        # the same rows as the core's comparison
        inspection = open_inspection(DEMO, Setup.of(config_files=[], env={}))
        expected = compare(inspection, inspection.thresholds, app.chat.thresholds)
        listed = [int(line.split()[0][1:]) for line in text.splitlines() if line.startswith("#")]
        assert listed == [c.row for c in expected.changes]


async def test_compare_list_jumps_and_b_again_unpins(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("b")
        await settle(app, pilot)
        await edit(app, pilot, "full_tool_outputs", "54")
        await pilot.press("escape")  # back to the list
        assert app.focused is app.chat.view
        await pilot.press("c")
        await pilot.pause()
        assert app.focused is app.chat.compare_panel.options
        await pilot.press("down", "enter")
        await settle(app, pilot)
        second = app.chat.compare_panel.comparison.changes[1].row
        assert app.chat.view.current_row == second and app.focused is app.chat.view
        await pilot.press("c", "escape")
        await pilot.pause()
        assert app.focused is app.chat.view
        await pilot.press("b")
        await settle(app, pilot)
        assert app.chat.compare_panel.pinned is None and not app.chat.compare_panel.display
        await pilot.press("c")  # nothing pinned: it says what to do first
        await settle(app, pilot)
        assert app.focused is app.chat.view and app.notices[-1] == "pin the current thresholds as A first (b)"


async def test_compare_follows_reset(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await edit(app, pilot, "full_tool_outputs", "54")
        await pilot.press("escape", "b")
        await settle(app, pilot)
        await pilot.press("u")  # B back to the loaded values: the reverse change
        await settle(app, pilot)
        text = app.chat.compare_panel.text
        assert "A/B: full_tool_outputs 54 → 10" in text and "sent 103 → 90" in text
