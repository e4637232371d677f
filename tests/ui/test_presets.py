"""Presets: saved in the user config dir (XDG_CONFIG_HOME here), loaded back; a corrupt file is kept."""

from __future__ import annotations

import json

from inspector.core.io.presets import presets_path
from inspector.ui.screens.presets import PresetsScreen

from .conftest import edit, settle


async def test_preset_round_trip(make_app, tmp_path):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await edit(app, pilot, "max_tool_chars", "30000")
        await edit(app, pilot, "full_tool_outputs", "4")
        await pilot.press("escape", "p")
        await pilot.pause()
        assert isinstance(app.screen, PresetsScreen)
        await pilot.press(*"tight", "enter")
        await pilot.pause()
        path = presets_path()
        assert str(path).startswith(str(tmp_path / "config"))
        data = json.loads(path.read_text())
        assert data["presets"]["tight"]["thresholds"] == {
            "full_tool_calls": 0,
            "full_tool_outputs": 4,
            "max_tool_calls": 40,
            "max_tool_outputs": None,  # it follows max_tool_calls, and the preset says so
            "max_tool_chars": 30000,
        }
        assert "saved 'tight'" in str(app.screen.query_one("#preset-message").render())
        await pilot.press("escape", "u")
        await settle(app, pilot)
        assert app.chat.thresholds["max_tool_chars"] == 100_000
        await pilot.press("p")
        await pilot.pause()
        app.screen.query_one("#preset-list").focus()
        await pilot.press("enter")  # the only preset is highlighted already
        await settle(app, pilot)
        assert not isinstance(app.screen, PresetsScreen)
        assert app.chat.thresholds["max_tool_chars"] == 30_000 and app.chat.thresholds["full_tool_outputs"] == 4
        assert app.chat.thresholds.values["max_tool_chars"].describe_source() == "preset (tight)"
        assert app.chat.document.totals.tool_chars_after < 105_037
        # the provenance survives stepping the calls, and ↑ on one value makes only that one the user's
        assert str(app.query_one("#summary").render()).splitlines()[0].endswith(" · 4 from preset tight")
        await pilot.press("<", "<")
        await settle(app, pilot)
        head = str(app.query_one("#summary").render()).splitlines()[0]
        assert "call 53 of 54" in head and head.endswith(" · 4 from preset tight")
        assert app.chat.document.thresholds.values["max_tool_chars"].describe_source() == "preset (tight)"
        await pilot.press("t")
        await settle(app, pilot)
        app.chat.editor.query_one("#th-full_tool_outputs").focus()
        await pilot.press("up")
        await settle(app, pilot, app.debounce + 0.05)
        head = str(app.query_one("#summary").render()).splitlines()[0]
        assert head.endswith(" · edited: full_tool_outputs · 3 from preset tight")
        assert app.chat.document.call == 53 and app.chat.document.thresholds["full_tool_outputs"] == 5


async def test_corrupt_presets_file_is_reported_and_left_untouched(make_app):
    path = presets_path()
    path.parent.mkdir(parents=True)
    path.write_text("{ this is not json")
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("p")
        await pilot.pause()
        message = str(app.screen.query_one("#preset-message").render())
        assert "not valid JSON" in message and "left untouched" in message
        await pilot.press(*"x", "enter")
        await pilot.pause()
        assert "nothing is saved" in str(app.screen.query_one("#preset-message").render())
        assert path.read_text() == "{ this is not json"


async def test_a_preset_keeps_max_tool_outputs_following_and_one_preset_loads_at_once(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await edit(app, pilot, "max_tool_calls", "5")
        assert app.chat.thresholds["max_tool_outputs"] == 5 and app.chat.thresholds.follows()
        await pilot.press("escape", "p")
        await pilot.pause()
        await pilot.press(*"five", "enter")
        await pilot.pause()
        assert "five: fc=0 fo=10 mc=5 mo=follows chars=100,000" in str(
            app.screen.query_one("#preset-list").get_option_at_index(0).prompt
        )
        await pilot.press("escape", "u")
        await settle(app, pilot)
        await pilot.press("p")
        await pilot.pause()
        await pilot.click("#load")  # one preset, nothing picked by hand: Load takes it
        await settle(app, pilot)
        assert not isinstance(app.screen, PresetsScreen)
        assert app.chat.thresholds["max_tool_calls"] == 5 and app.chat.thresholds.follows()
        await edit(app, pilot, "max_tool_calls", "7")
        assert app.chat.thresholds["max_tool_outputs"] == 7


async def test_a_deeply_nested_presets_file_is_one_line_not_a_crash(make_app):
    path = presets_path()
    path.parent.mkdir(parents=True)
    path.write_text('{"presets": ' + "[" * 200_000 + "]" * 200_000 + "}")  # under the 1 MiB limit
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("p")
        await pilot.pause()
        assert isinstance(app.screen, PresetsScreen)
        message = str(app.screen.query_one("#preset-message").render())
        assert "nested too deeply" in message and "left untouched" in message
