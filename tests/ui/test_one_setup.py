"""One setup: under any scout-ai version, every answer in the app is about the plan the list shows."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.core.analysis.trace import trace
from inspector.core.calls.timeline import message_tiers
from inspector.core.present.export import prepared_bytes
from inspector.ui.screens.audit import AuditScreen
from inspector.ui.screens.why import WhyScreen
from inspector.ui.widgets.summary import SummaryBar

from .conftest import screen_text, settle, until
from .test_why import FACT, ask_why

DEMO_CHAT = Path(__file__).resolve().parents[2] / "inspector" / "demo" / "demo.chat"


def summary(app) -> str:
    return str(app.query_one(SummaryBar).render())


async def test_why_under_2_1_gives_2_1_s_rule_and_fixes(make_app):
    app = make_app(DEMO_CHAT, scout_version="2.1")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert "shorten_tools_epoch_increment,inbox" in summary(app)
        screen = await ask_why(app, pilot, "reconnect_backoff_ms")
        text = screen.list_text
        assert "HIDDEN: ✂ truncated (epoch_compacted)" in text
        assert "[1] epoch_tool_call_threshold >= 53" in text
        assert "beyond_max" not in text and "full_tool_outputs >= 54" not in text
        # "calls:" is 2.1's timeline too: the list at call 58 says the same
        assert "last sent at call 57; at call 58: truncated" in text


@pytest.mark.parametrize(
    "presses", [pytest.param(0, marks=pytest.mark.slow), pytest.param(1, marks=pytest.mark.slow), 2]
)  # seed, then V: 1.2.6, V again: 2.1 (the quick suite takes 2.1)
async def test_after_v_why_the_strip_and_the_audit_answer_for_the_list(make_app, presses):
    app = make_app(DEMO_CHAT)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        for _ in range(presses):
            await pilot.press("V")
            await settle(app, pilot)
        doc = app.chat.document
        version = ("seed", "1.2.6", "2.1")[presses]
        assert doc.prompt.version == version and doc.history.setup.version == (None if not presses else version)
        index = doc.rows.message_index(4)  # the config dump's output: #4 in the list
        assert index is not None
        shown_tier = doc.prompt.tier_of(index)
        # why: the same tier as the list
        screen = await ask_why(app, pilot, FACT)
        assert f"HIDDEN: {'✗' if shown_tier == 'dropped' else '✂'} {shown_tier}" in screen.list_text
        expected = trace(doc.inspection, FACT)
        assert expected.occurrences[0].tier == shown_tier
        await pilot.press("escape")
        await settle(app, pilot)
        # the strip: every call planned under the version on screen
        app.chat.go_to_row(4)
        await settle(app, pilot, app.detail_delay + 0.05)
        line = message_tiers(doc.history, index, settings=doc.call_settings())
        strip = str(app.query_one("#strip").render())
        assert f"#4 over {len(doc.history)} calls" in strip
        assert line.tiers[-1] == doc.history.at(len(doc.history)).prompt().tier_of(index)
        # the audit plans the list's plan
        await pilot.press("a")
        await settle(app, pilot)
        assert isinstance(app.screen, AuditScreen)
        assert app.screen.inspection is doc.inspection
        await pilot.press("escape")
        await settle(app, pilot)
        # export writes the plan on screen
        target = Path("out.chat")
        from inspector.ui.results import ExportChoice

        app.chat.export(ExportChoice("prepare", "chat", target))
        await settle(app, pilot)
        assert target.read_bytes() == prepared_bytes(doc.prompt, "chat")


async def test_pin_then_v_compares_the_two_plans(make_app):
    app = make_app(DEMO_CHAT)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("b")
        await settle(app, pilot)
        panel = app.chat.compare_panel
        assert "B equals A" in panel.text
        await pilot.press("V")
        await settle(app, pilot)
        text = panel.text
        assert "A/B: shorten_tools (scout-ai seed) → shorten_tools_epoch (scout-ai 1.2.6)" in text
        assert "row(s) differ" in text and "B equals A" not in text
        # the rows listed are the rows whose tier differs between the two plans
        doc = app.chat.document
        seed = doc.inspection.with_version("seed").prompt()
        indexed = [(r, doc.rows.message_index(r)) for r in range(len(doc.rows))]
        differ = [r for r, i in indexed if i is not None and seed.tier_of(i) != doc.prompt.tier_of(i)]
        assert differ and all(f"#{r} " in text for r in differ[:5])


async def test_follow_keeps_the_version_after_an_append_and_a_rewrite(make_app, tmp_path):
    path = tmp_path / "live.chat"
    path.write_bytes(DEMO_CHAT.read_bytes())
    app = make_app(path, follow=True, scout_version="2.1")
    app.follow_every = 0.05
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        before = len(app.chat.document.rows)
        with path.open("a", encoding="utf-8") as out:
            out.write("\nuser:\n\nwhat about the retry budget?\n")
        await until(app, pilot, lambda: len(app.chat.document.rows) == before + 1)
        doc = app.chat.document
        assert doc.history.setup.version == "2.1" and doc.prompt.version == "2.1"
        assert "shorten_tools_epoch_increment,inbox" in summary(app)
        rewritten = tmp_path / "new.chat"
        rewritten.write_text(path.read_text().replace("retry budget?", "retry budget, really?"))
        rewritten.replace(path)
        await until(app, pilot, lambda: "really" in str(app.chat.document.inspection.chat.messages[-1].fields))
        doc = app.chat.document
        assert doc.history.setup.version == "2.1" and doc.prompt.version == "2.1"


@pytest.mark.slow  # in CI's thorough pass: the quick suite stays under a minute
async def test_v_then_follow_keeps_the_switched_version(make_app, tmp_path):
    path = tmp_path / "live.chat"
    path.write_bytes(DEMO_CHAT.read_bytes())
    app = make_app(path, follow=True)
    app.follow_every = 0.05
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("V")
        await settle(app, pilot)
        before = len(app.chat.document.rows)
        with path.open("a", encoding="utf-8") as out:
            out.write("\nuser:\n\nand now?\n")
        await until(app, pilot, lambda: len(app.chat.document.rows) == before + 1)
        assert app.chat.document.prompt.version == "1.2.6"
        assert "shorten_tools_epoch" in summary(app)


@pytest.mark.slow  # in CI's thorough pass: the quick suite stays under a minute
async def test_why_at_a_past_call_under_1_2_6_answers_for_that_call(make_app):
    app = make_app(DEMO_CHAT, scout_version="1.2.6")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        app.chat.show_call(40)
        await settle(app, pilot)
        doc = app.chat.document
        index = doc.rows.message_index(4)
        assert doc.call == 40 and index is not None and doc.prompt.tier_of(index) == "full"  # explain --at 40
        screen = await ask_why(app, pilot, FACT)
        assert isinstance(screen, WhyScreen)
        assert "the model sees every one of them" in screen.list_text or "HIDDEN" not in screen.list_text


async def test_an_open_why_traces_again_when_the_followed_chat_grows(make_app, tmp_path):
    path = tmp_path / "live.chat"
    path.write_bytes(DEMO_CHAT.read_bytes())
    app = make_app(path, follow=True)
    app.follow_every = 0.05
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await ask_why(app, pilot, "retry budget")
        assert "never occurs in the chat" in screen_text(app)
        with path.open("a", encoding="utf-8") as out:
            out.write("\nuser:\n\nwhat about the retry budget?\n")
        await until(app, pilot, lambda: "1 occurrence(s)" in screen_text(app))
        assert isinstance(app.screen, WhyScreen) and "VISIBLE" in app.screen.list_text
