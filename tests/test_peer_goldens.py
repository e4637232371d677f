"""Every other framework's policy against what the library itself gave on the same chat.

The goldens (tests/golden_peers/, written by tools/peer_goldens.py with langchain-core 1.8.3, langchain
1.5.2, openai-agents 0.24.0 and inspect-ai 0.3.285, and by tools/peer_goldens_openhands.py with
openhands-ai 0.62.0's CodeActAgent on Python 3.12) hold each library's output, its errors and its own
token counts; here the inspector reads the same Chat Completions file, runs the policy with the same
settings and must give exactly that: `prepare --format openai` and, for Inspect's stateful handler,
the prompt at every call of the replay.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from inspector.core.calls.history import open_history
from inspector.core.errors import UsageError
from inspector.core.inspection import open_inspection
from inspector.core.peers import inspect_ai
from inspector.core.peers.plan import PeerPlan
from inspector.core.peers.registry import settings_for
from inspector.core.peers.wire import as_openai, conversation_of
from inspector.core.setup import Setup

GOLDEN = Path(__file__).parent / "golden_peers"
CASES = sorted(GOLDEN.glob("cases/*/*.json"))


def _text(content: Any) -> Any:
    """OpenHands' content as its string serializer sends it: the text parts joined by newlines ([] and the
    inspector's null for an assistant message of calls only: "")."""
    if content is None:
        return ""
    if isinstance(content, list):
        return "\n".join(p["text"] for p in content if p.get("type") == "text")
    return content


def _normal(messages: list[dict[str, Any]] | None, openhands: bool = False) -> list[dict[str, Any]] | None:
    """Arguments compared as parsed JSON (the library re-serialises them its own way). OpenHands' messages
    (sent as lists of parts) compared by their text; its tool messages always carry ``name`` (the call's
    function, checked against the call here), which the inspector keeps only when the chat gave it."""
    if messages is None:
        return None
    out = []
    functions = {c["id"]: c["function"]["name"] for m in messages for c in m.get("tool_calls") or []}
    for m in messages:
        m = dict(m)
        if openhands:
            m["content"] = _text(m.get("content"))
            if m["role"] == "tool":
                name = m.pop("name", None)
                assert name is None or name == functions.get(m["tool_call_id"]), m
        if "tool_calls" in m:
            m["tool_calls"] = [
                {**c, "function": {**c["function"], "arguments": json.loads(c["function"]["arguments"])}}
                for c in m["tool_calls"]
            ]
        out.append(m)
    return out


def _plan(case: dict[str, Any]) -> PeerPlan:
    setup = Setup.of(policy=case["policy"], overrides=case["settings"])
    plan = open_inspection(GOLDEN / case["chat"], setup).prompt().planner
    assert isinstance(plan, PeerPlan)
    return plan


def test_there_are_goldens_for_every_exact_library_policy():
    found = {p.parent.name for p in CASES}
    assert found == {
        "langchain.trim_messages",
        "langchain.clear_tool_uses",
        "openai.tool_output_trimmer",
        "inspect.compaction_edit",
        "inspect.compaction_trim",
        "openhands.recent_events",
        "openhands.observation_masking",
        "openhands.amortized_forgetting",
    }
    assert len(CASES) > 500


