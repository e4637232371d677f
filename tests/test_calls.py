"""Model calls: where they start, and the chat at each call equal to a real re-load of the cut file."""

from __future__ import annotations

import json
from pathlib import Path

import callgen
import pytest
from helpers import budgets, seeds

from inspector.core.calls.find import find_calls
from inspector.core.calls.history import ChatHistory
from inspector.core.calls.timeline import CallSettings, message_tiers, text_timelines
from inspector.core.inspection import inspect_chat
from inspector.core.io.formats import load_data
from inspector.core.io.printers import render
from inspector.core.model import Message
from inspector.core.setup import Setup

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = sorted((ROOT / "sample_chats").glob("*.chat"))
DEMO = ROOT / "inspector" / "demo" / "demo.chat"
ENVS = [{}, {"MAX_TOOL_CHARS": "2000", "FULL_TOOL_OUTPUTS": "2", "MAX_TOOL_OUTPUTS": "6", "MAX_TOOL_CALLS": "5"}]


def roles(*names: str) -> list[Message]:
    return [Message.make(r, "x", line=i + 1) for i, r in enumerate(names)]


def test_a_call_starts_at_each_run_of_responses():
    calls, findings = find_calls(
        roles("user", "assistant", "user", "function_call", "function_call_output", "function_call", "assistant")
    )
    assert [(c.number, c.start, c.end) for c in calls] == [(1, 1, 2), (2, 3, 4), (3, 5, 7)]
    assert findings == []


def test_meta_records_decide_and_disagreements_are_reported():
    calls, findings = find_calls(
        roles("user", "assistant", "user", "meta", "function_call", "function_call_output", "meta", "user")
    )
    assert [(c.number, c.start, c.line) for c in calls] == [(1, 4, 5)]
    assert [f.message for f in findings] == [
        "1 response(s) have no meta record before them (line 2): the chat's meta records mark each "
        "inference, so they are not counted as calls",
        "1 meta record(s) are not followed by a response (line 7): an inference whose answer is not in the chat",
    ]


def test_the_tools_a_response_called():
    calls, _ = find_calls(
        [
            Message.make("user", "go"),
            Message.make("function_call", json.dumps({"name": "ls", "arguments": {}, "id": "1"})),
            Message.make("function_call", json.dumps({"name": "grep", "arguments": {}, "id": "2"})),
        ]
    )
    assert calls[0].tools == ("ls", "grep")


def _reload(history: ChatHistory, number: int, env, input_format=None):
    """The inspection of the cut chat loaded from its bytes, as `prepare` on that file would."""
    chat = load_data(history.cut_bytes(number), history.path, input_format)
    return inspect_chat(chat, Setup.of(env=env, config_files=[]))


def _same(got, expected) -> None:
    assert got.thresholds.as_tuple() == expected.thresholds.as_tuple()
    assert got.strategy_spec == expected.strategy_spec
    a, b = got.prompt(), expected.prompt()
    assert (a.error and a.error.describe()) == (b.error and b.error.describe())
    assert render("json", a.messages()) == render("json", b.messages())
    assert [x.tier for x in a.decisions()] == [x.tier for x in b.decisions()]
    assert [f.message for f in got.chat.findings] == [f.message for f in expected.chat.findings]
    assert [(c.message.fields, c.step, c.reason, c.before) for c in got.chat.consumed] == [
        (c.message.fields, c.step, c.reason, c.before) for c in expected.chat.consumed
    ]
    assert [m.fields for m in got.chat.messages] == [m.fields for m in expected.chat.messages]


def _check_every_call(path: Path, env) -> ChatHistory:
    history = ChatHistory(path, Setup.of(env=env, config_files=[]))
    for number in range(1, len(history) + 1):
        _same(history.at(number), _reload(history, number, env))
    return history


@pytest.mark.parametrize("path", [*SAMPLES, DEMO], ids=lambda p: p.name)
def test_every_call_of_the_sample_chats_equals_a_reload_of_the_cut_file(path):
    history = _check_every_call(path, {})
    assert len(history) > 0


