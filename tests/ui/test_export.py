"""Export: the same bytes as the headless CLI, atomic, never over the chat, asks before replacing."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from inspector.cli.main import main
from inspector.ui.results import ExportChoice
from inspector.ui.screens.confirm import ConfirmScreen
from inspector.ui.screens.export import ExportScreen, choices, default_path

from .conftest import DEMO, edit, screen_text, settle


@pytest.fixture(autouse=True)
def no_threshold_environment(monkeypatch):
    for name in ("FULL_TOOL_CALLS", "FULL_TOOL_OUTPUTS", "MAX_TOOL_CALLS", "MAX_TOOL_OUTPUTS", "MAX_TOOL_CHARS"):
        monkeypatch.delenv(name, raising=False)


def cli(*args: str) -> bytes:
    """The headless command's output, run in process (``-o`` writes it to a file, as a pipe would get it)."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "out"
        assert main([*args, "--no-scout-config", "-o", str(out)]) == 0
        return out.read_bytes()


async def open_export(app, pilot) -> ExportScreen:
    await pilot.press("e")
    await pilot.pause()
    assert isinstance(app.screen, ExportScreen)
    return app.screen


async def test_export_prepared_json_equals_cli_prepare(make_app, tmp_path):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await edit(app, pilot, "max_tool_chars", "50000")
        await pilot.press("escape")
        screen = await open_export(app, pilot)
        assert screen.query_one("#path").value == "debug_session.prompt.json"
        await pilot.press("enter")
        await settle(app, pilot)
        written = tmp_path / "debug_session.prompt.json"
        assert written.read_bytes() == cli("prepare", str(DEMO), "--set", "max_tool_chars=50000")
        assert app.chat.last_export == written.resolve()
        assert any(f"wrote {written.stat().st_size:,} bytes to {written.resolve()}" in n for n in app.notices)


async def test_export_every_format(make_app, tmp_path):
    """Every choice of the dialog names its format, and the app writes the CLI's bytes for every format.

    The dialog is driven through every choice once and writes the last; the app's export (what the
    dialog's answer starts) writes every format. tests/test_one_writer.py loops over every sample chat.
    """
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        every = choices()
        screen = await open_export(app, pilot)
        screen.query_one("#what").focus()
        paths = []
        for number, (kind, fmt) in enumerate(every):
            await pilot.press(*(["down"] if number else []), "enter")
            paths.append(screen.query_one("#path").value)
            assert (screen.kind, screen.fmt, paths[-1]) == (kind, fmt, default_path(str(DEMO), kind, fmt))
        assert len(set(paths)) == len(every) and paths[-1] == "debug_session.explain.md"
        screen.query_one("#path").focus()
        await pilot.press("enter")
        await settle(app, pilot)
        assert (tmp_path / paths[-1]).read_bytes() == cli("explain", str(DEMO), "--format", "markdown")
        for (kind, fmt), path in zip(every, paths, strict=True):
            (tmp_path / path).unlink(missing_ok=True)
            app.chat.export(ExportChoice(kind, fmt, tmp_path / path))
            await settle(app, pilot)
            assert (tmp_path / path).read_bytes() == cli(kind, str(DEMO), "--format", fmt), (kind, fmt)


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


async def test_export_refuses_a_file_the_chat_reads(make_app, tmp_path):
    (tmp_path / "notes.md").write_text("notes\n")
    chat = tmp_path / "main.chat"
    chat.write_text("file: notes.md\n\nuser:\nwhat now?\n")
    app = make_app(chat)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        screen = await open_export(app, pilot)
        screen.query_one("#path").value = "notes.md"
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is screen  # no "replace?" question: it is refused at once
        message = str(screen.query_one("#export-message").render())
        assert message == "refusing to overwrite a file the chat reads (import:, file: or directory:): notes.md"
        assert (tmp_path / "notes.md").read_text() == "notes\n"
        # the core refuses too, whoever asks (an export path the dialog did not check)
        app.chat.export(ExportChoice("prepare", "json", tmp_path / "notes.md"))
        await settle(app, pilot)
        assert app.notices[-1].startswith("not exported: ") and "a file the chat reads" in app.notices[-1]
        assert (tmp_path / "notes.md").read_text() == "notes\n"


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


async def test_the_export_dialog_says_what_it_writes_with_the_tokens_named(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        doc = app.chat.document
        counter = doc.history.setup.token_counter()
        exact = sum(counter.count_content(m.fields.get("content")) for m in doc.prompt.messages())
        screen = await open_export(app, pilot)
        about = screen.about
        totals = doc.totals
        assert about.startswith(
            f"the plan on screen (the whole chat): {totals.visible_messages:,} messages sent, "
            f"{totals.chars_after:,} characters, "
        )
        # the exact count once the header's worker has it, the labelled estimate before
        assert about.endswith(f"{exact:,} tokens ({counter.label})") or about.endswith(
            f"~{(totals.chars_after + 3) // 4:,} tokens (estimate: characters / 4)"
        )
        assert "the plan on screen (the whole chat): " in screen_text(app)  # shown in the dialog (wrapped)


async def test_arrows_choose_the_format_from_the_start_and_the_path_follows(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        screen = await open_export(app, pilot)
        path = screen.query_one("#path")
        assert app.focused is path and path.value == "debug_session.prompt.json"
        await pilot.press("down")
        await pilot.pause()
        assert (screen.kind, screen.fmt, path.value) == ("prepare", "jsonl", "debug_session.prompt.jsonl")
        assert "debug_session.prompt.jsonl" in screen_text(app)
        await pilot.press("up", "up")  # the first choice stops it
        await pilot.pause()
        assert (screen.fmt, path.value) == ("json", "debug_session.prompt.json")
        for _ in range(len(choices())):
            await pilot.press("down")
        await pilot.pause()
        last_kind, last_fmt = choices()[-1]
        assert (screen.kind, screen.fmt) == (last_kind, last_fmt)
        assert path.value == default_path("debug_session.json", last_kind, last_fmt)
        await pilot.press(*"x")  # typed: a name of one's own, which the format no longer replaces
        await pilot.press("up")
        await pilot.pause()
        assert path.value.endswith("x") and screen.fmt != last_fmt
