"""Loading stored chats from the command line: samples, export formats, and bad input (exit 2, one line)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_runner import run_cli

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_chats"


def run(*args, cwd=None, timeout=None):
    if timeout is None:
        return run_cli(*args, cwd=cwd or ROOT, text=False, scout_config=False)
    # in a process, so a regression to super-linear parsing fails at the timeout instead of hanging
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_TOOL_CALLS", "_TOOL_OUTPUTS", "_TOOL_CHARS"))}
    return subprocess.run(
        [sys.executable, "-m", "inspector", *map(str, args), "--no-scout-config"],
        capture_output=True,
        cwd=cwd or ROOT,
        env={**env, "PYTHONPATH": str(ROOT)},
        timeout=timeout,
    )


@pytest.mark.parametrize("name", ["debug_session.chat", "debug_session.openai.json", "debug_session.anthropic.json"])
def test_every_format_of_the_long_session_prepares_like_the_json_sample(name):
    expected = run("prepare", SAMPLES / "debug_session.json")
    got = run("prepare", SAMPLES / name)
    assert got.returncode == 0 and got.stdout == expected.stdout


def test_long_session_truncates_and_drops_the_early_fact():
    result = run("explain", SAMPLES / "debug_session.chat", "--format", "json")
    rows = json.loads(result.stdout)["rows"]
    tiers = {r["tier"] for r in rows}
    assert {"truncated", "dropped", "consumed"} <= tiers
    outputs = [r for r in rows if r["role"] == "function_call_output"]
    assert len(outputs) > 40 and outputs[0]["tier"] == "dropped"
    assert sum(r["original_chars"] for r in rows if r["role"] in ("function_call", "function_call_output")) > 100_000
    assert "reconnect_backoff_ms: 7350" in (SAMPLES / "debug_session.chat").read_text(encoding="utf-8")


def test_explain_lists_consumed_messages_with_step_and_line_and_hazards():
    result = run("explain", SAMPLES / "directives.chat", "--format", "json")
    rows = json.loads(result.stdout)["rows"]
    consumed = [(r["role"], r["reason"], r["line"]) for r in rows if r["tier"] == "consumed"]
    assert ("clear", "clear", 16) in consumed and ("meta", "meta", 27) in consumed
    assert ("file", "file", 25) in consumed
    traps = run("explain", SAMPLES / "traps.chat")
    out = traps.stdout.decode()
    assert "findings:\n  line 8: `[[` at line 8" in out and "  line 21: <thinking> at line 21" in out
    assert "never closes (an odd number of ``` fence lines)" in out
    as_json = run("explain", SAMPLES / "traps.chat", "--format", "json")
    findings = json.loads(as_json.stdout)["findings"]
    assert [(f["kind"], f["line"]) for f in findings][:2] == [("square_block", 8), ("xml_block", 21)]
    assert findings[0]["message"].startswith("`[[` at line 8") and as_json.stderr == b""
    err = run("prepare", SAMPLES / "traps.chat").stderr.decode()  # the other commands note them on stderr
    assert "traps.chat:8: `[[` at line 8" in err and "traps.chat:21: <thinking> at line 21" in err


def test_directives_sample_uses_the_chats_strategy_and_config():
    result = run("thresholds", SAMPLES / "directives.chat", "--format", "json")
    data = json.loads(result.stdout)
    assert data["max_tool_chars"]["value"] == 30000 and data["max_tool_chars"]["source"] == "chat"
    assert data["full_tool_outputs"]["source"] != "chat"  # its config line stood before the clear


def test_old_tool_shapes_load_as_stored():
    result = run("prepare", SAMPLES / "old_tools.chat")
    messages = json.loads(result.stdout)
    assert '"type":"function","function"' in messages[3]["content"]
    assert '"role":"tool"' in messages[2]["content"]


@pytest.mark.parametrize("fmt", ["chat", "responses", "jsonl", "json"])
def test_prepare_formats(tmp_path, fmt):
    result = run("prepare", SAMPLES / "directives.chat", "--format", fmt)
    assert result.returncode == 0 and result.stdout
    if fmt == "chat":
        path = tmp_path / "again.chat"
        path.write_bytes(result.stdout)
        assert run("prepare", path).stdout == run("prepare", SAMPLES / "directives.chat").stdout


def test_the_chat_file_is_never_modified():
    before = hashlib.sha256((SAMPLES / "traps.chat").read_bytes()).hexdigest()
    run("explain", SAMPLES / "traps.chat")
    run("prepare", SAMPLES / "traps.chat", "--format", "chat")
    assert hashlib.sha256((SAMPLES / "traps.chat").read_bytes()).hexdigest() == before


BAD = [
    ("binary.chat", b"user: x\n\x00\x01\x02", "binary file", ":2:"),
    ("empty.chat", b"", "empty file", None),
    ("blank.json", b"  \n\n", "empty file", None),
    ("truncated.json", b'[{"role": "user",\n "content": "x"', "invalid JSON", ":2:"),
    ("object.json", b'{"hello": 1}', "expected a JSON array", ":1:"),
    ("number.json", b"42", "expected a JSON array", ":1:"),
    ("words.txt", b"no headers here\n", "not a chat in any known format", None),
    ("bad.jsonl", b'{"role":"user","content":"x"}\n[1]\n', "not a message object", ":2:"),
    ("import.chat", b"user: x\nimport: missing.chat\n", "not found", ":2:"),
]


@pytest.mark.parametrize("name,data,fragment,where", BAD)
def test_bad_input_is_one_line_exit_2(tmp_path, name, data, fragment, where):
    path = tmp_path / name
    path.write_bytes(data)
    result = run("prepare", path)
    err = result.stderr.decode()
    assert result.returncode == 2, err
    assert err.count("\n") == 1 and err.startswith(f"prompt-inspector: error: {path}")
    assert fragment in err and "Traceback" not in err
    if where:
        assert f"{path}{where}" in err


def test_unknown_roles_load_with_a_note(tmp_path):
    path = tmp_path / "roles.json"
    path.write_text('[{"role":"narrator","content":"x"},{"role":"user","content":"y"}]', encoding="utf-8")
    result = run("prepare", path)
    assert result.returncode == 0
    assert "role `narrator`" in result.stderr.decode()


@pytest.mark.slow  # a process on a huge chat: the thorough pass
def test_huge_single_line_scout_chat_loads_quickly(tmp_path):
    path = tmp_path / "huge.chat"
    path.write_text("user:\n<a " + "x:-- " * 300_000 + "\n[[" + "]" * 1000 + ":--" * 200_000 + "\n", encoding="utf-8")
    result = run("explain", path, timeout=60)
    assert result.returncode == 0
