"""`calls`, `--at` and `why --timeline` from the command line: `prepare --at N` is `prepare` on the cut file."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import callgen
import pytest
from helpers import seeds

from inspector.cli.main import main
from inspector.core.calls.history import ChatHistory
from inspector.core.setup import Setup

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "inspector" / "demo" / "demo.chat"


@pytest.fixture(autouse=True)
def no_threshold_env(monkeypatch):
    """The thresholds of the chats alone: none from this process's environment."""
    for key in ("FULL_TOOL_CALLS", "FULL_TOOL_OUTPUTS", "MAX_TOOL_CALLS", "MAX_TOOL_OUTPUTS", "MAX_TOOL_CHARS"):
        monkeypatch.delenv(key, raising=False)


def run(capfdbinary, *args) -> tuple[int, bytes, str]:
    code = main([*map(str, args), "--no-scout-config"])
    out, err = capfdbinary.readouterr()
    return code, out, err.decode()


def _prepare_at_equals_prepare_of_the_cut_file(capfdbinary, path: Path, numbers) -> None:
    history = ChatHistory(path, Setup.of(config_files=[]))
    cut = path.with_name("cut_" + path.name)  # the same directory: imports and file lines resolve alike
    for number in numbers(len(history)):
        code, out, _ = run(capfdbinary, "prepare", path, "--at", number)
        cut.write_bytes(history.cut_bytes(number))
        expected_code, expected, _ = run(capfdbinary, "prepare", cut)
        assert (code, out) == (expected_code, expected), number


def _all(total: int):
    return range(1, total + 1)


def _shipped_chats() -> dict[str, Path]:
    """The sample chats and the bundled demo, one walk per distinct content: the demo ships as a copy of
    the debug session, and the same bytes (no imports) walk alike."""
    chats: dict[bytes, Path] = {}
    for path in [*sorted((ROOT / "sample_chats").glob("*.chat")), DEMO]:
        chats.setdefault(path.read_bytes(), path)
    return {path.name: path for path in chats.values()}


SHIPPED = _shipped_chats()


@pytest.mark.parametrize("name", list(SHIPPED))
def test_prepare_at_every_call_of_the_shipped_chats(tmp_path, capfdbinary, name):
    shutil.copytree(SHIPPED[name].parent, tmp_path / "s")  # with its directory: imports resolve alike
    _prepare_at_equals_prepare_of_the_cut_file(capfdbinary, tmp_path / "s" / name, _all)


@pytest.mark.parametrize("seed", seeds(8, quick=3))
def test_prepare_at_every_call_of_generated_chats(tmp_path, capfdbinary, seed):
    path = tmp_path / "gen.chat"
    path.write_text(callgen.scout_chat(300 + seed, directives=seed % 2 == 1), encoding="utf-8")
    _prepare_at_equals_prepare_of_the_cut_file(capfdbinary, path, _all)


def test_at_last_is_the_newest_call_and_bad_numbers_are_one_line(tmp_path, capfdbinary):
    code, last, _ = run(capfdbinary, "prepare", DEMO, "--at", "last")
    assert code == 0 and last == run(capfdbinary, "prepare", DEMO, "--at", 60)[1]
    for bad, what in (
        ("0", "--at 0: the chat has 60 call(s) (1-60)"),
        ("x", "--at 'x': a call number (1-60) or 'last'"),
    ):
        code, out, err = run(capfdbinary, "prepare", DEMO, "--at", bad)
        assert (code, out) == (2, b"") and err == f"prompt-inspector: error: {DEMO}: {what}\n"


def test_calls_lists_one_row_per_call(capfdbinary):
    code, out, _ = run(capfdbinary, "calls", DEMO)
    lines = out.decode().splitlines()
    assert code == 0 and lines[0] == f"60 call(s) in {DEMO}; tokens: o200k_base"
    assert lines[1].split() == [
        "call", "index", "line", "messages", "chars", "tokens", "reported", "full", "truncated", "dropped", "error",
        "undecided", "tool"
    ]  # fmt: skip
    assert lines[2].split() == ["1", "3", "12", "2", "154", "31", "1,250", "2", "0", "0", "0", "0", "read_file"]
    assert len(lines) == 62
    code, out, _ = run(capfdbinary, "calls", DEMO, "--format", "json")
    rows = json.loads(out)
    assert len(rows) == 60 and rows[29] == {
        "call": 30,
        "index": 90,
        "line": 192,
        "role": "function_call",
        "messages": 57,
        "chars": 107539,
        "tokens": rows[29]["tokens"],
        "reported_prompt_tokens": 11400,
        "reported_completion_tokens": 40,
        "reported_total_tokens": 11440,
        "unexplained_tokens": None,
        "full": 56,
        "truncated": 1,
        "dropped": 0,
        "error": 0,
        "undecided": 0,
        "tools": ["run_tests"],
        "raises": None,
    }


def test_explain_and_why_at_a_call(capfdbinary):
    code, out, _ = run(capfdbinary, "explain", DEMO, "--at", 30, "--format", "json")
    rows = json.loads(out)["rows"]
    assert code == 0 and len(rows) == 57 + sum(1 for r in rows if r["tier"] == "consumed")
    code, out, _ = run(capfdbinary, "why", DEMO, "reconnect_backoff_ms: 7350", "--at", 29)
    assert out.decode().splitlines()[0].endswith("the model sees every one.")


def test_why_timeline_answers_when_the_model_last_saw_the_backoff(capfdbinary):
    code, out, _ = run(capfdbinary, "why", DEMO, "reconnect_backoff_ms: 7350", "--timeline")
    text = out.decode()
    assert code == 0
    assert text.splitlines()[:3] == [
        "'reconnect_backoff_ms: 7350': 1 occurrence(s) in messages, over 60 call(s)",
        "",
        "#4  function_call_output  read_file  call_001, line 14",
    ]
    assert "last sent at call 29; at call 30: truncated: 26th newest output" in text
    assert text.splitlines()[4:7] == [
        "    calls 2-29: full, sent",
        "    calls 30-46: truncated, cut out",
        "    calls 47-60: dropped, not sent",
    ]
    code, out, _ = run(capfdbinary, "why", DEMO, "reconnect_backoff_ms: 7350", "--timeline", "--format", "json")
    (item,) = json.loads(out)
    assert (item["first_call"], item["last_seen"], item["hidden_from"]) == (2, 29, 30)
    assert item["after"]["call"] == 30 and item["after"]["tier"] == "truncated"


@pytest.mark.parametrize("name", ["debug_session.chat", "directives.chat", "traps.chat", "debug_session.json"])
def test_a_calls_index_is_the_explain_row_of_its_response(capfdbinary, name):
    """`index` is explain's row number: the explain row it names is the response's line and role."""
    path = ROOT / "sample_chats" / name
    code, out, _ = run(capfdbinary, "calls", path, "--format", "json")
    calls = json.loads(out)
    explained, out, _ = run(capfdbinary, "explain", path, "--format", "json")
    assert (code, explained) == (0, 0)
    rows = json.loads(out)["rows"]
    assert calls and all(c["index"] is None or rows[c["index"]]["index"] == c["index"] for c in calls)
    for c in calls:
        if c["index"] is not None:
            assert rows[c["index"]]["line"] == c["line"] and rows[c["index"]]["role"] == c["role"], c
