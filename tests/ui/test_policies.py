"""Other frameworks' policies in the app: P switches to one and edits its settings, the rows say what was
cleared and why, A/B compares scout-ai's plan with the policy's, why finds each setting's smallest fix."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input, Select

from inspector.core.peers.registry import POLICIES
from inspector.demo import demo_chat_path
from inspector.ui.screens.policy import PolicyScreen
from inspector.ui.widgets.summary import Banner, SummaryBar
from inspector.ui.widgets.thresholds import CHAT_CHOICE, policy_id

from .conftest import row_line, screen_text, settle, until
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


async def pick_in_editor(app, pilot, choice: str) -> None:
    """Open the editor (t) and pick ``choice`` in its strategies / policy list."""
    if not app.chat.editor.has_class("-open"):
        await pilot.press("t")
        await settle(app, pilot)
    app.chat.editor.query_one("#strategies", Select).value = choice
    await settle(app, pilot)


async def type_setting(app, pilot, key: str, text: str) -> None:
    """Type ``text`` into a policy setting's field in the editor, key by key, and let it re-plan."""
    editor = app.chat.editor
    field = editor.policy_field(editor.policy_shown, key)
    field.focus()
    await pilot.pause()
    field.value = ""
    await pilot.press(*list(text))
    await settle(app, pilot, app.debounce + 0.05)


async def setting_on_screen(app, pilot, key: str) -> str:
    """The editor's lines as drawn (its column of the screen, scroll bar apart) from setting ``key``'s label
    (``about``: the line naming the library) at its top."""
    editor = app.chat.editor
    block = editor.query_one(f"#{policy_id(editor.policy_shown)}")
    label = block.query_one(".policy-about" if key == "about" else f"#psl-{key}")
    editor.scroll_to_widget(label, animate=False, immediate=True, top=True)
    await pilot.pause()
    region = editor.scrollable_content_region
    lines = screen_text(app).splitlines()[region.y : region.bottom]
    return "\n".join(line[region.x : region.right].rstrip() for line in lines).lstrip("\n")


async def test_the_editor_lists_the_policies_and_edits_one_as_it_edits_thresholds(make_app):
    app = make_app(demo_chat_path())
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("t")
        await settle(app, pilot)
        # scout-ai's choices, then the policies by name
        assert app.chat.editor.choices() == [*app.chat.strategy_choices, *POLICIES]
        await pick_in_editor(app, pilot, "langchain.clear_tool_uses")
        assert app.chat.document.inspection.policy.label() == "langchain.clear_tool_uses"
        assert "policy langchain.clear_tool_uses" in str(app.query_one(SummaryBar).render())
        text = await setting_on_screen(app, pilot, "about")
        assert text.startswith("langchain 1.5.2\nContextEditingMiddleware +\nClearToolUsesEdit\n\ntrigger")
        assert "trigger\n 100000\ndefault 100000; default" in text
        assert "placeholder\n [cleared]\ndefault [cleared]; default" in await setting_on_screen(
            app, pilot, "placeholder"
        )
        assert app.notices[-1] == "policy: langchain.clear_tool_uses (its defaults)"

        await type_setting(app, pilot, "trigger", "3000")
        doc = app.chat.document
        assert doc.inspection.policy.label() == "langchain.clear_tool_uses (trigger=3000)"
        assert doc.prompt.tier_counts()["cleared"] == 50
        assert "trigger\n 3000\ndefault 100000; edited" in await setting_on_screen(app, pilot, "trigger")
        assert "policy langchain.clear_tool_uses (trigger=3000)" in str(app.query_one(SummaryBar).render())
        assert "langchain.clear_tool_uses: trigger exceeded: 54,199 > 3,000 tokens: 50 tool result(s) cleared" in str(
            app.query_one(Banner).render()
        )
        await pilot.press("t")  # closed (t in a number's field): the list and the detail have the width
        await settle(app, pilot)
        app.chat.go_to_row(4)
        await settle(app, pilot, app.detail_delay + 0.05)
        text = screen_text(app)
        assert (
            row_line(app, 4).rstrip()
            == "▯   4 output    read_file: # services/checkout/config/produc…│▯ cleared: [cleared]"
        )
        assert "cleared: trigger exceeded: 54,199 > 3,000 tokens; older than the 3 newest tool results" in text

        # ↑ steps a number as in a threshold's field, one undo step per field
        await pilot.press("t")
        await settle(app, pilot)
        field = app.chat.editor.policy_field("langchain.clear_tool_uses", "keep")
        assert app.chat.editor.policy_field("langchain.clear_tool_uses", "trigger").has_focus
        field.focus()
        await pilot.press("up", "up")
        await settle(app, pilot, app.debounce + 0.05)
        assert field.value == "5"
        assert app.chat.document.inspection.policy.as_dict()["keep"] == 5
        assert app.chat.document.prompt.tier_counts()["cleared"] == 48
        await pilot.press("ctrl+z")
        await settle(app, pilot)
        assert app.notices[-1] == "undone: keep default"
        assert app.chat.document.inspection.policy.label() == "langchain.clear_tool_uses (trigger=3000)"
        assert field.value == "3"


