"""Goldens from the REAL OpenHands legacy condensers (openhands-ai 0.62.0) driven by the real CodeActAgent.

Writes tests/golden_peers/cases/openhands.*/CHAT__CASE.json (and the chats/oh_*.json it adds); see the
OpenHands section of tests/golden_peers/README.md for the layout and every conversion choice.
Semantics: /work/shared/spec/peer-policies.md, section 7.

Route taken (no stubs, no re-typed library code): openhands-ai needs Python >= 3.12; this machine's pyenv
has CPython 3.12.1, and `pip install openhands-ai==0.62.0` resolved and installed the whole dependency
tree from PyPI (litellm 1.77.7, openai 1.99.9, pydantic 2.14.4). Everything below is the library's own
code: the condensers (openhands/memory/condenser/impl/), View.from_events, the Event classes, the
CodeActAgent's step() (pending actions, condensed_history, Condensation handling,
_get_initial_user_message, ConversationMemory.process_events, response_to_actions) and
LLM.format_messages_for_llm. Only the LLM's network call (`LLM._completion_unwrapped`) is replaced: it
records the formatted messages it is given (what would go to the provider) and returns the chat's next
assistant message as a litellm ModelResponse. What the AgentController and the runtime do around the
agent is mirrored by hand (see `Run`): events get the stream's sequential ids, a condensation action is
added to the history and the agent steps again, the actions of one response are returned one per step
and each waits for its observation (so parallel calls give action, observation, action, observation),
and an observation carries its action's tool_call_metadata.

The libraries are NOT project dependencies: run this with a scratch virtualenv outside the project.

    ~/.pyenv/versions/3.12.1/bin/python3.12 -m venv /tmp/ohvenv
    /tmp/ohvenv/bin/pip install openhands-ai==0.62.0
    cd /work/main && /tmp/ohvenv/bin/python tools/peer_goldens_openhands.py

Offline: LITELLM_LOCAL_MODEL_COST_MAP=True (litellm's bundled model map; no download). Deterministic: no
clocks or random values reach the files; the openhands.* case folders and chats/oh_*.json are rebuilt
from scratch (the other chats and policies are left alone: tools/peer_goldens.py owns them, and
rewrites the whole of chats/ and cases/, so run this script after it).
"""

from __future__ import annotations

import copy
import json
import logging
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from golden_json import write_json  # tools/ is the script's own folder

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
os.environ.setdefault("LOG_LEVEL", "ERROR")

import openhands
from litellm import ModelResponse
from litellm.types.utils import ChatCompletionMessageToolCall, Choices, Function
from litellm.types.utils import Message as LiteLLMMessage
from openhands.agenthub.codeact_agent import codeact_agent as codeact_module
from openhands.agenthub.codeact_agent.codeact_agent import CodeActAgent
from openhands.controller.state.state import State
from openhands.core.config import AgentConfig, LLMConfig, OpenHandsConfig
from openhands.events.action import MessageAction
from openhands.events.action.agent import CondensationAction
from openhands.events.action.mcp import MCPAction
from openhands.events.action.message import SystemMessageAction
from openhands.events.event import EventSource
from openhands.events.observation.mcp import MCPObservation
from openhands.events.tool import ToolCallMetadata
from openhands.llm.llm_registry import LLMRegistry
from openhands.memory.condenser.impl.amortized_forgetting_condenser import AmortizedForgettingCondenser
from openhands.memory.condenser.impl.observation_masking_condenser import ObservationMaskingCondenser
from openhands.memory.condenser.impl.recent_events_condenser import RecentEventsCondenser
from openhands.utils.prompt import PromptManager

