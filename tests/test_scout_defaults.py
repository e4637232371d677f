"""scout-ai's defaults have one source (settings.DEFAULTS); the strategy modules' defaults are derived from
it, and all of them agree with what the scout-ai reference states."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from inspector.core.scout import settings
from inspector.core.scout.strategies import shorten_tools_epoch as epoch
from inspector.core.scout.strategies import shorten_tools_epoch_increment as increment

REFERENCE = Path("/work/shared/spec/scout-ai-reference.md")

# What the reference states (§4.2's constants, the tables of §4.3 and §4.5), pinned here too so the
# check does not depend on the reference being on this machine.
STATED: dict[str, int | float] = {
    "full_tool_calls": 0,
    "full_tool_outputs": 10,
    "max_tool_calls": 40,
    "max_tool_outputs": 40,
    "max_tool_chars": 100_000,
    "epoch_tool_call_threshold": 50,
    "epoch_full_tool_calls": 20,
    "epoch_compacted_tool_calls": 80,
    "epoch_size": 20,
    "epoch_increment_epochs_per_increase": 3,
    "epoch_increment_size_increase": 10,
    "epoch_increment_repeat_increase": 10,
    "epoch_increment_max_size": 60,
    "epoch_increment_compacted_growth_ratio": 2.0,
    "epoch_increment_max_compacted_tool_calls": 160,
}

_TABLE_ROW = re.compile(r"^\|\s*`([a-z_]+)`\s*\|\s*([0-9][0-9_ ]*(?:\.[0-9]+)?)\s*\|\s*$")
_CONSTANT = re.compile(r"`([a-z_]+)` (?:= `[a-z_]+` setting or )?([0-9][0-9 ]*(?:\.[0-9]+)?)(?=[,.]|$)")


def _number(text: str) -> int | float:
    text = text.replace(" ", "").replace("_", "")
    return float(text) if "." in text else int(text)


def stated_in_reference(text: str) -> dict[str, int | float]:
    """Every `| `key` | value |` row of a key/default table, and the shorten_tools "Constants:" line."""
    found: dict[str, int | float] = {}
    for line in text.splitlines():
        row = _TABLE_ROW.match(line.strip())
        if row and row.group(1) in settings.SETTING_KEYS:
            found[row.group(1)] = _number(row.group(2))
        elif line.strip().startswith("- Constants:") and "full_tool_calls" in line:
            for key, value in _CONSTANT.findall(line):
                if key in settings.SETTING_KEYS:
                    found[key] = _number(value)
    return found


def test_the_reader_reads_tables_and_the_constants_line():
    text = (
        "| key | default |\n|---|---|\n| `epoch_size` | 20 |\n| `epoch_increment_compacted_growth_ratio` | 2.0 |\n"
        "- Constants: `full_tool_calls` 0, `max_tool_outputs` = `max_tool_calls` setting or 40, `max_tool_chars` 100 000.\n"
    )
    assert stated_in_reference(text) == {
        "epoch_size": 20,
        "epoch_increment_compacted_growth_ratio": 2.0,
        "full_tool_calls": 0,
        "max_tool_outputs": 40,
        "max_tool_chars": 100_000,
    }


@pytest.mark.skipif(not REFERENCE.is_file(), reason="the scout-ai reference is not on this machine")
def test_the_pinned_values_are_the_references():
    stated = stated_in_reference(REFERENCE.read_text(encoding="utf-8"))
    assert set(stated) == set(settings.SETTING_KEYS)  # it states every one
    assert stated == STATED
    assert all(type(stated[k]) is type(STATED[k]) for k in STATED)  # the ratio a float, the rest integers


def test_settings_defaults_are_the_stated_ones():
    assert settings.DEFAULTS == STATED
    assert type(settings.DEFAULTS["epoch_increment_compacted_growth_ratio"]) is float


def test_the_strategies_defaults_are_derived_from_settings():
    assert {key: STATED[key] for key in settings.EPOCH_KEYS} == epoch.DEFAULTS
    assert {key: STATED[key] for key in settings.EPOCH_KEYS + settings.INCREMENT_KEYS} == increment.DEFAULTS
    # the dataclasses' own defaults, field by field in the modules' key order
    fields = [f.default for f in dataclasses.fields(epoch.EpochSettings)]
    assert fields == list(epoch.DEFAULTS.values())
    fields = [f.default for f in dataclasses.fields(increment.IncrementSettings)]
    assert fields == list(increment.DEFAULTS.values())
    assert increment.IncrementSettings.from_values({}) == increment.IncrementSettings()


def test_resolving_nothing_gives_the_dataclass_defaults():
    thresholds = settings.resolve({}, env={}, config_files=[])
    assert epoch.EpochSettings.of(thresholds) == epoch.EpochSettings()
    assert increment.IncrementSettings.of(thresholds) == increment.IncrementSettings()
