"""Opening a chat: the demo, totals, all tiers, failures shown in the app, sizes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from inspector.cli.main import main
from inspector.ui.widgets.summary import Banner, SummaryBar

from .conftest import row_line, screen_text, settle, split, view_lines


async def test_bundled_demo_is_the_scout_session_with_all_four_tiers(make_app):
    from inspector.demo import demo_chat_path

    app = make_app(demo_chat_path(), label="demo.chat (bundled demo)")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        summary = str(app.query_one(SummaryBar).render())
        assert summary.startswith("demo.chat (bundled demo)")  # at 120 columns the format gives way to the figures
        assert "183 -> 90 sent │ =79 ✂11 ✗26 ⊘67 │ chars 221,331 -> 105,561 (tool 217,314 -> 105,037)" in summary
        glyphs = {line[0] for line in view_lines(app)}
        assert {"⊘", "✗"} <= glyphs


async def test_session_opens_with_totals_and_all_three_tiers(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        summary = str(app.query_one(SummaryBar).render())
        assert "debug_session.json" in summary and "strategies shorten_tools (default)" in summary
        assert (
            "116 -> 90 sent │ =79 ✂11 ✗26 │ chars 217,838 -> 105,561 (tool 217,314 -> 105,037) │ tokens 62,065 -> 30,213"
            in summary
        )
        glyphs = {line[0] for line in view_lines(app)}
        assert {"=", "✗"} <= glyphs
        assert app.chat.load_seconds is not None and app.chat.load_seconds < 2


async def test_rows_show_original_left_and_model_visible_right(make_app):
    app = make_app()
    async with app.run_test(size=(139, 50)) as pilot:
        await settle(app, pilot)
        left, right = split(row_line(app, 0))
        assert left.startswith("=   0 system") and "You are a debugging agent" in left
        assert "system" in right and "You are a debugging agent" in right
        left, right = split(row_line(app, 2))
        assert left.startswith("✗   2 call") and "read_file:" in left and '"path"' in left
        assert right.strip() == "✗ dropped"
        app.chat.view.go_to_row(41)
        await pilot.pause()
        left, right = split(row_line(app, 41))
        assert left.startswith("✂  41 output") and "run_tests:" in left
        assert "✂ Truncated (6435):" in right


async def test_dropped_cell_is_struck_and_tiers_coloured_differently(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        view = app.chat.view
        dropped = view.render_line(2)
        struck = [seg for seg in dropped if "dropped" in seg.text]
        assert struck and struck[0].style.strike
        full_colour = next(seg.style.color for seg in view.render_line(0) if seg.text.strip() == "=")
        dropped_colour = next(seg.style.color for seg in dropped if seg.text.strip() == "✗")
        assert full_colour != dropped_colour


async def test_a_chat_that_cannot_be_opened_at_start_exits_2_with_the_cli_line(make_app, tmp_path, capsys):
    missing = tmp_path / "nope.json"
    app = make_app(missing)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
    assert app.return_code == 2 and app.start_error == f"{missing}: no such file"
    assert main(["explain", str(missing)]) == 2  # the CLI says the same line
    assert capsys.readouterr().err == f"prompt-inspector: error: {app.start_error}\n"


async def test_a_malformed_chat_at_start_exits_2_naming_file_and_line(make_app, tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('[\n {"role": "user", "content": "x"},\n {oops}\n]\n')
    app = make_app(path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
    assert app.return_code == 2 and app.start_error.startswith(f"{path}:3: ")


async def test_a_failed_reload_keeps_the_app_and_the_last_good_rows(make_app, write_chat):
    path = write_chat([{"role": "user", "content": "hello"}])
    app = make_app(path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        path.write_text("[ {oops")
        await pilot.press("r")
        await settle(app, pilot)
        assert app.is_running and app.chat.doc is not None
        assert "Reload failed, showing the last good load" in str(app.query_one(Banner).render())
        assert any(n.startswith(f"reload failed: {path}:1") for n in app.notices)
        assert "hello" in row_line(app, 0)


@pytest.mark.frames
async def test_layout_at_80x24(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        text = screen_text(app)
        assert "116 -> 90 sent" in text
        assert "q Quit" in text
        lines = view_lines(app)
        assert len(lines) >= 5 and all(len(line) <= 80 for line in lines)
        assert "│" in lines[0] and "system" in lines[0]
        assert app.query_one("#detail").size.height >= 5


@pytest.mark.frames
async def test_layout_at_200x60_shows_the_editor(make_app):
    app = make_app()
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(app, pilot)
        assert app.chat.editor.has_class("-open")
        text = screen_text(app)
        assert "max_tool_chars" in text and "follows max_tool_calls" in text
        assert len(view_lines(app)) >= 25


def test_core_and_headless_cli_never_import_textual():
    code = (
        "import inspector.core.inspection, inspector.core.present.rows, inspector.core.present.detail, inspector.core.present.search, "
        "inspector.core.io.presets, inspector.core.present.export, inspector.core.present.sanitize, inspector.cli, sys;"
        "print([m for m in ('textual', 'rich') if m in sys.modules])"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=Path(__file__).parents[2]
    )
    assert out.stdout.strip() == "[]"


async def test_strategies_given_at_start_stay_in_force_after_the_load(make_app):
    # the editor's strategy list announces its first entry (the chat's choice) when it mounts;
    # that must not replace the strategies the app was started with
    app = make_app(strategies="none")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot, 0.2)
        assert app.chat.strategies == "none"
        summary = str(app.query_one(SummaryBar).render())
        assert "strategies none" in summary and "chat's choice" not in summary
        assert "✂" not in "".join(line[0] for line in view_lines(app))  # `none` cuts nothing
