"""Write the scout-format samples, and the long debugging session as OpenAI Chat and Anthropic JSON.

The session is the one ``make_json_samples.py`` builds (the app's demo), so every
format of it prepares to the same prompt. Deterministic: running it again writes
the same bytes. Run from anywhere: ``python sample_chats/make_samples.py``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from make_json_samples import build  # noqa: E402

from inspector.core.io.printers.chat import print_chat  # noqa: E402
from inspector.core.model import Message  # noqa: E402


def compact(value) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def as_scout(messages: list[dict]) -> str:
    """The session as ``scout-ai llm ask -c`` leaves it: a meta line opens each inference segment,
    a previous_response_id line closes each answer."""
    out: list[dict] = []
    tokens = 900
    response = 0
    for message in messages:
        role = message["role"]
        if role in ("function_call", "assistant"):  # every call here is its own inference
            tokens += 350
            out.append(
                {
                    "role": "meta",
                    "content": f"pt={tokens} ct=40 tt={tokens + 40} timestamp=2026-11-20T10:"
                    f"{len(out) % 60:02d}:00.000Z",
                }
            )
        out.append(message)
        if role == "assistant":
            response += 1
            out.append({"role": "previous_response_id", "content": f"resp_{response:04d}"})
    return print_chat([Message(m) for m in out]) + "\n"


def as_openai(messages: list[dict]) -> dict:
    items: list[dict] = []
    for message in messages:
        role, content = message["role"], message["content"]
        if role == "function_call":
            info = json.loads(content)
            call = {
                "id": info["id"],
                "type": "function",
                "function": {"name": info["name"], "arguments": compact(info["arguments"])},
            }
            if items and items[-1]["role"] == "assistant" and "tool_calls" in items[-1]:
                items[-1]["tool_calls"].append(call)
            else:
                items.append({"role": "assistant", "content": None, "tool_calls": [call]})
        elif role == "function_call_output":
            info = json.loads(content)
            items.append({"role": "tool", "tool_call_id": info["id"], "content": info["content"]})
        else:
            items.append({"role": role, "content": content})
    return {"model": "gpt-4.1", "messages": items}


def as_anthropic(messages: list[dict]) -> dict:
    system = [m["content"] for m in messages if m["role"] == "system"]
    items: list[dict] = []

    def block(role: str, value: dict) -> None:
        if items and items[-1]["role"] == role:
            items[-1]["content"].append(value)
        else:
            items.append({"role": role, "content": [value]})

    for message in messages:
        role, content = message["role"], message["content"]
        if role == "system":
            continue
        if role == "function_call":
            info = json.loads(content)
            block("assistant", {"type": "tool_use", "id": info["id"], "name": info["name"], "input": info["arguments"]})
        elif role == "function_call_output":
            info = json.loads(content)
            block("user", {"type": "tool_result", "tool_use_id": info["id"], "content": info["content"]})
        else:
            block(role, {"type": "text", "text": content})
    return {"model": "claude-sonnet-4-5", "max_tokens": 4096, "system": "\n".join(system), "messages": items}


DIRECTIVES = """\
endpoint: work
config: full_tool_outputs 4 prompt

system:

You review deployment changes. Answer in two sentences.

user:

Earlier question that a clear removes: what did we ship last week?

assistant:

The ledger client retry patch.

clear: forget the above
sticky_option: prompt_strategies shorten_tools
config: max_tool_chars 30000 prompt
config: max_tool_calls 20

user:

Summarise the runbook below and say whether the canary can start.

file: files/runbook.md

meta: pt=512 ct=20 tt=532 timestamp=2026-11-20T09:00:00.000Z

function_call: {"name":"kubectl","arguments":{"cmd":"get pods -n checkout"},"id":"call_a1"}

function_call_output: {"name":"kubectl","content":"checkout-7d9f 1/1 Running\\ncheckout-81c2 1/1 Running","id":"call_a1"}

assistant:

Both checkout pods are running; the runbook requires a green health check first.

previous_response_id: resp_0001

option: persist false

user:

Go ahead with the canary?
"""

RUNBOOK = """\
# Canary runbook

1. Check that every checkout pod is Running.
2. Check /health on the gateway: it must say ok.
3. Shift 5% of traffic; watch the error rate for 15 minutes.
"""

TRAPS = """\
system:

You are a careful assistant.

user:

Here is the matrix as Python prints it:
[[1, 2], [3, 4]]

assistant:

This answer is swallowed by the `[[` above, up to the next line that ends in ]]
That line is also where the block closes, see [[matrix]]

user:

Visible again.

assistant:

<thinking>
The tool output later contains a closing tag, so this block runs on.

user:

Also swallowed, up to the first line whose first closing tag closes thinking.

function_call: {"name":"fetch","arguments":{"url":"https://example.com"},"id":"call_t1"}

function_call_output: {"name":"fetch","content":"<html>... </thinking> ...</html>","id":"call_t1"}

user:

Visible again. Some text with a header-like line:
note: this starts a `note` message
http://example.com also starts one (role `http`)
\\user: this one is escaped and stays text

user:

An unbalanced fence follows:
```python
print("hello")

assistant:

Everything from the fence on is one user message.
"""

OLD_TOOLS = """\
user:

List the files, then read the README.

function_call: {"name":"ls","id":"call_o1","type":"function_call","status":"completed","arguments":"{\\"dir\\":\\".\\"}"}

function_call_output: {"id":"call_o1","role":"tool","content":"README.md\\nsetup.py"}

function_call: {"id":"call_o2","type":"function","function":{"name":"read_file","arguments":"{\\"path\\":\\"README.md\\"}"}}

function_call_output: {"id":"call_o2","content":"# Project\\nInstall with pip."}

function_call: {"name":"grep","arguments":{"pattern":"TODO"},"id":"call_o3"}

function_call_output: {"name":"grep","content":"setup.py:12: TODO pin versions","id":"call_o3"}

assistant:

Two files; the README says to install with pip, and setup.py has a TODO to pin versions.
"""


def main() -> None:
    messages = build()
    (HERE / "debug_session.chat").write_text(as_scout(messages), encoding="utf-8")
    # the app's bundled demo is the scout-format session
    demo = HERE.parent / "inspector" / "demo" / "demo.chat"
    demo.parent.mkdir(exist_ok=True)
    demo.write_text(as_scout(messages), encoding="utf-8")
    for name, value in (
        ("debug_session.openai.json", as_openai(messages)),
        ("debug_session.anthropic.json", as_anthropic(messages)),
    ):
        (HERE / name).write_text(json.dumps(value, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    (HERE / "files").mkdir(exist_ok=True)
    (HERE / "files" / "runbook.md").write_text(RUNBOOK, encoding="utf-8")
    (HERE / "directives.chat").write_text(DIRECTIVES, encoding="utf-8")
    (HERE / "traps.chat").write_text(TRAPS, encoding="utf-8")
    (HERE / "old_tools.chat").write_text(OLD_TOOLS, encoding="utf-8")


if __name__ == "__main__":
    main()
