"""OpenHands' condensers on a small chat, each answer the one openhands-ai 0.62.0 gave (the goldens in
tests/golden_peers/ cover them broadly), and a policy of your own, aligned with its input."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest
from cli_runner import run_cli

from inspector.core.inspection import open_inspection
from inspector.core.peers.plan import PeerPlan
from inspector.core.peers.wire import as_openai
from inspector.core.policies import decision as d
from inspector.core.setup import Setup

CHAT = [
    {"role": "system", "content": "S"},
    {"role": "user", "content": "U"},
    {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
    {"role": "tool", "tool_call_id": "c1", "content": "o1"},
    {"role": "assistant", "content": "t", "tool_calls": [{"id": "c2", "type": "function", "function": {"name": "g", "arguments": "{}"}}]},
    {"role": "tool", "tool_call_id": "c2", "content": "o2"},
    {"role": "assistant", "content": "done"},
]  # fmt: skip
# events: 0 system, 1 user, 2 call c1, 3 output o1, 4 call c2 (with its text "t"), 5 output o2, 6 "done"


@pytest.fixture()
def chat(tmp_path: Path) -> Path:
    path = tmp_path / "small.json"
    path.write_text(json.dumps(CHAT))
    return path


def sent(path: Path, policy: str, **settings: str) -> tuple[list[dict[str, object]], PeerPlan]:
    plan = open_inspection(path, Setup.of(policy=policy, overrides=settings)).prompt().planner
    assert isinstance(plan, PeerPlan)
    return [as_openai(i) for i in plan.wire_items()], plan


def test_recent_events_keeps_the_head_and_the_tail(chat):
    out, plan = sent(chat, "openhands.recent_events", keep_first="1", max_events="3")
    # the tail is o2 and "done": o2's call is forgotten, so o2 is never sent; the task is put back second
    assert out == [CHAT[0], CHAT[1], CHAT[6]]
    assert [x.tier for x in plan.decisions()] == [
        d.FULL,
        d.FULL,
        d.DROPPED,
        d.DROPPED,
        d.DROPPED,
        d.DROPPED,
        d.DROPPED,
        d.FULL,
    ]
    # scout's form: 0 system, 1 user, 2 call c1, 3 output, 4 text "t", 5 call c2, 6 output o2, 7 done
    assert plan.decision(1).detail.startswith("forgotten, but sent second: the agent always sends the task")
    assert plan.decision(6).detail == (
        "in the view, but not sent: ConversationMemory sends an output only with its whole response"
        " (1 event as OpenHands counts it)"
    )


def test_recent_events_on_a_short_view_sends_the_first_events_twice(chat):
    out, _ = sent(chat, "openhands.recent_events")  # keep_first=1, max_events=10: view[-9:] is the whole view
    # the head (S) then the whole view; the task is put back second, as the event there is not a user's
    assert out == [CHAT[0], CHAT[1], *CHAT]


def test_observation_masking_masks_old_outputs_and_leaves_their_calls_out(chat):
    out, plan = sent(chat, "openhands.observation_masking", attention_window="2")
    # a masked output is a user message; after the task it is formatted with a blank line first
    assert out == [CHAT[0], CHAT[1], {"role": "user", "content": "\n\n<MASKED>"}, *CHAT[4:]]
    tiers = [x.tier for x in plan.decisions()]
    assert tiers == [d.FULL, d.FULL, d.DROPPED, d.CLEARED, d.FULL, d.FULL, d.FULL, d.FULL]
    assert plan.decision(3).detail.startswith("an observation older than the last 2 events (attention_window)")


def test_amortized_forgetting_forgets_once_and_stays_forgotten(chat):
    out, plan = sent(chat, "openhands.amortized_forgetting", max_size="4", keep_first="1")
    # the view passes 4 events before the call at event 6: it keeps event 0 and the last 4 // 2 - 1 = 1 event
    assert out == [CHAT[0], CHAT[1], CHAT[6]]
    outcome = plan.outcome()
    assert (
        outcome is not None and outcome.summary == "forgot 1 time(s): 4 event(s) forgotten, 3 in the view (max_size=4)"
    )


def test_a_policy_of_your_own_is_aligned_with_its_input(chat, tmp_path, monkeypatch):
    (tmp_path / "mypolicy.py").write_text(
        textwrap.dedent(
            """
            def keep_last_output(messages):
                outputs = [m for m in messages if m["role"] == "tool"]
                out = [m for m in messages if m["role"] != "tool" or m is outputs[-1]]
                out[1] = {**out[1], "content": out[1]["content"].lower()}
                return out + [{"role": "user", "content": "note"}]

            def broken(messages):
                raise ValueError("no history today")
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    out, plan = sent(chat, "mypolicy:keep_last_output")
    assert out[-1] == {"role": "user", "content": "note"} and len(out) == 7
    tiers = [x.tier for x in plan.decisions()]
    assert tiers == [d.FULL, d.TRUNCATED, d.FULL, d.DROPPED, d.FULL, d.FULL, d.FULL, d.FULL]
    assert plan.decision(3).detail == "removed by your policy"
    assert [o for o in plan.origins()] == [0, 1, 2, 4, 5, 6, 7, -1]
    r = run_cli("prepare", chat, "--policy", "mypolicy:broken", scout_config=False)
    assert r.returncode == 3 and "would raise ValueError: no history today" in r.stderr
    r = run_cli("prepare", chat, "--policy", "nomodule:fn", scout_config=False)
    assert r.returncode == 2 and "policy 'nomodule:fn': cannot import 'fn' from 'nomodule'" in r.stderr
    sys.modules.pop("mypolicy", None)


