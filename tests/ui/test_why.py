"""Why (`w`): trace a text, see the rule and the fixes, apply one with one key."""

from __future__ import annotations

import threading

import pytest

from inspector.core.analysis.fixes import FixSearchCancelled
from inspector.ui.screens import why as why_module
from inspector.ui.screens.help import HelpScreen
from inspector.ui.screens.why import WhyScreen
from inspector.ui.widgets.prompt_bar import PromptBar
from inspector.ui.widgets.summary import SummaryBar

from .conftest import HOSTILE, row_line, screen_text, settle, split

FACT = "reconnect_backoff_ms: 7350"


async def ask_why(app, pilot, text: str) -> WhyScreen:
    await pilot.press("w")
    await pilot.pause()
    bar = app.query_one(PromptBar)
    assert bar.has_class("-open") and bar.mode == "why"
    bar.value = text  # typed as-is: brackets and all
    await pilot.press("enter")
    await settle(app, pilot)
    assert isinstance(app.screen, WhyScreen)
    return app.screen


def summary(app) -> str:
    return str(app.query_one(SummaryBar).render())


async def test_why_shows_the_hidden_fact_its_rule_and_both_fixes(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        screen = await ask_why(app, pilot, FACT)
        text = screen.list_text
        assert "#3  function_call_output  read_file  call_001, line 14" in text
        assert "HIDDEN: ✗ dropped (beyond_max)" in text
        assert "rule: dropped: 53rd newest output, beyond max_tool_outputs=40" in text
        # first the change that keeps the fact with its call, numbered; then the single changes
        assert "[1] keeps it with its call/output pair: max_tool_chars >= 217,215" in text
        assert "[2] full_tool_outputs >= 54" in text and "[3] max_tool_chars >= 213,862" in text
        assert "no value of full_tool_calls, max_tool_calls, max_tool_outputs alone shows it" in text
        shown = screen_text(app)
        assert "the model sees none of them" in shown and "[2] full_tool_outputs >= 54" in shown
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, WhyScreen) and app.chat.thresholds["full_tool_outputs"] == 10


