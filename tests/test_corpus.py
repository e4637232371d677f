"""The corpus scorer against an independent per-call computation, the one refetch rule, discovery, the grid."""

from __future__ import annotations

import json

import agentgen
import pytest
from helpers import seeds

from inspector.core.analysis.audit import audit
from inspector.core.analysis.refetch import json_key, refetched, repeats, tool_pairs
from inspector.core.calls.history import ChatHistory
from inspector.core.calls.timeline import index_at, text_timelines, tiers_before_calls
from inspector.core.corpus.discover import discover
from inspector.core.corpus.grid import parse_grid
from inspector.core.corpus.score import Job, score_chat
from inspector.core.corpus.summary import parse_gate
from inspector.core.errors import UsageError
from inspector.core.inspection import open_inspection
from inspector.core.policies import decision as d
from inspector.core.setup import Setup

BASE = Setup.of(env={}, config_files=[])
GRID = ("max_tool_chars=6000:30000:12000", "full_tool_outputs=1:5:4")


def _chats(tmp_path):
    paths = []
    for seed in (1, 2):
        p = tmp_path / f"run{seed}.chat"
        p.write_text(agentgen.scout_chat(seed, calls=24))
        paths.append(p)
    p = tmp_path / "run3.json"
    p.write_text(agentgen.json_chat(3, calls=24))
    paths.append(p)
    return paths


def independent(history: ChatHistory) -> tuple[int, int]:
    """(chars, refetches) over every call, from ``history.at(n).prompt()`` and the rule read from its words."""
    messages = history.whole.chat.messages
    parsed = {}
    for i, m in enumerate(messages):
        if m.fields.get("role") in ("function_call", "function_call_output"):
            parsed[i] = json.loads(m.fields["content"])
    output_of = {}
    for i, body in parsed.items():
        if messages[i].fields["role"] == "function_call_output":
            call = next(j for j, b in parsed.items() if j < i and b.get("id") == body["id"] and "arguments" in b)
            output_of[call] = i
    chars = refetches = 0
    for number in range(1, len(history) + 1):
        prompt = history.at(number).prompt()
        chars += prompt.totals().chars_after
        if prompt.error is not None:
            continue
        for i in history.response_indices(number):
            if messages[i].fields["role"] != "function_call":
                continue
            same = [
                j
                for j in parsed
                if j < i
                and "arguments" in parsed[j]
                and parsed[j]["name"] == parsed[i]["name"]
                and parsed[j]["arguments"] == parsed[i]["arguments"]  # dicts: key order does not matter
                and output_of.get(j, i) < i
            ]
            if not same:
                continue
            full = [
                prompt.tier_of(at) == d.FULL
                for j in same
                if (at := index_at(history, number, output_of[j])) is not None
            ]
            if not any(full):
                refetches += 1
    return chars, refetches


@pytest.mark.parametrize("strategies", [None, "shorten_tools_epoch"])
def test_corpus_agrees_with_per_call_plans(tmp_path, strategies):
    setup = Setup.of(env={}, config_files=[], strategies=strategies)
    grid = parse_grid(GRID)
    for path in _chats(tmp_path):
        score = score_chat(str(path), Job(setup, grid))
        assert score.error is None and score.read
        for setting, got in zip(grid, score.per_setting):
            history = ChatHistory(str(path), setting.setup(setup))
            assert score.calls == len(history)
            chars, refetches = independent(history)
            assert (got.chars, got.refetches) == (chars, refetches), (path, setting)
            assert got.chars == sum(history.call_counts(n).chars_after for n in range(1, len(history) + 1))


def test_losses_follow_the_why_timeline_rule(tmp_path):
    grid = parse_grid(GRID)
    for path in _chats(tmp_path)[:2]:
        score = score_chat(str(path), Job(BASE, grid, (agentgen.FACT,)))
        for setting, got in zip(grid, score.per_setting):
            history = ChatHistory(str(path), setting.setup(BASE))
            _, lines = text_timelines(history, agentgen.FACT)
            lost = 0
            for number in range(1, len(history) + 1):
                states = [line.at(number) for line in lines]
                written = [s for s in states if s is not None]
                if written and not any(visible for _, visible in written):
                    lost += 1
            assert got.losses == (lost,) and lost > 0