@pytest.mark.parametrize("seed", seeds(24, quick=6))
def test_every_call_of_generated_scout_chats_equals_a_reload(tmp_path, seed):
    path = tmp_path / "gen.chat"
    path.write_text(callgen.scout_chat(seed, directives=seed % 3 == 0, meta=seed % 4 != 1), encoding="utf-8")
    history = _check_every_call(path, ENVS[seed % 2])
    assert len(history) > 3


def test_plain_chats_take_no_reload_and_directives_do(tmp_path):
    plain = tmp_path / "plain.chat"
    plain.write_text(callgen.scout_chat(5), encoding="utf-8")
    history = ChatHistory(plain, Setup.of(config_files=[], env={}))
    for number in range(1, len(history) + 1):
        history.at(number)
    assert history.plain and history.reloads == 0
    mixed = tmp_path / "mixed.chat"
    mixed.write_text("user:\n\nhi\n\nassistant:\n\nyes\n\nclear_tools:\n\ntrue\n\nassistant:\n\nno\n", encoding="utf-8")
    history = ChatHistory(mixed, Setup.of(config_files=[], env={}))
    assert not history.plain and len(history) == 2


@pytest.mark.parametrize("seed", seeds(10, quick=3))
def test_json_chats_cut_the_message_list(tmp_path, seed):
    items = json.loads(callgen.json_chat(seed))
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(items), encoding="utf-8")
    history = ChatHistory(path, Setup.of(env=ENVS[seed % 2], config_files=[]))
    assert len(history) > 0
    for number in range(1, len(history) + 1):
        cut = tmp_path / "cut.json"
        cut.write_text(json.dumps(items[: history.call(number).start]), encoding="utf-8")
        expected = inspect_chat(load_data(cut.read_bytes(), str(cut)), Setup.of(env=ENVS[seed % 2], config_files=[]))
        got = history.at(number)
        a, b = got.prompt(), expected.prompt()
        assert render("json", a.messages()) == render("json", b.messages())
        assert [x.tier for x in a.decisions()] == [x.tier for x in b.decisions()]


@pytest.mark.parametrize("seed", seeds(16, quick=4))
def test_a_message_timeline_equals_the_plan_at_every_call(tmp_path, seed):
    path = tmp_path / "gen.chat"
    path.write_text(callgen.scout_chat(100 + seed, messages=70, directives=seed % 4 == 3), encoding="utf-8")
    history = ChatHistory(path, Setup.of(env=ENVS[seed % 2], config_files=[]))
    for index in range(len(history.whole.chat.messages)):
        line = message_tiers(history, index)
        if line.first is None:
            continue
        for k, tier in enumerate(line.tiers):
            inspection = history.at(line.first + k)
            at = next(
                j
                for j, m in enumerate(inspection.chat.messages)
                if m.fields == history.whole.chat.messages[index].fields
            )
            assert tier == inspection.prompt().tier_of(at), (index, line.first + k)


@pytest.mark.parametrize("seed", seeds(12, quick=3))
def test_a_timeline_under_edited_settings_equals_the_history_loaded_with_them(tmp_path, seed):
    """What the app's strip and Why show after an edit (CallSettings) is what the CLI's --set and
    --strategies show: every call planned under the edited values."""
    path = tmp_path / "gen.chat"
    path.write_text(callgen.scout_chat(300 + seed, messages=60, directives=seed % 4 == 3), encoding="utf-8")
    history = ChatHistory(path, Setup.of(env=ENVS[seed % 2], config_files=[]))
    edits = {"full_tool_outputs": str(seed % 2), "max_tool_outputs": str(2 + seed % 5), "max_tool_chars": "0"}
    strategies = "shorten_tools_epoch" if seed % 3 == 2 else None
    if strategies:  # its own settings, low enough for a 60-message chat
        edits |= {"epoch_tool_call_threshold": "2", "epoch_full_tool_calls": "1", "epoch_size": "3"}
    loaded = ChatHistory(path, Setup.of(env=ENVS[seed % 2], config_files=[], overrides=edits, strategies=strategies))
    settings = CallSettings(loaded.whole.thresholds, strategies)
    assert settings.thresholds is not None and settings.thresholds.key() != history.whole.thresholds.key()
    differs = 0
    for index in range(len(history.whole.chat.messages)):
        line = message_tiers(history, index, settings=settings)
        assert line.tiers == message_tiers(loaded, index).tiers, index
        differs += line.tiers != message_tiers(history, index).tiers
    if seed < 3:  # the quick seeds' edits change some timelines, so the comparison can fail
        assert differs


