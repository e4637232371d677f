"""What people reach for in a daily tool: pager/editor, copy what is sent, A/B marks, tool filter, one numbering."""

from __future__ import annotations

import sys

from inspector.core.peers.registry import POLICIES
from inspector.core.setup import Setup
from inspector.ui.screens.audit import AuditScreen
from inspector.ui.screens.filter import FilterScreen
from inspector.ui.widgets.detail import DetailPane

from .conftest import edit, row_line, settle, split, view_lines


async def test_v_pages_the_message_as_the_detail_shows_it_and_m_the_raw_original(make_app, tmp_path, monkeypatch):
    out = tmp_path / "paged.txt"
    # a "pager" that copies what it was given, so the test can read it
    monkeypatch.setenv("PAGER", f"{sys.executable} -c \"import shutil,sys; shutil.copy(sys.argv[1], r'{out}')\"")
    monkeypatch.setenv("EDITOR", f'{sys.executable} -c "import sys; sys.exit(3)"')
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("g", *"41", "enter")
        await settle(app, pilot)
        await pilot.press("v")
        await settle(app, pilot)
        shown = out.read_text()  # the detail pane's text: the decision, then the content decoded
        assert shown == app.query_one(DetailPane).text
        assert shown.startswith("#41  role function_call_output  tool run_tests")
        assert "──────── original ────────" in shown and "──────── model-visible (shortened) ────────" in shown
        assert "\nFAILED tests/test_retry.py::test_backoff" in shown  # decoded: a line of its own, no \\n escapes
        await pilot.press("m")
        await settle(app, pilot)
        raw = out.read_text()  # the stored content: here a JSON envelope around the tool output
        assert raw == app.chat.document.rows.original_content(41) and raw.startswith('{"name":"run_tests"')
        await pilot.press("E")  # the editor's status is reported
        await settle(app, pilot)
        assert app.notices[-1].endswith("exited with status 3")


async def test_y_copies_as_shown_capital_y_raw_and_ctrl_y_what_is_sent(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("g", *"41", "enter")
        await settle(app, pilot)
        await pilot.press("y")
        await pilot.pause()
        assert app.clipboard == app.query_one(DetailPane).text
        first = app.notices[-1]
        assert first.startswith(
            f"copied {len(app.clipboard):,} characters of message #41 (as the detail pane shows it)"
        )
        assert "through the terminal (OSC 52); if nothing pastes" in first and "v or E opens the text" in first
        await pilot.press("Y")
        await pilot.pause()
        assert app.clipboard == app.chat.document.rows.original_content(41)
        # the OSC 52 note is said once
        assert app.notices[-1] == f"copied {len(app.clipboard):,} characters of message #41 (the original as stored)"
        await pilot.press("ctrl+y")
        await pilot.pause()
        assert '"content":"Truncated (6435): ' in app.clipboard
        assert app.notices[-1] == f"copied {len(app.clipboard):,} characters of message #41 (model-visible content)"
        await pilot.press("g", "2", "enter")  # a dropped call: nothing is sent, nothing to copy
        await settle(app, pilot)
        await pilot.press("ctrl+y")
        await pilot.pause()
        assert app.notices[-1] == "message #2 is not sent to the model: nothing to copy"


async def test_rows_that_differ_are_marked_while_a_b_is_pinned(make_app):
    app = make_app()
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        await pilot.press("b")
        await settle(app, pilot)
        await edit(app, pilot, "max_tool_chars", "300000")  # nothing is truncated any more
        await pilot.press("escape")
        await settle(app, pilot)
        changed = {int(line.split()[0].lstrip("#")) for line in app.chat.compare_panel.text.split("\n")[2:] if line}
        assert 41 in changed
        app.chat.view.go_to_row(41)
        await pilot.pause()
        assert row_line(app, 41).startswith("=Δ 41 output")
        for line in view_lines(app):
            row = int(line[2:5])
            assert (line[1] == "Δ") == (row in changed), line  # marked exactly when listed as changed
        await pilot.press("b")  # unpinned: the marks go
        await settle(app, pilot)
        assert row_line(app, 41).startswith("=  41 output")


async def test_filter_by_tool_name(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("f")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, FilterScreen)
        screen.query_one("#tool").focus()
        await pilot.press("down", "down", "enter", "a")  # any tool -> read_file -> grep_logs
        await settle(app, pilot)
        assert app.chat.row_filter.tool == "grep_logs"
        shown = [app.chat.view.row_at(i) for i in range(app.chat.view.count)]
        assert shown and all(app.chat.document.rows.tool(r)[0] == "grep_logs" for r in shown)
        assert "tool grep_logs (F clears)" in app.query_one("#status").text
        assert "grep_logs:" in split(row_line(app, shown[0]))[0]


async def test_audit_texts_number_messages_like_the_hash_column(make_app):
    app = make_app()
    async with app.run_test(size=(139, 50)) as pilot:
        await settle(app, pilot)
        await pilot.press("a")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, AuditScreen)
        for finding in screen.findings:
            for row in finding.rows:
                if "message #" in finding.message:
                    assert f"#{row}" in finding.message  # the numbers in the text are the rows listed


