"""CLI help and notes a new user reads first: one usage block, every --format explained, no double warning."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.cli.main import COMMANDS, main

DEMO = Path(__file__).resolve().parent.parent / "sample_chats" / "debug_session.json"


def test_help_has_one_usage_block_and_lists_the_commands(capsys):
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert out.count("usage:") == 1
    assert "commands (headless; 'prompt-inspector COMMAND --help' for each):" in out
    for command in COMMANDS:
        assert f"    {command}" in out


@pytest.mark.parametrize("command", COMMANDS)
def test_every_format_option_says_what_it_gives(command, capsys):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    out = capsys.readouterr().out
    assert "\n  --format" in out
    entry = out[out.index("\n  --format") + 1 :].split("\n  -")[0]
    assert "(default)" in " ".join(entry.split()), entry


def test_a_threshold_warning_is_printed_once(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("MAX_TOOL_CHARS", "100k")
    assert main(["explain", str(DEMO), "--no-scout-config", "-o", str(tmp_path / "out.txt")]) == 0
    captured = capsys.readouterr()
    line = "MAX_TOOL_CHARS='100k' from the environment is read by scout-ai as 100"
    assert (captured.out + captured.err).count(line) == 1
    assert main(["thresholds", "--no-scout-config"]) == 0
    captured = capsys.readouterr()
    assert captured.err == f"prompt-inspector: warning: {line}\n" and "warning" not in captured.out


def test_diff_without_settings_says_why_nothing_differs(capsys, monkeypatch):
    for name in ("FULL_TOOL_CALLS", "FULL_TOOL_OUTPUTS", "MAX_TOOL_CALLS", "MAX_TOOL_OUTPUTS", "MAX_TOOL_CHARS"):
        monkeypatch.delenv(name, raising=False)
    assert main(["diff", str(DEMO), "--no-scout-config"]) == 0
    captured = capsys.readouterr()
    assert "0 message(s) differ" in captured.out
    assert captured.err == (
        "prompt-inspector: note: A and B are the same setting, so nothing differs; "
        "give --a and/or --b, e.g. --b max_tool_chars=50000\n"
    )