logging.disable(logging.WARNING)

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "golden_peers"
MODEL = "gpt-4o"  # native function calling: messages are sent in the list-of-parts form
POLICIES = {
    "openhands.recent_events": RecentEventsCondenser,
    "openhands.observation_masking": ObservationMaskingCondenser,
    "openhands.amortized_forgetting": AmortizedForgettingCondenser,
}
# the classes' own defaults (the Pydantic *Config classes have others; every case passes all settings)
CLASS_DEFAULTS = {
    "openhands.recent_events": {"keep_first": 1, "max_events": 10},
    "openhands.observation_masking": {"attention_window": 5},
    "openhands.amortized_forgetting": {"max_size": 100, "keep_first": 0},
}


def dumps_args(args: Any) -> str:
    return json.dumps(args, ensure_ascii=False, separators=(",", ":"))


def err(e: BaseException) -> str:
    return f"{type(e).__name__}: {e}"


# ----------------------------------------------------------------------------------------------
# 1. chats: the generated ones (tests/golden_peers/chats/*.json) and OpenHands-specific ones
# ----------------------------------------------------------------------------------------------


def _call(cid: str, name: str, args: Any) -> dict[str, Any]:
    return {"id": cid, "type": "function", "function": {"name": name, "arguments": dumps_args(args)}}


def chat_oh_reordered() -> list[dict[str, Any]]:
    """Parallel outputs in another order than the calls, whitespace-only text with calls, two user
    messages in a row, a tool ``name`` on some outputs only, non-ASCII, ends with an assistant message."""
    return [
        {"role": "system", "content": "Tu es un agent de code. 使用工具。"},
        {"role": "user", "content": "Trouve pourquoi « test_café » échoue 🐍"},
        {
            "role": "assistant",
            "content": "   ",
            "tool_calls": [
                _call("call_1", "read_file", {"path": "src/café.py"}),
                _call("call_2", "search", {"query": "café", "max_results": 5}),
                _call("call_3", "bash", {"command": "python -m pytest -q -k café"}),
            ],
        },
        {"role": "tool", "tool_call_id": "call_3", "name": "bash", "content": "1 failed: UnicodeDecodeError 'é'"},
        {"role": "tool", "tool_call_id": "call_1", "content": "def load(p):\n    return open(p).read()  # 中文"},
        {"role": "tool", "tool_call_id": "call_2", "name": "search", "content": "src/café.py:2: open(p)"},
        {"role": "assistant", "content": "Le fichier est ouvert sans encodage ; je corrige ?"},
        {"role": "user", "content": "Oui."},
        {"role": "user", "content": "Et relance les tests, s'il te plaît. 👍🏽"},
        {
            "role": "assistant",
            "content": "Je corrige puis je relance.",
            "tool_calls": [
                _call("call_4", "bash", {"command": "sed -i 's/open(p)/open(p, encoding=\"utf-8\")/' src/café.py"}),
                _call("call_5", "bash", {"command": "python -m pytest -q"}),
            ],
        },
        {"role": "tool", "tool_call_id": "call_4", "name": "bash", "content": ""},
        {"role": "tool", "tool_call_id": "call_5", "name": "bash", "content": "12 passed in 0.30s ✓"},
        {"role": "assistant", "content": None, "tool_calls": [_call("call_6", "read_file", {"path": "src/café.py"})]},
        {
            "role": "tool",
            "tool_call_id": "call_6",
            "content": 'def load(p):\n    return open(p, encoding="utf-8").read()',
        },
        {"role": "assistant", "content": "Corrigé : open() lit maintenant en UTF-8. Les 12 tests passent. ✓"},
    ]


NEW_CHATS = {"oh_reordered": chat_oh_reordered}


def load_chats() -> dict[str, list[dict[str, Any]]]:
    chats = {}
    for path in sorted((OUT / "chats").glob("*.json")):
        if not path.stem.startswith("oh_"):
            chats[path.stem] = json.loads(path.read_text(encoding="utf-8"))
    for name, fn in NEW_CHATS.items():
        chats[name] = fn()
    return chats


# ----------------------------------------------------------------------------------------------
# 2. one run: the chat replayed through the real CodeActAgent, the controller's part by hand
# ----------------------------------------------------------------------------------------------

_PROMPTS = Path(codeact_module.__file__).parent / "prompts"


