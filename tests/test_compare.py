"""Compare two settings: exactly the messages whose tier or visible text differs."""

from pathlib import Path

from forget_chats import call, filler, inspection, middle, out

from inspector.core.analysis.compare import compare
from inspector.core.analysis.replan import apply
from inspector.core.inspection import open_inspection
from inspector.core.scout.tool_facts import chars_of
from inspector.core.setup import Setup

SAMPLE = Path(__file__).resolve().parent.parent / "sample_chats" / "debug_session.json"


def brute(ins, a, b):
    pa, pb = ins.prompt(a), ins.prompt(b)
    out = []
    for i in range(len(ins.chat.messages)):
        va = None if pa.error else pa.visible_content(i)
        vb = None if pb.error else pb.visible_content(i)
        if pa.tier_of(i) != pb.tier_of(i) or va != vb:
            out.append((i, pa.tier_of(i), pb.tier_of(i), chars_of(va), chars_of(vb)))
    return out


def test_same_settings_no_changes():
    ins = open_inspection(SAMPLE, Setup.of(config_files=[], env={}))
    result = compare(ins, ins.thresholds, ins.thresholds)
    assert result.changes == [] and result.totals_a == result.totals_b


def test_changes_match_a_message_by_message_comparison():
    ins = open_inspection(SAMPLE, Setup.of(config_files=[], env={}))
    for changes in (
        {"full_tool_outputs": 40},
        {"max_tool_chars": 50_000},
        {"max_tool_calls": 60},
        {"max_tool_outputs": 20, "full_tool_calls": 30},
    ):
        a, b = ins.thresholds, apply(ins.thresholds, changes)
        result = compare(ins, a, b)
        got = [(c.message, c.tier_a, c.tier_b, c.chars_a, c.chars_b) for c in result.changes]
        assert got == brute(ins, a, b)
        assert result.totals_b.chars_after - result.totals_a.chars_after == sum(c.delta for c in result.changes)


def test_truncated_to_full_has_the_size_change():
    items = [call("r", "c0", {}), out("r", "c0", middle()), *filler(3)]
    ins = inspection(items, full_tool_outputs=1, max_tool_chars=1)
    result = compare(ins, ins.thresholds, apply(ins.thresholds, {"full_tool_outputs": 10}))
    change = next(c for c in result.changes if c.message == 1)
    assert (change.tier_a, change.tier_b) == ("truncated", "full")
    assert change.chars_b == len(items[1]["content"]) and change.delta > 0


def test_follow_rule_in_apply():
    ins = open_inspection(SAMPLE, Setup.of(config_files=[], env={}))
    t = apply(ins.thresholds, {"max_tool_calls": 5})
    assert t["max_tool_outputs"] == 5
    t = apply(ins.thresholds, {"max_tool_outputs": 7, "max_tool_calls": 5})
    assert (t["max_tool_calls"], t["max_tool_outputs"]) == (5, 7)
