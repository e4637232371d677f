"""Which tool calls the epoch strategies treat as one repeated call: the identity of a call's arguments.

scout-ai keys a call by ``name + "\\0" + JSON.generate(sorted(arguments || {}))``, the id left out:
1.2.6 ``Chat.epoch_dedup_key`` (733fc62, ``chat/prompt/shorten_tools_epoch.rb:61-66``) and 2.x
``Chat.epoch_increment_dedup_key`` (2bf609e, ``chat/prompt/shorten_tools_epoch_increment.rb``) are the
same on this point. Only nil and false are falsy in Ruby, so ``null``, ``false``, ``{}`` and a missing
``arguments`` are one call, while ``0``, ``0.0``, ``-0.0``, ``""``, ``[]``, ``true`` and a JSON *string*
of arguments each stay themselves (the string is not parsed). Key order never matters (sorted).

The keys below were printed by those Ruby methods (Ruby 3.1, json 2.6.1), copied verbatim; the window
cases were checked against the strategies' Ruby run on the same chats. The seed's ``shorten_tools``
has no repeated-call protection at all.
"""

from __future__ import annotations

import itertools
import json

import pytest
from cli_runner import run_cli
from helpers import messages

from inspector.core.policies import decision as d
from inspector.core.ruby import json as rubyjson
from inspector.core.scout import versions
from inspector.core.scout.prepare import prepare_prompt
from inspector.core.scout.strategies.shorten_tools_epoch import EpochSettings, dedup_key
from inspector.core.scout.strategies.shorten_tools_epoch_increment import IncrementSettings
from inspector.core.scout.strategies.windows import _dedup_key

MISSING = None  # no "arguments" key at all (tool_call['arguments'] is nil)

# argument JSON text (None: the key is absent) -> the key scout-ai's Ruby builds for a call named list_dir
RUBY_KEYS: dict[str | None, str] = {
    "null": "list_dir\0{}",
    "{}": "list_dir\0{}",
    "false": "list_dir\0{}",
    MISSING: "list_dir\0{}",
    '""': 'list_dir\0""',
    '"{}"': 'list_dir\0"{}"',
    '"null"': 'list_dir\0"null"',
    "[]": "list_dir\0[]",
    "[{}]": "list_dir\0[{}]",
    "0": "list_dir\x000",
    "1": "list_dir\x001",
    "0.0": "list_dir\x000.0",
    "-0.0": "list_dir\0-0.0",
    "1.0": "list_dir\x001.0",
    "true": "list_dir\0true",
    '{"a":null}': 'list_dir\0{"a":null}',
    '{"a":false}': 'list_dir\0{"a":false}',
    '{"a":{}}': 'list_dir\0{"a":{}}',
    '{"a":1,"b":2}': 'list_dir\0{"a":1,"b":2}',
    '{"b":2,"a":1}': 'list_dir\0{"a":1,"b":2}',
    '{"b":{"y":2,"x":1},"a":1}': 'list_dir\0{"a":1,"b":{"x":1,"y":2}}',
    '{"a":1,"b":{"x":1,"y":2}}': 'list_dir\0{"a":1,"b":{"x":1,"y":2}}',
    '"{\\"a\\":1}"': 'list_dir\0"{\\"a\\":1}"',
    '{"a":1}': 'list_dir\0{"a":1}',
    "100000000000000000000000": "list_dir\x00100000000000000000000000",
    "1e400": "list_dir\0Infinity",  # JSON.generate refuses Infinity: the rescue uses inspect
}
FAMILY = list(RUBY_KEYS)
# the argument values the brief names (plus -0.0/0.0), used for the window cases
WINDOW_FAMILY = ["null", "{}", "false", MISSING, '""', '"{}"', "[]", "0", "0.0", "-0.0", "true", '{"a":1,"b":2}']
WINDOW_FAMILY += ['{"b":2,"a":1}', '"{\\"a\\":1}"', '{"a":1}']


def _arguments(text: str | None):
    return None if text is None else rubyjson.parse(text, True)


def _label(text: str | None) -> str:
    return "missing" if text is None else text


# -- the key ------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", FAMILY, ids=_label)
def test_the_key_is_the_one_ruby_builds(text):
    assert dedup_key("list_dir", _arguments(text)) == RUBY_KEYS[text]


