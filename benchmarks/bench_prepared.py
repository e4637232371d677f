"""The already-prepared check (core/scout/prepared) on 20,000 tool outputs of ~8 KB each, three kinds of text:
plain logs, text with many near-miss `Truncated (` openers, and text made of `Truncated (12): ` (a hostile case
a lazy `Truncated ... <...md5...>` pattern once took minutes on). Prints milliseconds per case. Run:

    python benchmarks/bench_prepared.py
"""

from __future__ import annotations

import time

from inspector.core.model import Chat, Message
from inspector.core.scout.prepared import prepared_findings

CASES = {
    "plain logs": "log line " * 900,
    "near misses": "log line Truncated ( " * 400,
    "hostile": "Truncated (12): " * 500,
}


def main() -> None:
    for label, body in CASES.items():
        content = '{"name":"x","content":"' + body + '"}'
        chat = Chat([Message({"role": "function_call_output", "content": content}) for _ in range(20_000)])
        start = time.perf_counter()
        found = prepared_findings(chat)
        took = (time.perf_counter() - start) * 1000
        print(f"{label:12} 20,000 x {len(content):,} chars: {took:7.1f} ms, {len(found)} finding(s)")


if __name__ == "__main__":
    main()