def prompt_dir(system_text: str) -> str:
    """A prompt directory whose system prompt is the chat's first system message (empty when it has
    none), the other templates CodeAct's own: ConversationMemory re-inserts this text when the system
    event is not in the view, as a real agent re-inserts the prompt it started with."""
    where = tempfile.mkdtemp(prefix="oh-prompts-")
    for name in ("user_prompt.j2", "additional_info.j2", "microagent_info.j2"):
        shutil.copy(_PROMPTS / name, Path(where) / name)
    body = "{% raw %}" + system_text + "{% endraw %}" if system_text else ""
    (Path(where) / "system_prompt.j2").write_text(body, encoding="utf-8")
    return where


def model_response(ident: str, m: dict[str, Any]) -> ModelResponse:
    calls = [
        ChatCompletionMessageToolCall(
            id=c["id"],
            type="function",
            function=Function(name=c["function"]["name"], arguments=c["function"]["arguments"]),
        )
        for c in m.get("tool_calls", [])
    ]
    message = LiteLLMMessage(role="assistant", content=m.get("content"), tool_calls=calls or None)
    return ModelResponse(id=ident, choices=[Choices(index=0, finish_reason="stop", message=message)])


class Run:
    def __init__(self, chat: list[dict[str, Any]], policy: str, settings: dict[str, int]):
        self.chat = chat
        config = OpenHandsConfig()
        config.set_llm_config(LLMConfig(model=MODEL, api_key="offline"))
        self.agent = CodeActAgent(AgentConfig(enable_prompt_extensions=False), LLMRegistry(config))
        # the class's constructor, as the registry names it (the Pydantic config has other bounds)
        self.agent.condenser = POLICIES[policy](**settings)
        system = chat[0]["content"] if chat and chat[0]["role"] == "system" else ""
        manager = PromptManager(prompt_dir=prompt_dir(system))
        self.agent._prompt_manager = manager
        self.agent.conversation_memory.prompt_manager = manager
        names = sorted({c["function"]["name"] for m in chat for c in m.get("tool_calls", [])})
        self.agent.mcp_tools = {n: {"type": "function", "function": {"name": n, "parameters": {}}} for n in names}
        self.state = State(session_id="golden")
        self.next_id = 0
        self.replies: list[ModelResponse] = []
        self.sent: list[list[dict[str, Any]]] = []
        self.agent.llm._completion_unwrapped = self._llm
        self.per_message = [0] * len(chat)  # events made from each chat message
        self.condensed: list[list[int]] = []

    def _llm(self, *args: Any, **kwargs: Any) -> ModelResponse:
        self.sent.append(copy.deepcopy(kwargs["messages"]))
        return self.replies.pop()

    def add(self, event: Any, source: EventSource, k: int | None) -> None:
        """EventStream.add_event: the next id, the source; the controller appends it to the history."""
        event._id = self.next_id
        self.next_id += 1
        event._source = source
        self.state.history.append(event)
        if k is not None:
            self.per_message[k] += 1

    def step(self, reply: ModelResponse) -> tuple[Any, list[dict[str, Any]]]:
        """AgentController._step until the agent gives something other than a condensation (the
        controller adds a CondensationAction to the stream and steps again)."""
        done: list[list[int]] = []
        while True:
            self.replies = [reply]
            before = len(self.sent)
            action = self.agent.step(self.state)
            if isinstance(action, CondensationAction):
                done.append([action.forgotten_events_start_id, action.forgotten_events_end_id])
                self.add(action, EventSource.AGENT, None)
                continue
            assert len(self.sent) == before + 1 and not self.replies, "one LLM call per step"
            self.condensed = done
            return action, self.sent[-1]

    def orphan(self, k: int) -> None:
        """A tool output whose call is not in the chat: the observation of an action the history lost."""
        t = self.chat[k]
        obs = MCPObservation(content=t["content"], name=t.get("name") or "")
        obs.tool_call_metadata = ToolCallMetadata(
            function_name=t.get("name") or "",
            tool_call_id=t["tool_call_id"],
            model_response=ModelResponse(id=f"lost-{k}"),
            total_calls_in_response=1,
        )
        self.add(obs, EventSource.ENVIRONMENT, k)

    def events_so_far(self) -> int:
        return sum(1 for e in self.state.history if not isinstance(e, CondensationAction))

    def replay(self) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        chat, agent = self.chat, self.agent
        calls = []
        k = 0
        while k < len(chat):
            m = chat[k]
            role = m["role"]
            if role == "system":
                if k == 0:
                    event = agent.get_system_message()  # what the controller adds first
                    assert event is not None and event.content == m["content"], "system prompt"
                else:
                    event = SystemMessageAction(content=m["content"])
                self.add(event, EventSource.AGENT, k)
                k += 1
            elif role == "user":
                self.add(MessageAction(content=m["content"]), EventSource.USER, k)
                k += 1
            elif role == "tool":
                self.orphan(k)
                k += 1
            else:
                tokens = self.events_so_far()
                action, sent = self.step(model_response(f"response-{k}", m))
                calls.append({"at": k, "tokens": tokens, "condensed": self.condensed, "output": sent, "error": None})
                end = k + 1
                while end < len(chat) and chat[end]["role"] == "tool":
                    end += 1
                if not m.get("tool_calls"):
                    assert isinstance(action, MessageAction)
                    self.add(action, EventSource.AGENT, k)
                    k += 1
                    continue
                answered: set[int] = set()
                for rank in range(len(m["tool_calls"])):
                    if rank:
                        action = agent.step(self.state)  # a pending action: no condensation, no LLM call
                    assert isinstance(action, MCPAction)
                    assert action.tool_call_metadata.tool_call_id == m["tool_calls"][rank]["id"]
                    self.add(action, EventSource.AGENT, k)
                    # the runtime's observation, with the action's metadata (AgentController._handle_observation)
                    found = next(
                        (
                            j
                            for j in range(k + 1, end)
                            if j not in answered and chat[j]["tool_call_id"] == m["tool_calls"][rank]["id"]
                        ),
                        None,
                    )
                    if found is not None:
                        answered.add(found)
                        obs = MCPObservation(
                            content=chat[found]["content"], name=action.name, arguments=action.arguments
                        )
                        obs.tool_call_metadata = action.tool_call_metadata
                        obs._cause = action.id
                        self.add(obs, EventSource.ENVIRONMENT, found)
                assert not agent.pending_actions
                for j in range(k + 1, end):
                    if j not in answered:
                        self.orphan(j)
                k = end
        tokens = self.events_so_far()
        _, sent = self.step(model_response("response-end", {"role": "assistant", "content": "(next)"}))
        calls.append({"at": len(chat), "tokens": tokens, "condensed": self.condensed, "output": sent, "error": None})
        return calls[-1]["output"], calls