def test_two_calls_are_one_exactly_when_ruby_says_so():
    wrong = []
    for a, b in itertools.combinations(FAMILY, 2):
        same = RUBY_KEYS[a] == RUBY_KEYS[b]
        exact = dedup_key("list_dir", _arguments(a)) == dedup_key("list_dir", _arguments(b))
        # the planners' fast key (orjson, sorted) must be equal exactly where the Ruby key is
        fast = _dedup_key("list_dir", _arguments(a)) == _dedup_key("list_dir", _arguments(b))
        if exact is not same or fast is not same:
            wrong.append((_label(a), _label(b), same, exact, fast))
    assert wrong == []


def test_nil_and_false_are_the_only_falsy_arguments():
    empty = RUBY_KEYS["{}"]
    assert [t for t in FAMILY if RUBY_KEYS[t] == empty] == ["null", "{}", "false", MISSING]
    # Python's `x in (None, False)` compares with ==, and 0 == False == 0.0: those must not become {}
    for text in ("0", "0.0", "-0.0"):
        assert dedup_key("list_dir", _arguments(text)) != empty
        assert _dedup_key("list_dir", _arguments(text)) != _dedup_key("list_dir", {})


# -- the windows: the newest instance of a repeated call is kept whole -------------------------------------


def _call_json(name: str, text: str | None, ident: str) -> str:
    """A call's JSON with ``text`` written as it is for its arguments (None: no arguments key)."""
    arguments = "" if text is None else f',"arguments":{text}'
    return f'{{"name":"{name}"{arguments},"id":"{ident}"}}'


def _call(text: str | None, ident: str, name: str = "list_dir") -> dict:
    return {"role": "function_call", "content": _call_json(name, text, ident)}


def _output(ident: str, name: str = "list_dir") -> dict:
    return {"role": "function_call_output", "content": json.dumps({"name": name, "content": "o" * 500, "id": ident})}


def _chat(*arguments: str | None, fillers: int = 2) -> list[dict]:
    """One list_dir call per argument text, oldest first, then ``fillers`` distinct cat calls."""
    items = [{"role": "user", "content": "go"}]
    for i, text in enumerate(arguments):
        items += [_call(text, f"c{i}"), _output(f"c{i}")]
    for j in range(fillers):
        ident = f"f{j}"
        items += [_call(f'{{"f":"{j}"}}', ident, "cat"), _output(ident, "cat")]
    return items


# 1.2.6 and 2.1 (growth switched off, so a repeat does not move the windows): with N outputs, the two
# newest are kept whole, the next `compacted` compacted, the rest dropped
def _epoch(compacted: int) -> EpochSettings:
    return EpochSettings(threshold=1, full=1, compacted=compacted, size=1)


def _increment(compacted: int) -> IncrementSettings:
    return IncrementSettings(
        threshold=1,
        full=1,
        compacted=compacted,
        size=1,
        epochs_per_increase=0,
        size_increase=0,
        repeat_increase=0,
        max_size=1,
        growth_ratio=0.0,
        max_compacted=compacted,
    )


def _run(version: str, items: list[dict], compacted: int):
    if version == "2.1":
        return prepare_prompt(
            messages(*items),
            "shorten_tools_epoch_increment",
            version=versions.V21,
            increment_settings=_increment(compacted),
        )
    return prepare_prompt(messages(*items), "shorten_tools_epoch", version=versions.V126, epoch=_epoch(compacted))


@pytest.mark.parametrize("version", ["2.1", "1.2.6"])
def test_null_then_empty_then_false_is_one_repeated_call(version):
    # outputs newest first: cat f1 = 1, cat f0 = 2 (whole), false = 3, {} = 4 (compacted window), null = 5
    items = _chat("null", "{}", "false")
    prompt = _run(version, items, compacted=2)
    assert prompt.error is None
    reasons = [prompt.decision(i).reason for i in range(len(items))]
    assert reasons[5:7] == [d.EPOCH_PROTECTED, d.EPOCH_PROTECTED]  # the newest (false), kept whole
    assert reasons[3:5] == [d.EPOCH_NOTHING, d.EPOCH_COMPACTED]  # {}: compacted like any other
    assert reasons[1:3] == [d.EPOCH_DROPPED, d.EPOCH_DROPPED]  # null: past the windows
    sent = {m.fields["content"] for m in prompt.messages()}
    assert items[5]["content"] in sent and items[6]["content"] in sent  # verbatim
    assert items[4]["content"] not in sent


