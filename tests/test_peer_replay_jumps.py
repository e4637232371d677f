"""Inspect's replay calls the handler only where it can fire (a jump over the calls in between), trims a run
of the chat's own messages from the chat's facts, counts cleared results as runs of the chat with its
results cleared, and keeps the notes of a chat it sees again; on random chats, one counter shared by many
settings in a row (as a sweep shares it), every outcome must be what the plain algorithm gives: the handler
called before every assistant message, the strategy without the counter's caches, every list counted whole,
and every note written out item by item."""

from __future__ import annotations

import random
from typing import Any

import pytest
from helpers import seeds

from inspector.core.peers import inspect_ai
from inspector.core.peers.inspect_ai import TOOL_RESULT_REMOVED, TOOL_TOKENS, Handler, InspectCounter, Running
from inspector.core.peers.outcome import PolicyRaises
from inspector.core.peers.registry import settings_for
from inspector.core.peers.wire import Item, WireCall

PIECES = ["a", "Ab", " ", "\n", "/", "\t", "é", "字", "😀", ".", "}", "1", "'s", "\u00a0", "word", " the"]


def _text(rnd: random.Random) -> str:
    return "".join(rnd.choice(PIECES) for _ in range(rnd.choice([0, 1, 3, 8, 30, 90])))


def _chat(rnd: random.Random, size: int) -> list[Item]:
    """Calls answered right after them, in parallel, late, never, or twice; memory calls; system messages
    in the middle; other roles; the same item twice; a late first user message; a trailing assistant."""
    items = [Item("system", _text(rnd) or "sys", 0)]
    for _ in range(rnd.choice([0, 0, 1, 3])):  # react()'s input before the first user message
        items.append(Item(rnd.choice(["assistant", "tool"]), _text(rnd), len(items)))
    items.append(Item("user", _text(rnd) or "task", len(items)))
    n = 0
    late: list[Item] = []
    while len(items) < size:
        k = len(items)
        pick = rnd.random()
        if pick < 0.6:
            calls = tuple(
                WireCall(
                    f"c{n}_{j}" if rnd.random() < 0.97 else "c0_0",
                    rnd.choice(["bash", "read", "memory", "tool_search"]),
                    {"file_text": _text(rnd)} if rnd.random() < 0.5 else {"path": _text(rnd)},
                    k,
                )
                for j in range(rnd.choice([1, 1, 1, 2, 3]))
            )
            n += 1
            items.append(Item("assistant", rnd.choice([None, "", _text(rnd)]), k, calls))
            for call in calls:
                answer = Item("tool", _text(rnd) * rnd.randint(1, 6), len(items), call_id=call.id)
                roll = rnd.random()
                if roll < 0.85:
                    items.append(answer)
                elif roll < 0.92:
                    late.append(answer)
            if late and rnd.random() < 0.2:
                items.append(late.pop(0))
        elif pick < 0.63:
            items.append(Item("system", _text(rnd), k))
        elif pick < 0.65:
            items.append(Item("developer", _text(rnd), k))
        elif pick < 0.67 and len(items) > 3:
            items.append(rnd.choice(items[2:]))  # the same item again
        else:
            items.append(Item(rnd.choice(["user", "assistant", "assistant"]), _text(rnd), k))
    if rnd.random() < 0.3:
        items.append(Item("assistant", _text(rnd), len(items)))
    return items


class Plain(Handler):
    """The handler without the shortcuts and caches: the strategy without them over the whole view (as the
    library runs it: CompactionEdit from the first message), the view counted whole."""

    def _pass(self, messages: list[Item], counted: Running) -> tuple[list[Item], Running]:
        out = self.strategy(messages, self.settings, 0, None)[0]
        again = Running(InspectCounter())
        again.extend(out)
        return out, again


def _plain(kind: str, items: list[Item], settings: dict[str, Any]) -> Any:
    """``replay`` as the algorithm says it: the handler before every assistant message, then the notes."""
    counter = InspectCounter()
    if settings["threshold"] == "always":
        result = inspect_ai.STRATEGIES[kind](items, settings, 0, None)[0]
        summary = f"Compaction{kind.title()} applied to the whole chat (threshold=always: the strategy alone)"
        total = TOOL_TOKENS + counter.count(items)
    else:
        handler = Plain(kind, settings, inspect_ai.prefix_of(items), counter)
        for k, item in enumerate(items):
            if item.role == "assistant" and k > 0:
                handler.compact_input(items, k)
        handler.compact_input(items, len(items))
        result, total = handler.compacted, handler.last_total
        summary = inspect_ai.replay_summary(handler)
    sent = {id(m) for m in result}
    cleared = {m.origin for m in result if m.extra.get("cleared") and m.origin >= 0}
    notes: dict[int, str] = {}
    kept_calls = {c.origin for m in result for c in m.calls}
    by_origin: dict[int, str] = {}
    for k, item in enumerate(items):
        if id(item) in sent:
            continue
        if item.role == "tool" and item.origin in cleared:
            notes[k] = f"an older tool use: its result replaced by {TOOL_RESULT_REMOVED!r}"
        elif item.role == "tool":
            notes[k] = "removed by the compaction (a tool use cleared with its call, or trimmed)"
        elif item.role == "assistant" and k == len(items) - 1:
            notes[k] = "a trailing assistant message: compaction pops it"
        else:
            notes[k] = "removed by the compaction"
        for call in item.calls:
            if call.origin not in kept_calls:
                by_origin[call.origin] = "its call removed with its result (keep_tool_inputs=false) or trimmed"
    per = [InspectCounter().count([i]) for i in items]
    return _shown(result), summary, list(notes.items()), cleared, list(by_origin.items()), per, total


