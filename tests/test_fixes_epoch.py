"""why fixes for the epoch strategies: the smallest single change of an epoch setting, found by re-planning."""

import json

import pytest
from cli_runner import run_cli
from forget_chats import FACT, call, filler, middle, out

from inspector.core.analysis import fixes as fixes_module
from inspector.core.analysis.fixes import LOWER, RAISE, _Target, find_fixes, searched_keys
from inspector.core.analysis.replan import Replanner
from inspector.core.analysis.trace import trace
from inspector.core.inspection import Inspection
from inspector.core.model import Chat, Message
from inspector.core.scout.settings import EPOCH_KEYS, INCREMENT_KEYS, KEYS, resolve
from inspector.core.setup import Setup

# one read with the fact in the middle of its output, then twelve newer pairs: 13 outputs, 26 tool messages
ITEMS = [
    {"role": "user", "content": "go"},
    call("read", "c0", {"q": "x"}),
    out("read", "c0", middle()),
    *filler(12, 300),
]
SMALL = {"epoch_tool_call_threshold": 4, "epoch_full_tool_calls": 2, "epoch_compacted_tool_calls": 3, "epoch_size": 2}
INTEGER_INCREMENT_KEYS = tuple(k for k in INCREMENT_KEYS if k != "epoch_increment_compacted_growth_ratio")


def inspection(strategies: str, **values) -> Inspection:
    chat = Chat([Message(dict(m)) for m in ITEMS])
    thresholds = resolve({k: str(v) for k, v in {**SMALL, **values}.items()}, config_files=[], env={})
    return Inspection(chat, thresholds, Setup(strategies=strategies))


def shows(ins, occurrence, key, value) -> bool:
    return _Target(ins, occurrence).visible(Replanner(ins).at(key, value))


def summary(report) -> set[tuple[str, str, int, int | None, str]]:
    return {(f.key, f.direction, f.value, f.holds_to, str(f.tier)) for f in report.fixes}


def test_the_settings_searched_are_those_the_strategies_read():
    assert searched_keys(["shorten_tools"]) == (KEYS, ())
    assert searched_keys(["shorten_tools_epoch"]) == ((), EPOCH_KEYS)
    assert searched_keys(["shorten_tools_epoch_increment", "inbox"]) == ((), EPOCH_KEYS + INTEGER_INCREMENT_KEYS)
    assert searched_keys(["shorten_tools", "shorten_tools_epoch"]) == (KEYS, EPOCH_KEYS)
    assert searched_keys(["none"]) == (KEYS, ())  # nothing known to search: the old default, which finds nothing


def test_epoch_fixes_exact():
    ins = inspection("shorten_tools_epoch")
    [o] = trace(ins, FACT).occurrences
    assert (o.visible, str(o.tier)) == (False, "dropped")
    report = find_fixes(ins, o)
    assert report.keys == EPOCH_KEYS
    assert summary(report) == {
        ("epoch_tool_call_threshold", RAISE, 13, None, "full"),  # 13 outputs <= threshold: the strategy leaves all
        ("epoch_full_tool_calls", RAISE, 12, None, "full"),
        ("epoch_size", LOWER, 0, None, "full"),  # epoch_size <= 0 turns the strategy off
    }
    assert report.keys_without_fix() == ["epoch_compacted_tool_calls"]
    assert report.notes == [] and report.blocked is None
    for fix in report.fixes:
        assert fix.current == SMALL[fix.key]
        assert fix.prompt_chars == 7826 and fix.delta_chars == 4791
        assert shows(ins, o, fix.key, fix.value)
        assert not shows(ins, o, fix.key, fix.value + (-1 if fix.direction == RAISE else 1))


