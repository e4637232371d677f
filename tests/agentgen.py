"""Agent-like chats with repeated tool calls, for the corpus tests and the corpus benchmark.

An agent works through a task: it reads files, lists directories, runs tests; now and then it calls a tool
it already called with the same arguments (the key order shuffled: equal as parsed JSON), the kind of
repeat a forgetting agent makes. A fact is planted in an early output (``FACT``) for probes. Written as a
scout chat (a meta record before each response, as scout-ai writes them) or as a JSON message list.
"""

from __future__ import annotations

import json
import random

from inspector.core.io.printers.chat import print_chat
from inspector.core.model import Message

FACT = "reconnect_backoff_ms: 7350"
TOOLS = ("read_file", "list_dir", "run_tests", "grep")


def _arguments(rng: random.Random, name: str, pool: int) -> dict[str, object]:
    k = rng.randrange(pool)
    if name == "read_file":
        return {"path": f"src/module_{k}.py", "offset": 0, "limit": 400 + k}
    if name == "list_dir":
        return {"path": f"src/pkg{k}", "recursive": k % 2 == 0}
    if name == "run_tests":
        return {"target": f"tests/test_{k}.py", "flags": ["-q", "-x"][: 1 + k % 2]}
    return {"pattern": f"def f{k}", "path": "src", "ignore_case": False}


def _shuffled(arguments: dict[str, object], rng: random.Random) -> dict[str, object]:
    items = list(arguments.items())
    rng.shuffle(items)
    return dict(items)


def messages(seed: int, calls: int = 30, output_chars: int = 3000, pool: int = 6) -> list[dict[str, str]]:
    """A JSON message list: system, user, then ``calls`` tool calls with their outputs and some assistant text."""
    rng = random.Random(seed)
    out: list[dict[str, str]] = [
        {"role": "system", "content": "You are a careful coding agent."},
        {"role": "user", "content": f"Fix the flaky reconnect test (seed {seed})."},
    ]
    for n in range(calls):
        name = rng.choice(TOOLS)
        arguments = _shuffled(_arguments(rng, name, pool), rng)
        ident = f"call_{seed}_{n}"
        out.append(
            {"role": "function_call", "content": json.dumps({"name": name, "arguments": arguments, "id": ident})}
        )
        size = rng.randint(output_chars // 10, output_chars * 2)
        body = "".join(rng.choices("abcdefghij klmnop\n", k=size))
        if n == 1:
            body = body[: size // 2] + f"\n{FACT}\n" + body[size // 2 :]
        out.append(
            {"role": "function_call_output", "content": json.dumps({"name": name, "content": body, "id": ident})}
        )
        if rng.random() < 0.3:
            out.append({"role": "assistant", "content": f"Step {n}: looked at {name}; next."})
            out.append({"role": "user", "content": "go on"})
    out.append({"role": "assistant", "content": "Done."})
    return out


def scout_chat(seed: int, calls: int = 30, output_chars: int = 3000, pool: int = 6) -> str:
    """The same chat as scout-ai writes it: a meta record before each response."""
    rng = random.Random(seed + 1)
    out: list[Message] = []
    previous = None
    for item in messages(seed, calls, output_chars, pool):
        role = item["role"]
        if role in ("assistant", "function_call") and previous not in ("assistant", "function_call"):
            out.append(Message.make("meta", f"pt={rng.randint(100, 9000)} ct=40"))
        out.append(Message.make(role, item["content"]))
        previous = role
    return print_chat(out)


def json_chat(seed: int, calls: int = 30, output_chars: int = 3000, pool: int = 6) -> str:
    return json.dumps(messages(seed, calls, output_chars, pool))
