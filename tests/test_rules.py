"""One test per decision rule, with hand-computed expectations."""

import json

from helpers import call, output, plan, rounds

from inspector.core.policies import decision as d


def tiers(prompt, count):
    return [prompt.tier_of(i) for i in range(count)]


def test_not_tool_messages_pass_through():
    items = [
        {"role": "system", "content": "s"},
        {"role": "user", "content": "u"},
        {"role": "assistant", "content": "a"},
        {"role": "tool", "content": "x"},
    ]
    p = plan(items, max_tool_chars=0)
    assert [p.decision(i).reason for i in range(4)] == [d.NOT_TOOL] * 4
    assert [m.fields for m in p.messages()] == items


def test_under_budget_everything_kept():
    items = rounds(30, 100)
    p = plan(items)
    assert set(tiers(p, 60)) == {"full"}
    assert p.decision(0).reason == d.BUDGET


def test_recent_band_then_middle_band_then_beyond_max():
    # 6 rounds of 500-char outputs, budget 0: outputs counted newest first
    items = rounds(6, 500)
    p = plan(items, full_tool_outputs=2, max_tool_calls=4, max_tool_chars=0)
    # newest output (index 11) is the 1st counted: 1 < 2 -> recent band, kept
    assert (p.tier_of(11), p.decision(11).reason, p.decision(11).outputs_counted) == ("full", d.RECENT, 1)
    # its call sees outputs counted 1; full_tool_calls 0 -> not recent; budget 0 -> middle band, but q0..q5 are short
    assert (p.tier_of(10), p.decision(10).reason) == ("full", d.NOTHING)
    # 2nd output: 2 < 2 false -> middle band -> truncated
    assert (p.tier_of(9), p.decision(9).reason, p.decision(9).outputs_counted) == ("truncated", d.MIDDLE, 2)
    # outputs 2,3,4 truncated (<= max 4); outputs 5 and 6 dropped, and their calls too (counted 5 > 4)
    assert tiers(p, 12) == [
        "dropped",
        "dropped",
        "dropped",
        "dropped",
        "full",
        "truncated",
        "full",
        "truncated",
        "full",
        "truncated",
        "full",
        "full",
    ]
    assert p.decision(0).reason == d.BEYOND_MAX


def test_budget_counts_kept_and_truncated_lengths_before_the_message():
    items = rounds(4, 1000)
    raw_output = len(items[7]["content"])
    raw_call = len(items[6]["content"])
    p = plan(items, max_tool_chars=raw_output + raw_call + 1, full_tool_outputs=0)
    # newest output and call fill raw_output + raw_call < budget, so the next output is still kept
    assert p.decision(5).tool_chars_before == raw_output + raw_call
    assert p.tier_of(5) == "full" and p.decision(5).reason == d.BUDGET
    # now over budget: call 4 is in the middle band (nothing long), output 3 truncated
    assert p.tier_of(3) == "truncated"
    truncated = json.loads(p.visible_content(3))
    assert truncated["content"].startswith("Truncated (1000): ")
    assert p.decision(3).visible_chars == len(p.visible_content(3))


def test_middle_band_that_shortens_nothing_adds_no_characters():
    items = [call("t", "a", q="x"), output("t", "a", "short"), call("t", "b", q="y"), output("t", "b", "z" * 300)]
    p = plan(items, max_tool_chars=1, full_tool_outputs=0)
    # newest output counted first with 0 chars before: kept under budget
    assert p.decision(3).reason == d.BUDGET
    # its call: over budget, nothing long -> kept, and adds nothing
    assert p.decision(2).reason == d.NOTHING
    assert p.decision(1).reason == d.NOTHING
    assert p.decision(1).tool_chars_before == len(items[3]["content"])


def test_long_call_arguments_truncated_other_values_kept():
    items = [
        {
            "role": "function_call",
            "content": json.dumps({"name": "w", "arguments": {"text": "é" * 250, "n": 1.0e20}, "id": "c"}),
        },
        output("w", "c", "done"),
    ]
    p = plan(items, max_tool_chars=0, full_tool_outputs=5)
    assert p.tier_of(0) == "truncated"
    shown = p.visible_content(0)
    assert shown.startswith('{"name":"w","arguments":{"text":"Truncated (250): ')
    assert shown.endswith('","n":1.0e+20},"id":"c"}')


def test_tool_message_without_content_passes_and_is_not_counted():
    items = [
        output("t", "a", "x" * 500),
        {"role": "function_call_output", "content": None},
        output("t", "b", "y" * 500),
    ]
    p = plan(items, max_tool_chars=0, full_tool_outputs=0, max_tool_calls=1)
    assert p.decision(1).reason == d.NO_CONTENT
    assert p.decision(0).outputs_counted == 2
    assert tiers(p, 3) == ["dropped", "full", "truncated"]


def test_strategy_none_changes_nothing():
    items = rounds(50, 5000)
    p = plan(items, strategies="none")
    assert set(tiers(p, 100)) == {"full"}
    assert p.messages()[0].fields == items[0]


