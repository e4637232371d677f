"""The corpus scorer against an independent per-call computation, the one refetch rule, discovery, the grid."""

from __future__ import annotations

import json

import agentgen
import pytest

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
