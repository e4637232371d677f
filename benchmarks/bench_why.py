"""`prompt-inspector why` as a whole process on the benchmark chats, for every kind of question.

    python benchmarks/bench_why.py [--sizes 20k,100k] [--profiles ascii,mixed] [--runs 3]
                                   [--cases old,mid,...] [--tree PATH ...]

Cases: the oldest (`old`) and a middle (`mid`) tool output; a text in a user/assistant message
(`talk`); a text found nowhere (`none`); `--format json` on the oldest (`json`); the oldest and the
middle output under `--strategies shorten_tools_epoch` (`ep_old`, `ep_mid`) and under
`--scout-version 2.1` (shorten_tools_epoch_increment + inbox: `inc_old`, `inc_mid`).
Each `--tree` is a source tree run with PYTHONPATH (default: this one); runs alternate between the
trees, so a before/after pair sees the same load. Prints the median whole-process seconds per cell.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import chats  # noqa: E402
from run import chat_path, clean_env, label, parse_size  # noqa: E402

CASES = ("old", "mid", "talk", "none", "json", "ep_old", "ep_mid", "inc_old", "inc_mid")


def talk_text(path: Path) -> str:
    """40 characters from the middle of a user/assistant message past the chat's middle (cached beside it)."""
    cache = path.with_suffix(".talk")
    if not cache.exists():
        messages = json.loads(path.read_text(encoding="utf-8"))
        for message in messages[len(messages) // 2 :]:
            content = message.get("content")
            if message.get("role") in ("user", "assistant") and isinstance(content, str) and len(content) > 120:
                start = len(content) // 2
                cache.write_text(content[start : start + 40], encoding="utf-8")
                break
    return cache.read_text(encoding="utf-8")


def arguments(case: str, path: Path, pairs: int) -> list[str]:
    old, mid = chats.marker(1), chats.marker(max(1, pairs // 2))
    base = ["why", str(path)]
    return {
        "old": [*base, old],
        "mid": [*base, mid],
        "talk": [*base, talk_text(path)],
        "none": [*base, "NOWHERE-IN-THIS-CHAT"],
        "json": [*base, old, "--format", "json"],
        "ep_old": [*base, old, "--strategies", "shorten_tools_epoch"],
        "ep_mid": [*base, mid, "--strategies", "shorten_tools_epoch"],
        "inc_old": [*base, old, "--scout-version", "2.1"],
        "inc_mid": [*base, mid, "--scout-version", "2.1"],
    }[case]


def run_once(tree: Path, args: list[str], timeout: float) -> tuple[float, int | None]:
    env = clean_env()
    env["PYTHONPATH"] = str(tree)
    start = time.perf_counter()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "inspector", *args, "--no-scout-config"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
            timeout=timeout,
            cwd=tree,
        )
    except subprocess.TimeoutExpired:
        return timeout, None
    return time.perf_counter() - start, proc.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="20k,100k")
    parser.add_argument("--profiles", default="ascii,mixed")
    parser.add_argument("--cases", default=",".join(CASES))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--tree", action="append", type=Path, help="source tree(s) to compare (default: this one)")
    parser.add_argument("--timeout", type=float, default=120.0)
    args = parser.parse_args()
    trees = args.tree or [ROOT]
    cases = [c for c in args.cases.split(",") if c]
    print(f"# {time.strftime('%Y-%m-%d %H:%M')}  load: {os.getloadavg()[0]:.2f}  trees: {', '.join(map(str, trees))}")
    header = ["chat", "case", *(t.name for t in trees)]
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---" for _ in header) + "|")
    for size in map(parse_size, args.sizes.split(",")):
        for profile in args.profiles.split(","):
            path, pairs = chat_path(size, profile)
            for case in cases:
                argv = arguments(case, path, pairs)
                times: dict[Path, list[float]] = {t: [] for t in trees}
                codes: dict[Path, set] = {t: set() for t in trees}
                for _ in range(args.runs):
                    for tree in trees:
                        s, rc = run_once(tree, argv, args.timeout)
                        times[tree].append(s)
                        codes[tree].add(rc)
                cells = []
                for tree in trees:
                    med = statistics.median(times[tree])
                    bad = "" if codes[tree] <= {0} else f" (rc {sorted(map(str, codes[tree]))})"
                    cells.append(f"{med:.2f}{bad}")
                print(f"| {profile} {label(size)} | {case} | " + " | ".join(cells) + " |", flush=True)
    print(f"# load at the end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
