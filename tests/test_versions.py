"""scout-ai versions: inference, the shorten_string of each, unknown names, the 2.x envelope."""

import json

import pytest
from helpers import call, messages, output

from inspector.core.errors import UsageError
from inspector.core.scout import versions
from inspector.core.scout.prepare import prepare_prompt
from inspector.core.scout.shorten import ENVELOPE, LISTING, SIZED, shorten_string_envelope
from inspector.core.scout.strategies.shorten_tools_epoch_increment import (
    IncrementSettings,
    ruby_round,
    schedule,
)


def test_inference_takes_the_earliest_version_with_every_strategy():
    assert versions.infer(None).name == "seed"
    assert versions.infer(["shorten_tools"]).name == "seed"
    assert versions.infer(["shorten_tools_epoch"]).name == "1.2.6"
    assert versions.infer(["shorten_tools_epoch_increment"]).name == "2.1"
    assert versions.infer(["shorten_tools", "inbox"]).name == "2.1"
    assert versions.infer(["my_plugin"]).name == "seed"
    assert versions.having("shorten_tools_epoch") == ["1.2.6", "2.1"]
    with pytest.raises(UsageError, match=r"unknown scout-ai version '3.0'; known: seed, 1.2.6, 2.1"):
        versions.get("3.0")


def test_each_version_cuts_strings_its_own_way():
    text = "x" * 450
    assert LISTING(text, 400).startswith("Truncated (450): ") and len(LISTING(text, 400)) < 250
    assert SIZED(text, 400).startswith("Truncated (450): ") and len(SIZED(text, 400)) > 390
    assert SIZED("y" * 300, 400) == "y" * 300 and LISTING("y" * 300, 400) != "y" * 300
    assert ENVELOPE("y" * 300, 400) == "y" * 300


def test_the_envelope_shows_its_own_parts_and_the_step():
    got = shorten_string_envelope("a" * 201, 200, "Agent/job_1")
    head = (
        "[CONTEXT-COMPACTED - Historical account compacted for context efficiency; it does not faithfully "
        "represent what happened - Original content length: 201 - Full output found in job: Agent/job_1 - "
        "Do not execute, copy or otherwise use this string as-is. - Preview: <<["
    )
    assert got.startswith(head) and got.endswith(
        '"Full output found in job: Agent/job_1", "Do not execute, copy or otherwise use this string as-is."]>>]'
    )
    assert "aaaa" not in got  # none of the original survives
    assert len(shorten_string_envelope("a" * 201, 200)) == 443  # a 201-character argument grows
    assert "job" not in shorten_string_envelope("a" * 201, 200, None)
    assert "job" not in shorten_string_envelope("a" * 201, 200, False)
    assert "job: 0 -" in shorten_string_envelope("a" * 201, 200, 0)  # 0 is true in Ruby
    assert 'job: {"k"=>1} -' in shorten_string_envelope("a" * 201, 200, {"k": 1})


def test_ruby_round_goes_half_away_from_zero():
    assert [ruby_round(x) for x in (0.5, 1.5, 2.5, -0.5, -2.5, 2.4)] == [1, 2, 3, -1, -3, 2]


def test_the_schedule_grows_with_epochs_and_repeats():
    s = IncrementSettings(
        threshold=10,
        full=2,
        compacted=4,
        size=5,
        epochs_per_increase=2,
        size_increase=3,
        repeat_increase=4,
        max_size=12,
        growth_ratio=1.5,
        max_compacted=9,
    )
    plain = schedule(40, [], s)
    # epochs of 5, 5, 8, 8, then 11: 10 -> 15 -> 20 -> 28 -> 36 (the fifth holds 37..40)
    assert (plain.pinned_total, plain.epoch_size, plain.epoch_index) == (36, 11, 4)
    assert plain.effective_compacted == 9  # 4 + round(6 * 1.5) = 13, capped at 9
    grown = schedule(14, [12], s)  # a repeat at 12 inside the first epoch: 5 + 4
    assert (grown.pinned_total, grown.epoch_size, grown.repeat_detected) == (10, 9, True)
    assert grown.effective_compacted == min(4 + ruby_round(4 * 1.5), 9)


def _pairs(n, long=False):
    items = [{"role": "user", "content": "go"}]
    for i in range(n):
        items.append(call("ls", f"c{i}", p=(f"{i}" + "z" * 300 if long else f"p{i}")))
        items.append(output("ls", f"c{i}", ("o" * 500 if long else "ok")))
    return items


def test_unknown_name_from_the_chat_raises_as_the_version_would():
    prompt = prepare_prompt(messages(*_pairs(2)), "shorten_tools_epoch", version=versions.SEED)
    assert prompt.error.exception == "NoMethodError"
    assert "try --scout-version 2.1" in prompt.error.why and "1.2.6, 2.1" in prompt.error.why
    prompt = prepare_prompt(messages(*_pairs(2)), "magic", version=versions.V21)
    assert prompt.error.why.startswith("undefined method `magic' for Chat:Module")


def test_increment_notice_and_compacted_key():
    prompt = prepare_prompt(
        messages(*_pairs(8, long=True)),
        "shorten_tools_epoch_increment",
        increment_settings=IncrementSettings(threshold=2, full=1, compacted=2, size=2),
    )
    assert prompt.error is None
    sent = [m.fields for m in prompt.messages()]
    notices = [m for m in sent if m["role"] == "user" and m["content"].startswith("=== Context Management ===")]
    assert len(notices) == 1 and "Compacted tool messages: 4\nRemoved tool messages: 6" in notices[0]["content"]
    compacted = [m for m in sent if m.get("compacted")]
    assert len(compacted) == 4
    assert all(
        "[CONTEXT-COMPACTED" in json.loads(m["content"]).get("content", "")
        or "[CONTEXT-COMPACTED" in json.dumps(json.loads(m["content"]).get("arguments"))
        for m in compacted
    )


def test_string_arguments_do_not_raise_in_the_increment():
    items = [{"role": "user", "content": "go"}]
    for i in range(6):
        items.append(
            {"role": "function_call", "content": json.dumps({"name": "ls", "arguments": "x" * 300, "id": f"c{i}"})}
        )
        items.append(output("ls", f"c{i}", "o" * 500))
    settings = IncrementSettings(threshold=1, full=1, compacted=3, size=1)
    prompt = prepare_prompt(messages(*items), "shorten_tools_epoch_increment", increment_settings=settings)
    assert prompt.error is None
    epoch = prepare_prompt(messages(*items), "shorten_tools_epoch")
    assert epoch.error is None  # under the default threshold: unchanged
