"""A small visual net: pinned SVG screenshots of the main views (pytest-textual-snapshot), and one test
that draws every screen for real (Textual's own frames, the whole compositor), asserting what each shows.

Update the pinned files after a deliberate change with `pytest tests/ui/test_snapshots.py --snapshot-update`
and look at them (rsvg-convert turns an SVG into a PNG) before committing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.ui.screens.audit import AuditScreen
from inspector.ui.screens.export import ExportScreen
from inspector.ui.screens.filter import FilterScreen
from inspector.ui.screens.help import HelpScreen
from inspector.ui.screens.notes import NotesScreen
from inspector.ui.screens.presets import PresetsScreen
from inspector.ui.screens.save_settings import SaveSettingsScreen
from inspector.ui.screens.why import WhyScreen

from .conftest import screen_text, settle

DEMO_CHAT = Path(__file__).resolve().parents[2] / "inspector" / "demo" / "demo.chat"
LABEL = "demo.chat (bundled demo)"  # the path would differ from one checkout to the next

pytestmark = pytest.mark.frames


def pinned_app(make_app, **kwargs):
    app = make_app(DEMO_CHAT, label=LABEL, **kwargs)
    app.editor_wait = 0
    return app


@pytest.mark.slow  # the pinned pictures: CI's thorough pass compares them
def test_snapshot_the_demo_at_120x40(make_app, snap_compare):
    async def loaded(pilot):
        await settle(pilot.app, pilot)

    assert snap_compare(pinned_app(make_app), terminal_size=(120, 40), run_before=loaded)


@pytest.mark.slow  # the pinned pictures: CI's thorough pass compares them
def test_snapshot_why_under_2_1(make_app, snap_compare):
    async def why(pilot):
        await settle(pilot.app, pilot)
        pilot.app.chat.open_why("reconnect_backoff_ms")
        await settle(pilot.app, pilot)

    assert snap_compare(pinned_app(make_app, scout_version="2.1"), terminal_size=(120, 40), run_before=why)


@pytest.mark.slow  # the pinned pictures: CI's thorough pass compares them
def test_snapshot_ab_after_a_version_switch_at_80x24(make_app, snap_compare):
    async def compare(pilot):
        await settle(pilot.app, pilot)
        await pilot.press("b")
        await settle(pilot.app, pilot)
        await pilot.press("V")
        await settle(pilot.app, pilot)

    assert snap_compare(pinned_app(make_app), terminal_size=(80, 24), run_before=compare)


SCREENS = [
    ("question_mark", HelpScreen, "keys"),
    ("i", NotesScreen, "previous_response_id"),
    ("a", AuditScreen, "Audit"),
    ("e", ExportScreen, "Export"),
    ("W", SaveSettingsScreen, "Save"),
    ("p", PresetsScreen, "Presets"),
    ("f", FilterScreen, "Filter"),
]


@pytest.mark.slow  # every dialog drawn for real: the thorough pass
async def test_every_screen_draws_for_real(make_app):
    app = pinned_app(make_app)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        main = screen_text(app)
        assert "183 -> 90 sent" in main
        for key, kind, text in SCREENS:
            await pilot.press(key)
            await settle(app, pilot)
            assert isinstance(app.screen, kind), (key, type(app.screen).__name__)
            drawn = screen_text(app)
            assert text.lower() in drawn.lower(), (key, kind.__name__)
            await pilot.press("escape")
            await settle(app, pilot)
            assert app.screen is app.chat, key
        app.chat.open_why("reconnect_backoff_ms: 7350")
        await settle(app, pilot)
        assert isinstance(app.screen, WhyScreen)
        assert "HIDDEN" in screen_text(app)
