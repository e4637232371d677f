"""UI-free helpers the app relies on: sanitizing, wording, rows, presets."""

from __future__ import annotations

import json

import pytest

from inspector.core.inspection import open_inspection
from inspector.core.io.presets import PresetsError, delete_preset, load_presets, save_preset
from inspector.core.policies import decision as d
from inspector.core.present.sanitize import display_lines, display_text, one_line
from inspector.core.present.wording import explain_markers
from inspector.core.scout.decision_text import describe, ordinal
from inspector.core.setup import Setup

from .conftest import DEMO


def test_sanitize_makes_controls_visible():
    assert one_line("a\x1b[31mb\x00c\x07d\re\nf\tg") == "a␛[31mb␀c␇d␍e↵f g"
    assert display_text("x\ty\nz\u202e\x85\u2028") == "x\ty\nz\ufffd\ufffd␤"
    assert display_lines("a\tb\nc") == ["a   b", "c"]
    assert one_line("x" * 1000, 10) == "x" * 10


def test_sanitize_never_leaves_a_control_character():
    text = "".join(chr(c) for c in range(0x00, 0xA0))
    shown = one_line(text, 1000)
    assert not any(ord(ch) < 0x20 or 0x7F <= ord(ch) < 0xA0 for ch in shown)


def test_ordinals():
    assert [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111)] == [
        "1st",
        "2nd",
        "3rd",
        "4th",
        "11th",
        "12th",
        "13th",
        "21st",
        "22nd",
        "101st",
        "111th",
    ]


def test_describe_names_rule_and_counters():
    t = open_inspection(DEMO, Setup.of(config_files=[], env={})).thresholds
    dec = d.Decision(5, d.TRUNCATED, d.MIDDLE, 14, 131_204, 9000, 300, "output")
    assert describe(dec, t).startswith(
        "truncated: 14th newest output, beyond full_tool_outputs=10, "
        "tool characters before it 131,204 >= max_tool_chars 100,000"
    )
    dec = d.Decision(5, d.DROPPED, d.BEYOND_MAX, 41, 150_000, 9000, 0, "output")
    assert describe(dec, t).startswith("dropped: 41st newest output, beyond max_tool_outputs=40")
    dec = d.Decision(5, d.FULL, d.RECENT, 3, 0, 10, 10, "output")
    assert "within full_tool_outputs=10" in describe(dec, t)


def test_marker_explained():
    notes = explain_markers("Truncated (6435): abc<...6435 - ccf40...>def")
    assert notes and "6,435 characters" in notes[0] and "first 89 and the last 90" in notes[0]


def test_presets_round_trip_and_corrupt_file(tmp_path):
    path = tmp_path / "p" / "presets.json"
    values = {
        "full_tool_calls": 1,
        "full_tool_outputs": 2,
        "max_tool_calls": 3,
        "max_tool_outputs": 4,
        "max_tool_chars": 5,
    }
    save_preset("a", values, "none", path=path)
    assert load_presets(path) == {"a": {"thresholds": values, "strategies": "none"}}
    assert json.loads(path.read_text())["version"] == 1 and path.read_text().count("\n") > 5  # readable
    delete_preset("a", path=path)
    assert load_presets(path) == {}
    path.write_text('{"presets": {"x": {"thresholds": {"full_tool_calls": "1"}}}}')
    with pytest.raises(PresetsError):
        save_preset("b", values, path=path)
    assert 'full_tool_calls": "1"' in path.read_text()
