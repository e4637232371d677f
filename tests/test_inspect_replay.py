"""Inspect's replay takes shortcuts (a message's text tokenized once, a compaction that starts where the last
one settled); on random chats they must give what the plain algorithm gives: every part joined by newlines
and counted whole, and the strategy run over the whole view at every compaction."""

from __future__ import annotations

import random
from typing import Any

import pytest

from inspector.core import tokens
from inspector.core.peers import inspect_ai
from inspector.core.peers.inspect_ai import Handler, InspectCounter, Running, text_parts
from inspector.core.peers.outcome import PolicyRaises
from inspector.core.peers.registry import settings_for
from inspector.core.peers.wire import Item, WireCall

PIECES = ["a", "Ab", " ", "\n", "\r", "/", "\t", "é", "字", "😀", ".", "}", "{", "1", "'s", "\u0301", "\u00a0", "\x1c"]


def _text(rnd: random.Random) -> str:
    return "".join(rnd.choice(PIECES) for _ in range(rnd.choice([0, 1, 2, 5, 20, 60])))


def _chat(rnd: random.Random, size: int) -> list[Item]:
    items = [Item("system", _text(rnd) or "sys", 0), Item("user", _text(rnd) or "task", 1)]
    n = 0
    while len(items) < size:
        k = len(items)
        if rnd.random() < 0.6:
            calls = tuple(
                WireCall(f"c{n}_{j}", rnd.choice(["bash", "read", "memory"]), {"file_text": _text(rnd)}, k)
                for j in range(rnd.randint(1, 3))
            )
            n += 1
            items.append(Item("assistant", rnd.choice([None, _text(rnd)]), k, calls))
            for call in calls:
                if rnd.random() < 0.95:
                    items.append(Item("tool", _text(rnd) * rnd.randint(1, 8), len(items), call_id=call.id))
        else:
            items.append(Item(rnd.choice(["user", "assistant"]), _text(rnd), k))
    return items


def test_a_list_counted_in_pieces_is_counted_as_the_joined_text() -> None:
    o200k = tokens.get("o200k")
    rnd = random.Random(7)
    counter = InspectCounter()
    for _ in range(1500):
        items = _chat(rnd, rnd.randint(1, 8))[rnd.randint(0, 1) :]
        parts = [p for item in items for p in text_parts(item)]
        assert counter.raw(items) == o200k.count("\n".join(parts))
        half = len(items) // 2
        running = counter.running()
        running.extend(items[:half])
        rest = running.start(half)
        rest.extend(items[half:])
        assert rest.raw() == o200k.count("\n".join(parts))


class Plain(Handler):
    """The handler without the shortcuts: the strategy from the first message, the view counted whole."""

    def _pass(self, messages: list[Item], counted: Running) -> tuple[list[Item], Running]:
        out = self.strategy(messages, self.settings, 0, None)[0]
        again = Running(InspectCounter())
        again.extend(out)
        return out, again


def _replay(handler: Handler, items: list[Item]) -> tuple[list[Any], list[tuple[int, int, int]]]:
    for k, item in enumerate(items):
        if item.role == "assistant" and k > 0:
            handler.compact_input(items, k)
    handler.compact_input(items, len(items))
    shown = [(m.role, m.text(), [(c.id, c.arguments) for c in m.calls], m.call_id) for m in handler.compacted]
    return shown, handler.fired


@pytest.mark.parametrize("seed", range(24))
def test_a_replay_with_shortcuts_is_the_plain_replay(seed: int) -> None:
    rnd = random.Random(seed)
    items = _chat(rnd, rnd.randint(20, 120))
    kind = rnd.choice(["edit", "trim"])
    overrides = {"threshold": str(rnd.choice([400, 1000, 2500, 6000])), "memory": rnd.choice(["true", "false"])}
    if kind == "edit":
        overrides |= {
            "keep_tool_uses": str(rnd.choice([0, 1, 2, 5])),
            "keep_tool_inputs": rnd.choice(["true", "false"]),
        }
        name = "inspect.compaction_edit"
    else:
        overrides["preserve"] = rnd.choice(["0.3", "0.8", "1"])
        name = "inspect.compaction_trim"
    settings = settings_for(name, overrides).as_dict()
    prefix = inspect_ai.prefix_of(items)
    try:
        want = _replay(Plain(kind, settings, prefix, InspectCounter()), items)
    except PolicyRaises as raised:
        counter = InspectCounter()
        counter.base(items)
        with pytest.raises(PolicyRaises) as same:
            _replay(Handler(kind, settings, prefix, counter), items)
        assert same.value.why == raised.why
        return
    counter = InspectCounter()
    counter.base(items)  # as replay() does: runs of the chat's own messages are counted from its sums
    assert _replay(Handler(kind, settings, prefix, counter), items) == want
