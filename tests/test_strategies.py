import pytest
from helpers import plan, rounds

from inspector.core.policies import decision as d
from inspector.core.scout.strategies import (
    UnknownStrategy,
    known_strategies,
    parse_spec,
    register_strategy,
    unregister_strategy,
)


def test_spec_forms():
    assert parse_spec(None) == ["shorten_tools"]
    assert parse_spec("none,shorten_tools,") == ["none", "shorten_tools"]  # Ruby split drops trailing empties
    assert parse_spec(["none"]) == ["none"]
    assert parse_spec("") == []
    fn = lambda messages: messages  # noqa: E731
    assert parse_spec(fn) is fn


def test_unknown_name_lists_the_known_ones():
    with pytest.raises(UnknownStrategy) as info:
        parse_spec("shorten_tools,magic")
    assert (
        str(info.value)
        == "unknown prompt strategy 'magic'; known: shorten_tools, none, shorten_tools_epoch, shorten_tools_epoch_increment, inbox"
    )
    with pytest.raises(UnknownStrategy):
        parse_spec(",shorten_tools")  # a leading empty name is unknown too, as in scout-ai


def test_registered_strategy_runs_in_the_chain_and_decisions_follow():
    def drop_assistant(messages):
        return [m for m in messages if m["role"] != "assistant"]

    register_strategy("drop_assistant", drop_assistant)
    try:
        assert "drop_assistant" in known_strategies()
        items = [{"role": "user", "content": "u"}, {"role": "assistant", "content": "a"}, *rounds(2, 10)]
        p = plan(items, "drop_assistant,shorten_tools")
        assert [m.fields["role"] for m in p.messages()] == [
            "user",
            "function_call",
            "function_call_output",
            "function_call",
            "function_call_output",
        ]
        assert p.tier_of(1) == d.DROPPED and p.decision(1).reason == d.CUSTOM
        assert p.tier_of(0) == d.FULL
    finally:
        unregister_strategy("drop_assistant")


def test_callable_bypasses_the_list_and_changed_content_is_truncated_tier():
    def shout(messages):
        return [dict(m, content=m["content"].upper()) if m["role"] == "user" else m for m in messages]

    items = [{"role": "user", "content": "hello"}, {"role": "assistant", "content": "hi"}]
    p = plan(items, shout)
    assert [m.fields["content"] for m in p.messages()] == ["HELLO", "hi"]
    assert p.tier_of(0) == d.TRUNCATED and p.tier_of(1) == d.FULL


def test_chain_shorten_twice_matches_scout_semantics():
    items = rounds(8, 600)
    once = plan(items, "shorten_tools", max_tool_chars=0, full_tool_outputs=2, max_tool_calls=5)
    twice = plan(items, "shorten_tools,shorten_tools", max_tool_chars=0, full_tool_outputs=2, max_tool_calls=5)
    assert len(twice.messages()) <= len(once.messages())
    assert all(twice.tier_of(i) in (d.FULL, d.TRUNCATED, d.DROPPED) for i in range(16))
    assert [twice.tier_of(i) for i in range(16)].count(d.DROPPED) >= [once.tier_of(i) for i in range(16)].count(
        d.DROPPED
    )


def test_builtin_names_cannot_be_replaced():
    with pytest.raises(ValueError):
        register_strategy("none", lambda m: m)
