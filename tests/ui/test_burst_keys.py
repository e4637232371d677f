"""Keys typed in a burst (a fast typist, a paste through the terminal, keys during start-up) all arrive, in order."""

from __future__ import annotations

import threading

from textual import events
from textual.widgets import Input

from inspector.ui.screens.export import ExportScreen
from inspector.ui.widgets.thresholds import ThresholdEditor

from .conftest import screen_text, settle, until


async def test_a_burst_in_a_threshold_field_leaves_exactly_what_was_typed(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("t")
        await pilot.pause()
        field = app.chat.editor.query_one("#th-full_tool_calls")
        assert app.focused is field
        # one call, no await between the keys: each edit is reported while the next keys are queued
        field.value = ""
        await pilot.press(*"123456", *["backspace"] * 6, *"150000")
        await settle(app, pilot, app.debounce + 0.05)
        assert field.value == "150000"
        assert app.chat.thresholds["full_tool_calls"] == 150_000
        await pilot.press(*["backspace"] * 6, *"20")
        await settle(app, pilot, app.debounce + 0.05)
        assert field.value == "20" and app.chat.thresholds["full_tool_calls"] == 20


def queue_keys(app, keys) -> None:
    """Keys as a terminal delivers a burst: all queued before the app handles the first."""
    for key in keys:
        app.post_message(events.Key(key, key if len(key) == 1 else None))


async def test_t_then_a_burst_with_backspaces_leaves_exactly_what_was_typed(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        # t opens the editor and moves into it; the digits and Backspaces follow without a pause
        queue_keys(app, ["t", *"123456", *["backspace"] * 6, *"150000"])
        await settle(app, pilot, app.debounce + 0.05)
        field = app.chat.editor.query_one("#th-full_tool_calls")
        assert app.focused is field
        assert field.value == "0150000" and app.chat.thresholds["full_tool_calls"] == 150_000
        queue_keys(app, [*["backspace"] * 7, "2", "0", "left", "1", "end"])
        await settle(app, pilot, app.debounce + 0.05)
        assert field.value == "210" and app.chat.thresholds["full_tool_calls"] == 210  # the 1 went left of the 0


async def test_a_burst_after_slash_types_into_the_search_bar(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        queue_keys(app, ["slash", *"retrx", "backspace", "y", "enter"])
        await settle(app, pilot)
        assert app.chat.view.search_query == "retry" and app.chat.view.search_hits
        assert app.focused is app.chat.view


async def test_a_burst_in_the_export_path_keeps_its_order(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("e")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ExportScreen)
        queue_keys(app, [*["backspace"] * 4, *"jsonx", "backspace", "l"])
        await pilot.pause(0.2)
        assert screen.query_one("#path").value == "debug_session.prompt.jsonl"


async def test_a_late_edit_report_does_not_overwrite_newer_keys(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("t")
        await pilot.pause()
        field = app.chat.editor.query_one("#th-full_tool_calls")
        # A burst, step by step in the order the messages meet: "1" and "5" are typed, then the
        # report of the "1" reaches the app, then "0" is typed, then the report of the "15".
        with field.prevent(Input.Changed):
            field.value = "15"
            field.cursor_position = 2
        await pilot.pause()
        app.post_message(ThresholdEditor.Edited("full_tool_calls", 1))
        await pilot.pause()
        field.post_message(events.Key("0", "0"))
        app.post_message(ThresholdEditor.Edited("full_tool_calls", 15))
        await settle(app, pilot, app.debounce + 0.05)
        assert field.value == "150" and app.chat.thresholds["full_tool_calls"] == 150


async def test_t_inside_a_field_closes_the_editor_and_t_from_the_list_moves_in(make_app):
    app = make_app()
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(app, pilot)
        assert app.chat.editor.has_class("-open") and app.focused is app.chat.view  # wide: open from the start
        await pilot.press("t")  # the first t moves into it
        await pilot.pause()
        assert app.focused.id == "th-full_tool_calls"
        await pilot.press("t")  # t is not typed: it closes the editor
        await pilot.pause()
        assert not app.chat.editor.has_class("-open") and app.focused is app.chat.view
        assert app.chat.editor.query_one("#th-full_tool_calls").value == "0"


async def test_typing_after_picking_another_format_appends_to_the_new_name(make_app, tmp_path):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("e")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ExportScreen)
        screen.query_one("#what").focus()
        await pilot.press("down", "enter", "tab", *"-v2")  # the jsonl printer, then into the path
        await pilot.pause()
        assert screen.query_one("#path").value == "debug_session.prompt.jsonl-v2"
        await pilot.press("ctrl+u", *"exp/responses.json")
        await pilot.pause()
        assert screen.query_one("#path").value == "exp/responses.json"


async def test_keys_pressed_while_the_chat_loads_are_replayed_in_order(make_app, monkeypatch):
    import inspector.ui.screens.chat as app_module

    history = app_module.ChatHistory

    gate = threading.Event()

    def slow_open(*args, **kwargs):
        gate.wait(10)  # a big chat: the user is typing before the rows are there
        return history(*args, **kwargs)

    monkeypatch.setattr(app_module, "ChatHistory", slow_open)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        for key in "Gkk":  # before the first row is painted, back to back
            app.post_message(events.Key(key, key))
        await pilot.pause()
        assert app.chat.doc is None
        gate.set()
        await settle(app, pilot)
        assert app.chat.view.current_row == 113
        assert "row 113" in app.query_one("#status").text


async def test_keys_after_t_closes_the_editor_reach_the_list(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        queue_keys(app, ["t", "5", "t", "G", "slash", *"retry", "enter"])
        await settle(app, pilot, app.debounce + 0.05)
        await until(app, pilot, lambda: bool(app.chat.view.search_hits))
        assert not app.chat.editor.has_class("-open")
        assert app.chat.editor.query_one("#th-full_tool_calls").value == "05"
        assert app.chat.view.search_query == "retry" and app.chat.view.current_row in app.chat.view.search_hits


async def test_keys_after_enter_and_escape_reach_the_detail_then_the_list(make_app):
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        queue_keys(app, ["g", *"41", "enter", "enter"])  # to #41 and into its detail
        await settle(app, pilot)
        pane = app.query_one("#detail")
        assert app.focused is pane and app.chat.view.current_row == 41
        assert "#41  role function_call_output" in screen_text(app)
        queue_keys(app, ["escape", "j"])
        await settle(app, pilot)
        assert app.focused is app.chat.view and app.chat.view.current_row == 42


async def test_keys_typed_while_the_export_dialog_opens_reach_its_path(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        queue_keys(app, ["e", *["backspace"] * 4, *"jsonx", "backspace", "l"])
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ExportScreen)
        assert screen.query_one("#path").value == "debug_session.prompt.jsonl"
        assert "debug_session.prompt.jsonl" in screen_text(app)


async def test_keys_typed_while_the_presets_dialog_opens_reach_its_name_field(make_app, tmp_path, monkeypatch):
    from inspector.ui.screens.presets import PresetsScreen

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        queue_keys(app, ["p", *"wide", "backspace", "r"])
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, PresetsScreen)
        assert screen.query_one("#preset-name").value == "widr"
        assert "widr" in screen_text(app)


EDITOR_FIELDS = ("full_tool_calls", "full_tool_outputs", "max_tool_calls")


async def typed_in_the_editor(make_app, keys: list[str], burst: bool) -> tuple[str | None, dict[str, str]]:
    """The focused widget and the first fields' texts after ``keys``, typed in a burst or one at a time."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        if burst:
            queue_keys(app, keys)
        else:
            for key in keys:
                await pilot.press(key)
                await settle(app, pilot)
        await settle(app, pilot, app.debounce + 0.05)
        values = {key: app.chat.editor.query_one(f"#th-{key}", Input).value for key in EDITOR_FIELDS}
        assert all(app.chat.thresholds[key] == int(value) for key, value in values.items())
        return app.focused.id if app.focused else None, values


async def test_keys_after_a_tab_in_a_burst_reach_the_field_it_moves_to(make_app):
    keys = ["t", "backspace", "5", "tab", "7", "tab", "backspace", "backspace", "3", "shift+tab", "1"]
    slow = await typed_in_the_editor(make_app, keys, burst=False)
    # the fields keep their cursor at the end (no select on focus): the 7 and the 1 are appended
    assert slow == (
        "th-full_tool_outputs",
        {"full_tool_calls": "5", "full_tool_outputs": "1071", "max_tool_calls": "3"},
    )
    assert await typed_in_the_editor(make_app, keys, burst=True) == slow


async def test_keys_after_a_tab_in_a_burst_reach_the_next_field_of_a_dialog(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        # e opens the export dialog in the path; shift+Tab back to the formats, the next one, Tab to the path
        queue_keys(app, ["e", "shift+tab", "down", "enter", "tab", *"-v2"])
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ExportScreen)
        assert screen.query_one("#path", Input).value == "debug_session.prompt.jsonl-v2"
        assert app.focused is screen.query_one("#path")


async def test_ctrl_u_and_ctrl_a_in_a_burst_act_where_they_were_typed_and_keys_after_escape_go_on(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        queue_keys(app, ["t", "tab", "ctrl+u", "2", "5"])  # full_tool_outputs showed 10
        await settle(app, pilot, app.debounce + 0.05)
        field = app.chat.editor.query_one("#th-full_tool_outputs", Input)
        assert field.value == "25" and app.chat.thresholds["full_tool_outputs"] == 25
        queue_keys(app, ["escape", "e", "ctrl+u", *"abc", "ctrl+a", "x", "ctrl+e", "ctrl+w", *"chat.md"])
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ExportScreen)
        assert screen.query_one("#path", Input).value == "chat.md"  # ctrl+w took the word xabc


async def test_keys_after_escape_in_a_burst_reach_the_list_and_a_dialog_closed_by_it(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        queue_keys(app, ["t", "5", "escape", "G", "k"])  # into the editor, 5, out, to the last row, one up
        await settle(app, pilot, app.debounce + 0.05)
        assert app.focused is app.chat.view and app.chat.editor.has_class("-open")  # Esc goes back to the list
        assert app.chat.thresholds["full_tool_calls"] == 5 and app.chat.view.current_row == 114
        queue_keys(app, ["e", "x", "escape", "g", *"41", "enter"])  # a dialog opened and closed on the way
        await settle(app, pilot)
        assert not isinstance(app.screen, ExportScreen) and app.chat.view.current_row == 41