def test_the_demo_says_when_the_backoff_was_last_seen():
    history = ChatHistory(DEMO, Setup.of(env={}, config_files=[]))
    occurrences, lines = text_timelines(history, "reconnect_backoff_ms: 7350")
    assert [o.message for o in occurrences] == [3]
    line = lines[0]
    assert (line.first, line.last_seen, line.hidden_from) == (2, 29, 30)
    assert [s.as_dict() for s in line.spans()] == [
        {"from": 2, "to": 29, "tier": "full", "visible": True},
        {"from": 30, "to": 46, "tier": "truncated", "visible": False},
        {"from": 47, "to": 60, "tier": "dropped", "visible": False},
    ]


CALL = 'function_call: {"name":"ls","arguments":{"dir":"/tmp"},"id":"c1"}'
OUTPUT = 'function_call_output: {"name":"ls","content":"a b","id":"c1"}'
CRAFTED = {
    # an XML tag whose closing tag comes only after the cut: the cut file parses without the block
    "xml": "user:\n\n<a>\n[[\nb\n]]\n\nassistant:\n\none\n\nuser:\n\n</a>\n\nassistant:\n\ntwo\n",
    # a directive left with white space only: the whole file drops it, the cut file keeps it (and clears)
    "blank directive": f"user:\n\ngo\n\n{CALL}\n\n{OUTPUT}\n\nclear_tools:\n \nassistant:\n\ndone\n",
    "trailing blanks": f"user:\n\ngo\n\n\n\n{CALL}\n\n{OUTPUT}\n\n\n\nassistant:\n\ndone\n\n\n",
    "config later": f"user:\n\ngo\n\n{CALL}\n\n{OUTPUT}\n\nconfig: max_tool_chars 1 prompt\n\nassistant:\n\ndone\n",
}


@pytest.mark.parametrize("name", sorted(CRAFTED))
def test_cuts_that_parse_differently_from_the_whole_file(tmp_path, name):
    path = tmp_path / "c.chat"
    path.write_text(CRAFTED[name], encoding="utf-8")
    history = _check_every_call(path, {})
    assert len(history) >= 2
    assert history.reloads == (1 if name == "xml" else 0)


def test_an_invalid_utf8_chat_reloads_each_cut(tmp_path):
    path = tmp_path / "bad.chat"
    path.write_bytes(b"user:\n\ncaf\xe9\n\nassistant:\n\none\n\nuser:\n\nmore\n\nassistant:\n\ntwo\n")
    history = _check_every_call(path, {})
    assert len(history) == 2 and history.reloads == 2


@pytest.mark.parametrize("seed", seeds(6, quick=2))
def test_shared_rows_and_facts_at_a_call_equal_fresh_ones(tmp_path, seed):
    from inspector.core.present.rows import RowModel, rows_at
    from inspector.core.scout.tool_facts import ToolFacts

    path = tmp_path / "gen.chat"
    path.write_text(callgen.scout_chat(40 + seed), encoding="utf-8")
    history = ChatHistory(path, Setup.of(env={}, config_files=[]))
    for number in range(1, len(history) + 1):
        inspection = history.at(number)
        shared, fresh = rows_at(history, number, inspection), RowModel(inspection.chat, inspection.facts)
        assert shared.refs == fresh.refs and shared.numbers == fresh.numbers
        assert shared.consumed_chars() == fresh.consumed_chars()
        assert [shared.left(r) for r in range(len(shared))] == [fresh.left(r) for r in range(len(fresh))]
        facts, again = inspection.facts, ToolFacts(inspection.chat.messages)
        assert (facts.tool_chars(), facts.nontool_chars()) == (again.tool_chars(), again.nontool_chars())
        assert (facts.order, facts.outs, facts.prefix) == (again.order, again.outs, again.prefix)
    assert history.prefix_counts
    assert rows_at(history, None, history.whole) is rows_at(history, None, history.whole)  # cached per history


