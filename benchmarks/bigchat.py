"""A large, deterministic agent chat for the benchmarks: 20,000 messages, about 70 MB.

python benchmarks/bigchat.py OUT.json [--messages N] [--mb M]
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

WORDS = [
    "connection",
    "pool",
    "retry",
    "checkout",
    "order",
    "ledger",
    "timeout",
    "handshake",
    "cache",
    "queue",
    "error",
    "warning",
    "trace",
    "stack",
    "frame",
    "socket",
    "latency",
    "config",
    "value",
]
# Tool outputs are mostly ASCII (logs, code); some carry accents, CJK or emoji.
OTHER_WORDS = ["résumé", "naïve", "数据", "ошибка", "😀", "café"]
NON_ASCII_SHARE = 0.15


def word_corpus(rng: random.Random, size: int, words: list[str]) -> str:
    lines, total = [], 0
    while total < size:
        line = " ".join(rng.choice(words) for _ in range(rng.randint(5, 14)))
        lines.append(line)
        total += len(line) + 1
    return "\n".join(lines)


def build(messages: int = 20_000, megabytes: float = 60.0, seed: int = 7) -> list[dict]:
    rng = random.Random(seed)
    ascii_corpus = word_corpus(rng, 400_000, WORDS)
    mixed_corpus = word_corpus(rng, 400_000, WORDS + OTHER_WORDS)
    pairs = int(messages * 0.45)
    others = messages - 2 * pairs
    average = int(megabytes * 1_000_000 / pairs)
    out: list[dict] = [{"role": "system", "content": "You are a debugging agent."}]
    other_every = max(1, pairs // max(1, others - 1))
    n = 0
    while len(out) < messages:
        if n % other_every == 0 and len(out) + 2 * (pairs - n) < messages:
            out.append({"role": rng.choice(["user", "assistant"]), "content": mixed_corpus[: rng.randint(20, 400)]})
            if len(out) >= messages:
                break
        if n >= pairs:
            out.append({"role": "assistant", "content": "done"})
            continue
        n += 1
        ident = f"call_{n:06d}"
        name = rng.choice(["grep", "read_file", "run_tests", "http_get"])
        corpus = mixed_corpus if rng.random() < NON_ASCII_SHARE else ascii_corpus
        start = rng.randrange(0, len(corpus) - 2_000)
        arguments = {"path": f"src/module_{n}.py", "pattern": corpus[start : start + rng.randint(5, 400)]}
        out.append(
            {
                "role": "function_call",
                "content": json.dumps(
                    {"name": name, "arguments": arguments, "id": ident}, ensure_ascii=False, separators=(",", ":")
                ),
            }
        )
        size = max(10, int(rng.expovariate(1 / average)))
        start = rng.randrange(0, len(corpus) - 1)
        body = (corpus[start:] + corpus)[:size] if size < len(corpus) else (corpus * (size // len(corpus) + 1))[:size]
        out.append(
            {
                "role": "function_call_output",
                "content": json.dumps(
                    {"name": name, "content": body, "id": ident}, ensure_ascii=False, separators=(",", ":")
                ),
            }
        )
    return out[:messages]


def write(path: str | Path, messages: int = 20_000, megabytes: float = 60.0) -> Path:
    path = Path(path)
    data = build(messages, megabytes)
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def write_scout(path: str | Path, messages: int = 20_000, megabytes: float = 60.0) -> Path:
    """The same chat as scout-ai writes it: a meta record before each model response."""
    from inspector.core.io.printers.chat import print_chat
    from inspector.core.model import Message

    out: list[Message] = []
    previous = None
    for item in build(messages, megabytes):
        role = item["role"]
        if role in ("assistant", "function_call") and previous not in ("assistant", "function_call"):
            out.append(Message.make("meta", f"pt={len(out) * 7} ct=40"))
        out.append(Message(item))
        previous = role
    path = Path(path)
    path.write_text(print_chat(out), encoding="utf-8")
    return path


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--messages", type=int, default=20_000)
    parser.add_argument("--mb", type=float, default=60.0)
    args = parser.parse_args()
    p = write(args.out, args.messages, args.mb)
    print(f"{p}: {p.stat().st_size / 1e6:.1f} MB")
