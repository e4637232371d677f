"""Golden cases: outputs of scout-ai's own code (the Ruby reference), committed as fixtures."""

import json
from pathlib import Path

import pytest

from inspector.core.io.formats import json_array
from inspector.core.io.printers import print_json
from inspector.core.scout.prepare import prepare_prompt
from inspector.core.scout.settings import resolve

CASES = sorted((Path(__file__).parent / "golden").glob("case_*.json"))


def test_enough_cases():
    assert len(CASES) >= 30


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_prepare_matches_scout_ai(path):
    case = json.loads(path.read_text(encoding="utf-8"))
    chat = json_array.load(json.dumps(case["input"], ensure_ascii=False), str(path))
    thresholds = resolve(None, env=case["env"], config_files=[])
    prompt = prepare_prompt(chat.messages, case["strategies"], thresholds.as_tuple())
    if case["raises"]:
        assert prompt.error is not None
        assert prompt.messages() == []
        return
    assert prompt.error is None
    assert print_json(prompt.messages()) == case["expected"]
    # each message's tier is what the oracle's outcome implies
    sent = {m["_i"]: m for m in json.loads(case["expected"])}
    for index, message in enumerate(case["input"]):
        out = sent.get(message["_i"])
        expected = "dropped" if out is None else "full" if out.get("content") == message.get("content") else "truncated"
        assert prompt.tier_of(index) == expected, (index, message.get("role"))
        dec = prompt.decision(index)
        assert dec.tier == expected
        if out is not None and isinstance(out.get("content"), str):
            assert dec.visible_chars == len(out["content"])
