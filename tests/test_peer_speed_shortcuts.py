"""The other frameworks' policies give the same plan through their per-chat caches and shortcuts.

A sweep re-plans one chat many times, reusing what every plan reads of it (each item's decision, the
events, the placeholders); these random chats (parallel calls, outputs out of order or without their
call, calls without output, blank texts) are planned through one shared cache, in a random order of
settings, and each plan must equal the same plan made afresh without any cache.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from helpers import seeds

from inspector.core.inspection import Inspection, open_inspection
from inspector.core.peers.plan import PeerPlan
from inspector.core.peers.registry import PolicySettings
from inspector.core.peers.wire import as_openai
from inspector.core.setup import Setup

VALUES: dict[str, dict[str, list[Any]]] = {
    "langchain.clear_tool_uses": {
        "trigger": [0, 10, 1000],
        "keep": [0, 1, 3, 50],
        "clear_at_least": [0, 5, 100],
        "clear_tool_inputs": [True, False],
        "exclude_tools": [("ls",), ()],
        "placeholder": ["[x]", "[cleared]"],
    },
    "anthropic.clear_tool_uses": {"trigger": [0, 100], "keep": [0, 1, 3], "exclude_tools": [("grep",), ()]},
    "langchain.trim_messages": {"max_tokens": [0, 10, 100, 1000], "strategy": ["first", "last"]},
    "openai.tool_output_trimmer": {
        "recent_turns": [1, 2, 3],
        "max_output_chars": [1, 5, 100, 500],
        "preview_chars": [0, 10, 200],
        "trimmable_tools": [("ls",), ()],
    },
    "openhands.observation_masking": {"attention_window": [-3, 0, 1, 2, 5, 10, 100]},
    "openhands.recent_events": {"max_events": [0, 1, 3, 10, 100], "keep_first": [0, 1, 5]},
    "openhands.amortized_forgetting": {"max_size": [2, 3, 4, 10, 100], "keep_first": [0, 1, 3]},
}
BASE = {"langchain.trim_messages": {"max_tokens": "100"}}


def _chat(seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    messages: list[dict[str, Any]] = []
    if rng.random() < 0.8:
        messages.append({"role": "system", "content": "sys " * rng.randint(0, 5)})
    calls_made = 0
    for _ in range(rng.randint(0, 50)):
        pick = rng.random()
        if pick < 0.15:
            messages.append({"role": "user", "content": "u" * rng.randint(0, 50) + "\nline" * rng.randint(0, 3)})
        elif pick < 0.25:
            messages.append({"role": "assistant", "content": rng.choice(["", "  ", "ok", "a" * rng.randint(1, 900)])})
        elif pick < 0.8:
            calls = []
            for _ in range(rng.choice([1, 1, 1, 2, 3])):
                calls_made += 1
                ident = f"c{calls_made}" if rng.random() < 0.95 else rng.choice([f"c{rng.randint(0, calls_made)}", ""])
                arguments = json.dumps({"p": "x" * rng.randint(0, 30)})
                function = {"name": rng.choice(["ls", "grep", "read"]), "arguments": arguments}
                calls.append({"id": ident, "type": "function", "function": function})
            content = rng.choice([None, "", "thinking " * rng.randint(1, 4)])
            messages.append({"role": "assistant", "content": content, "tool_calls": calls})
            if rng.random() < 0.2:
                rng.shuffle(calls)
            for call in calls:
                if rng.random() < 0.1:
                    continue
                text = "o" * rng.choice([0, 5, 100, 250, 600, 3000]) + "\nend"
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": text})
        else:
            ident = f"c{rng.randint(0, calls_made + 2)}"
            messages.append({"role": "tool", "tool_call_id": ident, "content": "orphan" * rng.randint(0, 40)})
    return {"messages": messages}


def _seen(plan: PeerPlan) -> Any:
    """Everything a plan shows: what is sent, every decision with its detail, the sizes, the library's words."""
    if plan.error is not None:
        return ("raises", plan.error.describe())
    outcome = plan.outcome()
    assert outcome is not None
    columns = plan.decision_columns()
    return (
        [as_openai(i) for i in plan.wire_items()],
        [columns.decision(i) for i in range(len(columns))],
        plan.sizes(),
        plan.origins(),
        [m.fields for m in plan.messages()],
        (outcome.summary, outcome.default, outcome.notes, outcome.cleared, outcome.by_origin),
        (outcome.tokens, outcome.total, outcome.unit),
    )


def _fresh(inspection: Inspection, settings: PolicySettings) -> Any:
    try:
        return _seen(PeerPlan(inspection.conversation(), settings, None))
    except KeyError as exc:  # OpenHands on a response holding one call id twice (as before any cache)
        return ("KeyError", str(exc))


