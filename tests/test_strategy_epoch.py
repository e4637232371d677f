"""shorten_tools_epoch (scout-ai S's default), selectable by name: golden cases from scout-ai's Ruby, and each rule."""

import json
import os
from pathlib import Path

import pytest
from cli_runner import run_cli
from helpers import call, messages, output, rounds
from scout_helpers import load

from inspector.core.io.formats import json_array
from inspector.core.io.printers import print_json
from inspector.core.policies import decision as d
from inspector.core.scout.prepare import prepare_prompt
from inspector.core.scout.shorten import shorten_string, shorten_string_sized
from inspector.core.scout.strategies import BUILTIN, known_strategies, parse_spec, register_strategy
from inspector.core.scout.strategies.shorten_tools_epoch import COMPACTION_TEXT, EpochSettings, dedup_key

ROOT = Path(__file__).resolve().parent.parent
CASES = sorted((Path(__file__).parent / "golden_epoch").glob("case_*.json"))
NOTICE = "\t  === Context Management ===\n"


DEFAULT_EPOCH = EpochSettings()


def epoch_plan(items, settings=DEFAULT_EPOCH, strategies="shorten_tools_epoch"):
    return prepare_prompt(messages(*items), strategies, None, epoch=settings)


def test_enough_golden_cases():
    assert len(CASES) >= 20
    assert sum(p.stat().st_size for p in CASES) < 300_000


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_matches_scout_ai_ruby(path):
    case = json.loads(path.read_text(encoding="utf-8"))
    chat = json_array.load(json.dumps(case["input"], ensure_ascii=False), str(path))
    settings = EpochSettings.resolve(env=case["env"], config_files=[])
    prompt = prepare_prompt(chat.messages, case["strategies"], None, epoch=settings)
    if case["raises"]:
        assert prompt.error is not None and prompt.messages() == []
        assert prompt.error.exception == case["exception"]
        return
    assert prompt.error is None
    assert print_json(prompt.messages()) == case["expected"]
    sent = {m["_i"]: m for m in json.loads(case["expected"]) if "_i" in m}
    for index, message in enumerate(case["input"]):
        out = sent.get(message["_i"])
        expected = d.DROPPED if out is None else d.FULL if out.get("content") == message.get("content") else d.TRUNCATED
        assert prompt.tier_of(index) == expected, (index, message.get("role"))
    # the notice is the only message that is not an original one
    notices = [m for m in prompt.messages() if "_i" not in m.fields]
    assert len(notices) == case["expected"].count("=== Context Management ===")


# -- the rules ---------------------------------------------------------------------------------


def test_at_or_under_the_threshold_nothing_changes():
    items = rounds(3, 900)
    p = epoch_plan(items, EpochSettings(threshold=3, full=0, compacted=1, size=1))
    assert [m.fields for m in p.messages()] == items
    assert {p.decision(i).reason for i in range(6)} == {d.EPOCH_UNDER}
    assert epoch_plan(items, EpochSettings(threshold=0, full=0, compacted=0, size=1)).messages()[2].fields == items[2]
    assert len(epoch_plan(items, EpochSettings(threshold=0, full=1, compacted=1, size=0)).messages()) == 6


@pytest.mark.parametrize("pairs,full,compacted,dropped", [(60, 30, 30, 0), (130, 40, 80, 10)])
def test_reference_examples_with_the_defaults(pairs, full, compacted, dropped):
    # spec 4.3: 60 pairs keep 30 whole and compact 30; 130 pairs compact 80 and drop 10
    p = epoch_plan(rounds(pairs, 500))
    outputs = [p.decision(i) for i in range(1, 2 * pairs, 2)]
    assert [o.reason for o in outputs].count(d.EPOCH_FULL) == full
    assert [o.reason for o in outputs].count(d.EPOCH_COMPACTED) == compacted
    assert [o.reason for o in outputs].count(d.EPOCH_DROPPED) == dropped
    notice = [m.fields["content"] for m in p.messages() if m.fields["role"] == "user"]
    # calls' arguments ("q0") are too short to change: only the outputs count as compacted
    assert notice == [COMPACTION_TEXT.format(truncated=compacted, dropped=2 * dropped)]


