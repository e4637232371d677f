"""why fixes that make sense: a split call/output pair is named, pair-keeping fixes, costs, the context window."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from forget_chats import FACT, call, filler, inspection, out
from helpers import budgets

from inspector.core.analysis.fixes import RAISE, find_fixes
from inspector.core.analysis.replan import Replanner
from inspector.core.analysis.trace import trace
from inspector.core.setup import Setup

ROOT = Path(__file__).resolve().parent.parent


def pair_chat() -> list[dict]:
    """The oldest pair holds the fact; three newer pairs. With max_tool_calls=1 (outputs following)
    and a budget of 1, everything older than the newest output is dropped."""
    return [call("read", "c0", {"q": "x"}), out("read", "c0", FACT + " " + "y" * 100), *filler(3)]


THRESHOLDS = {"full_tool_outputs": 0, "max_tool_calls": 1, "max_tool_chars": 1}


def sent_chars(ins, key, value, tools_only=False) -> int:
    """Characters of the prepared messages, counted independently of the plan's own totals."""
    prompt = Replanner(ins).at(key, value)
    kinds = ("function_call", "function_call_output")
    return sum(
        len(m.fields["content"])
        for m in prompt.messages()
        if isinstance(m.fields.get("content"), str) and (not tools_only or m.fields["role"] in kinds)
    )


def test_a_fix_that_drops_the_call_says_so_and_pair_fixes_keep_both():
    items = pair_chat()
    ins = inspection(items, **THRESHOLDS)
    [o] = trace(ins, FACT).occurrences
    assert (o.message, o.tier, o.visible) == (1, "dropped", False)
    report = find_fixes(ins, o)
    fixes = {(f.key, f.direction): f for f in report.fixes}
    assert sorted(fixes) == [
        ("full_tool_outputs", RAISE),
        ("max_tool_calls", RAISE),
        ("max_tool_chars", RAISE),
        ("max_tool_outputs", RAISE),
    ]
    # the output is the 4th newest: kept whole from full_tool_outputs=5 on, while its call stays dropped
    full = fixes[("full_tool_outputs", RAISE)]
    assert (full.value, full.holds_to, full.tier, full.partner, full.partner_tier) == (5, None, "full", 0, "dropped")
    assert full.breaks_pair
    assert "but its call (#0) is dropped: the pair is split" in full.describe()
    # max_tool_outputs alone: the output is sent (nothing long enough to shorten), the call is not
    alone = fixes[("max_tool_outputs", RAISE)]
    assert (alone.value, alone.partner_tier, alone.breaks_pair) == (4, "dropped", True)
    # max_tool_calls moves both maxima (max_tool_outputs follows it): the pair is sent together
    both = fixes[("max_tool_calls", RAISE)]
    assert (both.value, both.partner_tier, both.breaks_pair) == (4, "full", False)
    # the budget: the output is under it once everything newer fits; its call needs the output's characters too
    newer = sum(len(items[i]["content"]) for i in range(2, 8))
    budget = fixes[("max_tool_chars", RAISE)]
    assert (budget.value, budget.breaks_pair) == (newer + 1, True)
    pairs = {(f.key, f.direction): f for f in report.pair_fixes}
    assert sorted(pairs) == [("max_tool_calls", RAISE), ("max_tool_chars", RAISE)]
    assert pairs[("max_tool_calls", RAISE)].value == 4
    assert pairs[("max_tool_chars", RAISE)].value == newer + len(items[1]["content"]) + 1
    assert not any(f.breaks_pair for f in report.pair_fixes)


def test_fix_costs_are_in_the_headers_units():
    ins = inspection(pair_chat(), **THRESHOLDS)
    [o] = trace(ins, FACT).occurrences
    for fix in find_fixes(ins, o).fixes:
        assert fix.prompt_chars == sent_chars(ins, fix.key, fix.value)
        assert fix.tool_chars == sent_chars(ins, fix.key, fix.value, tools_only=True)
        assert fix.tokens == (fix.prompt_chars + 3) // 4
        assert fix.exceeds_window is None  # no window set


def test_context_window_flags_the_fixes_that_exceed_it():
    ins = inspection(pair_chat(), **THRESHOLDS)
    [o] = trace(ins, FACT).occurrences
    fixes = find_fixes(ins, o, context_window=400).fixes
    over = {f.key: f.exceeds_window for f in fixes}
    assert over == {f.key: f.tokens > 400 for f in fixes}
    assert over == {
        "full_tool_outputs": True,
        "max_tool_calls": False,
        "max_tool_outputs": False,
        "max_tool_chars": True,
    }
    [flagged] = [f for f in fixes if f.key == "max_tool_chars"]
    assert flagged.describe().endswith(
        f"~{flagged.tokens:,} tokens, would exceed the 400-token context window; "
        "but its call (#0) is dropped: the pair is split"
    )


