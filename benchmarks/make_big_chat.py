"""A deterministic large agent chat (default 20,000 messages) for the app benchmark.

Tool calls and outputs in the demo's shape, sizes from a seeded RNG; text is sliced from
a fixed corpus so generating 20,000 messages takes well under a second.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

TOOLS = ("read_file", "grep_logs", "run_tests", "http_get")
WORDS = "connection pool retry checkout order ledger timeout handshake cache queue".split()


def corpus(rng: random.Random, size: int = 200_000) -> str:
    lines, total = [], 0
    while total < size:
        line = f"2026-11-{rng.randint(1, 28):02d}T10:{rng.randint(0, 59):02d}Z INFO " + \
            " ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 10)))
        lines.append(line)
        total += len(line) + 1
    return "\n".join(lines)


def make_chat(messages: int = 20_000, seed: int = 7) -> list[dict]:
    rng = random.Random(seed)
    text = corpus(rng)
    out: list[dict] = [{"role": "system", "content": "You are a debugging agent."},
                       {"role": "user", "content": "Find out why checkout fails."}]
    n = 0
    while len(out) < messages:
        if rng.random() < 0.08:
            out.append({"role": "assistant", "content": f"Round {n}: still looking."})
            continue
        n += 1
        tool = rng.choice(TOOLS)
        call_id = f"call_{n:06d}"
        out.append({"role": "function_call",
                    "content": json.dumps({"name": tool, "arguments": {"path": f"src/file_{n}.py"}, "id": call_id})})
        size = rng.choice([80, 150, 600, 2000, 6000])
        start = rng.randrange(0, len(text) - size)
        out.append({"role": "function_call_output",
                    "content": json.dumps({"name": tool, "content": text[start:start + size], "id": call_id})})
    return out[:messages]


def write(path: Path, messages: int = 20_000) -> Path:
    path.write_text(json.dumps(make_chat(messages), indent=1), encoding="utf-8")
    return path


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("big_chat.json")
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 20_000
    print(write(target, count))