def test_trim_messages_partial_keeps_whole_lines(tmp_path):
    lines = "\n".join(f"line {k:02d} " + "x" * 30 for k in range(20))
    chat = [{"role": "user", "content": "question"}, {"role": "assistant", "content": lines}]
    path = tmp_path / "p.json"
    path.write_text(json.dumps(chat))
    out, plan = sent(path, "langchain.trim_messages", max_tokens="60", allow_partial="true")
    kept = out[-1]["content"]
    assert isinstance(kept, str) and lines.endswith(kept) and kept.startswith("line ")
    assert plan.decision(1).tier is d.TRUNCATED
    assert plan.decision(1).detail.startswith("partial: the last ")


def test_an_installed_policy_is_found_by_its_entry_point(chat, monkeypatch):
    from inspector.core.peers import custom

    class EntryPoint:
        name, value = "drop_outputs", "mypkg.policies:drop_outputs"

        def load(self):
            return lambda messages: [m for m in messages if m["role"] != "tool"]

    class Broken(EntryPoint):
        name, value = "broken", "mypkg.policies:broken"

        def load(self):
            raise ImportError("no module named mypkg")

    monkeypatch.setattr(
        custom.metadata, "entry_points", lambda group: [EntryPoint(), Broken()] if group == custom.GROUP else []
    )
    out, plan = sent(chat, "drop_outputs")
    assert [m["role"] for m in out] == ["system", "user", "assistant", "assistant", "assistant"]
    assert plan.decision(3).tier is d.DROPPED and plan.decision(6).tier is d.DROPPED
    r = run_cli("explain", chat, "--policy", "broken", scout_config=False)
    assert r.returncode == 2
    assert r.stderr.strip() == (
        "prompt-inspector: error: policy 'broken' (mypkg.policies:broken) failed to import: "
        "ImportError: no module named mypkg"
    )


@pytest.mark.parametrize(
    "policy", ["openhands.recent_events", "openhands.observation_masking", "openhands.amortized_forgetting"]
)
def test_a_response_calling_one_id_twice_raises_as_the_library_does(tmp_path, policy):
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    chat = [CHAT[0], CHAT[1], {"role": "assistant", "content": None, "tool_calls": [call, call]}]
    chat += [{"role": "tool", "tool_call_id": "c1", "content": "o1"}, {"role": "assistant", "content": "done"}]
    path = tmp_path / "dup.json"
    path.write_text(json.dumps(chat))
    r = run_cli("prepare", str(path), "--policy", policy)
    assert r.returncode == 3
    assert r.stderr.strip().endswith(
        "would raise KeyError: 'c1': a response calls the same id twice, and ConversationMemory takes each "
        "output once (tool_call_id_to_message.pop)"
    )
