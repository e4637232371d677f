"""Presets keep every numeric setting (the epoch keys too); older presets with the five still load."""

import json

import pytest

from inspector.core.io.presets import PresetsError, load_presets, save_preset

FIVE = {
    "full_tool_calls": 0,
    "full_tool_outputs": 10,
    "max_tool_calls": 40,
    "max_tool_outputs": 40,
    "max_tool_chars": 9,
}


def test_epoch_settings_round_trip(tmp_path):
    path = tmp_path / "presets.json"
    values = {**FIVE, "epoch_size": 7, "epoch_increment_compacted_growth_ratio": 1.5}
    save_preset("e", values, "shorten_tools_epoch", path, scout_version="2.1")
    loaded = load_presets(path)["e"]
    assert loaded["thresholds"] == {**FIVE, "epoch_size": 7, "epoch_increment_compacted_growth_ratio": 1.5}
    assert loaded["strategies"] == "shorten_tools_epoch" and loaded["scout_version"] == "2.1"


def test_older_presets_load_and_bad_values_are_refused(tmp_path):
    path = tmp_path / "presets.json"
    path.write_text(json.dumps({"version": 1, "presets": {"old": {"thresholds": FIVE}}}))
    assert load_presets(path)["old"]["thresholds"] == FIVE and "scout_version" not in load_presets(path)["old"]
    path.write_text(json.dumps({"version": 1, "presets": {"bad": {"thresholds": {**FIVE, "epoch_size": "7"}}}}))
    with pytest.raises(PresetsError, match="epoch_size must be a number"):
        load_presets(path)
