"""CompactionEdit's replay starts each pass where the previous one settled (``Handler.settled``) instead of
going over the whole view, as the library does; on any chat the outcome must be what passes over the whole
view give (every pass from settled=0): the messages sent, the compactions' counts, or the error raised.
Chats with what the shortcut cannot see (a call id twice, a result after a later assistant message, an item
twice) and chats without any, over many thresholds and every setting that changes what a pass does."""

from __future__ import annotations

import random
from typing import Any

import pytest
import test_inspect_replay
import test_peer_replay_jumps
from helpers import seeds

from inspector.core.peers import inspect_ai
from inspector.core.peers.inspect_ai import Handler, InspectCounter, Running
from inspector.core.peers.outcome import PolicyRaises
from inspector.core.peers.registry import settings_for
from inspector.core.peers.wire import Item, WireCall

FRACTIONS = (0.01, 0.03, 0.05, 0.08, 0.12, 0.18, 0.25, 0.35, 0.5, 0.75, 1.2)


class Full(Handler):
    """The handler as the library runs it: every pass over the whole view, nothing cached, counted whole."""

    def _pass(self, messages: list[Item], counted: Running) -> tuple[list[Item], Running]:
        out = self.strategy(messages, self.settings, 0, None)[0]
        again = Running(InspectCounter())
        again.extend(out)
        return out, again


def _shown(result: list[Item]) -> list[Any]:
    return [(m.role, m.text(), [(c.id, c.name, c.arguments) for c in m.calls], m.call_id, m.origin) for m in result]


def _full(items: list[Item], settings: dict[str, Any]) -> Any:
    handler = Full("edit", settings, inspect_ai.prefix_of(items), InspectCounter())
    try:
        for k, item in enumerate(items):
            if item.role == "assistant" and k > 0:
                handler.compact_input(items, k)
        handler.compact_input(items, len(items))
    except PolicyRaises as raised:
        return "raises", raised.exception, raised.why
    return _shown(handler.compacted), handler.fired


def _replayed(items: list[Item], settings: dict[str, Any], counter: InspectCounter) -> Any:
    counter.base(items)
    handler = Handler("edit", settings, inspect_ai.prefix_of(items), counter)
    try:
        handler.run(list(items))
    except PolicyRaises as raised:
        return "raises", raised.exception, raised.why
    return _shown(handler.compacted), handler.fired


def _turn(rnd: random.Random, items: list[Item], n: int, between: bool) -> None:
    """An assistant message calling tools (ids ``c{n}_*``), then the results of most calls, in any order."""
    text = test_peer_replay_jumps._text
    k = len(items)
    calls = tuple(
        WireCall(
            f"c{n}_{j}",
            rnd.choice(["bash", "read", "memory", "tool_search"]),
            {"file_text": text(rnd)} if rnd.random() < 0.5 else {"path": text(rnd)},
            k,
        )
        for j in range(rnd.choice([1, 1, 1, 2, 3]))
    )
    items.append(Item("assistant", rnd.choice([None, "", text(rnd)]), k, calls))
    answers = [c for c in calls if rnd.random() < 0.9]
    if rnd.random() < 0.3:
        rnd.shuffle(answers)
    for call in answers:
        if between and rnd.random() < 0.1:
            items.append(Item(rnd.choice(["user", "system"]), text(rnd), len(items)))
        items.append(Item("tool", text(rnd) * rnd.randint(1, 6), len(items), call_id=call.id))


def _regular(rnd: random.Random, size: int) -> list[Item]:
    """No call id twice, no item twice, every result before the next assistant message; but calls before the
    first user message (the prefix the handler puts back), parallel results out of order, results never
    given, user and system messages between a call and its result, results no call asks for, excluded,
    tool_search and memory calls, assistant messages in a row, a trailing one."""
    text = test_peer_replay_jumps._text
    items = [Item("system", text(rnd) or "sys", 0)]
    n = 0
    for n in range(rnd.choice([0, 0, 1, 3])):  # react()'s input before the first user message
        _turn(rnd, items, n, False)
    items.append(Item("user", text(rnd) or "task", len(items)))
    while len(items) < size:
        k = len(items)
        pick = rnd.random()
        if pick < 0.65:
            n += 1
            _turn(rnd, items, n, True)
        elif pick < 0.7:
            items.append(Item("tool", text(rnd), k, call_id=f"orphan{k}"))
        else:
            items.append(Item(rnd.choice(["user", "assistant", "assistant", "system"]), text(rnd), k))
    if rnd.random() < 0.3:
        items.append(Item("assistant", text(rnd), len(items)))
    return items