def test_audit_counts_the_same_refetches(tmp_path):
    for path in _chats(tmp_path):
        for sets in ({"max_tool_chars": "6000"}, {"max_tool_chars": "30000", "full_tool_outputs": "1"}):
            setup = Setup.of(env={}, config_files=[], overrides=sets)
            history = ChatHistory(str(path), setup)
            found = audit(history.whole, sent_before=tiers_before_calls(history))
            score = score_chat(str(path), Job(setup, parse_grid(())))
            assert sum(f.kind == "repeated_call" for f in found) == score.per_setting[0].refetches


def test_the_rule_compares_names_and_arguments_as_parsed_json(tmp_path):
    assert json_key({"a": 1, "b": [1, {"x": None}]}) == json_key({"b": [1.0, {"x": None}], "a": 1})
    assert json_key(True) != json_key(1) and json_key(None) != json_key({}) and json_key("1") != json_key(1)
    items = [
        {"role": "user", "content": "go"},
        {"role": "function_call", "content": json.dumps({"name": "ls", "arguments": {"a": 1, "b": 2}, "id": "1"})},
        {"role": "function_call_output", "content": json.dumps({"name": "ls", "content": "x" * 500, "id": "1"})},
        {"role": "function_call", "content": json.dumps({"name": "ls", "arguments": {"b": 2, "a": 1}, "id": "2"})},
        {"role": "function_call_output", "content": json.dumps({"name": "ls", "content": "y", "id": "2"})},
        {"role": "function_call", "content": json.dumps({"name": "ls", "id": "3"})},  # no arguments: another call
        {"role": "function_call_output", "content": json.dumps({"name": "ls", "content": "z", "id": "3"})},
        {"role": "function_call", "content": json.dumps({"name": "ls", "arguments": None, "id": "4"})},
    ]
    path = tmp_path / "c.json"
    path.write_text(json.dumps(items))
    inspection = open_inspection(str(path), BASE)
    found = repeats(tool_pairs(inspection.facts))
    assert [(r.call, r.outputs) for r in found] == [(3, (2,))]
    assert refetched(found[0], lambda i: False) and not refetched(found[0], lambda i: i == 2)


def test_discovery_names_what_it_skips(tmp_path):
    (tmp_path / "a.chat").write_text("user:\n\nhi\n\nassistant:\n\nhello\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.json").write_text('[{"role": "user", "content": "x"}]')
    (tmp_path / "sub" / "notes.txt").write_text("just notes")
    (tmp_path / "sub" / "plain").write_text("user:\n\nhi\n")  # no extension, a scout chat by its content
    found = discover([str(tmp_path), str(tmp_path / "a.chat"), str(tmp_path / "sub" / "*.json")])
    assert found.chats == tuple(sorted(str(tmp_path / n) for n in ("a.chat", "sub/b.json", "sub/plain")))
    assert [(s.path, s.reason.split(":")[0]) for s in found.skipped] == [
        (str(tmp_path / "sub/notes.txt"), "not a chat")
    ]


def test_grid_is_the_product_in_the_order_given():
    grid = parse_grid(["max_tool_chars=1:2", "full_tool_outputs=5:15:5"])
    assert [s.varied for s in grid] == [
        (("max_tool_chars", a), ("full_tool_outputs", b)) for a in (1, 2) for b in (5, 10, 15)
    ]
    assert parse_grid(()) == (parse_grid(())[0],) and parse_grid(())[0].varied == ()
    with pytest.raises(UsageError):
        parse_grid(["max_tool_chars=1:2", "max_tool_chars=3:4"])


def test_gates_parse():
    assert parse_gate("refetches<=3").limit == 3 and parse_gate("chars_per_call <= 2.5").metric == "chars_per_call"
    for bad in ("speed<=3", "refetches<3", "refetches<=x", "refetches"):
        with pytest.raises(UsageError):
            parse_gate(bad)


