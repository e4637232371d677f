"""W: the settings in force saved to a file, byte for byte `thresholds --format scout-config|env`; asks before replacing."""

from __future__ import annotations

import contextlib
import io
import tempfile

import pytest

from inspector.cli.main import main
from inspector.core.scout.settings import SETTING_KEYS
from inspector.ui.screens.confirm import ConfirmScreen
from inspector.ui.screens.save_settings import SaveSettingsScreen

from .conftest import DEMO, edit, settle


@pytest.fixture(autouse=True)
def no_setting_environment(monkeypatch):
    for key in SETTING_KEYS:
        monkeypatch.delenv(key.upper(), raising=False)


def cli(*args: str) -> bytes:
    """`thresholds` output as a pipe gets it (the command prints to stdout; it has no -o)."""
    with tempfile.TemporaryFile("w+b") as raw:
        stream = io.TextIOWrapper(raw, encoding="utf-8", newline="")
        with contextlib.redirect_stdout(stream):
            assert main([*args, "--no-scout-config"]) == 0
        stream.flush()
        raw.seek(0)
        return raw.read()


async def open_save(app, pilot) -> SaveSettingsScreen:
    app.set_focus(None)
    await pilot.press("W")
    await pilot.pause()
    assert isinstance(app.screen, SaveSettingsScreen)
    return app.screen


async def test_W_saves_the_etc_config_lines_of_the_thresholds_command(make_app, tmp_path):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await edit(app, pilot, "max_tool_chars", "5000")
        screen = await open_save(app, pilot)
        assert screen.query_one("#path").value == "debug_session.settings.scout-config"
        await pilot.press("enter")
        await settle(app, pilot)
        written = tmp_path / "debug_session.settings.scout-config"
        expected = cli("thresholds", str(DEMO), "--format", "scout-config", "--set", "max_tool_chars=5000")
        assert written.read_bytes() == expected
        assert expected.decode().splitlines()[-1] == "max_tool_chars 5000 prompt"
        assert f"saved 4 etc/config lines to {written.resolve()}" in app.notices


async def test_W_env_lines_for_the_epoch_strategy(make_app, tmp_path):
    app = make_app(strategies="shorten_tools_epoch")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        screen = await open_save(app, pilot)
        screen.query_one("#format").focus()
        await pilot.press("down", "enter")
        screen.query_one("#path").focus()
        await pilot.pause()
        assert screen.query_one("#path").value == "debug_session.settings.env"
        await pilot.press("enter")
        await settle(app, pilot)
        written = (tmp_path / "debug_session.settings.env").read_bytes()
        assert written == cli("thresholds", str(DEMO), "--format", "env", "--strategies", "shorten_tools_epoch")
        assert b"EPOCH_SIZE=" in written


async def test_W_asks_before_replacing_and_escape_leaves_the_file(make_app, tmp_path):
    existing = tmp_path / "mine.config"
    existing.write_text("keep me\n")
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        screen = await open_save(app, pilot)
        screen.query_one("#path").value = str(existing)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        assert f"{existing} exists. Replace it?" in str(app.screen.query_one("Static").render())
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen
        assert "not replaced; pick another name" in str(screen.query_one("#settings-message").render())
        assert existing.read_text() == "keep me\n"
        await pilot.press("escape")  # and the dialog itself: nothing written
        await settle(app, pilot)
        assert not isinstance(app.screen, SaveSettingsScreen)
        assert existing.read_text() == "keep me\n"
        screen = await open_save(app, pilot)
        screen.query_one("#path").value = str(existing)
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("y")
        await settle(app, pilot)
        assert existing.read_bytes() == cli("thresholds", str(DEMO), "--format", "scout-config")


async def test_W_refuses_the_chat_being_inspected(make_app, tmp_path):
    chat = tmp_path / "chat.json"
    chat.write_bytes(DEMO.read_bytes())
    app = make_app(chat)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        screen = await open_save(app, pilot)
        screen.query_one("#path").value = str(chat)
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is screen
        assert "refusing to overwrite the chat being inspected" in str(screen.query_one("#settings-message").render())
        assert chat.read_bytes() == DEMO.read_bytes()
