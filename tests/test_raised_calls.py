"""Where scout-ai raises, every view of a call agrees that nothing is sent: the plan's rows, the timeline's
fast walk over the whole chat's facts, the audit's tiers before each call and the calls' counts.

The chats hold outputs scout-ai cannot parse or shorten (invalid JSON, a number where a string is
shortened), so some calls raise and others, where the broken output is in the kept or dropped band, do not.
"""

from __future__ import annotations

import json
import random

import pytest
from helpers import seeds

from inspector.core.calls.history import ChatHistory
from inspector.core.calls.timeline import index_at, message_tiers, tiers_before_calls
from inspector.core.policies import decision as d
from inspector.core.setup import Setup

WORDS = ("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta")


def _history(tmp_path, seed: int) -> ChatHistory:
    path = tmp_path / f"raise{seed}.json"
    path.write_text(json.dumps(raising_chat(seed)), encoding="utf-8")
    rng = random.Random(seed)
    env = {"MAX_TOOL_CHARS": str(rng.choice([0, 40, 200])), "FULL_TOOL_OUTPUTS": str(rng.randint(0, 3))}
    env["MAX_TOOL_OUTPUTS"] = str(rng.randint(2, 8))
    return ChatHistory(path, Setup.of(env=env, config_files=[]))


def raising_chat(seed: int) -> list[dict]:
    rng = random.Random(seed)
    items: list[dict] = [{"role": "user", "content": "go"}]
    for n in range(rng.randint(4, 14)):
        ident = f"c{n}"
        items.append(
            {"role": "function_call", "content": json.dumps({"name": "ls", "arguments": {"n": n}, "id": ident})}
        )
        roll = rng.random()
        if roll < 0.12:
            content = "{broken"  # JSON::ParserError wherever it is walked
        elif roll < 0.3:
            content = json.dumps({"name": "ls", "content": n, "id": ident})  # raises only when shortened
        else:
            text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 60)))
            content = json.dumps({"name": "ls", "content": text, "id": ident})
        items.append({"role": "function_call_output", "content": content})
        if rng.random() < 0.5:
            items.append({"role": "assistant", "content": f"step {n}"})
    items.append({"role": "assistant", "content": "done"})
    return items


@pytest.mark.parametrize("seed", seeds(60, quick=12))
def test_every_view_of_a_raising_call_says_nothing_is_sent(tmp_path, seed):
    history = _history(tmp_path, seed)
    whole = history.whole.chat.messages
    before_calls = tiers_before_calls(history)
    for number in range(1, len(history) + 1):
        prompt = history.at(number).prompt()
        counts = history.call_counts(number)
        assert (counts.counts, counts.error) == (prompt.tier_counts(), prompt.error), number
        if prompt.error is None:
            continue
        assert counts.visible == counts.chars_after == 0 and prompt.messages() == []
        decisions = prompt.decisions()
        assert [x.tier for x in decisions].count(d.ERROR) == 1
        assert all(x.visible_chars == 0 for x in decisions)
        assert {x.tier for x in decisions} <= {d.ERROR, d.UNDECIDED}
        assert decisions == [prompt.decision_columns().decision(i) for i in range(len(decisions))]
        response = history.response_index(number)
        for index in range(len(whole)):
            at = index_at(history, number, index)
            if at is None:
                continue
            tier = prompt.tier_of(at)
            assert tier == decisions[at].tier
            if response is not None:
                assert before_calls(response, index) is None  # the audit: nothing sent at that call
    for index in range(len(whole)):
        line = message_tiers(history, index)
        if line.first is None:
            continue
        for k, tier in enumerate(line.tiers):
            number = line.first + k
            prompt = history.at(number).prompt()
            at = index_at(history, number, index)
            assert at is not None
            assert tier == prompt.tier_of(at), (index, number)
            assert line.visible[k] == (prompt.error is None and tier in (d.FULL, d.TRUNCATED))


def test_the_generated_chats_raise_at_some_calls_and_not_at_others(tmp_path):
    """The check above is only as good as its chats: most of them raise at some call, not at every one."""
    raising = some_sent = 0
    for seed in range(12):
        history = _history(tmp_path, seed)
        errors = [history.at(n).prompt().error is not None for n in range(1, len(history) + 1)]
        raising += any(errors)
        some_sent += not all(errors)
    assert raising >= 9 and some_sent >= 9
