"""Issue 12: numbers as Ruby reads them (ASCII digits only, any length), --set integers only, safe lines."""

from __future__ import annotations

import pytest

from inspector.core.errors import UsageError
from inspector.core.present.sanitize import terminal_line
from inspector.core.scout.settings import HUGE, parse_assignments, read_config_files, resolve, ruby_to_i


@pytest.mark.parametrize(
    "text,value",
    [
        ("12", 12),
        ("  -3_000x", -3000),
        ("1__2", 1),
        ("١٢", 0),  # Arabic-Indic digits: Ruby's to_i reads 0
        ("１２", 0),  # full-width digits
        ("²", 0),
        ("0" * 10_000 + "5", 5),  # leading zeros do not count as digits
        ("9" * 4000, 10**4000 - 1),
        ("9" * 5000, HUGE),
        ("-" + "1" * 100_000, -HUGE),
        ("", 0),
    ],
)
def test_ruby_to_i(text, value):
    assert ruby_to_i(text) == value


def test_set_accepts_integers_only():
    assert parse_assignments(["max_tool_chars=12", "full_tool_calls= -3 ", "max_tool_calls=1_000"]) == {
        "max_tool_chars": "12",
        "full_tool_calls": "-3",
        "max_tool_calls": "1_000",
    }
    for bad in ("abc", "", "12abc", "١٢", "1.5", "nil"):
        with pytest.raises(UsageError, match="expects an integer"):
            parse_assignments([f"max_tool_chars={bad}"])


def test_a_huge_set_value_is_read_without_a_digit_limit_error():
    values = resolve(parse_assignments(["max_tool_chars=" + "5" * 100_000]), env={}, config_files=[])
    assert values["max_tool_chars"] == HUGE
    assert values.warnings[0].startswith("max_tool_chars='5555555555555555555555555555555555555555'... (100,000")


def test_priority_is_to_i_of_what_follows_the_double_colon(tmp_path):
    config = tmp_path / "config"
    config.write_text("max_tool_chars 9 prompt\nmax_tool_chars 7 prompt::²\nmax_tool_chars 8 context::x\n")
    entries, _ = read_config_files([config])
    assert [e.tokens for e in entries] == [{"prompt": None}, {"prompt": 0}, {"context": 0}]
    assert resolve(env={}, config_files=[config])["max_tool_chars"] == 7  # priority 0 beats 10; prompt before context


def test_terminal_line_shows_controls_and_cuts():
    line = terminal_line("a\x1b]52;c;x\x07\x9b\u202e\nb" + "z" * 5000)
    assert line.startswith("a␛]52;c;x␇\ufffd\ufffd↵bzzz")
    assert line.endswith("... (4,014 more characters)")
    assert len(line) < 1100


def test_values_for_sweeps_and_comparisons_are_ascii_integers_of_any_length():
    from inspector.core.analysis.replan import parse_value

    assert parse_value("max_tool_chars", "1,000") == 1000
    assert parse_value("max_tool_chars", "9" * 5000) == HUGE
    for bad in ("١٢", "x", ""):
        with pytest.raises(UsageError, match="needs an integer"):
            parse_value("max_tool_chars", bad)
