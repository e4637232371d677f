"""Inspect's replay on long chats takes three more shortcuts: CompactionTrim's view as a head and runs of the
chat (``Handler._run_runs``: a compaction from the chat's facts, never written out), CompactionEdit's pass
taking the uses its last pass found (``Walked``) and those of the messages appended from the chat's own
(``InspectCounter.uses_in_run``). On chats of the shapes that reach them (consecutive assistant messages, whose
last one a compaction pops; system messages mid-chat; memory calls; parallel calls) and of those that do not
(a late result, a call id twice), every outcome must be the plain replay's: the handler called before every
assistant message, each pass over the whole view, every list counted whole. The shortcuts must be taken."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
import test_peer_replay_jumps
from test_peer_replay_jumps import _same

from inspector.core.peers import inspect_ai
from inspector.core.peers.inspect_ai import Handler, InspectCounter, TrimRuns
from inspector.core.peers.outcome import PolicyRaises
from inspector.core.peers.registry import settings_for
from inspector.core.peers.wire import Item, WireCall

_text = test_peer_replay_jumps._text


def _long_chat(rnd: random.Random, turns: int, odd: bool) -> list[Item]:
    """A system message, the task, then turns: calls answered right after them (in parallel, in any order),
    now and then a user message or an assistant message of text before the next call (a compaction there
    pops it), a system message mid-chat, memory calls; ``odd``: a late result or a call id twice too."""
    items = [Item("system", _text(rnd) or "sys", 0), Item("user", _text(rnd) or "task", 1)]
    for n in range(turns):
        roll = rnd.random()
        if roll < 0.12:
            items.append(Item("assistant", _text(rnd) or "thinking", len(items)))
        elif roll < 0.18:
            items.append(Item("user", _text(rnd), len(items)))
        elif roll < 0.2:
            items.append(Item("system", _text(rnd), len(items)))
        k = len(items)
        calls = tuple(
            WireCall(
                f"c{n}_{j}" if not (odd and rnd.random() < 0.02) else "c0_0",
                rnd.choice(["bash", "read", "memory", "tool_search"]),
                {"file_text": _text(rnd)} if rnd.random() < 0.3 else {"cmd": _text(rnd)},
                k,
            )
            for j in range(rnd.choice([1, 1, 1, 1, 2, 3]))
        )
        items.append(Item("assistant", rnd.choice([None, "", _text(rnd)]), k, calls))
        answers = [Item("tool", _text(rnd) * rnd.randint(1, 4), k + 1 + j, call_id=c.id) for j, c in enumerate(calls)]
        rnd.shuffle(answers)
        if odd and rnd.random() < 0.03:
            items.append(Item("assistant", _text(rnd), len(items)))  # a result after the next assistant message
        items.extend(answers)
    if rnd.random() < 0.3:
        items.append(Item("assistant", _text(rnd), len(items)))
    return items


def _settings(rnd: random.Random, kind: str, total: int) -> dict[str, Any]:
    threshold = str(max(1, int(total * rnd.choice([0.02, 0.04, 0.07, 0.1, 0.15, 0.25, 0.4, 0.7]))))
    overrides = {"threshold": threshold, "memory": rnd.choice(["true", "false"])}
    if kind == "trim":
        overrides["preserve"] = rnd.choice(["0", "0.2", "0.5", "0.8", "1"])
    else:
        overrides["keep_tool_uses"] = str(rnd.choice([0, 1, 2, 5, 12]))
        overrides["keep_tool_inputs"] = rnd.choice(["true", "true", "true", "false"])
        if rnd.random() < 0.2:
            overrides["exclude_tools"] = "read"
    return settings_for(f"inspect.compaction_{kind}", overrides).as_dict()


class _Taken:
    """How often each shortcut was taken (wrapped around the handler's and the counter's methods)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.counts: Counter[str] = Counter()
        step, uses, runs = Handler._trim_step, InspectCounter.uses_in_run, Handler._run_runs

        def trim_step(handler: Handler, a: int, b: int, c: int, y: int) -> tuple[int, int] | None:
            found = step(handler, a, b, c, y)
            self.counts["trim step" if found is not None else "trim step written out"] += 1
            if found is not None and b != c:
                self.counts["trim step after a pop"] += 1
            if found is not None and found[0] < found[1] < y:
                self.counts["trim step popping"] += 1
            return found

        def uses_in_run(counter: InspectCounter, view: list[Item], start: int, exclude: Any) -> Any:
            found = uses(counter, view, start, exclude)
            self.counts["edit uses of a run" if found else "edit uses walked"] += 1
            return found

        def run_runs(handler: Handler, shape: TrimRuns, i: int, cutoff: int) -> int:
            self.counts["trim runs"] += 1
            return runs(handler, shape, i, cutoff)

        monkeypatch.setattr(Handler, "_trim_step", trim_step)
        monkeypatch.setattr(InspectCounter, "uses_in_run", uses_in_run)
        monkeypatch.setattr(Handler, "_run_runs", run_runs)


def _check(seed: int, plans: int) -> None:
    rnd = random.Random(seed)
    counter = InspectCounter()  # shared by every plan, as a sweep shares it
    for odd in (False, True):
        items = _long_chat(rnd, rnd.randint(40, 160), odd)
        total = InspectCounter().count(items)
        for _ in range(plans):
            kind = rnd.choice(["edit", "trim"])
            _same(kind, items, _settings(rnd, kind, total), counter)


@pytest.mark.parametrize("seed", range(12))
def test_the_shortcuts_on_long_chats_give_the_plain_replay(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    taken = _Taken(monkeypatch)
    _check(seed, 8)
    assert taken.counts["trim runs"] or taken.counts["edit uses of a run"], taken.counts


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(100, 220))
def test_the_shortcuts_on_long_chats_give_the_plain_replay_thorough(seed: int) -> None:
    _check(seed, 12)


def test_every_shortcut_is_taken(monkeypatch: pytest.MonkeyPatch) -> None:
    """The chats above reach each shortcut, and each way out of it (so the tests compare them all)."""
    taken = _Taken(monkeypatch)
    for seed in range(12):
        _check(seed, 8)
    for what in (
        "trim runs",
        "trim step",
        "trim step after a pop",
        "trim step popping",
        "trim step written out",
        "edit uses of a run",
        "edit uses walked",
    ):
        assert taken.counts[what] > 0, (what, taken.counts)


def test_trim_on_runs_is_trim_on_the_view_written_out() -> None:
    """One long regular chat, many thresholds: the compactions made from the chat's facts alone."""
    rnd = random.Random(11)
    items = _long_chat(rnd, 400, False)
    total = InspectCounter().count(items)
    counter = InspectCounter()
    for fraction in (0.01, 0.03, 0.1, 0.3):
        for preserve in ("0", "0.5", "0.8", "1"):
            settings = settings_for(
                "inspect.compaction_trim", {"threshold": str(int(total * fraction)), "preserve": preserve}
            ).as_dict()
            _same("trim", items, settings, counter)
            counter.base(items)
            handler = Handler("trim", settings, inspect_ai.prefix_of(items), counter)
            try:
                handler.run(counter.chat)
            except PolicyRaises:
                continue
            assert handler.fired
