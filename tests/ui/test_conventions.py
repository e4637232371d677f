"""Help, palette, quit, reload, notes, and consumed rows from a loader."""

from __future__ import annotations

import json

import pytest
from textual.command import CommandPalette

from inspector.core.model import Consumed, Finding, Message
from inspector.ui.commands import InspectorCommands
from inspector.ui.document import RowFilter
from inspector.ui.keymap import APP_ACTIONS, HOST_ACTIONS, VIEW_ACTIONS
from inspector.ui.screens.help import HelpScreen
from inspector.ui.screens.notes import NotesScreen
from inspector.ui.widgets.footer import KeyBar

from .conftest import row_line, screen_text, settle, split


async def test_help_lists_every_binding(make_app):
    app = make_app()
    async with app.run_test(size=(120, 60)) as pilot:
        await settle(app, pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        text = str(app.screen.query_one("#help-text").render())
        for action in (*APP_ACTIONS, *VIEW_ACTIONS):
            assert action.title in text and (action.shown_keys or action.keys.split(",")[0]) in text
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, HelpScreen)
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)


FIELD_KEYS = "t Close editor f1 Help / Search < Call ◂ > Call ▸"
LIST_KEYS = "q Quit f1 Help / Search ] Next cut t Thresholds e Export w Why a Audit < Call ◂ > Call ▸"


def key_bar(app) -> str:
    """The footer's keys as on screen (the palette key at the right end left out), single-spaced."""
    return " ".join(screen_text(app).splitlines()[-1].partition("▏")[0].split())