def _chat(rnd: random.Random) -> list[Item]:
    pick = rnd.random()
    if pick < 0.5:
        return _regular(rnd, rnd.randint(5, 140))
    if pick < 0.8:
        return test_peer_replay_jumps._chat(rnd, rnd.randint(5, 140))
    return test_inspect_replay._chat(rnd, rnd.randint(5, 140))


def _settings(rnd: random.Random, total: int, fraction: float) -> dict[str, Any]:
    overrides = {
        "threshold": str(max(1, int(total * fraction))),
        "memory": rnd.choice(["true", "false"]),
        "keep_tool_uses": str(rnd.choice([0, 1, 2, 3, 5])),
        "keep_tool_inputs": rnd.choice(["true", "false"]),
    }
    if rnd.random() < 0.2:
        overrides["exclude_tools"] = "read"
    return settings_for("inspect.compaction_edit", overrides).as_dict()


def _check(seed: int, chats: int) -> int:
    """The plans compared; each chat at every threshold, one counter for all (as a sweep shares it)."""
    rnd = random.Random(seed)
    counter = InspectCounter()
    plans = 0
    for _ in range(chats):
        items = _chat(rnd)
        total = InspectCounter().count(items)
        for fraction in FRACTIONS:
            settings = _settings(rnd, total, fraction)
            assert _replayed(items, settings, counter) == _full(items, settings), (seed, settings)
            plans += 1
    return plans


@pytest.mark.parametrize("seed", seeds(40, quick=12))
def test_edit_from_where_it_settled_is_edit_over_the_whole_view(seed: int) -> None:
    _check(seed, 3)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(1000, 1120))
def test_edit_from_where_it_settled_is_edit_over_the_whole_view_thorough(seed: int) -> None:
    _check(seed, 4)


def test_two_calls_sharing_an_id_raise_as_the_library_does() -> None:
    """Clearing with keep_tool_inputs=false deletes the one result both calls find, twice: inspect-ai 0.3.285
    raises IndexError when that result is the view's last message (else it deletes the message after it)."""
    call = WireCall("c1", "bash", {"cmd": "x"}, 2)
    again = WireCall("c1", "bash", {"cmd": "x"}, 3)
    items = [
        Item("system", "sys", 0),
        Item("user", "task", 1),
        Item("assistant", "a", 2, (call,)),
        Item("assistant", "b", 3, (again,)),
        Item("tool", "r", 4, call_id="c1"),
    ]
    overrides = {"keep_tool_uses": "0", "keep_tool_inputs": "false"}
    settings = settings_for("inspect.compaction_edit", overrides | {"threshold": "always"}).as_dict()
    with pytest.raises(PolicyRaises) as raised:
        inspect_ai.replay("edit", items, settings, InspectCounter())
    assert (raised.value.exception, raised.value.why) == ("IndexError", "list assignment index out of range")
    threshold = inspect_ai.TOOL_TOKENS + InspectCounter().count(items[:4])  # fires only at the whole chat
    settings = settings_for("inspect.compaction_edit", overrides | {"threshold": str(threshold)}).as_dict()
    with pytest.raises(PolicyRaises) as raised:
        inspect_ai.replay("edit", items, settings, InspectCounter())
    assert (raised.value.exception, raised.value.why) == ("IndexError", "list assignment index out of range")
    # not the last message: the library deletes the user message after it, then pops the assistant messages
    items.append(Item("user", "next", 5))
    out = inspect_ai.replay("edit", items, settings, InspectCounter())
    assert [(m.role, m.text()) for m in out.items] == [("system", "sys"), ("user", "task")]
