"""Other frameworks' policies in the app: P switches to one and edits its settings, the rows say what was
cleared and why, A/B compares scout-ai's plan with the policy's, why finds each setting's smallest fix."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input, Select

from inspector.ui.screens.policy import PolicyScreen
from inspector.ui.widgets.summary import Banner, SummaryBar

from .conftest import screen_text, settle, until
from .test_why import ask_why

DEMO_CHAT = Path(__file__).resolve().parents[2] / "inspector" / "demo" / "demo.chat"
FACT = "reconnect_backoff_ms"


async def choose_policy(app, pilot, name: str, **settings: str) -> None:
    await pilot.press("P")
    await settle(app, pilot)
    screen = app.screen
    assert isinstance(screen, PolicyScreen)
    screen.query_one("#policy-name", Select).value = name
    await settle(app, pilot)
    for key, value in settings.items():
        field = screen.query_one(f"#set-{key}", Input)
        field.value = value
    await pilot.click("#apply")
    await settle(app, pilot)


async def test_p_switches_to_a_policy_and_the_rows_say_what_it_cleared_and_why(make_app):
    app = make_app(DEMO_CHAT)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("b")  # scout-ai's plan pinned as A
        await settle(app, pilot)
        await choose_policy(app, pilot, "langchain.clear_tool_uses", trigger="3000")
        await until(app, pilot, lambda: app.chat.document.inspection.policy is not None)
        header = str(app.query_one(SummaryBar).render())
        assert "policy langchain.clear_tool_uses (trigger=3000)" in header
        assert "183 -> 116 sent" in header and "▯50" in header
        banner = str(app.query_one(Banner).render())
        assert "langchain.clear_tool_uses: trigger exceeded: 54,199 > 3,000 tokens: 50 tool result(s) cleared" in banner
        app.chat.go_to_row(4)
        await settle(app, pilot, app.detail_delay + 0.05)
        text = screen_text(app)
        assert "▯ cleared: [cleared]" in text
        assert "cleared: trigger exceeded: 54,199 > 3,000 tokens; older than the 3 newest tool results" in text
        # A/B: scout-ai's plan (A) against the policy's (B), both costs
        assert "A/B: shorten_tools (scout-ai seed) → langchain.clear_tool_uses (trigger=3000)" in text
        assert "A → B: sent 90 → 116 · ✂ 11 → 0 · ✗ 26 → 0 · ▯ 0 → 50 · chars 105,561 → 16,252 (-89,309)" in text
        assert "#4     ✗ dropped → ▯ cleared" in text


async def test_why_under_a_policy_gives_its_settings_smallest_fixes_and_applies_one(make_app):
    app = make_app(DEMO_CHAT)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await choose_policy(app, pilot, "langchain.clear_tool_uses", trigger="3000")
        screen = await ask_why(app, pilot, FACT)
        await until(app, pilot, lambda: "[2]" in screen.list_text)
        text = screen.list_text
        assert "HIDDEN: ▯ cleared (policy_cleared)" in text
        assert "[1] keeps it with its call/output pair: trigger >= 54,199 (now 3,000; set trigger=54199)" in text
        assert "[2] keeps it with its call/output pair: keep >= 53 (now 3; set keep=53)" in text
        assert "no value of clear_at_least alone shows it" in text
        await pilot.press("2")
        await until(app, pilot, lambda: app.chat.document.inspection.policy.as_dict()["keep"] == 53)
        doc = app.chat.document
        assert doc.prompt.tier_counts()["cleared"] == 0
        assert "policy langchain.clear_tool_uses (trigger=3000, keep=53)" in str(app.query_one(SummaryBar).render())


async def test_the_policy_dialog_refuses_what_the_library_refuses_and_keeps_the_plan(make_app):
    app = make_app(DEMO_CHAT)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await choose_policy(app, pilot, "openai.tool_output_trimmer", recent_turns="0")
        screen = app.screen
        assert isinstance(screen, PolicyScreen)  # still open: the value is refused
        assert "recent_turns must be >= 1" in str(screen.query_one("#policy-message").render())
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.chat.document.inspection.policy is None
        # s goes on from scout-ai's last strategy to the policies, and back
        await choose_policy(app, pilot, "scout")
        assert app.chat.document.inspection.policy is None


async def test_t_under_a_policy_opens_its_settings_and_scout_goes_back(make_app):
    app = make_app(DEMO_CHAT, policy="openhands.observation_masking", overrides={"attention_window": "5"})
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert "policy openhands.observation_masking (attention_window=5)" in str(app.query_one(SummaryBar).render())
        await pilot.press("t")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, PolicyScreen)
        assert screen.query_one("#set-attention_window", Input).value == "5"
        assert "default 5; --set" in screen_text(app)
        screen.query_one("#policy-name", Select).value = "scout"
        await settle(app, pilot)
        await pilot.click("#apply")
        await settle(app, pilot)
        assert app.chat.document.inspection.policy is None
        assert "shorten_tools" in str(app.query_one(SummaryBar).render())