def _protected(version: str, older: str | None, newer: str | None) -> bool:
    """Whether the newer of two list_dir calls is kept whole as a repeat, when it is past the windows."""
    # outputs newest first: cat f2, f1 (whole), f0 (compacted), newer = 4, older = 5 (dropped)
    items = _chat(older, newer, fillers=3)
    prompt = _run(version, items, compacted=1)
    assert prompt.error is None
    call, output = prompt.decision(3), prompt.decision(4)
    assert call.reason == output.reason
    if call.reason == d.EPOCH_PROTECTED:
        sent = [m.fields for m in prompt.messages()]
        assert items[3] in sent and items[4] in sent
        return True
    assert (call.tier, output.tier) == (d.DROPPED, d.DROPPED)
    return False


@pytest.mark.parametrize("version", ["2.1", "1.2.6"])
def test_the_newer_call_is_protected_exactly_when_the_keys_match(version):
    wrong = [
        (_label(older), _label(newer))
        for older, newer in itertools.product(WINDOW_FAMILY, repeat=2)
        if _protected(version, older, newer) is not (RUBY_KEYS[older] == RUBY_KEYS[newer])
    ]
    assert wrong == []


@pytest.mark.parametrize("version", ["2.1", "1.2.6"])
def test_the_id_is_not_part_of_the_identity_and_the_name_is(version):
    items = _chat("{}", "null", fillers=3)
    items[1]["content"] = items[1]["content"].replace('"c0"', '"same"')
    items[2]["content"] = items[2]["content"].replace('"c0"', '"same"')
    assert _run(version, items, compacted=1).decision(3).reason == d.EPOCH_PROTECTED
    other = _chat("{}", "null", fillers=3)
    other[1]["content"] = other[1]["content"].replace("list_dir", "ls")
    assert _run(version, other, compacted=1).decision(3).reason == d.EPOCH_DROPPED


def test_the_seed_protects_no_repeat():
    items = _chat("null", "{}", "false")
    prompt = prepare_prompt(messages(*items), None, version=versions.SEED)
    assert prompt.error is None
    assert d.EPOCH_PROTECTED not in {prompt.decision(i).reason for i in range(len(items))}


# -- end to end: a stored scout chat, the default settings ----------------------------------------------


def _scout_chat(path, last: str) -> None:
    """70 rounds; list_dir with null (round 5), {} (round 10) and ``last`` (round 25), the rest distinct."""
    special = {5: "null", 10: "{}", 25: last}
    lines = ["user:", "", "go", ""]
    for i in range(70):
        if i in special:
            lines.append("function_call: " + _call_json("list_dir", special[i], f"c{i}"))
        else:
            lines.append("function_call: " + _call_json("cat", f'{{"f":"{i}"}}', f"c{i}"))
        lines.append("function_call_output: " + json.dumps({"name": "x", "content": "o" * 500, "id": f"c{i}"}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _rows(path, version: str) -> dict[int, tuple[str, str]]:
    r = run_cli("explain", path, "--scout-version", version, "--format", "json", scout_config=False)
    assert r.returncode == 0, r.stderr
    return {row["index"]: (row["tier"], row["reason"]) for row in json.loads(r.stdout)["rows"]}


def test_cli_2_1_keeps_the_newest_of_null_empty_false_whole(tmp_path):
    # 70 outputs: epoch 50..70, the 40 newest whole, 41..120 compacted; false is 46th from the newest
    chat = tmp_path / "chat"
    _scout_chat(chat, "false")
    rows = _rows(chat, "2.1")
    assert rows[51] == ("full", d.EPOCH_PROTECTED) and rows[52] == ("full", d.EPOCH_PROTECTED)
    assert rows[22] == ("truncated", d.EPOCH_COMPACTED) and rows[12] == ("truncated", d.EPOCH_COMPACTED)
    assert _rows(chat, "1.2.6")[52] == ("full", d.EPOCH_PROTECTED)


def test_cli_a_zero_is_not_the_empty_call(tmp_path):
    chat = tmp_path / "chat"
    _scout_chat(chat, "0")
    rows = _rows(chat, "2.1")
    # null and {} repeat each other: {} is kept whole; 0 is a call of its own, compacted
    assert rows[22] == ("full", d.EPOCH_PROTECTED)
    assert rows[52] == ("truncated", d.EPOCH_COMPACTED) and rows[51][1] == d.EPOCH_NOTHING
    # 1.2.6 compacts it too, and `0.any?` raises there (scout-ai: NoMethodError on that call)
    r = run_cli("explain", chat, "--scout-version", "1.2.6", "--format", "json", scout_config=False)
    assert "NoMethodError" in r.stdout + r.stderr and "Integer" in r.stdout + r.stderr
