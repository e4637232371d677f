"""Every scout-ai version's prompt layer against goldens made by its own Ruby (tests/golden_versions/make_golden.py)."""

import gzip
import json
from pathlib import Path

import pytest
from versions_case import run_case

HERE = Path(__file__).parent / "golden_versions"


def _cases():
    for path in sorted(HERE.glob("*.json.gz")):
        for n, case in enumerate(json.loads(gzip.decompress(path.read_bytes()))):
            yield pytest.param(case, id=f"{case['version']}-{case['strategies'] or 'default'}-{n}")


CASES = list(_cases())


def test_every_version_and_strategy_has_goldens():
    seen = {(c.values[0]["version"], c.values[0]["strategies"]) for c in CASES}
    assert ("2.1", "shorten_tools_epoch_increment") in seen and ("1.2.6", "shorten_tools") in seen
    assert ("2.1", "shorten_tools") in seen and ("seed", None) in seen and ("2.1", None) in seen
    assert sum(1 for c in CASES if "Context Management" in (c.values[0]["expected"] or "")) >= 20


@pytest.mark.parametrize("case", CASES)
def test_matches_scout_ai_ruby(case):
    printed, raised = run_case(case)
    assert raised == case["raises"]
    assert printed == case["expected"]