@pytest.mark.parametrize("seed", seeds(12, quick=4))
def test_band_raises_agrees_with_shortening(seed):
    import chatgen

    from inspector.core.scout.tool_facts import FAIL, ToolFacts

    items = chatgen.chat(seed, messages=80, traps=True)
    items.append({"role": "function_call", "content": json.dumps({"name": "x", "arguments": {"n": 1e300}, "id": "i"})})
    items.append({"role": "function_call_output", "content": '{"name":"x","content":"' + "y" * 300 + '","z":1e400}'})
    facts = ToolFacts([Message(dict(i)) for i in items])
    for p in range(len(facts.order)):
        if facts.kinds[p] == FAIL:
            continue
        said = facts.band_raises(p)
        facts.shortened(p)
        if said is not None:
            assert said == (p in facts.band_errors), p


TIGHT = {"MAX_TOOL_CHARS": "300", "FULL_TOOL_CALLS": "1", "FULL_TOOL_OUTPUTS": "1", "MAX_TOOL_OUTPUTS": "4"}


def _counts_by_prompt(history: ChatHistory, number: int):
    prompt = history.at(number).prompt()
    totals = prompt.totals()
    error = prompt.error.describe() if prompt.error is not None else None
    return prompt.tier_counts(), totals.visible_messages, totals.chars_after, error


def _check_counts(path: Path, env) -> ChatHistory:
    history = ChatHistory(path, Setup.of(env=env, config_files=[]))
    slow = ChatHistory(
        path, Setup.of(env=env, config_files=[])
    )  # its own facts: no shortening shared with the fast path
    for number in range(1, len(history) + 1):
        got = history.call_counts(number)
        error = got.error.describe() if got.error is not None else None
        assert (got.counts, got.visible, got.chars_after, error) == _counts_by_prompt(slow, number), number
    return history


@pytest.mark.parametrize("seed", seeds(30, quick=8))
def test_call_counts_from_the_whole_chats_facts_equal_the_prompt_at_every_call(tmp_path, seed):
    path = tmp_path / "gen.chat"
    path.write_text(callgen.scout_chat(200 + seed, directives=seed % 5 == 4, meta=seed % 4 != 1), encoding="utf-8")
    history = _check_counts(path, [*ENVS, TIGHT][seed % 3])
    assert history._counts_fast or seed % 5 == 4  # a chat whose directives pick other strategies: the prompt
    assert len(history) > 3


@pytest.mark.parametrize("seed", seeds(12, quick=4))
def test_call_counts_of_json_chats_equal_the_prompt_at_every_call(tmp_path, seed):
    path = tmp_path / "chat.json"
    path.write_text(callgen.json_chat(seed), encoding="utf-8")
    history = _check_counts(path, [*ENVS, TIGHT][seed % 3])
    assert len(history) > 0 and history._counts_fast


@pytest.mark.parametrize("path", [*SAMPLES, DEMO], ids=lambda p: p.name)
@pytest.mark.parametrize("env", [{}, TIGHT], ids=["defaults", "tight"])
def test_call_counts_of_the_sample_chats_equal_the_prompt_at_every_call(path, env):
    _check_counts(path, env)


@pytest.mark.parametrize("count", budgets(30, quick=10))
def test_the_fast_call_counts_meet_errors_and_the_middle_band(tmp_path, count):
    seen = {"fast": 0, "cut": 0, "error": 0}
    for seed in range(count):
        path = tmp_path / "gen.chat"
        path.write_text(callgen.scout_chat(200 + seed, meta=seed % 4 != 1), encoding="utf-8")
        history = ChatHistory(path, Setup.of(env=TIGHT, config_files=[]))
        for number in range(1, len(history) + 1):
            got = history.call_counts(number)
            seen["fast"] += history._counts_fast is True
            seen["cut"] += got.counts["truncated"] > 0
            seen["error"] += got.error is not None
    assert all(seen.values()), seen