def run(*args):
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_TOOL_CALLS", "_TOOL_OUTPUTS", "_TOOL_CHARS"))}
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run(
        [sys.executable, "-m", "inspector", *map(str, args), "--no-scout-config"],
        capture_output=True,
        text=True,
        env=env,
    )


def test_why_json_keeps_the_fix_fields_and_adds_pair_fixes(tmp_path):
    chat = tmp_path / "pair.json"
    chat.write_text(json.dumps(pair_chat()))
    sets = [a for k, v in THRESHOLDS.items() for a in ("--set", f"{k}={v}")]
    r = run("why", chat, FACT, "--format", "json", "--context-window", "400", *sets)
    assert r.returncode == 0, r.stderr
    [row] = json.loads(r.stdout)
    first = row["fixes"][0]
    assert list(first)[:3] == ["key", "value", "prompt_chars"]
    assert {"tool_chars", "tokens", "partner", "partner_tier", "breaks_pair", "exceeds_window"} <= set(first)
    full = next(f for f in row["fixes"] if f["key"] == "full_tool_outputs")
    assert (full["value"], full["breaks_pair"], full["partner"], full["context_window"]) == (5, True, 0, 400)
    assert [(f["key"], f["breaks_pair"]) for f in row["pair_fixes"]] == [
        ("max_tool_calls", False),
        ("max_tool_chars", False),
    ]
    r = run("why", chat, FACT, *sets)
    assert "    single changes that send it with its call or output:" in r.stdout.splitlines()
    r = run("why", chat, FACT, "--context-window", "0")
    assert r.returncode == 2 and "expected a positive number of tokens" in r.stderr


@pytest.mark.parametrize("chats", budgets(20, quick=8))
def test_closed_form_equals_the_full_walk_on_random_chats(monkeypatch, chats):
    """The closed form's fixes (checked on real plans) equal walking every distinct plan, and it never
    needs the fallback: compared on every hidden tool text of 20 generated chats (8 in the quick suite)."""
    import random

    import chatgen

    from inspector.core.analysis import fixes as F

    closed = F._closed_form
    fallbacks, compared = [], 0
    for seed in range(chats):
        rng = random.Random(seed)
        items = chatgen.chat(seed, messages=30, scale=rng.choice([300, 2000]), extras=False, traps=seed % 3 == 1)
        values = {
            "full_tool_calls": rng.randint(0, 3),
            "full_tool_outputs": rng.randint(0, 4),
            "max_tool_calls": rng.randint(0, 10),
            "max_tool_chars": rng.choice([0, 300, 1500, 8000]),
        }
        ins = inspection(items, **values)
        for m, item in enumerate(items):
            content = item.get("content")
            if not (isinstance(content, str) and len(content) > 20 and item["role"].startswith("function")):
                continue
            needle = content[len(content) // 2 : len(content) // 2 + 6]
            for o in [o for o in trace(ins, needle).occurrences if not o.visible and o.message == m][:1]:

                def watched(*args, where=(seed, m), **kwargs):
                    found = closed(*args, **kwargs)
                    if found is None:
                        fallbacks.append(where)
                    return found

                monkeypatch.setattr(F, "_closed_form", watched)
                fast = find_fixes(ins, o, Replanner(ins))
                monkeypatch.setattr(F, "_closed_form", lambda *args, **kwargs: None)
                walked = find_fixes(ins, o, Replanner(ins))
                assert [(f.key, f.direction, f.value, f.holds_to) for f in fast.fixes] == [
                    (f.key, f.direction, f.value, f.holds_to) for f in walked.fixes
                ], (seed, m)
                assert fast.blocked == walked.blocked
                compared += 1
    assert fallbacks == []
    assert compared > (100 if chats == 20 else 35)


def test_the_split_partner_is_named_by_its_row_number_on_the_demo():
    # the demo has consumed rows (meta, previous_response_id) before its first call, so the call's
    # message index (2) and its `#` row (3) differ: the fix must name the row every view shows
    from inspector.core.inspection import open_inspection
    from inspector.demo import demo_chat_path

    ins = open_inspection(str(demo_chat_path()), Setup.of(config_files=[], env={}))
    [o] = trace(ins, "reconnect_backoff_ms").occurrences
    full = next(f for f in find_fixes(ins, o).fixes if f.key == "full_tool_outputs")
    assert (o.row, full.partner, full.partner_row) == (4, 2, 3)
    assert full.describe().endswith("but its call (#3) is dropped: the pair is split")