def test_scout_error_invalid_json_names_the_message():
    items = [
        {"role": "user", "content": "hi"},
        {"role": "function_call_output", "content": "{oops"},
        output("t", "a", "x"),
    ]
    p = plan(items)
    assert p.error is not None
    assert (p.error.index, p.error.role, p.error.exception) == (1, "function_call_output", "JSON::ParserError")
    assert tiers(p, 3) == ["undecided", "error", "undecided"]
    assert p.messages() == []
    # the newer output was decided full before the raise: nothing is sent, so it is undecided, and says so
    newer = p.decision(2)
    assert (newer.tier, newer.reason, newer.visible_chars, newer.original_chars) == ("undecided", "discarded", 0, 40)
    assert newer.detail == "decided full (recent-N band) before scout-ai raised on message 1, so nothing is sent"
    assert p.decisions() == [p.decision_columns().decision(i) for i in range(3)] == [p.decision(i) for i in range(3)]
    assert p.visible_content(2) is None
    assert p.tier_counts() == {"full": 0, "truncated": 0, "dropped": 0, "error": 1, "undecided": 2}


def test_scout_error_json_nested_past_100_levels_is_nesting_error():
    """JSON.parse's max_nesting is 100, at every tool message whatever the thresholds (checked with
    scout-ai's listing under Ruby 3.1, json 2.6.1: "nesting of 101 is too deep"). 100 levels parse."""

    def nested(depth: int, ident: str) -> dict:
        text = (
            json.dumps({"name": "t", "content": "x", "id": ident})[:-1] + ', "deep": ' + "[" * depth + "]" * depth + "}"
        )
        return {"role": "function_call_output", "content": text}

    brackets = output("t", "b", "[" * 500)  # brackets inside a string do not nest
    p = plan([{"role": "user", "content": "hi"}, nested(100, "a"), brackets])  # 101 levels
    assert p.error is not None
    assert (p.error.index, p.error.exception) == (1, "JSON::NestingError")
    assert p.error.why == "content is not valid JSON (nesting of 101 is too deep)"
    assert tiers(p, 3) == ["undecided", "error", "undecided"]
    for depth in (99, 100):  # the object itself is level 1: 99 more arrays are 100 levels
        p = plan([{"role": "user", "content": "hi"}, nested(depth - 1, "a"), brackets])
        assert p.error is None and tiers(p, 3) == ["full", "full", "full"], depth
    lenient = {"role": "function_call_output", "content": "/* a comment */" + nested(101, "c")["content"]}
    p = plan([{"role": "user", "content": "hi"}, lenient])  # the careful path (comments) checks it too
    assert p.error is not None and p.error.exception == "JSON::NestingError"


def test_scout_error_null_arguments_only_in_the_band():
    items = [
        {"role": "function_call", "content": json.dumps({"name": "n", "arguments": None, "id": "k"})},
        output("n", "k", "x" * 300),
    ]
    assert plan(items).error is None  # under budget: never shortened
    p = plan(items, max_tool_chars=0, full_tool_outputs=0)
    assert p.error is not None and p.error.exception == "NoMethodError"
    assert (p.error.index, p.error.name, p.error.id) == (0, "n", "k")
    assert "values" in p.error.why


def test_scout_error_string_arguments_and_null_output_content():
    old = {"role": "function_call", "content": json.dumps({"name": "s", "arguments": '{"q": 1}', "id": "k"})}
    p = plan([old, output("s", "k", "x" * 300)], max_tool_chars=0, full_tool_outputs=0)
    assert p.error.exception == "NoMethodError" and "each" in p.error.why
    p = plan([output("s", "k", None), output("s", "j", "y")], max_tool_chars=0, full_tool_outputs=0)
    assert p.error.exception == "NoMethodError" and p.error.index == 0


def test_message_without_role_raises():
    p = plan([{"content": "who"}, {"role": "user", "content": "x"}])
    assert p.error is not None and p.error.index == 0 and "to_sym" in p.error.why


def test_array_output_content_small_is_kept_large_raises():
    small = output("t", "a", [1, 2, 3])
    assert plan([small, output("t", "b", "x")], max_tool_chars=0, full_tool_outputs=0).tier_of(0) == "full"
    big = output("t", "a", list(range(201)))
    p = plan([big, output("t", "b", "x")], max_tool_chars=0, full_tool_outputs=0)
    assert p.error is not None and p.error.exception == "TypeError"


def test_max_tool_outputs_follows_max_tool_calls_quirk_full_calls():
    # full_tool_calls counts outputs too: a call is kept whole while fewer outputs than it were seen
    items = rounds(5, 400)
    items[0] = call("t", "c0", q="w" * 300)
    p = plan(items, max_tool_chars=0, full_tool_calls=6, full_tool_outputs=0)
    assert p.tier_of(0) == "full" and p.decision(0).reason == d.RECENT
    p = plan(items, max_tool_chars=0, full_tool_calls=5, full_tool_outputs=0)
    assert p.tier_of(0) == "truncated"


def test_totals_and_counts():
    items = rounds(6, 500)
    p = plan(items, full_tool_outputs=2, max_tool_calls=4, max_tool_chars=0)
    totals = p.totals()
    assert (totals.tiers["full"], totals.tiers["truncated"], totals.tiers["dropped"]) == (5, 3, 4)
    assert totals.visible_messages == 8
    assert totals.chars_after == sum(len(m.fields["content"]) for m in p.messages())