def test_newest_instance_of_a_repeated_call_is_protected():
    # N=5, T=2, F=1, C=1, E=1: keep_full=2, compacted window 3; positions 4 and 5 would be dropped
    items = [
        call("ls", "c0", d="x"),
        output("ls", "c0", "a" * 500),
        call("ls", "c1", d="x"),
        output("ls", "c1", "b" * 500),  # same name and arguments, other id
        call("cat", "c2", f="y"),
        output("cat", "c2", "c" * 500),
        call("cat", "c3", f="z"),
        output("cat", "c3", "d" * 500),
        call("cat", "c4", f="w"),
        output("cat", "c4", "e" * 500),
    ]
    p = epoch_plan(items, EpochSettings(threshold=2, full=1, compacted=1, size=1))
    assert [p.decision(i).reason for i in range(10)] == [
        d.EPOCH_DROPPED,
        d.EPOCH_DROPPED,
        d.EPOCH_PROTECTED,
        d.EPOCH_PROTECTED,
        d.EPOCH_NOTHING,
        d.EPOCH_COMPACTED,
        d.EPOCH_FULL,
        d.EPOCH_FULL,
        d.EPOCH_FULL,
        d.EPOCH_FULL,
    ]
    assert p.messages()[0].fields == items[2] and p.messages()[2].fields == items[3]  # kept whole
    assert p.decision(3).outputs_counted == 4


def test_repeat_key_ignores_argument_order_and_id_but_not_types():
    assert dedup_key("ls", {"b": 1, "a": {"y": 2, "x": 1}}) == dedup_key("ls", {"a": {"x": 1, "y": 2}, "b": 1})
    assert dedup_key("ls", None) == dedup_key("ls", {})  # `arguments || {}`
    assert dedup_key("ls", {"n": 1}) != dedup_key("ls", {"n": 1.0})
    assert dedup_key(None, {}) == dedup_key("", {})  # "#{nil}" is ""


def test_notice_goes_right_after_the_first_remaining_tool_message():
    items = [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}, *rounds(4, 500)]
    p = epoch_plan(items, EpochSettings(threshold=1, full=1, compacted=1, size=1))
    roles = [m.fields["role"] for m in p.messages()]
    # the oldest pair is dropped; the notice lands between the next call and its output
    assert roles == [
        "system",
        "user",
        "function_call",
        "user",
        "function_call_output",
        "function_call",
        "function_call_output",
        "function_call",
        "function_call_output",
    ]
    notice = p.messages()[3].fields
    assert notice == {"role": "user", "content": COMPACTION_TEXT.format(truncated=1, dropped=2)}
    assert notice["content"].startswith(NOTICE)
    assert p.visible_content(0) == "s" and p.totals().visible_messages == 9


def test_notice_is_appended_when_no_tool_message_remains():
    # only a negative epoch_full_tool_calls can empty the full window
    items = [{"role": "user", "content": "u"}, *rounds(2, 50), {"role": "assistant", "content": "a"}]
    p = epoch_plan(items, EpochSettings(threshold=0, full=-1, compacted=0, size=1))
    assert [m.fields["role"] for m in p.messages()] == ["user", "assistant", "user"]
    assert p.messages()[-1].fields["content"] == COMPACTION_TEXT.format(truncated=0, dropped=4)
    assert [p.tier_of(i) for i in range(6)] == [d.FULL] + [d.DROPPED] * 4 + [d.FULL]


def test_compacted_outputs_use_ruby_to_s_and_sizes_400_and_200():
    items = [
        call("q", "c0", s="x" * 250, n=3),
        output("q", "c0", {"rows": [1, "a#{b}"]}),
        call("q", "c1", s="y" * 250),
        output("q", "c1", "z" * 401),
        call("q", "c2"),
        output("q", "c2", "ok"),
    ]
    p = epoch_plan(items, EpochSettings(threshold=1, full=0, compacted=5, size=1))  # keep_full = 1
    out0 = json.loads(p.messages()[2].fields["content"])
    assert out0["content"] == '{"rows"=>[1, "a\\#{b}"]}'  # a Hash content becomes its inspect text
    args = json.loads(p.messages()[0].fields["content"])["arguments"]
    assert args["s"].startswith("Truncated (250): ") and args["n"] == 3 and len(args["s"]) < 220
    out1 = json.loads(p.messages()[4].fields["content"])["content"]
    assert out1.startswith("Truncated (401): ") and len(out1) <= 17 + 399
    assert p.decision(1).reason == d.EPOCH_COMPACTED and p.decision(5).reason == d.EPOCH_FULL


def test_unparseable_and_null_tool_messages_are_kept_and_not_counted():
    items = [
        *rounds(2, 500),
        {"role": "function_call_output", "content": "{not json"},
        {"role": "function_call", "content": None},
        *rounds(1, 500),
    ]
    p = epoch_plan(items, EpochSettings(threshold=2, full=1, compacted=0, size=1))
    assert p.decision(4).reason == d.EPOCH_UNPARSED and p.decision(5).reason == d.NO_CONTENT
    assert p.decision(6).outputs_counted == 1 and p.decision(3).outputs_counted == 2
    assert p.tier_of(3) == d.FULL and p.tier_of(1) == d.DROPPED