async def test_number_key_applies_a_fix_and_the_fact_becomes_visible(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert "116 -> 90 sent" in summary(app)
        await ask_why(app, pilot, FACT)
        await pilot.press("2")
        await settle(app, pilot)
        assert not isinstance(app.screen, WhyScreen)
        assert app.chat.thresholds["full_tool_outputs"] == 54
        assert "116 -> 103 sent" in summary(app)  # the summary moved with the fix
        assert app.chat.view.current_row == 3  # the cursor is on the message that now shows
        _left, right = split(row_line(app, 3))
        assert "read_file:" in right and "dropped" not in right
        detail = app.query_one("#detail").text
        assert "full: 53rd newest output, within full_tool_outputs=54" in detail
        # asked again (the bar remembers the text), the same occurrence is visible
        screen = await ask_why(app, pilot, FACT)
        assert "VISIBLE: = full (recent_band)" in screen.list_text and "[1]" not in screen.list_text
        assert "the model sees every one" in screen_text(app)
        await pilot.press("escape", "t")  # the editor, opened now, shows the value the fix set
        await pilot.pause()
        assert app.chat.editor.query_one("#th-full_tool_outputs").value == "54"
        assert str(app.chat.editor.query_one("#src-full_tool_outputs").render()) == "edited (why fix)"


async def test_fix_1_keeps_the_fact_with_its_call(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await ask_why(app, pilot, FACT)
        await pilot.press("1")
        await settle(app, pilot)
        assert app.chat.thresholds["max_tool_chars"] == 217_215
        call, output = split(row_line(app, 2))[1], split(row_line(app, 3))[1]
        assert "read_file:" in call and "read_file:" in output and "dropped" not in call + output


@pytest.mark.slow  # in CI's thorough pass: the quick suite stays under a minute
async def test_fixes_found_at_a_past_call_say_they_hold_for_that_call_only(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        app.chat.show_call(50)
        await settle(app, pilot)
        screen = await ask_why(app, pilot, FACT)
        assert "found at call 50: they hold for that call only (L: the whole chat)" in screen.list_text


async def test_enter_on_a_highlighted_fix_applies_it(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        screen = await ask_why(app, pilot, FACT)
        options = screen.query_one("#why-list")
        assert str(options.highlighted_option.prompt).strip().startswith("[1]")  # lands on the first fix
        await pilot.press("down", "down", "enter")
        await settle(app, pilot)
        assert app.chat.thresholds["max_tool_chars"] == 213_862 and app.chat.thresholds["full_tool_outputs"] == 10
        assert "✗1 " in summary(app)
        assert "dropped" not in split(row_line(app, 3))[1]


async def test_enter_on_an_occurrence_jumps_to_it(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        screen = await ask_why(app, pilot, FACT)
        await pilot.press("home", "enter")
        await settle(app, pilot)
        assert app.screen is not screen and app.chat.view.current_row == 3 and app.focused is app.chat.view
        assert app.chat.thresholds == app.chat.document.loaded


async def test_ignore_case_and_regex_toggles_retrace(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        screen = await ask_why(app, pilot, "RECONNECT_BACKOFF_MS: 7350")
        assert "never occurs in the chat" in screen_text(app)
        await pilot.press("i")
        await settle(app, pilot)
        assert "ignore case on" in screen_text(app) and "HIDDEN" in screen.list_text
        await pilot.press("i")
        await settle(app, pilot)
        screen.text = r"reconnect_backoff_ms: \d+"
        await pilot.press("x")
        await settle(app, pilot)
        assert "regex on" in screen_text(app) and "#3  function_call_output" in screen.list_text
        screen.text = "(unclosed"
        await pilot.press("x", "x")
        await settle(app, pilot)
        assert "bad --regex" in screen_text(app)


async def test_escape_stops_a_long_fix_search_then_closes(make_app, monkeypatch):
    started = threading.Event()

    def slow_fixes(inspection, occurrence, replanner, cancelled):
        started.set()
        while not cancelled():
            threading.Event().wait(0.01)
        raise FixSearchCancelled

    monkeypatch.setattr(why_module, "find_fixes", slow_fixes)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("w")
        await pilot.pause()
        app.query_one(PromptBar).value = FACT
        await pilot.press("enter")
        await pilot.pause()
        assert started.wait(5)
        screen = app.screen
        assert "searching for fixes: 0 of 1" in screen_text(app) and "fixes: searching…" in screen.list_text
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.screen is screen and "fix search stopped" in screen_text(app)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is not screen


async def test_markup_looking_text_is_shown_literally(make_app, write_chat):
    app = make_app(write_chat(HOSTILE))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        for text in ("[bold]", "[/", "[@click=app.quit]clickme[/]"):
            screen = await ask_why(app, pilot, text)
            shown = screen_text(app)
            assert f"Why: {text!r}" in shown
            assert text in screen.list_text  # the context quotes the chat, brackets kept
            await pilot.press("escape")
            await pilot.pause()
        screen = await ask_why(app, pilot, "[/nothing]")
        assert "'[/nothing]' never occurs in the chat" in screen_text(app)


async def test_help_and_footer_list_the_new_keys(make_app):
    app = make_app()
    async with app.run_test(size=(120, 60)) as pilot:
        await settle(app, pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        text = str(app.screen.query_one("#help-text").render())
        for line in (
            "w              Why:",
            "b              A/B:",
            "c              A/B list:",
            "a              Audit:",
            "in Why (w)",
            "1-9 applies a fix",
            "sweep chart",
        ):
            assert line in text, line
        assert "reserved" not in text


async def test_why_finds_and_applies_an_epoch_setting_fix(make_app, tmp_path):
    import json

    from forget_chats import call, filler, middle, out

    items = [
        {"role": "user", "content": "go"},
        call("read", "c0", {"q": "x"}),
        out("read", "c0", middle()),
        *filler(12, 300),
    ]
    chat = tmp_path / "epoch.json"
    chat.write_text(json.dumps(items))
    small = {"epoch_tool_call_threshold": "4", "epoch_full_tool_calls": "2", "epoch_compacted_tool_calls": "3"}
    app = make_app(chat, overrides={**small, "epoch_size": "2"}, strategies="shorten_tools_epoch")
    async with app.run_test(size=(139, 40)) as pilot:
        await settle(app, pilot)
        screen = await ask_why(app, pilot, FACT)
        text = screen.list_text
        assert "[1] epoch_tool_call_threshold >= 13 (now 4; set epoch_tool_call_threshold=13): shown full" in text
        assert "[2] epoch_full_tool_calls >= 12" in text and "[3] epoch_size <= 0" in text
        assert "no value of epoch_compacted_tool_calls alone shows it" in text
        await pilot.press("1")
        await settle(app, pilot)
        assert not isinstance(app.screen, WhyScreen)
        assert app.chat.thresholds.setting("epoch_tool_call_threshold") == 13
        assert any(
            "epoch_tool_call_threshold = 13 applied: message #2 is now full (prompt +4,791 characters" in n
            for n in app.notices
        )


async def test_why_names_the_parser_trap_that_swallowed_the_text(make_app):
    from pathlib import Path

    traps = Path(__file__).resolve().parents[2] / "sample_chats" / "traps.chat"
    app = make_app(traps)
    async with app.run_test(size=(139, 40)) as pilot:
        await settle(app, pilot)
        await ask_why(app, pilot, "This answer is swallowed")
        shown = screen_text(app)
        assert "trap: text swallowed by a parser trap: `[[` at line 8 protects every line up to a line ending" in shown


async def test_when_the_model_still_sees_the_text_older_copies_are_offered_not_searched(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        screen = await ask_why(app, pilot, "backoff")  # 16 copies, the model sees 12
        rows = [o.row for o in screen.shown]
        assert rows == sorted(rows, reverse=True)  # the newest copy first: the one a model would use
        assert any(o.visible for o in screen.shown) and not screen.reports and "[1]" not in screen.list_text
        assert "not searched: the model sees another copy (f searches)" in screen.list_text
        assert "the model still sees the text: f searches fixes for the" in screen_text(app)
        await pilot.press("f")
        await settle(app, pilot)
        assert screen.reports and "[1]" in screen.list_text


async def test_a_trace_stopped_by_escape_searches_no_fixes(make_app, monkeypatch):
    from inspector.core.analysis.trace import TraceStopped

    def stopped(*args, **kwargs):
        raise TraceStopped(4_096, 20_000)

    monkeypatch.setattr(why_module, "trace", stopped)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        screen = await ask_why(app, pilot, FACT)
        assert "tracing stopped after 4,096 of 20,000 messages (Esc again closes)" in screen_text(app)
        assert screen.result is None and not screen.reports


async def test_why_and_search_share_one_case_default(make_app):
    """No capital: the case is ignored; a capital: it counts. The title says which, i still toggles it."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        screen = await ask_why(app, pilot, "RECONNECT_backoff_ms: 7350")
        assert "Why: 'RECONNECT_backoff_ms: 7350'  (ignore case off · regex off)" in screen_text(app)
        assert screen.result is not None and not screen.result.occurrences
        await pilot.press("escape")
        await settle(app, pilot)
        screen = await ask_why(app, pilot, "reconnect_BACKOFF_ms: 7350".lower())
        assert "(ignore case on · regex off)" in screen_text(app)
        assert screen.result is not None and screen.result.occurrences
        await pilot.press("escape")
        await settle(app, pilot)
        messages = app.chat.document.inspection.chat.messages
        await pilot.press("slash", *"Checkout", "enter")
        await settle(app, pilot)
        exact = [i for i, m in enumerate(messages) if "Checkout" in str(m.fields.get("content"))]
        assert app.chat.view.search_hits == exact
        assert "search 'Checkout' (this case: a capital was typed): message 1 of" in str(
            app.query_one("#status").render()
        )
