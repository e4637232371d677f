"""Engine speed: re-plan after a threshold change (in process) and `prepare` as a whole process.

    python benchmarks/bench_engine.py [--oracle PATH/TO/prompt_oracle.rb] [--runs N]

Builds the 20,000-message chat (benchmarks/bigchat.py) once, then prints:
- load + facts time, first plan time;
- median re-plan time after a threshold change, decisions included (target < 10 ms);
- median wall time of `prompt-inspector prepare` as a process, and with --oracle the
  Ruby reference's time on the same file, runs alternating, and the ratio (target <= 1.0).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import bigchat  # noqa: E402

from inspector.core.io.formats import load_chat  # noqa: E402
from inspector.core.scout.strategies.shorten_tools import ShortenToolsPlan  # noqa: E402
from inspector.core.scout.tool_facts import ToolFacts  # noqa: E402

ENV_KEYS = ("FULL_TOOL_CALLS", "FULL_TOOL_OUTPUTS", "MAX_TOOL_CALLS", "MAX_TOOL_OUTPUTS", "MAX_TOOL_CHARS")


def replan_times(path: Path, runs: int) -> dict:
    t0 = time.perf_counter()
    chat = load_chat(path)
    t1 = time.perf_counter()
    facts = ToolFacts(chat.messages)
    t2 = time.perf_counter()
    ShortenToolsPlan(facts, (0, 10, 40, 40, 100_000))
    t3 = time.perf_counter()
    variants = [
        (0, 10, 40, 40, 100_000 + 1000 * i)
        if i % 3 == 0
        else (0, 10 + i % 7, 40 + i % 11, 40 + i % 13, 100_000)
        if i % 3 == 1
        else (i % 5, 10, 30 + i % 20, 30 + i % 20, 50_000 + 997 * i)
        for i in range(runs)
    ]
    for values in variants[:5]:  # first visits compute the shortened texts they need (cached after)
        ShortenToolsPlan(facts, values).decisions()
    timings, arrays = [], []
    for values in variants:
        start = time.perf_counter()
        plan = ShortenToolsPlan(facts, values)
        plan.tier_counts()
        middle = time.perf_counter()
        decisions = plan.decisions()  # one Decision object per message: tier, rule, counters, sizes
        assert len(decisions) == len(chat.messages)
        arrays.append(middle - start)
        timings.append(time.perf_counter() - start)
    return {
        "messages": len(chat.messages),
        "load_s": t1 - t0,
        "facts_s": t2 - t1,
        "first_plan_s": t3 - t2,
        "replan_median_ms": statistics.median(timings) * 1000,
        "replan_max_ms": max(timings) * 1000,
        "arrays_median_ms": statistics.median(arrays) * 1000,
    }


def process_time(command: list[str], env: dict) -> float:
    start = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=env)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--oracle", help="path to the Ruby reference prompt_oracle.rb")
    parser.add_argument("--runs", type=int, default=50, help="re-plans to time")
    parser.add_argument("--process-runs", type=int, default=3)
    parser.add_argument("--chat", help="use this chat instead of building one")
    args = parser.parse_args()
    if args.chat:
        path = Path(args.chat)
    else:
        path = Path(tempfile.gettempdir()) / "prompt-inspector-bench-20k.json"
        if not path.exists():
            bigchat.write(path)
    print(f"chat: {path} ({path.stat().st_size / 1e6:.1f} MB)")
    figures = replan_times(path, args.runs)
    print(f"messages: {figures['messages']:,}")
    print(
        f"load: {figures['load_s']:.3f} s, facts: {figures['facts_s']:.3f} s, first plan: {figures['first_plan_s'] * 1000:.1f} ms"
    )
    print(
        f"re-plan after a threshold change, with a Decision object for each of the {figures['messages']:,} "
        f"messages: median {figures['replan_median_ms']:.2f} ms, max {figures['replan_max_ms']:.2f} ms over "
        f"{args.runs} changes (target: median < 10 ms)"
    )
    print(
        f"  of which the plan itself (tiers and counters as arrays, totals): median "
        f"{figures['arrays_median_ms']:.3f} ms"
    )
    env = {k: v for k, v in os.environ.items() if k not in ENV_KEYS}
    env["PYTHONPATH"] = str(ROOT)
    ours_cmd = [sys.executable, "-m", "inspector", "prepare", str(path), "--no-scout-config", "-o", os.devnull]
    ours, theirs = [], []
    for _ in range(args.process_runs):
        ours.append(process_time(ours_cmd, env))
        if args.oracle:
            theirs.append(process_time(["ruby", args.oracle, str(path)], env))
    ours_median = statistics.median(ours)
    print(f"prepare (whole process): median {ours_median:.2f} s over {len(ours)} runs")
    if theirs:
        oracle_median = statistics.median(theirs)
        print(f"oracle (whole process): median {oracle_median:.2f} s over {len(theirs)} runs (alternating)")
        print(f"ratio ours/oracle: {ours_median / oracle_median:.2f} (target <= 1.0)")


if __name__ == "__main__":
    main()