def _cached(inspection: Inspection, settings: PolicySettings) -> Any:
    try:
        plan = inspection.policy_prompt(settings).planner
        assert isinstance(plan, PeerPlan)
        return _seen(plan)
    except KeyError as exc:
        return ("KeyError", str(exc))


@pytest.mark.parametrize("seed", seeds(40, quick=10))
def test_a_plan_through_the_caches_equals_the_plan_made_afresh(seed: int, tmp_path: Path):
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(_chat(seed)))
    base = open_inspection(path, Setup.of(config_files=[]))
    rng = random.Random(seed)
    for policy, values in VALUES.items():
        inspection = base.with_policy(policy, BASE.get(policy, {}))
        settings = inspection.policy
        assert settings is not None
        for _ in range(12):
            key = rng.choice(sorted(values))
            settings = settings.with_value(key, rng.choice(values[key]))
            assert _cached(inspection, settings) == _fresh(inspection, settings), (policy, settings.values)


@pytest.mark.parametrize("seed", seeds(40, quick=10))
def test_clearing_with_no_tool_excluded_equals_excluding_one_no_call_names(seed: int, tmp_path: Path):
    """The one-pass clearing (no tool excluded) against the loop over every candidate."""
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(_chat(seed)))
    base = open_inspection(path, Setup.of(config_files=[]))
    for policy in ("langchain.clear_tool_uses", "anthropic.clear_tool_uses"):
        inspection = base.with_policy(policy, {"trigger": "0"})
        settings = inspection.policy
        assert settings is not None
        for keep in (0, 1, 2, 5):
            plain = settings.with_value("keep", keep)
            looped = plain.with_value("exclude_tools", ("no_such_tool",))
            assert _cached(inspection, plain) == _fresh(inspection, looped) == _fresh(inspection, plain)


@pytest.mark.parametrize("seed", seeds(80, quick=16))
def test_masking_from_the_chat_s_masked_start_equals_masking_event_by_event(
    seed: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """observation_masking takes the events before its edge (all masked, whatever the window) from the
    chat's facts; against ``_send`` going over every event, for every window from before the first event
    to past the last."""
    from inspector.core.peers import openhands

    path = tmp_path / "chat.json"
    path.write_text(json.dumps(_chat(seed) if seed % 2 else _simple_chat(seed)))
    items = open_inspection(path, Setup.of(config_files=[])).conversation().items
    facts = openhands.EventFacts(items)  # shared by every window, as a sweep shares it
    if seed % 2 == 0:
        assert facts.masked_start().tail is not None  # the sends after the edge taken from the chat's facts
    cache = _Cache(facts)
    send = openhands._send
    for window in range(-3, len(facts.events) + 4):
        settings = {"attention_window": window}

        def seen(settings: dict[str, Any] = settings) -> Any:
            try:
                outcome = openhands.observation_masking(items, settings, cache)
            except openhands.PolicyRaises as raised:
                return ("raises", raised.why)
            shown = [(i.role, i.content, i.call_id, [c.id for c in i.calls], i.origin) for i in outcome.items]
            return shown, outcome.summary, outcome.notes, outcome.cleared, outcome.tokens, outcome.total

        got = seen()
        with monkeypatch.context() as patched:
            patched.setattr(openhands, "_send", lambda i, v, m, f, edge=0: send(i, v, m, f))
            assert seen() == got, window


def _simple_chat(seed: int) -> dict[str, Any]:
    """Every call answered once, in its response's block (in any order), no id made twice."""
    rng = random.Random(seed)
    messages: list[dict[str, Any]] = [{"role": "system", "content": "sys"}] if rng.random() < 0.7 else []
    messages.append({"role": "user", "content": "task"})
    made = 0
    for _ in range(rng.randint(0, 40)):
        pick = rng.random()
        if pick < 0.1:
            messages.append({"role": "user", "content": "u" * rng.randint(0, 20)})
        elif pick < 0.2:
            messages.append({"role": "assistant", "content": rng.choice([None, "", "ok"])})
        else:
            calls = []
            for _ in range(rng.choice([1, 1, 2, 3])):
                made += 1
                function = {"name": rng.choice(["ls", "grep"]), "arguments": json.dumps({"p": "x" * rng.randint(0, 9)})}
                calls.append({"id": f"c{made}", "type": "function", "function": function})
            content = rng.choice([None, "", "thinking"])
            messages.append({"role": "assistant", "content": content, "tool_calls": calls})
            answers = list(calls)
            rng.shuffle(answers)
            for call in answers:
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": "o" * rng.randint(0, 30)})
    return {"messages": messages}


class _Cache:
    """One chat's facts, as ``registry.Counts`` keeps them."""

    def __init__(self, facts: Any):
        self.facts = facts

    def get(self, items: Any, make: Any) -> Any:
        return self.facts

    def put(self, items: Any, found: Any) -> None:
        raise AssertionError("made once")