def test_a_message_timeline_stops_when_cancelled(tmp_path):
    """The app's strip asks for the timeline of the selected row; a newer row cancels it (checked every 256 calls)."""
    path = tmp_path / "long.json"
    # a tool output that does not parse: tiers can change back and forth, so every call is walked
    messages = [{"role": "system", "content": "s"}, {"role": "function_call_output", "content": "not json"}]
    for k in range(600):
        messages += [{"role": "user", "content": f"q{k}"}, {"role": "assistant", "content": f"a{k}"}]
    path.write_text(json.dumps(messages), encoding="utf-8")
    history = ChatHistory(path, Setup.of(env={}, config_files=[]))
    whole = message_tiers(history, 0)
    assert whole.first == 1 and len(whole.tiers) == len(history) == 600
    asked = []
    cut = message_tiers(history, 0, lambda: asked.append(1) or len(asked) > 1)
    assert len(asked) == 2 and cut.tiers == whole.tiers[:511] and cut.visible == whole.visible[:511]


@pytest.mark.parametrize("seed", seeds(24, quick=6))
def test_prefix_counts_in_closed_form_equal_the_walk(seed):
    """The running-sums reading of the middle band gives what the message-by-message walk gives, at every
    prefix and under thresholds that put the band anywhere (traps: messages whose shortening raises)."""
    import random

    import chatgen

    from inspector.core.model import Message
    from inspector.core.scout.strategies.shorten_tools import prefix_counts
    from inspector.core.scout.tool_facts import ToolFacts

    rng = random.Random(seed)
    messages = [Message(dict(m)) for m in chatgen.chat(seed, messages=90, traps=seed % 2 == 0)]
    closed, walked = ToolFacts(messages), ToolFacts(messages)
    for _ in range(6):
        values = (rng.randint(0, 6), rng.randint(0, 12), rng.randint(0, 15), rng.randint(0, 15), rng.randint(0, 9000))
        for count in range(len(messages) + 1):
            a = prefix_counts(closed, count, values)
            b = prefix_counts(walked, count, values, closed=False)
            assert (a.counts, a.visible, a.chars_after, a.error) == (b.counts, b.visible, b.chars_after, b.error)


@pytest.mark.parametrize("seed", seeds(12, quick=4))
def test_timelines_found_by_bisection_equal_the_walk_over_every_call(tmp_path, seed, monkeypatch):
    """Where no message can raise, a message's tiers only go full -> truncated -> dropped: the transitions
    found by bisection give the same line as deciding every call."""
    import random

    from inspector.core.calls import timeline

    rng = random.Random(seed)
    messages = [{"role": "system", "content": "s"}]
    for k in range(40):  # plain tool calls and outputs: nothing that could raise
        messages.append({"role": "user", "content": f"step {k}"})
        messages.append(
            {"role": "function_call", "content": json.dumps({"name": "t", "arguments": {"k": k}, "id": f"c{k}"})}
        )
        output = {"name": "t", "content": "x" * rng.randint(10, 400), "id": f"c{k}"}
        messages.append({"role": "function_call_output", "content": json.dumps(output)})
        messages.append({"role": "assistant", "content": "ok"})
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(messages), encoding="utf-8")
    history = ChatHistory(path, Setup.of(env=TIGHT, config_files=[]))
    facts = history.whole.facts
    assert not facts.failures and not facts.risky() and timeline._monotone(history, facts)
    searched = [message_tiers(history, i) for i in range(len(history.whole.chat.messages))]
    monkeypatch.setattr(timeline, "_monotone", lambda history, facts: False)
    walked = [message_tiers(history, i) for i in range(len(history.whole.chat.messages))]
    assert [(s.tiers, s.visible) for s in searched] == [(w.tiers, w.visible) for w in walked]
    assert any("truncated" in s.tiers for s in searched) and any("dropped" in s.tiers for s in searched)