def test_epoch_increment_fixes_exact():
    ins = inspection("shorten_tools_epoch_increment")
    [o] = trace(ins, FACT).occurrences
    assert (o.visible, str(o.tier)) == (False, "truncated")
    report = find_fixes(ins, o)
    assert report.keys == EPOCH_KEYS + INTEGER_INCREMENT_KEYS
    assert summary(report) == {
        ("epoch_tool_call_threshold", RAISE, 13, None, "full"),
        ("epoch_full_tool_calls", RAISE, 10, None, "full"),
        ("epoch_size", LOWER, 0, None, "full"),
    }
    assert "epoch_increment_max_size" in report.keys_without_fix()
    for fix in report.fixes:
        assert shows(ins, o, fix.key, fix.value)
        assert not shows(ins, o, fix.key, fix.value + (-1 if fix.direction == RAISE else 1))


def test_the_closed_form_is_not_capped(monkeypatch):
    monkeypatch.setattr(fixes_module, "EPOCH_SPAN", 5)  # the span caps only the walk over real plans
    ins = inspection("shorten_tools_epoch")
    [o] = trace(ins, FACT).occurrences
    report = find_fixes(ins, o)
    assert ("epoch_tool_call_threshold", RAISE, 13, None, "full") in summary(report)
    assert report.notes == []


def test_a_capped_range_is_said(monkeypatch):
    monkeypatch.setattr(fixes_module, "EPOCH_SPAN", 5)
    monkeypatch.setattr(fixes_module, "_window_outcome", lambda *a: None)  # as for a chain: real plans only
    ins = inspection("shorten_tools_epoch")
    [o] = trace(ins, FACT).occurrences
    report = find_fixes(ins, o)
    # threshold 4: searched 5..9 only, 13 is out of reach; full 2: 3..7, 12 out of reach
    assert summary(report) == {("epoch_size", LOWER, 0, None, "full")}
    assert report.notes == [
        "epoch_tool_call_threshold: searched up to 9 only (5 values each way from 4; values up to 27 can matter):"
        " a fix further away is not shown, a run may go on past the end",
        "epoch_full_tool_calls: searched up to 7 only (5 values each way from 2; values up to 27 can matter):"
        " a fix further away is not shown, a run may go on past the end",
        "epoch_compacted_tool_calls: searched up to 8 only (5 values each way from 3; values up to 27 can matter):"
        " a fix further away is not shown, a run may go on past the end",
        "epoch_size: searched up to 7 only (5 values each way from 2; values up to 27 can matter):"
        " a fix further away is not shown, a run may go on past the end",
    ]


@pytest.mark.parametrize("strategies", ["shorten_tools_epoch", "shorten_tools_epoch_increment"])
def test_why_json_gives_the_epoch_fixes(tmp_path, strategies):
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps(ITEMS))
    sets = [a for k, v in SMALL.items() for a in ("--set", f"{k}={v}")]
    r = run_cli("why", chat, FACT, "--strategies", strategies, *sets, "--format", "json", scout_config=False)
    assert r.returncode == 0, r.stderr
    [row] = json.loads(r.stdout)
    fixes = {(f["key"], f["direction"], f["value"]) for f in row["fixes"]}
    full_calls = 12 if strategies == "shorten_tools_epoch" else 10
    assert fixes == {
        ("epoch_tool_call_threshold", "raise", 13),
        ("epoch_full_tool_calls", "raise", full_calls),
        ("epoch_size", "lower", 0),
    }
    first = next(f for f in row["fixes"] if f["key"] == "epoch_tool_call_threshold")
    assert set(first) == {
        "key", "value", "prompt_chars", "current", "direction", "delta_chars", "tier", "holds_to", "tool_chars",
        "tokens", "partner", "partner_tier", "partner_row", "breaks_pair", "context_window", "exceeds_window",
    }  # fmt: skip
    assert (first["current"], first["tier"], first["holds_to"], first["prompt_chars"]) == (4, "full", None, 7826)
    r = run_cli("why", chat, FACT, "--strategies", strategies, *sets, scout_config=False)
    assert "epoch_tool_call_threshold >= 13 (now 4; set epoch_tool_call_threshold=13): shown full" in r.stdout
