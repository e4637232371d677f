"""Sweep: one re-plan per value; every row agrees with an explain run at that value."""

from pathlib import Path

import pytest

from inspector.core.analysis.sweep import parse_range, sweep
from inspector.core.errors import UsageError
from inspector.core.inspection import open_inspection
from inspector.core.present import explain_report as report
from inspector.core.scout.settings import KEYS
from inspector.core.setup import Setup

SAMPLE = Path(__file__).resolve().parent.parent / "sample_chats" / "debug_session.json"


def test_parse_range_includes_stop():
    assert parse_range("full_tool_outputs=0:10:5") == ("full_tool_outputs", [0, 5, 10])
    assert parse_range("MAX_TOOL_CHARS=1_000:3,000:1000") == ("max_tool_chars", [1000, 2000, 3000])
    assert parse_range("max_tool_calls=3:4") == ("max_tool_calls", [3, 4])
    assert parse_range("max_tool_calls=0:9:4")[1] == [0, 4, 8]
    ratio = "epoch_increment_compacted_growth_ratio"
    assert parse_range(f"{ratio}=0.1:0.3:0.1") == (ratio, [0.1, 0.2, 0.3])  # counted in decimals: 0.3 is in
    assert parse_range(f"{ratio}=1:2") == (ratio, [1.0, 2.0]) and parse_range(f"{ratio}=1e0:2e0:5e-1")[1] == [
        1.0,
        1.5,
        2.0,
    ]
    for bad in (
        "full_tool_outputs",
        "nope=1:2",
        "full_tool_outputs=1",
        "full_tool_outputs=5:1",
        "full_tool_outputs=0:5:0",
        "full_tool_outputs=a:b",
        "full_tool_outputs=0.5:2",
        "epoch_increment_compacted_growth_ratio=0.5:x",
        "epoch_increment_compacted_growth_ratio=2:1",
    ):
        with pytest.raises(UsageError):
            parse_range(bad)


@pytest.mark.parametrize(
    "key,values",
    [
        ("full_tool_outputs", [0, 7, 30, 60]),
        ("max_tool_calls", [0, 20, 45]),
        ("max_tool_outputs", [5, 41]),
        ("full_tool_calls", [0, 50]),
        ("max_tool_chars", [0, 99_999, 150_000, 400_000]),
    ],
)
def test_rows_match_individual_explain_runs(key, values):
    base = open_inspection(SAMPLE, Setup.of(config_files=[], env={}))
    rows = sweep(base, key, values)
    assert [r.value for r in rows] == values
    for row in rows:
        alone = open_inspection(SAMPLE, Setup.of(overrides={key: str(row.value)}, config_files=[], env={}))
        prompt = alone.prompt()
        info = report.summary(report.explain_table(alone, prompt), prompt)
        assert row.messages == info.visible_messages
        assert row.truncated == info.tiers["truncated"]
        assert row.dropped == info.tiers["dropped"]
        assert row.chars == info.chars_after
        assert row.tokens == (row.chars + 3) // 4
        assert row.error is None


def test_sweep_keeps_the_other_values_and_follow_rule():
    ins = open_inspection(SAMPLE, Setup.of(overrides={"max_tool_chars": "1"}, config_files=[], env={}))
    [row] = sweep(ins, "max_tool_calls", [10])
    alone = open_inspection(
        SAMPLE, Setup.of(overrides={"max_tool_chars": "1", "max_tool_calls": "10"}, config_files=[], env={})
    )
    assert row.messages == alone.prompt().totals().visible_messages
    assert set(KEYS) >= {"max_tool_calls"}


def test_sweep_reports_scout_errors_per_value():
    import json

    from forget_chats import inspection

    items = [
        {"role": "function_call", "content": json.dumps({"name": "x", "arguments": None, "id": "n"})},
        {"role": "function_call_output", "content": json.dumps({"name": "x", "content": "ok", "id": "n"})},
    ]
    ins = inspection(items, max_tool_chars=1)
    rows = sweep(ins, "max_tool_calls", [0, 1])
    assert rows[0].error is None and rows[1].error and rows[1].messages == 0 and rows[1].chars == 0


def test_rebased_replanner_shares_its_plans():
    from inspector.core.analysis.replan import Replanner

    inspection = open_inspection(SAMPLE, Setup.of(config_files=[], env={}))
    rp = Replanner(inspection)
    first = rp.at("full_tool_outputs", 54)
    other = rp.rebased(inspection.thresholds.with_value("max_tool_chars", 5))
    assert other.base["max_tool_chars"] == 5 and rp.base["max_tool_chars"] == 100_000
    assert other.prompt(rp.values_for("full_tool_outputs", 54)) is first  # one cache for both
    assert other.current().tier_counts() == inspection.prompt(other.base).tier_counts()


def test_axis_covers_every_distinct_plan():
    from inspector.core.analysis.sweep import axis

    inspection = open_inspection(SAMPLE, Setup.of(config_files=[], env={}))
    outputs = inspection.facts.outs[-1]
    counts = axis(inspection, "full_tool_outputs", 30)
    assert counts[0] == 0 and counts[-1] == outputs + 1 and len(counts) <= 30
    assert counts == sorted(set(counts))
    chars = axis(inspection, "max_tool_chars", 12)
    assert chars[0] == 0 and chars[-1] == 217_314 + 1 and len(chars) == 12
    assert axis(inspection, "max_tool_calls", 500) == list(range(outputs + 2))
    with pytest.raises(UsageError):
        axis(inspection, "nope")
