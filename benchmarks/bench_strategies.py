"""Per-strategy timings on the 20,000-message benchmark chat: the first plan and one more plan.

    python benchmarks/bench_strategies.py [--messages N] [--mb M]

For each scout-ai version and strategy: the first prepare (facts built, cold), then the mean
cost of one more plan while a setting changes (what an edit in the app or one step of a sweep
costs), and a 40-value sweep of epoch_size. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import bigchat

from inspector.core.inspection import open_inspection
from inspector.core.setup import Setup

CASES = [
    ("seed", "shorten_tools", "max_tool_chars", [50_000 + 1000 * i for i in range(40)]),
    ("1.2.6", "shorten_tools", "max_tool_chars", [50_000 + 1000 * i for i in range(40)]),
    ("1.2.6", "shorten_tools_epoch", "epoch_size", list(range(1, 41))),
    ("2.1", "shorten_tools_epoch", "epoch_size", list(range(1, 41))),
    ("2.1", "shorten_tools_epoch_increment", "epoch_size", list(range(1, 41))),
    ("2.1", "shorten_tools", "max_tool_chars", [50_000 + 1000 * i for i in range(40)]),
    ("2.1", "none", "epoch_size", list(range(1, 41))),
]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=20_000)
    parser.add_argument("--mb", type=float, default=20.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = bigchat.write(Path(folder) / "big.json", args.messages, args.mb)
        base = open_inspection(path, Setup.of(config_files=[], env={}))
        print(f"chat: {len(base.chat.messages):,} messages")
        for version, strategy, key, values in CASES:
            inspection = open_inspection(path, Setup.of(config_files=[], env={}, version=version, strategies=strategy))
            # small epoch settings so that many epochs pass and the windows are busy
            thresholds = inspection.thresholds
            for k, v in (("epoch_tool_call_threshold", 100), ("epoch_compacted_tool_calls", 400)):
                thresholds = thresholds.with_value(k, v)
            started = time.perf_counter()
            prompt = inspection.prompt(thresholds)
            prompt.messages()
            first = time.perf_counter() - started
            started = time.perf_counter()
            for value in values:
                again = inspection.prompt(thresholds.with_value(key, value))
                again.tier_counts()
            sweep = time.perf_counter() - started
            counts = prompt.tier_counts()
            print(
                f"{version:6} {strategy:30} first plan {first * 1000:8.1f} ms   one more plan "
                f"{sweep / len(values) * 1000:7.2f} ms   sweep of {len(values)} {key} {sweep:6.2f} s   "
                f"(kept {counts['full']:,}, cut {counts['truncated']:,}, dropped {counts['dropped']:,})"
            )


if __name__ == "__main__":
    main()
