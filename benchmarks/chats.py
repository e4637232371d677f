"""Deterministic benchmark chats in two profiles, about 3 KB per message (20,000 messages: about 60 MB).

* ``ascii``: every text is ASCII (logs, code).
* ``mixed``: about half the tool outputs hold non-ASCII text (accents, CJK, Cyrillic, emoji,
  typographic quotes, ANSI colour codes, which JSON writes as ``\\u001b``), and a third of those
  are written with ``\\u`` escapes throughout (surrogate pairs for emoji), as Python's
  ``json.dumps`` writes them by default.

Every tool output carries a unique marker ``MARK000001`` (1 = the oldest) in the middle of
its text, so ``why`` can be asked about any of them. Run:
    python benchmarks/chats.py OUT.json --messages 20000 --profile mixed
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

from bigchat import WORDS, word_corpus

PROFILES = ("ascii", "mixed")
OTHER_WORDS = [
    "résumé",
    "naïve",
    "数据",
    "ошибка",
    "😀",
    "café",
    "“quoted”",
    "it’s",
    "Übergröße",
    "日本語",
    "🚀",
    "\x1b[31mFAIL\x1b[0m",
]
BYTES_PER_MESSAGE = 3_000


def marker(n: int) -> str:
    return f"MARK{n:06d}"


def _dump(value: dict, escaped: bool) -> str:
    return json.dumps(value, ensure_ascii=escaped, separators=(",", ":"))


def build(messages: int, profile: str = "ascii", bytes_per_message: int = BYTES_PER_MESSAGE, seed: int = 7):
    """The chat as a list of {role, content} mappings, oldest first; also the number of tool pairs."""
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}")
    rng = random.Random(seed)
    ascii_corpus = word_corpus(rng, 400_000, WORDS)
    mixed_corpus = word_corpus(rng, 400_000, WORDS + OTHER_WORDS * 2)
    pairs = int(messages * 0.45)
    others = messages - 2 * pairs
    average = int(bytes_per_message * messages / max(1, pairs))
    out: list[dict] = [{"role": "system", "content": "You are a debugging agent."}]
    other_every = max(1, pairs // max(1, others - 1))
    talk = mixed_corpus if profile == "mixed" else ascii_corpus
    n = 0
    while len(out) < messages:
        if n % other_every == 0 and len(out) + 2 * (pairs - n) < messages:
            out.append({"role": rng.choice(["user", "assistant"]), "content": talk[: rng.randint(20, 400)]})
            if len(out) >= messages:
                break
        if n >= pairs:
            out.append({"role": "assistant", "content": "done"})
            continue
        n += 1
        ident = f"call_{n:06d}"
        name = rng.choice(["grep", "read_file", "run_tests", "http_get"])
        non_ascii = profile == "mixed" and rng.random() < 0.5
        corpus = mixed_corpus if non_ascii else ascii_corpus
        escaped = non_ascii and rng.random() < 1 / 3
        start = rng.randrange(0, len(corpus) - 2_000)
        arguments = {"path": f"src/module_{n}.py", "pattern": corpus[start : start + rng.randint(5, 400)]}
        out.append(
            {"role": "function_call", "content": _dump({"name": name, "arguments": arguments, "id": ident}, escaped)}
        )
        size = max(40, int(rng.expovariate(1 / average)))
        start = rng.randrange(0, len(corpus) - 1)
        body = (corpus[start:] + corpus)[:size] if size < len(corpus) else (corpus * (size // len(corpus) + 1))[:size]
        half = len(body) // 2
        body = f"{body[:half]} {marker(n)} {body[half:]}"
        out.append(
            {"role": "function_call_output", "content": _dump({"name": name, "content": body, "id": ident}, escaped)}
        )
    return out[:messages], n


def write(path: str | Path, messages: int, profile: str = "ascii", bytes_per_message: int = BYTES_PER_MESSAGE):
    """Write the chat (raw UTF-8 JSON) and return (path, tool pairs)."""
    path = Path(path)
    data, pairs = build(messages, profile, bytes_per_message)
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path, pairs


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--messages", type=int, default=20_000)
    parser.add_argument("--profile", choices=PROFILES, default="ascii")
    parser.add_argument("--bytes-per-message", type=int, default=BYTES_PER_MESSAGE)
    args = parser.parse_args()
    p, _ = write(args.out, args.messages, args.profile, args.bytes_per_message)
    print(f"{p}: {p.stat().st_size / 1e6:.1f} MB")
