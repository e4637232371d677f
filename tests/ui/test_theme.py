"""The theme is remembered for the next run, and --theme picks one for this run."""

from __future__ import annotations

import json

from inspector.core.setup import ChatSource, Setup
from inspector.ui.app import InspectorApp
from inspector.ui.prefs import prefs_path

from .conftest import DEMO, settle


def app_with(theme: str | None = None) -> InspectorApp:
    app = InspectorApp(ChatSource.of(DEMO), Setup.of(config_files=[], env={}), theme=theme)
    app.animation_level = "none"
    return app


async def test_a_theme_chosen_is_remembered_and_theme_overrides_it():
    app = app_with()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        default = app.theme
        app.theme = "nord"
        await settle(app, pilot)
    assert json.loads(prefs_path().read_text())["theme"] == "nord"
    again = app_with()
    async with again.run_test(size=(100, 30)) as pilot:
        await settle(again, pilot)
        assert again.theme == "nord" != default
    asked = app_with("gruvbox")
    async with asked.run_test(size=(100, 30)) as pilot:
        await settle(asked, pilot)
        assert asked.theme == "gruvbox"
    # --theme is for the run it is given to; the next run opens with what was chosen last
    assert json.loads(prefs_path().read_text())["theme"] == "nord"


async def test_an_unreadable_prefs_file_is_as_none():
    prefs_path().parent.mkdir(parents=True, exist_ok=True)
    prefs_path().write_text("{not json")
    app = app_with()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        assert app.theme == "textual-dark"