async def test_a_refused_setting_is_named_under_its_field_and_the_plan_stays(make_app):
    app = make_app(demo_chat_path(), policy="langchain.clear_tool_uses", overrides={"trigger": "3000"})
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        before = app.chat.document.prompt
        await pilot.press("t")
        await settle(app, pilot)
        assert "trigger\n 3000\ndefault 100000; --set" in await setting_on_screen(
            app, pilot, "trigger"
        )  # as opened: the command line's
        await type_setting(app, pilot, "keep", "-1")
        assert app.chat.document.prompt is before  # refused: the plan on screen is kept
        field = app.chat.editor.policy_field("langchain.clear_tool_uses", "keep")
        assert field.has_class("-invalid")
        text = await setting_on_screen(app, pilot, "keep")
        assert "keep\n -1\nthe library rejects it; keep must\nbe >= 0\n" in text
        await type_setting(app, pilot, "keep", "2")
        assert not field.has_class("-invalid")
        assert app.chat.document.inspection.policy.label() == "langchain.clear_tool_uses (trigger=3000, keep=2)"
        assert "keep\n 2\ndefault 3; edited" in await setting_on_screen(app, pilot, "keep")
        await pilot.press("escape", "u")  # reset: the policy and settings the chat was opened with
        await settle(app, pilot)
        assert (
            app.notices[-1]
            == "thresholds, strategies, policy and scout-ai version reset to the loaded ones (ctrl+z undoes)"
        )
        assert app.chat.document.inspection.policy.label() == "langchain.clear_tool_uses (trigger=3000)"
        assert field.value == "3"


async def test_a_policy_that_needs_a_value_is_shown_to_fill_in_first(make_app):
    app = make_app(demo_chat_path())
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pick_in_editor(app, pilot, "langchain.trim_messages")
        assert app.chat.document.inspection.policy is None  # not planned yet: max_tokens has no default
        assert app.notices[-1] == (
            "langchain.trim_messages needs --set max_tokens=N (the budget (required)); type it in the editor "
            "(the plan on screen is kept)"
        )
        field = app.chat.editor.policy_field("langchain.trim_messages", "max_tokens")
        assert field.has_class("-invalid")
        assert "max_tokens\n\nneeds --set max_tokens=N (the\nbudget (required))\n" in await setting_on_screen(
            app, pilot, "max_tokens"
        )
        await type_setting(app, pilot, "max_tokens", "2000")
        policy = app.chat.document.inspection.policy
        assert policy is not None and policy.label() == "langchain.trim_messages (max_tokens=2000)"
        assert not field.has_class("-invalid")


