"""Export: the same bytes as the headless CLI, atomic, never over the chat, asks before replacing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from inspector.ui.screens.confirm import ConfirmScreen
from inspector.ui.screens.export import ExportScreen

from .conftest import DEMO, edit, settle

ROOT = Path(__file__).parents[2]


def cli(*args: str) -> bytes:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FULL_TOOL", "MAX_TOOL"))}
    out = subprocess.run(
        [sys.executable, "-m", "inspector", *args, "--no-scout-config"],
        capture_output=True,
        check=True,
        cwd=ROOT,
        env=env,
    )
    return out.stdout


async def open_export(app, pilot) -> ExportScreen:
    await pilot.press("e")
    await pilot.pause()
    assert isinstance(app.screen, ExportScreen)
    return app.screen


async def pick(pilot, screen: ExportScreen, downs: int) -> None:
    screen.query_one("#what").focus()
    await pilot.press(*(["down"] * downs), "enter")
    screen.query_one("#path").focus()
    await pilot.pause()


async def test_export_prepared_json_equals_cli_prepare(make_app, tmp_path):
    app = make_app()
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        await edit(app, pilot, "max_tool_chars", "50000")
        await pilot.press("escape")
        screen = await open_export(app, pilot)
        assert screen.query_one("#path").value == "debug_session.prompt.json"
        await pilot.press("enter")
        await settle(app, pilot)
        written = tmp_path / "debug_session.prompt.json"
        assert written.read_bytes() == cli("prepare", str(DEMO), "--set", "max_tool_chars=50000")
        assert app.last_export == written.resolve()
        assert any(f"wrote {written.stat().st_size:,} bytes to {written.resolve()}" in n for n in app.notices)


async def test_export_every_format(make_app, tmp_path):
    app = make_app()
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        from inspector.ui.screens.export import choices

        for number, (kind, fmt) in enumerate(choices()):
            screen = await open_export(app, pilot)
            await pick(pilot, screen, number)
            path = screen.query_one("#path").value
            await pilot.press("enter")
            await settle(app, pilot)
            args = (
                ["prepare", str(DEMO), "--format", fmt]
                if kind == "prepare"
                else ["explain", str(DEMO), "--format", fmt]
            )
            assert (tmp_path / path).read_bytes() == cli(*args), (kind, fmt)


async def test_export_refuses_the_source_chat(make_app, write_chat, tmp_path):
    chat = write_chat([{"role": "user", "content": "hi"}])
    app = make_app(chat)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        screen = await open_export(app, pilot)
        screen.query_one("#path").value = str(chat)
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is screen
        assert "refusing to overwrite the chat being inspected" in str(screen.query_one("#export-message").render())
        assert chat.read_text() == '[{"role": "user", "content": "hi"}]'


async def test_export_asks_before_replacing(make_app, tmp_path):
    target = tmp_path / "out.json"
    target.write_text("keep me")
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        screen = await open_export(app, pilot)
        screen.query_one("#path").value = str(target)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        await pilot.pause()
        assert app.screen is screen and target.read_text() == "keep me"
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("y")
        await settle(app, pilot)
        assert target.read_bytes() == cli("prepare", str(DEMO))
        assert not list(tmp_path.glob(".out.json.*.tmp"))  # atomic: no temporary left behind


async def test_export_refuses_when_scout_ai_would_raise(make_app, write_chat, tmp_path):
    chat = write_chat([{"role": "function_call", "content": "{not json"}, {"role": "user", "content": "x"}])
    app = make_app(chat)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert "scout-ai would raise" in str(app.query_one("#banner").render())
        await open_export(app, pilot)
        await pilot.press("enter")
        await settle(app, pilot)
        assert not (tmp_path / "chat.prompt.json").exists()
        assert any("not exported" in n and "scout-ai would raise" in n for n in app.notices)