# ----------------------------------------------------------------------------------------------
# 3. cases
# ----------------------------------------------------------------------------------------------


def event_count(chat: list[dict[str, Any]]) -> int:
    return sum(max(1, len(m.get("tool_calls") or [])) if m["role"] == "assistant" else 1 for m in chat)


def cases_for(policy: str, n: int) -> dict[str, dict[str, int]]:
    if policy == "openhands.recent_events":
        return {
            "class_defaults": {"keep_first": 1, "max_events": 10},
            "k0_m1": {"keep_first": 0, "max_events": 1},
            "k0_m5": {"keep_first": 0, "max_events": 5},
            "k1_m0": {"keep_first": 1, "max_events": 0},
            "k1_m1": {"keep_first": 1, "max_events": 1},
            "k1_m4": {"keep_first": 1, "max_events": 4},
            "k2_m3": {"keep_first": 2, "max_events": 3},
            "k2_m7": {"keep_first": 2, "max_events": 7},
            "k0_half": {"keep_first": 0, "max_events": n // 2},
            "k1_half": {"keep_first": 1, "max_events": n // 2},
            "k2_half": {"keep_first": 2, "max_events": n // 2},
            "k1_all": {"keep_first": 1, "max_events": n},
            "k2_large": {"keep_first": 2, "max_events": n + 10},
        }
    if policy == "openhands.observation_masking":
        return {
            "class_defaults": {"attention_window": 5},
            "w_neg1": {"attention_window": -1},
            "w0": {"attention_window": 0},
            "w1": {"attention_window": 1},
            "w2": {"attention_window": 2},
            "w3": {"attention_window": 3},
            "w_half": {"attention_window": n // 2},
            "w_all": {"attention_window": n},
            "w_large": {"attention_window": n + 10},
        }
    return {
        "class_defaults": {"max_size": 100, "keep_first": 0},
        "s2_k0": {"max_size": 2, "keep_first": 0},
        "s3_k0": {"max_size": 3, "keep_first": 0},
        "s4_k1": {"max_size": 4, "keep_first": 1},
        "s5_k1": {"max_size": 5, "keep_first": 1},
        "s6_k2": {"max_size": 6, "keep_first": 2},
        "s8_k0": {"max_size": 8, "keep_first": 0},
        "s9_k3": {"max_size": 9, "keep_first": 3},
        "s12_k1": {"max_size": 12, "keep_first": 1},
        "half_k1": {"max_size": max(4, n // 2), "keep_first": 1},
        "less1_k2": {"max_size": max(6, n - 1), "keep_first": 2},
        "all_k1": {"max_size": n, "keep_first": 1},
        "s4_k2_error": {"max_size": 4, "keep_first": 2},
        "s1_error": {"max_size": 1, "keep_first": 0},
    }


def per_message_events(chat: list[dict[str, Any]]) -> list[int]:
    return [max(1, len(m.get("tool_calls") or [])) if m["role"] == "assistant" else 1 for m in chat]


def run_case(policy: str, name: str, chat: list[dict[str, Any]], settings: dict[str, int]) -> dict[str, Any]:
    record: dict[str, Any] = {
        "policy": policy,
        "chat": f"chats/{name}.json",
        "settings": {k: str(v) for k, v in settings.items()},
        "input_tokens": event_count(chat),
        "message_tokens": per_message_events(chat),
        "output": None,
        "error": None,
    }
    try:
        run = Run(chat, policy, settings)
    except ValueError as e:  # AmortizedForgettingCondenser.__init__ checks its settings
        record["error"] = err(e)
        record["calls"] = None
        return record
    output, calls = run.replay()
    assert run.per_message == record["message_tokens"], (name, run.per_message)
    assert calls[-1]["tokens"] == record["input_tokens"]
    record["output"] = output
    # the prompt at every step only for the rolling condenser (the stateless ones are the same function
    # of the chat so far; their steps would triple the files' size for nothing the output does not show)
    record["calls"] = calls if policy == "openhands.amortized_forgetting" else None
    return record


# ----------------------------------------------------------------------------------------------


def main() -> None:
    assert openhands.__version__ == "0.62.0", openhands.__version__
    chats = load_chats()
    for name in NEW_CHATS:
        write_json(OUT / "chats" / f"{name}.json", chats[name])
    for policy in POLICIES:
        if (OUT / "cases" / policy).exists():
            shutil.rmtree(OUT / "cases" / policy)
    counts: dict[str, int] = {}
    for name, chat in chats.items():
        n = event_count(chat)
        for policy in POLICIES:
            for case, settings in cases_for(policy, n).items():
                d = run_case(policy, name, chat, settings)
                write_json(OUT / "cases" / policy / f"{name}__{case}.json", d)
                counts[policy] = counts.get(policy, 0) + 1
        print(name, len(chat), "messages", n, "events", file=sys.stderr)
    print(json.dumps(counts, indent=1), file=sys.stderr)


if __name__ == "__main__":
    main()