async def test_s_cycles_without_two_stops_that_read_shorten_tools(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        seen = []
        # once round: every scout-ai stop but the explicit duplicate, then the other frameworks' policies
        cycled = [name for name, spec in POLICIES.items() if not any(p.required for p in spec.params)]
        for _ in range(len(app.chat.strategy_choices) - 2 + len(cycled)):  # the chat's own list: one stop
            await pilot.press("s")
            await settle(app, pilot)
            seen.append(app.notices[-1])
        assert seen[0] == "strategies: none"
        first = next(k for k, notice in enumerate(seen) if notice.startswith("policy: "))
        assert all(notice.startswith("strategies: ") for notice in seen[:first])
        assert seen[first:] == [f"policy: {name} (its defaults; t edits its settings)" for name in cycled]
        assert "langchain.trim_messages" not in cycled  # it needs max_tokens: P sets it
        await pilot.press("s")
        await settle(app, pilot)
        assert app.notices[-1] == "strategies: scout-ai's again"
        assert "strategies: shorten_tools" not in seen and len(set(seen)) == len(seen)
        assert "strategies shorten_tools (default)" in str(app.query_one("#summary").render())


async def test_a_search_without_match_leaves_no_stale_status(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("slash", *"retry", "enter")
        await settle(app, pilot)
        assert "search 'retry' (any case): message 1 of" in app.query_one("#status").text
        await pilot.press("slash", "ctrl+u", *"zzqqxx", "enter")
        await settle(app, pilot)
        status = app.query_one("#status").text
        assert "search 'zzqqxx': no message matches" in status and "retry" not in status
        assert app.chat.view.hits == set()


async def test_the_banner_names_unknown_roles_before_other_findings(make_app):
    from pathlib import Path

    traps = Path(__file__).resolve().parents[2] / "sample_chats" / "traps.chat"
    app = make_app(traps)
    async with app.run_test(size=(139, 40)) as pilot:
        await settle(app, pilot)
        banner = str(app.query_one("#banner").render())
        assert banner.startswith(
            "5 loader finding(s), i for all: unknown role(s) sent as is: note, http · line 8: `[[` at line 8"
        )


async def test_the_banner_says_a_reopened_export_is_already_a_prepared_prompt(make_app, tmp_path):
    from inspector.core.inspection import open_inspection
    from inspector.core.present.export import prepared_bytes

    from .conftest import DEMO

    exported = tmp_path / "demo.prompt.chat"
    exported.write_bytes(prepared_bytes(open_inspection(DEMO, Setup.of(env={}, config_files=[])).prompt(), "chat"))
    app = make_app(exported)
    async with app.run_test(size=(139, 40)) as pilot:
        await settle(app, pilot)
        banner = str(app.query_one("#banner").render())
        assert banner.startswith(
            "1 loader finding(s), i for all: line 20: this chat looks like an already-prepared prompt: 11 messages"
        )


async def test_a_call_in_the_older_function_shape_previews_as_name_and_arguments(make_app):
    from pathlib import Path

    old_tools = Path(__file__).resolve().parents[2] / "sample_chats" / "old_tools.chat"
    app = make_app(old_tools)
    async with app.run_test(size=(160, 30)) as pilot:
        await settle(app, pilot)
        for row in (1, 3, 5):  # flat, nested in "function", arguments as an object: all read the same way
            left, right = split(row_line(app, row))
            assert '"function"' not in left + right and '"name"' not in left + right
        left, right = split(row_line(app, 3))
        assert 'read_file: {"path":"README.md"}' in left and 'read_file: {"path":"README.md"}' in right