async def test_t_under_a_policy_opens_its_settings_and_scout_goes_back(make_app):
    app = make_app(DEMO_CHAT, policy="openhands.observation_masking", overrides={"attention_window": "5"})
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert "policy openhands.observation_masking (attention_window=5)" in str(app.query_one(SummaryBar).render())
        await pilot.press("t")
        await settle(app, pilot)
        editor = app.chat.editor
        assert editor.policy_shown == "openhands.observation_masking"
        field = editor.policy_field("openhands.observation_masking", "attention_window")
        assert field.has_focus and field.value == "5"
        assert "attention_window\n 5\ndefault 5; --set" in await setting_on_screen(app, pilot, "attention_window")
        assert not editor.query_one("#th-max_tool_calls").display  # scout-ai's thresholds give way
        await pilot.press("t")  # a number's field leaves t to close the editor
        await settle(app, pilot)
        assert not editor.has_class("-open")
        await pick_in_editor(app, pilot, CHAT_CHOICE)
        assert app.chat.document.inspection.policy is None
        assert "shorten_tools" in str(app.query_one(SummaryBar).render())
        assert editor.policy_shown is None and editor.query_one("#th-max_tool_calls").display
        await pilot.press("ctrl+z")  # back to the policy, as a setting like any other
        await settle(app, pilot)
        assert app.notices[-1] == "undone: policy openhands.observation_masking"
        assert app.chat.document.inspection.policy.label() == "openhands.observation_masking (attention_window=5)"


async def test_pinned_scout_against_a_policy_picked_in_the_editor(make_app):
    app = make_app(demo_chat_path())
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("b")  # scout-ai's plan pinned as A
        await settle(app, pilot)
        await pick_in_editor(app, pilot, "langchain.clear_tool_uses")
        await type_setting(app, pilot, "trigger", "3000")
        await pilot.press("t")  # closed: the panel has the width
        await settle(app, pilot)
        assert not app.chat.editor.has_class("-open")
        text = screen_text(app)
        assert "A/B: shorten_tools (scout-ai seed) → langchain.clear_tool_uses (trigger=3000)" in text
        assert "A → B: sent 90 → 116 · ✂ 11 → 0 · ✗ 26 → 0 · ▯ 0 → 50 · chars 105,561 → 16,252 (-89,309)" in text
        assert "#4     ✗ dropped → ▯ cleared" in text


async def test_why_fix_under_a_policy_is_an_edit_of_its_setting(make_app):
    app = make_app(demo_chat_path())
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pick_in_editor(app, pilot, "langchain.clear_tool_uses")
        await type_setting(app, pilot, "trigger", "3000")
        await pilot.press("escape")
        screen = await ask_why(app, pilot, FACT)
        await until(app, pilot, lambda: "[2]" in screen.list_text)
        text = screen_text(app)
        assert "[1] keeps it with its call/output pair: trigger >= 54,199 (now 3,000; set trigger=54199)" in text
        assert "[2] keeps it with its call/output pair: keep >= 53 (now 3; set keep=53)" in text
        await pilot.press("2")
        await until(app, pilot, lambda: app.chat.document.inspection.policy.as_dict()["keep"] == 53)
        assert app.chat.document.prompt.tier_counts()["cleared"] == 0
        assert "keep\n 53\ndefault 3; edited" in await setting_on_screen(app, pilot, "keep")
        await pilot.press("ctrl+z")
        await settle(app, pilot)
        assert app.chat.document.inspection.policy.label() == "langchain.clear_tool_uses (trigger=3000)"


async def test_an_approximate_policy_says_so_in_the_header_and_the_banner(make_app):
    app = make_app(demo_chat_path(), policy="anthropic.clear_tool_uses", overrides={"trigger": "3000"})
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        lines = screen_text(app).splitlines()
        assert lines[0] == (
            " demo.chat  ·  next call (after 60 calls; < steps back) · policy anthropic.clear_tool_uses (approximate) "
            "(trigger=3000)"
        )
        assert lines[2] == (
            " anthropic.clear_tool_uses (approximate): trigger exceeded: 54,199 > 3,000 tokens: 50 tool result(s) "
            "cleared"
        )
        assert "scout-ai" not in lines[0]  # no scout-ai version plans it