async def test_the_key_bar_follows_the_focus(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert key_bar(app) == LIST_KEYS  # the chat's keys came with the load
        for keys, focused, shown in [
            # a field takes the letters as text; t (close) and < > (the calls) are never in a number
            (("t",), "th-full_tool_calls", FIELD_KEYS),
            (("tab",), "th-full_tool_outputs", FIELD_KEYS),
            (("escape",), "view", LIST_KEYS),
            (("enter",), "detail", LIST_KEYS),
            (("escape", "slash"), "prompt-bar", "f1 Help / Search"),
            (("escape",), "view", LIST_KEYS),
        ]:
            await pilot.press(*keys)
            await pilot.pause()
            assert (app.focused.id, key_bar(app)) == (focused, shown), keys


@pytest.mark.frames
async def test_a_click_on_a_key_in_the_key_bar_runs_it_and_the_key_under_the_mouse_is_lit(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        bar = app.query_one(KeyBar)
        start, end, shown = next(span for span in bar.spans if span[2].description == "Thresholds")
        line = screen_text(app).splitlines()[-1]
        assert line[start:end] == "t Thresholds" and line.rstrip().endswith("▏^p palette")
        await pilot.hover(KeyBar, offset=(start + 2, 0))
        assert bar.hovered == shown
        lit = [seg.text for seg in bar.render_line(0) if seg.style and seg.style.bgcolor != bar.rich_style.bgcolor]
        assert "".join(lit).strip() == "t Thresholds"  # only the key under the mouse
        await pilot.hover("#view")
        await pilot.pause()
        assert bar.hovered is None  # the mouse left the bar: no key is lit
        assert all(seg.style.bgcolor == bar.rich_style.bgcolor for seg in bar.render_line(0) if seg.style)
        await pilot.click(KeyBar, offset=(start, 0))
        await settle(app, pilot)
        assert app.chat.editor.has_class("-open") and app.focused.id == "th-full_tool_calls"
        assert key_bar(app) == FIELD_KEYS  # the field's keys, drawn again by the same one widget
        assert len(app.query(KeyBar)) == 1 and not bar.children


@pytest.mark.frames
async def test_on_a_narrow_terminal_the_palette_key_keeps_the_right_end_and_opens_on_a_click(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        line = screen_text(app).splitlines()[-1]
        # the keys a user steps and edits with stay (< > t); Audit, Export and Next cut give way first
        assert line.startswith("q Quit f1 Help / Search t Thresholds w Why < Call ◂ > Call ▸")
        assert line.endswith("▏^p palette") and len(line) == 79
        assert "Audit" not in line and "Export" not in line and "Next cut" not in line
        bar = app.query_one(KeyBar)
        start, _end, shown = bar.spans[-1]
        assert shown.description == "palette" and all(end <= start for _s, end, _k in bar.spans[:-1])
        await pilot.click(KeyBar, offset=(start, 0))
        await settle(app, pilot)
        assert isinstance(app.screen, CommandPalette)


async def test_every_bound_action_exists_and_has_a_palette_entry(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        for action in APP_ACTIONS:
            name = action.action.split("(")[0]
            # the App's own (quit, help) on the App, every other on the chat's screen that binds it
            owner = app if name in HOST_ACTIONS else app.chat
            assert hasattr(owner, f"action_{name}"), name
        for action in VIEW_ACTIONS:
            assert hasattr(app.chat.view, f"action_{action.action.split('(')[0]}")
        provider = InspectorCommands(app.screen)
        titles = [hit.text for hit in [h async for h in provider.discover()]]
        for action in (*APP_ACTIONS, *VIEW_ACTIONS):
            assert any(str(t).startswith(action.title) for t in titles), action.title


async def test_palette_runs_actions_and_goes_to_a_number(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await app.palette_run("last")
        assert app.chat.view.cursor == 115
        provider = InspectorCommands(app.screen)
        hits = [h async for h in provider.search("#42")]
        assert str(hits[0].text) == "Go to message #42"
        hits[0].command()
        await pilot.pause()
        assert app.chat.view.current_row == 42
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"Next cut", "enter")
        await pilot.pause()
        await pilot.pause()
        assert app.chat.view.current_row == 46


async def test_q_quits(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 0 and not app.is_running


async def test_ctrl_q_quits_even_from_an_input(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("slash", "ctrl+q")
        await pilot.pause()
    assert not app.is_running


async def test_reload_keeps_position_and_thresholds(make_app, write_chat):
    messages = [{"role": "user", "content": f"message {i}"} for i in range(30)]
    chat = write_chat(messages)
    app = make_app(chat)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        app.chat.apply_thresholds(app.chat.thresholds.with_value("max_tool_chars", 7, "edited"), None)
        await settle(app, pilot)
        app.go_to_row(20)
        messages.append({"role": "assistant", "content": "a new answer"})
        chat.write_text(json.dumps(messages))
        await pilot.press("r")
        await settle(app, pilot)
        assert len(app.chat.document.rows) == 31 and app.chat.view.current_row == 20
        assert app.chat.thresholds["max_tool_chars"] == 7
        assert app.chat.editor.query_one("#th-max_tool_chars").value == "7"
        app.go_to_row(30)
        await pilot.pause()
        assert "a new answer" in row_line(app, 30)


async def test_notes_list_findings_and_consumed_rows_show(make_app, monkeypatch, write_chat):
    """Loader output (consumed messages, findings) is used generically, whatever the format."""
    import inspector.ui.screens.chat as app_module
    from inspector.core.calls.history import ChatHistory

    chat_path = write_chat([{"role": "user", "content": "hello"}, {"role": "assistant", "content": "hi"}])

    class Faked(ChatHistory):
        def __init__(self, source, setup=None):
            super().__init__(source, setup)
            chat = self.whole.chat
            chat.consumed.append(
                Consumed(
                    Message({"role": "option", "content": "endpoint gpt"}, 1), "option", "sets an option, not sent", 1
                )
            )
            chat.findings.append(Finding("hazard", "a [bold] header-like line was taken into content", 3))

    monkeypatch.setattr(app_module, "ChatHistory", Faked)
    app = make_app(chat_path)
    async with app.run_test(size=(139, 40)) as pilot:
        await settle(app, pilot)
        assert len(app.chat.document.rows) == 3
        left, right = split(row_line(app, 1))
        assert left.startswith("⊘ 1 option") and "endpoint gpt" in left
        assert "⊘ consumed (option): sets an option, not sent" in right
        assert "⊘ 1 consumed" in str(app.query_one("#summary").render())
        banner = str(app.query_one("#banner").render())
        assert "1 loader finding(s)" in banner and "a [bold] header-like line" in banner
        app.go_to_row(1)
        await pilot.pause()
        assert "consumed before the strategies ran (step option)" in app.query_one("#detail").text
        await pilot.press("i")
        await pilot.pause()
        assert isinstance(app.screen, NotesScreen)
        assert "finding (hazard) line 3: a [bold] header-like line" in app.screen.text
        app.screen.dismiss(None)
        await pilot.pause()
        app.chat.set_filter(RowFilter("consumed"))
        await pilot.pause()
        assert app.chat.view.count == 1
