"""The sweep chart under the threshold being edited: one row per value, the current one marked."""

from __future__ import annotations

from textual import events

from inspector.core.analysis.sweep import SweepRow, axis, sweep
from inspector.core.inspection import open_inspection
from inspector.core.setup import Setup
from inspector.ui.widgets.sweep_chart import COLUMNS, chart_lines, compact, count, marker_column, sparkline

from .conftest import DEMO, edit, settle


def chart(app) -> str:
    return app.chat.editor.chart.text


async def test_chart_follows_the_focused_key(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert not app.chat.editor.children  # the editor is closed: no chart is made, no sweep spent on it
        await pilot.press("t")
        await settle(app, pilot)
        text = chart(app)
        assert text.startswith("full_tool_calls 0..54\nchars ") and "▲ now" in text
        assert "▶       0    90   11   26 105,561" in text  # the current value: what the summary says
        field = app.chat.editor.query_one("#th-max_tool_chars")
        field.focus()
        await settle(app, pilot)
        text = chart(app)
        assert text.startswith("max_tool_chars 0..217,315")
        assert "▶ 100,000    90   11   26 105,561" in text
        assert "  217,315   116    0    0 217,838" in text  # past the total tool characters: everything kept
        children = list(app.chat.editor.children)
        assert (
            children.index(app.chat.editor.chart)
            == children.index(app.chat.editor.query_one("#src-max_tool_chars")) + 1
        )
        # every line fits the editor: a wrapped chart would be taller than its lines
        assert app.chat.editor.chart.size.height == len(text.splitlines())
        assert all(len(line) <= app.chat.editor.chart.size.width for line in text.splitlines())


async def test_chart_updates_after_a_change(make_app):
    app = make_app()
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        assert app.chat.editor.has_class("-open") and chart(app).startswith("full_tool_calls")  # wide: open at start
        await edit(app, pilot, "max_tool_chars", "213862")
        text = chart(app)
        assert "▶ 213,862   115    0    1 217,738" in text and "100,000" not in text
        await edit(app, pilot, "full_tool_outputs", "54")
        text = chart(app)
        assert text.startswith("full_tool_outputs 0..54")
        assert "▶      54   115    0    1 217,738" in text  # max_tool_chars stays 213,862
        assert text.splitlines()[3].endswith("now ▲")  # the marker sits at the right end


async def test_chart_rows_are_the_core_sweep(make_app):
    inspection = open_inspection(DEMO, Setup.of(config_files=[], env={}))
    values = axis(inspection, "full_tool_outputs", COLUMNS)
    rows = sweep(inspection, "full_tool_outputs", values)
    now = sweep(inspection, "full_tool_outputs", [10])[0]
    lines = chart_lines("full_tool_outputs", 10, rows, now)
    assert lines[1] == "chars " + sparkline([r.chars for r in rows])
    column = marker_column(rows, 10)
    assert lines[3].index("▲") == 6 + column
    assert all(abs(rows[column].value - 10) <= abs(r.value - 10) for r in rows)  # the nearest value charted
    assert "▶      10    90   11   26 105,561" in lines


def test_chart_pieces():
    assert sparkline([0, 4, 8]) == "▁▅█" and sparkline([5, 5]) == "██" and sparkline([0, 0]) == "▁▁"
    assert sparkline([216_588, 217_838]) == "██"  # scaled from zero: a 0.5 % change is not a cliff
    assert compact(105_561) == "105,561" and compact(12_345_678) == "12.35M"
    assert [compact(n) for n in (999_994_999, 999_995_000, 4_200_000_000_000, 10**18, int("9" * 400))] == [
        "999.99M",
        "1.00G",
        "4.20T",
        "1.0e18",
        "9.9e399",
    ]
    assert compact(10**1200 + 7) == "1e1200" and all(len(compact(10**k - 1)) <= 7 for k in range(1, 1300))
    assert count(9_999) == "9999" and count(17_920) == "18k" and count(120_400) == "120k"
    rows = [SweepRow(v, 1, 0, 0, v, v // 4) for v in (0, 10, 20)]
    assert marker_column(rows, 14) == 1 and marker_column(rows, 500) == 2
    lines = chart_lines("max_tool_calls", 500, rows, None)
    assert lines[3].endswith("now, past the end ▲") or lines[3].strip().startswith("▲ now, past the end")
    assert chart_lines("max_tool_calls", 0, [], None) == ["sweep max_tool_calls: nothing to chart"]
    error = [SweepRow(3, 0, 0, 0, 0, 0, "boom")]
    assert "scout-ai raises" in chart_lines("max_tool_calls", 3, error, error[0])[-1]


async def test_a_value_of_hundreds_of_digits_is_charted_in_the_same_columns(make_app):
    app = make_app(overrides={"full_tool_outputs": "9" * 400})
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("t", "tab")  # to full_tool_outputs: its chart has the 400-digit value
        await settle(app, pilot)
        assert app.focused.id == "th-full_tool_outputs"
        text = chart(app)
        assert text.startswith("full_tool_outputs 0..54")
        assert "▶ 9.9e399   103    0   13 216,588" in text
        assert app.chat.editor.chart.size.height == len(text.splitlines())  # no row wraps
        field = app.chat.editor.query_one("#th-full_tool_outputs")
        field.value = ""
        field.post_message(events.Paste("7" * 500))  # pasted: typed key by key it re-plans 500 times
        await settle(app, pilot, app.debounce + 0.05)
        assert field.value == "7" * 500 and app.chat.thresholds["full_tool_outputs"] == int("7" * 500)
        assert "▶ 7.7e499   103    0   13 216,588" in chart(app)


async def test_a_row_of_the_chart_is_applied_with_pgdn_pgup_or_a_click(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("t")
        await settle(app, pilot)
        field = app.chat.editor.query_one("#th-max_tool_chars")
        field.focus()
        await settle(app, pilot)
        chart_widget = app.chat.editor.chart
        values = [value for value, _ in chart_widget.table]
        assert 100_000 in values and values == sorted(values)
        after = values[values.index(100_000) + 1]
        await pilot.press("pagedown")  # the next charted value after the one in force
        await settle(app, pilot, app.debounce + 0.1)
        assert app.chat.thresholds["max_tool_chars"] == after and field.value == str(after)
        assert str(app.chat.editor.query_one("#src-max_tool_chars").render()).startswith("edited")
        shown = [value for value, _ in chart_widget.table]  # swept again: the rows now sample around the new value
        before = max(v for v in shown if v < after)
        await pilot.press("pageup")
        await settle(app, pilot, app.debounce + 0.1)
        assert app.chat.thresholds["max_tool_chars"] == before
        assert app.focused is field  # the keys stay in the field: Tab still goes field to field
        # a click on the first row of the table applies its value
        table_first = len(chart_widget.lines) - len(chart_widget.table)
        await pilot.click(chart_widget, offset=(4, table_first))
        await settle(app, pilot, app.debounce + 0.1)
        assert app.chat.thresholds["max_tool_chars"] == values[0] == 0
        assert "▶       0" in chart(app)  # swept again: the value in force is the one clicked