def _shown(result: list[Item]) -> list[Any]:
    return [(m.role, m.text(), [(c.id, c.name, c.arguments) for c in m.calls], m.call_id, m.origin) for m in result]


def _jumped(kind: str, items: list[Item], settings: dict[str, Any], counter: InspectCounter) -> Any:
    outcome = inspect_ai.replay(kind, list(items), settings, counter)  # each plan passes a copy of the list
    return (
        _shown(outcome.items),
        outcome.summary,
        list(outcome.notes.items()),  # in the same order too
        outcome.cleared,
        list(outcome.by_origin.items()),
        outcome.tokens,
        outcome.total,
    )


def _settings(rnd: random.Random, kind: str, total: int) -> dict[str, Any]:
    threshold = rnd.choice(
        [str(max(1, int(total * f))) for f in (0.04, 0.1, 0.2, 0.35, 0.5, 0.75, 1.2)] + ["always", "0.01"]
    )
    overrides = {"threshold": threshold, "memory": rnd.choice(["true", "false"])}
    if kind == "edit":
        overrides |= {
            "keep_tool_uses": str(rnd.choice([0, 1, 2, 5])),
            "keep_tool_inputs": rnd.choice(["true", "true", "false"]),
        }
        if rnd.random() < 0.2:
            overrides["exclude_tools"] = "read"
        return settings_for("inspect.compaction_edit", overrides).as_dict() | {"context_window": 2000}
    overrides["preserve"] = rnd.choice(["0", "0.3", "0.8", "1"])
    return settings_for("inspect.compaction_trim", overrides).as_dict() | {"context_window": 2000}


def _same(kind: str, items: list[Item], settings: dict[str, Any], counter: InspectCounter) -> None:
    try:
        want = _plain(kind, items, settings)
    except PolicyRaises as raised:
        with pytest.raises(PolicyRaises) as same:
            _jumped(kind, items, settings, counter)
        assert str(same.value) == str(raised)
        return
    assert _jumped(kind, items, settings, counter) == want, (kind, settings)


def _check(seed: int, plans: int) -> None:
    rnd = random.Random(seed)
    counter = InspectCounter()  # one per sweep: shared by every plan of every chat, as a re-plan shares it
    for _ in range(2):
        items = _chat(rnd, rnd.randint(5, 160))
        total = InspectCounter().count(items)
        for _ in range(plans):
            kind = rnd.choice(["edit", "trim"])
            _same(kind, items, _settings(rnd, kind, total), counter)


@pytest.mark.parametrize("seed", seeds(30, quick=10))
def test_a_jumped_replay_is_the_replay_at_every_call(seed: int) -> None:
    _check(seed, 6)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(30, 230))
def test_a_jumped_replay_is_the_replay_at_every_call_thorough(seed: int) -> None:
    _check(seed, 10)


def test_a_long_chat_of_plain_runs_compacts_as_the_replay_at_every_call() -> None:
    """The shape a real chat has (a call, its result, now and then a user message), long enough for many
    compactions in a row: trimmed from the chat's facts, cleared results counted as runs."""
    rnd = random.Random(5)
    items = [Item("system", "sys", 0), Item("user", "task", 1)]
    for n in range(600):
        call = WireCall(f"c{n}", rnd.choice(["bash", "read"]), {"cmd": _text(rnd)}, len(items))
        items.append(Item("assistant", rnd.choice([None, _text(rnd)]), len(items), (call,)))
        items.append(Item("tool", _text(rnd) * rnd.randint(1, 5), len(items), call_id=call.id))
        if rnd.random() < 0.1:
            items.append(Item("user", _text(rnd), len(items)))
    total = InspectCounter().count(items)
    counter = InspectCounter()
    for f in (0.03, 0.1, 0.3):
        for kind, extra in (("edit", {"keep_tool_uses": "3"}), ("trim", {"preserve": "0.8"}), ("trim", {})):
            name = f"inspect.compaction_{kind}"
            settings = settings_for(name, {"threshold": str(int(total * f)), **extra}).as_dict()
            _same(kind, items, settings, counter)


def test_the_cutoff_is_the_least_raw_count_that_fires() -> None:
    counter = InspectCounter()
    for threshold in [-5, 0, 1, 2, 3, 4, 10, 11, 12, 99, 100, 101, 1000, 12345, 10**9 + 7]:
        handler = Handler("trim", {"threshold": threshold, "context_window": 1, "preserve": 1.0}, [], counter)
        cutoff = handler._cutoff()

        def fires(raw: int, threshold: int = threshold) -> bool:
            return TOOL_TOKENS + max(1, int(raw * 1.1)) > threshold

        assert fires(cutoff)
        assert cutoff == 0 or not fires(cutoff - 1)


def test_the_first_value_at_least_is_found_from_the_start_given() -> None:
    rnd = random.Random(3)
    for _ in range(300):
        values = [rnd.randint(0, 50) for _ in range(rnd.randint(1, 200))]
        need, start = rnd.randint(0, 60), rnd.randint(0, len(values) - 1)
        want = next((k for k in range(start, len(values)) if values[k] >= need), len(values) - 1)
        assert inspect_ai._first_at_least(values, need, start) == want
