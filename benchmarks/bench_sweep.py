"""Time sweeping 200 values of each threshold over a 20,000-message chat (target: < 5 s each).

The chat comes from benchmarks/bigchat.py (deterministic: 20,000 messages, about 70 MB). Run:
    python benchmarks/bench_sweep.py [--messages N] [--values N]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import bigchat  # noqa: E402

from inspector.core.analysis.replan import output_count  # noqa: E402
from inspector.core.analysis.sweep import sweep  # noqa: E402
from inspector.core.inspection import open_inspection  # noqa: E402
from inspector.core.scout.settings import KEYS  # noqa: E402
from inspector.core.setup import Setup  # noqa: E402

TARGET_SECONDS = 5.0


def ranges(inspection, count: int) -> dict[str, list[int]]:
    """``count`` values per key spread over the range where that key changes something."""
    outputs = output_count(inspection)
    tool_chars = inspection.facts.prefix[-1]
    out = {}
    for key in KEYS:
        top = tool_chars + 1 if key == "max_tool_chars" else outputs + 1
        step = max(1, top // count)
        out[key] = [i * step for i in range(count)]
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=20_000)
    parser.add_argument("--values", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = bigchat.write(Path(tmp) / "big.json", args.messages)
        started = time.perf_counter()
        inspection = open_inspection(path, Setup.of(config_files=[], env={}))
        loaded = time.perf_counter() - started
    print(
        f"chat: {len(inspection.chat.messages):,} messages, {output_count(inspection):,} tool outputs, "
        f"{inspection.facts.prefix[-1]:,} tool characters; loaded in {loaded:.2f} s"
    )
    worst = 0.0
    for key, values in ranges(inspection, args.values).items():
        started = time.perf_counter()
        rows = sweep(inspection, key, values)
        elapsed = time.perf_counter() - started
        worst = max(worst, elapsed)
        sent = [r.messages for r in rows]
        print(
            f"{key:<18} {len(values)} values {values[0]:,}..{values[-1]:,}: {elapsed:.3f} s "
            f"({elapsed / len(values) * 1000:.2f} ms/value; messages sent {min(sent):,}..{max(sent):,})"
        )
    verdict = "ok" if worst < TARGET_SECONDS else "TOO SLOW"
    print(f"slowest sweep {worst:.3f} s (target < {TARGET_SECONDS:.0f} s): {verdict}")
    return 0 if worst < TARGET_SECONDS else 1


if __name__ == "__main__":
    raise SystemExit(main())
