"""The forgetting audit (`a`): findings under the current thresholds, Enter jumps to the first message."""

from __future__ import annotations

from inspector.ui.screens.audit import AuditScreen

from .conftest import HOSTILE, edit, screen_text, settle


async def open_audit(app, pilot) -> AuditScreen:
    await pilot.press("a")
    await settle(app, pilot)
    assert isinstance(app.screen, AuditScreen)
    return app.screen


async def test_audit_lists_findings_and_jumps(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        screen = await open_audit(app, pilot)
        text = screen.list_text
        assert "Forgetting audit: 6 finding(s)" in screen_text(app)
        assert text.startswith("cut error: #31 · line 126\n  the grep_logs output (message #31) is truncated")
        assert "repeated call: #32, #33, #91" in text
        await pilot.press("enter")
        await settle(app, pilot)
        assert not isinstance(app.screen, AuditScreen) and app.chat.view.current_row == 31
        screen = await open_audit(app, pilot)
        await pilot.press("down", "enter")
        await settle(app, pilot)
        # a repeated call opens the call that repeated itself (message 91), showing what it was sent
        number = app.chat.document.history.call_of(app.chat.document.history.whole.chat.messages[91])
        assert app.chat.call == number and f"call {number} of {len(app.chat.document.history)}" in screen_text(app)
        assert len(app.chat.document.inspection.chat.messages) == 91 and app.focused is app.chat.view


async def test_audit_follows_the_thresholds_and_escape_closes(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await edit(app, pilot, "max_tool_chars", "213862")
        await pilot.press("escape")
        screen = await open_audit(app, pilot)
        assert "Forgetting audit: 1 finding(s)" in screen_text(app)
        assert screen.list_text.startswith("output without call: #2, #3")
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, AuditScreen) and app.chat.view.current_row == 0


async def test_clean_chat_has_no_finding_and_text_stays_literal(make_app, write_chat):
    app = make_app(write_chat([{"role": "user", "content": "[bold]hi[/"}, {"role": "assistant", "content": "ok"}]))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        screen = await open_audit(app, pilot)
        assert "no finding" in screen_text(app) and screen.list_text == ""
    app = make_app(write_chat(HOSTILE, "hostile.json"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        screen = await open_audit(app, pilot)  # whatever it finds, brackets in names must not break it
        assert isinstance(screen.list_text, str)