def test_string_arguments_in_the_compacted_window_raise_and_null_ones_do_not():
    string_args = {"role": "function_call", "content": json.dumps({"name": "x", "arguments": "{}", "id": "s"})}
    items = [string_args, output("x", "s", "o"), *rounds(2, 10)]
    p = epoch_plan(items, EpochSettings(threshold=1, full=1, compacted=5, size=1))
    assert p.error is not None and p.error.index == 0 and p.error.exception == "NoMethodError"
    assert p.tier_of(0) == d.ERROR and p.messages() == []
    null_args = {"role": "function_call", "content": json.dumps({"name": "x", "arguments": None, "id": "s"})}
    p = epoch_plan([null_args, *items[1:]], EpochSettings(threshold=1, full=1, compacted=5, size=1))
    assert p.error is None and p.tier_of(0) == d.FULL


def test_a_message_without_role_raises_even_under_the_threshold():
    p = epoch_plan([{"content": "who"}, *rounds(1, 10)])
    assert p.error is not None and p.error.exception == "NoMethodError" and p.error.index == 0


def test_in_a_chain_after_none():
    items = rounds(4, 500)
    p = epoch_plan(items, EpochSettings(threshold=1, full=1, compacted=1, size=1), "none,shorten_tools_epoch")
    assert any(m.fields["content"].startswith(NOTICE) for m in p.messages())


# -- settings ------------------------------------------------------------------------------------


def test_settings_from_config_files_then_environment_then_defaults(tmp_path):
    config = tmp_path / "config"
    config.write_text("epoch_size 5 prompt\nepoch_full_tool_calls 3\nepoch_compacted_tool_calls nil context\n")
    env = {"EPOCH_SIZE": "7", "EPOCH_FULL_TOOL_CALLS": "4x", "EPOCH_COMPACTED_TOOL_CALLS": "9"}
    settings = EpochSettings.resolve(env=env, config_files=[config])
    # a file entry beats the environment; one without prompt/context does not count; "nil" means default
    assert settings == EpochSettings(threshold=50, full=4, compacted=80, size=5)
    assert EpochSettings.resolve(env={}, config_files=[]) == EpochSettings(50, 20, 80, 20)


# -- selection by name -------------------------------------------------------------------------


def test_selectable_but_not_the_default():
    assert parse_spec(None) == ["shorten_tools"]
    assert parse_spec("shorten_tools_epoch") == ["shorten_tools_epoch"]
    assert known_strategies()[:3] == ["shorten_tools", "none", "shorten_tools_epoch"]
    assert "shorten_tools_epoch" in BUILTIN
    # the names the registry and the planner use without importing the strategies' modules
    from inspector.core.scout import strategies
    from inspector.core.scout.strategies import shorten_tools_epoch, shorten_tools_epoch_increment

    assert (strategies.EPOCH, strategies.INCREMENT) == (shorten_tools_epoch.NAME, shorten_tools_epoch_increment.NAME)
    with pytest.raises(ValueError):
        register_strategy("shorten_tools_epoch", lambda m: m)


def test_chat_option_selects_it(tmp_path):
    chat = load(tmp_path, "option: prompt_strategies shorten_tools_epoch\nuser: q\n")
    assert chat.strategies == "shorten_tools_epoch"


def test_shorten_string_sized_honours_the_size_and_the_seed_one_does_not():
    text = "x" * 300
    assert shorten_string_sized(text, 400) == text
    assert shorten_string(text, 400) != text  # the seed's quirk is kept
    assert shorten_string_sized(text, 200) == shorten_string(text)


def _run_cli(*args, env):
    base = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("EPOCH_") and not k.endswith(("_TOOL_CALLS", "_TOOL_OUTPUTS", "_TOOL_CHARS"))
    }
    base.update(env)
    return run_cli(*args, cwd=ROOT, environ=base)


def test_cli_strategies_flag(tmp_path):
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(rounds(4, 500)), encoding="utf-8")
    env = {
        "HOME": str(tmp_path),
        "EPOCH_TOOL_CALL_THRESHOLD": "1",
        "EPOCH_FULL_TOOL_CALLS": "1",
        "EPOCH_COMPACTED_TOOL_CALLS": "1",
        "EPOCH_SIZE": "1",
    }
    r = _run_cli("prepare", path, "--format", "json", "--strategies", "shorten_tools_epoch", env=env)
    assert r.returncode == 0, r.stderr
    sent = json.loads(r.stdout)
    assert [m["role"] for m in sent] == [
        "function_call",
        "user",
        "function_call_output",
        "function_call",
        "function_call_output",
        "function_call",
        "function_call_output",
    ]
    assert sent[1]["content"] == COMPACTION_TEXT.format(truncated=1, dropped=2)
    default = _run_cli("prepare", path, "--format", "json", env=env)  # still shorten_tools
    assert default.returncode == 0 and "Context Management" not in default.stdout
    assert len(json.loads(default.stdout)) == 8