def _odd_agent_chat(seed: int) -> list[dict]:
    """An agent chat that repeats its tool calls (a small pool of arguments), with what makes the fast
    path's shortcuts worth checking: outputs whose shortening raises or has nothing to cut, messages
    scout-ai raises on, numeric and missing ids, tiny and huge outputs."""
    import random

    rng = random.Random(seed)
    items = agentgen.messages(
        seed, calls=rng.randint(3, 30), output_chars=rng.choice([60, 400, 3000]), pool=rng.choice([1, 2, 4])
    )
    out = []
    for item in items:
        role = item["role"]
        if role not in ("function_call", "function_call_output") or rng.random() > 0.25:
            out.append(item)
            continue
        body = json.loads(item["content"])
        pick = rng.random()
        if pick < 0.15 and role == "function_call_output":
            body["content"] = list(range(rng.choice([2, 300])))  # kept whole, or raises once shortened
        elif pick < 0.25 and role == "function_call":
            body["arguments"] = rng.choice([None, "text", {"q": 1}])
        elif pick < 0.35:
            body["id"] = rng.choice([7, 12345678901234567890123, 1.5])  # read alike only after a parse
        elif pick < 0.45:
            body.pop("id")  # an output answers the call before it
        elif pick < 0.5 and seed % 3 == 0:
            out.append({"role": role, "content": "{not json"})  # scout-ai raises from here on
            continue
        elif pick < 0.6 and role == "function_call_output":
            body["content"] = "short"  # nothing to shorten
        out.append({"role": role, "content": json.dumps(body)})
    return out


def _random_grid(rng) -> tuple[str, ...]:
    lo = rng.choice([0, 1, 300, 2000, 9000])
    return (
        f"max_tool_chars={lo}:{lo + rng.choice([500, 4000, 30000])}:{rng.choice([400, 3000, 9000])}",
        f"full_tool_outputs={rng.randint(0, 3)}:{rng.randint(3, 8)}:{rng.randint(1, 3)}",
        f"max_tool_outputs={rng.randint(0, 12)}:{rng.randint(12, 30)}:{rng.randint(6, 20)}",
        f"full_tool_calls={rng.randint(0, 6)}:{rng.randint(6, 9)}:3",
    )


