"""Invariants of shorten_tools on random chats and thresholds (hypothesis)."""

import chatgen
from helpers import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.core.model import Message
from inspector.core.policies import decision as d
from inspector.core.scout.prepare import prepare_prompt
from inspector.core.scout.strategies.shorten_tools import ShortenToolsPlan
from inspector.core.scout.tool_facts import ToolFacts

thresholds = st.tuples(
    st.integers(0, 12),
    st.integers(0, 12),
    st.integers(0, 25),
    st.integers(0, 25),
    st.sampled_from([0, 1, 300, 2000, 8000, 100_000]),
)


@settings(max_examples=examples(150, quick=40), deadline=None)
@given(seed=st.integers(0, 10_000), size=st.integers(1, 70), values=thresholds)
def test_invariants(seed, size, values):
    raw = chatgen.chat(seed, messages=size, scale=1500)
    messages = [Message(m) for m in raw]
    prompt = prepare_prompt(messages, None, values)
    if prompt.error is not None:
        return
    sent = prompt.messages()
    origins = prompt.plan.origins()
    # order kept; every sent message comes from an original one
    assert origins == sorted(origins) and len(origins) == len(sent)
    for index, message in zip(origins, sent):
        original = messages[index]
        if message.fields.get("content") != original.fields.get("content"):
            # only tool messages change (not always shorter: "Truncated (201): " + 198 chars is longer than 201)
            assert original.fields["role"] in ("function_call", "function_call_output")
            assert "<..." in message.fields["content"]
            assert prompt.tier_of(index) == d.TRUNCATED
        else:
            assert prompt.tier_of(index) == d.FULL
        # other keys untouched
        assert {k: v for k, v in message.fields.items() if k != "content"} == {
            k: v for k, v in original.fields.items() if k != "content"
        }
    dropped = [i for i in range(len(messages)) if prompt.tier_of(i) == d.DROPPED]
    assert set(dropped).isdisjoint(origins)
    for i in dropped:
        assert messages[i].fields["role"] in ("function_call", "function_call_output")
    # dropped messages are the oldest of their kind: everything older than a dropped one is dropped too
    for role in ("function_call", "function_call_output"):
        same = [
            i
            for i in range(len(messages))
            if messages[i].fields.get("role") == role and messages[i].fields.get("content")
        ]
        gone = [i for i in same if i in dropped]
        if gone:
            assert all(i in dropped for i in same if i < max(gone))
    # decisions agree with tiers, and totals add up
    totals = prompt.totals()
    assert totals.visible_messages == len(sent)
    assert totals.chars_after == sum(len(m.fields["content"]) for m in sent if isinstance(m.fields.get("content"), str))


@settings(max_examples=examples(60, quick=15), deadline=None)
@given(seed=st.integers(0, 10_000), first=thresholds, second=thresholds)
def test_replanning_on_cached_facts_equals_a_fresh_plan(seed, first, second):
    messages = [Message(m) for m in chatgen.chat(seed, messages=60, scale=2000)]
    facts = ToolFacts(messages)
    ShortenToolsPlan(facts, first)  # warms the shortened-text cache with other thresholds
    again = ShortenToolsPlan(facts, second)
    fresh = ShortenToolsPlan(ToolFacts(messages), second)
    assert [m.fields for m in again.messages()] == [m.fields for m in fresh.messages()]
    assert again.decisions() == fresh.decisions()


def test_decisions_one_per_message_with_counters():
    messages = [Message(m) for m in chatgen.chat(3, messages=80, scale=3000)]
    prompt = prepare_prompt(messages, None, (0, 3, 10, 10, 2000))
    decisions = prompt.decisions()
    assert [dec.index for dec in decisions] == list(range(len(messages)))
    counted = [dec.outputs_counted for dec in decisions]
    # counters grow towards older messages
    assert counted == sorted(counted, reverse=True)


@settings(max_examples=examples(120, quick=30), deadline=None)
@given(seed=st.integers(0, 10_000), size=st.integers(1, 80), values=thresholds, traps=st.booleans())
def test_all_decisions_in_one_pass_equal_each_decision(seed, size, values, traps):
    messages = [Message(m) for m in chatgen.chat(seed, messages=size, scale=1500, traps=traps)]
    plan = ShortenToolsPlan(ToolFacts(messages), values)
    assert plan.decisions() == [plan.decision(i) for i in range(len(messages))]