@pytest.mark.parametrize("path", CASES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_policy_output_equals_the_library(path: Path):
    case = json.loads(path.read_text())
    if case["error"] is not None and case["output"] is None and not case["policy"].startswith("inspect."):
        # a setting the library rejects when it is built or called: a usage error naming the setting
        with pytest.raises(UsageError) as caught:
            _plan(case)
        assert any(name in str(caught.value) for name in case["settings"]), str(caught.value)
        return
    plan = _plan(case)
    outcome = plan.outcome()
    first = next((c["error"] for c in case.get("calls") or [] if c["error"] is not None), None)
    if first is not None:
        # the library's replay goes on after a failed compaction (its state stays as it was); an agent's
        # run ends there, and so the whole chat's plan raises what that call raised
        case = {**case, "error": first, "output": None}
    if case["error"] is not None:
        assert outcome is None
        assert plan.error is not None
        assert f"{plan.error.exception}: {plan.error.why}" == case["error"]
        return
    assert plan.error is None, plan.error.describe()
    openhands = case["policy"].startswith("openhands.")
    assert _normal([as_openai(i) for i in plan.wire_items()], openhands) == _normal(case["output"], openhands)
    assert outcome is not None
    if case["message_tokens"] is not None:
        assert outcome.tokens == case["message_tokens"]
    if case["policy"].startswith(("langchain.", "openhands.")):
        assert outcome.total == case["input_tokens"]
    elif case["policy"].startswith("inspect."):
        counter = inspect_ai.InspectCounter()
        items = conversation_of(open_inspection(GOLDEN / case["chat"]).chat).items
        assert inspect_ai.TOOL_TOKENS + counter.count(items) == case["input_tokens"]
        if case.get("handler_tokens") is not None:
            assert outcome.total == case["handler_tokens"]


REPLAY_CASES = [p for p in CASES if p.parent.name.startswith(("inspect.", "openhands."))]


@pytest.mark.parametrize("path", REPLAY_CASES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_replay_at_every_call_equals_the_library(path: Path):
    """The prompt at call N replays the policy on the chat as it stood before call N (`--at N`): Inspect's
    handler, and OpenHands' CodeActAgent stepping before each assistant message (its last entry, the step
    after the whole chat, is the case's output). The library's Inspect replay goes on after a failed
    compaction; an agent stops there, and so does the check."""
    case = json.loads(path.read_text())
    openhands = case["policy"].startswith("openhands.")
    calls = case.get("calls")
    if not calls:
        if openhands:  # the steps are recorded for the rolling condenser only
            assert case["policy"] != "openhands.amortized_forgetting" or case["error"] is not None
            return
        assert case["settings"].get("threshold") == "always" or case["error"] is not None or calls == []
        return
    setup = Setup.of(policy=case["policy"], overrides=case["settings"])
    history = open_history(GOLDEN / case["chat"], setup)
    whole = conversation_of(history.whole.chat)
    at_of_call = {}
    for number in range(1, len(history) + 1):
        start = history.call(number).start
        at_of_call[next(k for k, i in enumerate(whole.items) if start in (i.origin, *(c.origin for c in i.calls)))] = (
            number
        )
    checked = 0
    for call in calls:
        if openhands and call["at"] == len(whole.items):
            assert call["output"] == case["output"]
            continue
        number = at_of_call.get(call["at"])
        assert number is not None, f"no call of the inspector starts at message {call['at']}"
        prompt = history.at(number).prompt()
        if call["error"] is not None:
            assert prompt.error is not None
            assert f"{prompt.error.exception}: {prompt.error.why}" == call["error"]
            break
        assert prompt.error is None, prompt.error.describe()
        assert isinstance(prompt.planner, PeerPlan)
        sent = [as_openai(i) for i in prompt.planner.wire_items()]
        assert _normal(sent, openhands) == _normal(call["output"], openhands)
        outcome = prompt.planner.outcome()
        assert outcome is not None and outcome.total == call["tokens"]
        checked += 1
    assert checked or calls[0]["error"] is not None


def test_settings_are_checked_as_the_library_checks_them():
    with pytest.raises(UsageError, match="recent_turns must be >= 1"):
        settings_for("openai.tool_output_trimmer", {"recent_turns": "0"})
    with pytest.raises(UsageError, match="start_on parameter is only valid with strategy='last'"):
        settings_for("langchain.trim_messages", {"max_tokens": "10", "strategy": "first", "start_on": "human"})
    with pytest.raises(UsageError, match="needs --set max_tokens"):
        settings_for("langchain.trim_messages", {})
    with pytest.raises(UsageError, match="keep_first \\(50\\) must be less than half of max_size \\(100\\)"):
        settings_for("openhands.amortized_forgetting", {"keep_first": "50"})
    with pytest.raises(UsageError, match="expected true or false"):
        settings_for("langchain.clear_tool_uses", {"clear_tool_inputs": "yes"})
    with pytest.raises(UsageError, match="has no setting 'kep'; its settings: trigger, keep"):
        settings_for("langchain.clear_tool_uses", {"kep": "3"})
    with pytest.raises(UsageError, match="'bot' is not a message type; expected system, human, ai, tool"):
        settings_for("langchain.trim_messages", {"max_tokens": "10", "end_on": "human,bot"})
