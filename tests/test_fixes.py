"""Fixes: the smallest single change that shows a hidden occurrence, found exactly."""

import json
from pathlib import Path

import pytest
from forget_chats import FACT, call, filler, inspection, middle, out
from helpers import seeds

from inspector.core.analysis.fixes import LOWER, RAISE, _Target, find_fixes, fixes_for_trace
from inspector.core.analysis.replan import Replanner, output_count
from inspector.core.analysis.trace import trace
from inspector.core.inspection import open_inspection
from inspector.core.model import Chat, Consumed, Message
from inspector.core.scout.settings import KEYS
from inspector.core.setup import Setup

SAMPLE = Path(__file__).resolve().parent.parent / "sample_chats" / "debug_session.json"


def visible_with(ins, occurrence, key, value) -> bool:
    rp = Replanner(ins)
    return _Target(ins, occurrence).visible(rp.at(key, value))


def assert_exact(ins, occurrence, fix):
    """The fix shows the occurrence, and one step less of the change does not."""
    assert visible_with(ins, occurrence, fix.key, fix.value)
    neighbour = fix.value - 1 if fix.direction == RAISE else fix.value + 1
    assert not visible_with(ins, occurrence, fix.key, neighbour)
    if fix.holds_to is not None:
        beyond = fix.holds_to + 1 if fix.direction == RAISE else fix.holds_to - 1
        assert visible_with(ins, occurrence, fix.key, fix.holds_to)
        assert not visible_with(ins, occurrence, fix.key, beyond)


def test_demo_fact_fixes():
    ins = open_inspection(SAMPLE, Setup.of(config_files=[], env={}))
    result = trace(ins, FACT)
    [report] = fixes_for_trace(ins, result)
    found = {(f.key, f.value, f.direction) for f in report.fixes}
    assert found == {("full_tool_outputs", 54, RAISE), ("max_tool_chars", 213862, RAISE)}
    for fix in report.fixes:
        assert_exact(ins, result.occurrences[0], fix)
        assert fix.prompt_chars > ins.prompt().totals().chars_after
        assert fix.tier == "full"


def test_middle_band_fix_by_count_and_budget():
    items = [call("read", "c0", {}), out("read", "c0", middle()), *filler(4)]
    ins = inspection(items, full_tool_outputs=1, max_tool_chars=1)
    [o] = trace(ins, FACT).occurrences
    report = find_fixes(ins, o)
    by_key = {f.key: f for f in report.fixes}
    assert by_key["full_tool_outputs"].value == 6  # it is the 5th newest output: kept whole once 5 < full_tool_outputs
    assert by_key["max_tool_chars"].value == ins.facts.prefix[ins.facts.position[1]] + 1
    assert "max_tool_calls" not in by_key  # raising the max only keeps it truncated
    for fix in report.fixes:
        assert_exact(ins, o, fix)


def window_chat():
    """An old call whose shortening raises (null arguments), then outputs; the fact opens output X.

    With max_tool_calls (outputs following) below X's count, X is dropped; from X's count up
    to the old call's count - 1, X is truncated with the fact in the kept head; from the old
    call's count on, the old call reaches the middle band and scout-ai raises: hidden again.
    """
    items = [
        {"role": "function_call", "content": json.dumps({"name": "x", "arguments": None, "id": "n"})},
        *filler(3),
        call("read", "cx", {}),
        out("read", "cx", FACT + "y" * 3000),
        *filler(3, start=10),
    ]
    return items


def test_fix_window_when_decisions_are_not_monotone():
    items = window_chat()
    ins = inspection(items, full_tool_outputs=0, max_tool_calls=1, max_tool_chars=1)
    [o] = [o for o in trace(ins, FACT).occurrences if o.message == 8]
    assert o.tier == "dropped"
    report = find_fixes(ins, o)
    [fix] = report.fixes_for("max_tool_calls")
    counted_x = ins.facts.outs[ins.facts.position[8]]
    counted_old = ins.facts.outs[ins.facts.position[0]]
    assert (fix.value, fix.direction, fix.holds_to) == (counted_x, RAISE, counted_old - 1)
    assert_exact(ins, o, fix)


def test_lowering_fix_when_a_larger_value_makes_scout_raise():
    ins = inspection(window_chat(), full_tool_outputs=0, max_tool_calls=40, max_tool_chars=1)
    [o] = [o for o in trace(ins, FACT).occurrences if o.message == 8]
    assert not o.visible  # scout-ai raises on the old call
    report = find_fixes(ins, o)
    lower = [f for f in report.fixes_for("max_tool_calls") if f.direction == LOWER]
    [fix] = lower
    assert fix.value == ins.facts.outs[ins.facts.position[0]] - 1
    assert_exact(ins, o, fix)


def test_no_single_threshold_can():
    items = [{"role": "user", "content": FACT}, {"role": "function_call_output", "content": "{broken"}]
    ins = inspection(items)
    [o] = trace(ins, FACT).occurrences
    report = find_fixes(ins, o)
    assert report.fixes == [] and report.blocked.startswith("no single threshold can")
    gone = Message({"role": "user", "content": FACT})
    chat = Chat([Message({"role": "user", "content": "hi"})], consumed=[Consumed(gone, "clear", "a clear", 0)])
    ins = inspection(None, chat=chat)
    [o] = trace(ins, FACT).occurrences
    assert "consumed" in find_fixes(ins, o).blocked


def brute_force(ins, occurrence, key, current, lo, hi):
    def ok(v):
        return visible_with(ins, occurrence, key, v)

    up = next((v for v in range(current + 1, hi + 1) if ok(v)), None)
    down = next((v for v in range(current - 1, lo - 1, -1) if ok(v)), None)
    return up, down


@pytest.mark.parametrize("seed", seeds(6, quick=2))
def test_fixes_match_brute_force_on_random_chats(seed):
    import random

    import chatgen

    rng = random.Random(seed)
    items = chatgen.chat(seed, messages=24, scale=700, extras=False, traps=seed % 2 == 1)
    values = {
        "full_tool_outputs": rng.randint(0, 3),
        "max_tool_calls": rng.randint(2, 8),
        "max_tool_chars": rng.choice([500, 1500, 3000]),
    }
    ins = inspection(items, **values)
    rp = Replanner(ins)
    hidden = []
    for m, item in enumerate(items):
        content = item.get("content")
        if isinstance(content, str) and len(content) > 40 and item["role"].startswith("function"):
            needle = content[len(content) // 2 : len(content) // 2 + 8]
            hidden += [o for o in trace(ins, needle).occurrences if not o.visible and o.message == m][:1]
    total = ins.facts.prefix[-1] + 1
    top = output_count(ins) + 1
    for o in hidden[:4]:
        report = find_fixes(ins, o, rp)
        if report.blocked and "raises on message" in report.blocked:
            continue
        for key in KEYS:
            current = ins.thresholds[key]
            hi = total if key == "max_tool_chars" else top
            up, down = brute_force(ins, o, key, current, 0, hi)
            got = {f.direction: f.value for f in report.fixes_for(key)}
            assert got.get(RAISE) == up, (key, o.message)
            assert got.get(LOWER) == down, (key, o.message)


def test_search_can_be_cancelled():
    from inspector.core.analysis.fixes import FixSearchCancelled

    ins = open_inspection(SAMPLE, Setup.of(config_files=[], env={}))
    [o] = trace(ins, FACT).occurrences
    with pytest.raises(FixSearchCancelled):
        find_fixes(ins, o, cancelled=lambda: True)