@pytest.mark.parametrize("seed", seeds(40, quick=8))
def test_the_fast_path_scores_as_the_plans_of_every_call(tmp_path, seed):
    """``corpus``' fast path (running sums, comparisons against the walk's stretches, the repeats' newest outputs)
    against the plan of the chat at each call built and asked message by message (the path a chat that is not
    its first messages takes): every metric, under every setting of a random grid, with and without probes."""
    import random

    from inspector.core.corpus.score import _Scorer
    from inspector.core.setup import ChatSource

    rng = random.Random(seed)
    path = tmp_path / "odd.json"
    items = _odd_agent_chat(seed)
    path.write_text(json.dumps(items))
    outputs = [m["content"] for m in items if m["role"] == "function_call_output" and m["content"] != "{not json"]
    texts = [t[len(t) // 2 : len(t) // 2 + 12] for t in (json.loads(c)["content"] for c in outputs)]
    texts = [t for t in texts if isinstance(t, str) and len(t) == 12]
    probes = (agentgen.FACT, "src/module_1", *rng.sample(texts, min(2, len(texts))))
    grid = parse_grid(_random_grid(rng)[: rng.randint(1, 4)])
    for job in (Job(BASE, grid), Job(BASE, grid, probes)):
        fast = _Scorer(ChatHistory(ChatSource.of(str(path), None), BASE), job)
        assert fast.fast
        planned = _Scorer(ChatHistory(ChatSource.of(str(path), None), BASE), job)
        planned.fast = False
        got, expected = fast.run(), planned.run()
        assert got == expected, (seed, grid, job.probes)


@pytest.mark.parametrize("seed", seeds(30, quick=6))
def test_prefix_sent_and_its_tiers_equal_prefix_counts_and_the_walk(seed):
    """``PrefixSentGrid`` (what a corpus reads at every call) gives ``prefix_counts``' characters and error at
    every prefix, and where the prefix does not raise ``tier_in_sent`` gives ``tier_in_prefix``'s tier for
    every message, under random grids that put the budget and the counts anywhere (traps included)."""
    import random

    import chatgen

    from inspector.core.calls.timeline import tier_in_prefix
    from inspector.core.model import Message
    from inspector.core.scout.strategies.shorten_tools import PrefixSentGrid, prefix_counts, tier_in_sent
    from inspector.core.scout.tool_facts import ToolFacts

    rng = random.Random(seed)
    if seed % 2:
        items = chatgen.chat(seed, messages=70, traps=seed % 4 == 1)
    else:
        items = _odd_agent_chat(seed)
    messages = [Message(dict(m)) for m in items]
    facts, other = ToolFacts(messages), ToolFacts(messages)
    grid = []
    for _ in range(rng.randint(1, 6)):
        full_calls, full_outputs = rng.randint(0, 6), rng.randint(0, 8)
        if grid and rng.random() < 0.5:  # settings that share their counts, as a grid over one key makes them
            full_calls, full_outputs, max_calls, max_outputs, _ = grid[-1]
        else:
            max_calls, max_outputs = rng.randint(0, 15), rng.randint(0, 15)
        budget = rng.choice([0, 1, 200, 900, 3000, 20000])
        if facts.order and rng.random() < 0.3:  # the tool characters of a prefix but its oldest: the edge of all kept
            budget = facts.prefix[-2] - facts.prefix[rng.choice([0, rng.randrange(len(facts.order))])]
        grid.append((full_calls, full_outputs, max_calls, max_outputs, budget))
    sent_grid = PrefixSentGrid(facts, grid)
    raised = sent = 0
    for count in range(len(messages) + 1):
        for values, got in zip(grid, sent_grid.at(count)):
            expected = prefix_counts(other, count, values)
            assert (got.chars_after, got.error) == (expected.chars_after, expected.error), (count, values)
            if got.error is not None:
                raised += 1
                continue
            sent += 1
            for index in range(count):
                assert tier_in_sent(facts, index, got, values) == tier_in_prefix(other, count, index, values), (
                    count,
                    index,
                    values,
                )
    assert sent


def _tool_pairs_parsed(facts):
    """``tool_pairs`` as first written: every tool message parsed again for its name and id."""
    from inspector.core.analysis.refetch import MISSING
    from inspector.core.scout.tool_facts import CALL, OUTPUT, tool_identity

    calls, outputs, identity, keys = [], [], {}, {}
    for p in range(len(facts.order) - 1, -1, -1):
        index, kind = facts.order[p], facts.kinds[p]
        if kind not in (CALL, OUTPUT):
            continue
        parsed = facts.parsed[p]
        identity[index] = tool_identity(parsed)
        if kind == CALL:
            calls.append(index)
            arguments = parsed.get("arguments", MISSING) if isinstance(parsed, dict) else MISSING
            keys[index] = (_json_key(identity[index][0]), arguments if arguments is MISSING else _json_key(arguments))
        else:
            outputs.append(index)
    return calls, outputs, identity, keys


def _json_key(value):
    """``json_key`` as first written: the types asked in turn."""
    if isinstance(value, bool):
        return ("b", value)
    if value is None:
        return ("n",)
    if isinstance(value, int | float):
        return ("#", value)
    if isinstance(value, str):
        return ("s", value)
    if isinstance(value, dict):
        return ("o", frozenset((str(k), _json_key(v)) for k, v in value.items()))
    if isinstance(value, list | tuple):
        return ("a", tuple(_json_key(v) for v in value))
    return ("?", repr(value))


@pytest.mark.parametrize("seed", seeds(30, quick=6))
def test_tool_pairs_read_what_a_parse_of_every_message_reads(seed):
    """The outputs' names and ids taken from the first reading, and keys built by exact type, are what parsing
    every tool message again and asking each type in turn give (wide-integer and float ids, traps)."""
    import chatgen

    from inspector.core.model import Message
    from inspector.core.scout.tool_facts import ToolFacts

    items = chatgen.chat(seed, messages=60, traps=True) if seed % 2 else _odd_agent_chat(seed)
    facts = ToolFacts([Message(dict(m)) for m in items])
    pairs = tool_pairs(facts)
    calls, outputs, identity, keys = _tool_pairs_parsed(ToolFacts([Message(dict(m)) for m in items]))
    assert (list(pairs.calls), list(pairs.outputs), pairs.identity, pairs.keys) == (calls, outputs, identity, keys)
    for value in [*identity.values(), *(facts.parsed[p] for p in range(len(facts.order)))]:
        assert json_key(value) == _json_key(value) and hash(json_key(value)) == hash(_json_key(value))


@pytest.mark.parametrize("seed", seeds(40, quick=8))
def test_chat_repeats_are_the_repeats_of_tool_pairs(tmp_path, seed):
    """The corpus's own reading of the repeats (keys built inline, only the pairing it needs) and of the call of
    each response message equal ``repeats(tool_pairs(...))`` and ``call_numbers`` on odd chats: numeric, float,
    wide and missing ids, odd arguments, traps, scout chats with clear and option lines."""
    import random

    import chatgen

    from inspector.core.analysis.refetch import chat_repeats
    from inspector.core.calls.timeline import call_numbers
    from inspector.core.corpus.score import response_numbers
    from inspector.core.model import Message
    from inspector.core.scout.tool_facts import ToolFacts

    rng = random.Random(seed)
    items = chatgen.chat(seed, messages=60, traps=True) if seed % 2 else _odd_agent_chat(seed)
    if seed % 4 == 0:  # arguments that differ only by key order, number type or a nested value
        for item in items:
            if item["role"] == "function_call" and item["content"] != "{not json" and rng.random() < 0.5:
                body = json.loads(item["content"])
                if isinstance(body.get("arguments"), dict):
                    args = body["arguments"]
                    pick = rng.random()
                    if pick < 0.3:
                        body["arguments"] = dict(reversed(list(args.items())))
                    elif pick < 0.6:
                        body["arguments"] = {**args, "n": rng.choice([1, 1.0, True, None, [1, {"a": 2}]])}
                    item["content"] = json.dumps(body)
    facts = ToolFacts([Message(dict(m)) for m in items])
    assert chat_repeats(facts) == repeats(tool_pairs(ToolFacts([Message(dict(m)) for m in items])))
    path = tmp_path / ("odd.chat" if seed % 3 == 0 else "odd.json")
    if seed % 3 == 0:
        path.write_text(agentgen.scout_chat(seed, calls=rng.randint(2, 20)))
    else:
        path.write_text(json.dumps(items))
    history = ChatHistory(str(path), BASE)
    assert response_numbers(history) == call_numbers(history)
    assert chat_repeats(history.whole.facts) == repeats(tool_pairs(history.whole.facts))


def test_chat_repeats_keep_true_apart_from_one():
    """Python holds true equal to 1 (and {"a": true} equal to {"a": 1}); JSON does not: only 1 and 1.0 repeat."""
    from helpers import call, output

    from inspector.core.analysis.refetch import chat_repeats
    from inspector.core.model import Message
    from inspector.core.scout.tool_facts import ToolFacts

    items = [{"role": "user", "content": "go"}]
    for k, value in enumerate([True, 1, 1.0, False, 0, [True], [1]]):
        items += [call("f", f"c{k}", a=value), output("f", f"c{k}", "x")]
    facts = ToolFacts([Message(m) for m in items])
    found = chat_repeats(facts)
    assert found == repeats(tool_pairs(facts))
    assert [(r.call, r.earlier) for r in found] == [(5, (3,))]
