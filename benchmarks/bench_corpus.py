"""The corpus command on 200 agent-like chats: a 5-setting grid scored at every call, against the Ruby reference.

    python benchmarks/bench_corpus.py [--oracle /work/shared/reference/prompt_oracle.rb] [--chats 200] [--instructions]

Prints: the corpus (chats, MB, messages and calls per chat); the time of `corpus --jobs 1` (one process)
and of the default pool, as whole processes, with their peak memory (the child's VmHWM); the time the
Ruby reference takes to prepare only the final prompt of each chat once (one `ruby` process per chat, and
that minus Ruby's own start-up, measured on an empty script), and the ratios. The issue's target: the
grid at every call in at most 2x the reference's time (the goal beyond: 1x).

``--instructions``: also the instructions `corpus --jobs 1` and the one-process reference execute (valgrind's
callgrind, a few minutes), whose ratio does not move with the load of a shared machine as the times do.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

import agentgen  # noqa: E402

GRID = ["--vary", "max_tool_chars=20000:100000:20000"]
ENV_KEYS = ("FULL_TOOL_CALLS", "FULL_TOOL_OUTPUTS", "MAX_TOOL_CALLS", "MAX_TOOL_OUTPUTS", "MAX_TOOL_CHARS")


def peak_of(cmd: list[str], env: dict[str, str]) -> tuple[float, int, str]:
    """Wall time and the child's own VmHWM (read by a wrapper, so earlier children do not count)."""
    wrapper = (
        "import subprocess, sys, resource, time\n"
        "t = time.perf_counter(); r = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
        "t = time.perf_counter() - t\n"
        "sys.stderr.write(f'{t} {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}\\n'); sys.stdout.write(r.stdout)\n"
        "sys.exit(r.returncode)\n"
    )
    done = subprocess.run([sys.executable, "-c", wrapper, *cmd], env=env, capture_output=True, text=True, check=False)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{cmd[:4]} failed ({done.returncode}): {done.stderr[-500:]}")
    spent, peak = done.stderr.strip().splitlines()[-1].split()
    return float(spent), int(peak), done.stdout


def instructions(cmd: list[str], env: dict[str, str]) -> int:
    """Instructions the process executes (its children too), as callgrind counts them."""
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run(
            ["valgrind", "--tool=callgrind", "--trace-children=yes", f"--callgrind-out-file={tmp}/out.%p", *cmd],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
    found = re.findall(r"Collected : (\d+)", done.stderr)
    if done.returncode not in (0, 1) or not found:
        raise SystemExit(f"valgrind {cmd[:4]} failed ({done.returncode}): {done.stderr[-500:]}")
    return sum(int(n) for n in found)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--oracle", default="/work/shared/reference/prompt_oracle.rb")
    parser.add_argument("--chats", type=int, default=200)
    parser.add_argument("--calls", type=int, default=70)
    parser.add_argument("--instructions", action="store_true", help="also count instructions (valgrind)")
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if k not in ENV_KEYS}
    env["PYTHONPATH"] = str(ROOT)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "runs"
        folder.mkdir()
        start = time.perf_counter()
        total = messages = 0
        for seed in range(args.chats):
            text = agentgen.json_chat(seed, calls=args.calls, output_chars=3000)
            (folder / f"run{seed:03}.json").write_text(text)
            total += len(text.encode())
            messages += len(json.loads(text))
        print(
            f"corpus: {args.chats} chats, {total / 1e6:.1f} MB, {messages / args.chats:.0f} messages and "
            f"{args.calls} calls per chat (generated in {time.perf_counter() - start:.1f} s)"
        )
        cmd = [sys.executable, "-m", "inspector", "corpus", str(folder), *GRID, "--no-scout-config", "--format", "json"]
        one_s, one_peak, out = peak_of([*cmd, "--jobs", "1"], env)
        data = json.loads(out)
        calls = data["settings"][0]["calls"]
        print(
            f"corpus --jobs 1 (one process, 5 settings x {calls:,} calls = {5 * calls:,} prompts scored): "
            f"{one_s:.2f} s, peak RSS {one_peak / 1024:.0f} MiB"
        )
        pool_s, _, pool_out = peak_of(cmd, env)
        assert pool_out == out, "the pool's results differ from --jobs 1"
        print(f"corpus, default pool ({os.cpu_count()} cores): {pool_s:.2f} s (same output as --jobs 1)")
        largest = max(folder.iterdir(), key=lambda p: p.stat().st_size)
        single_s, single_peak, _ = peak_of([*cmd[:4], str(largest), *cmd[5:], "--jobs", "1"], env)
        print(f"peak RSS scoring only the largest chat: {single_peak / 1024:.0f} MiB (the whole corpus: see above)")
        print("refetches per setting:", [s["refetches"] for s in data["settings"]])
        if args.oracle and Path(args.oracle).exists():
            start = time.perf_counter()
            subprocess.run(["ruby", "-e", ""], check=True)
            startup = time.perf_counter() - start
            start = time.perf_counter()
            for path in sorted(folder.iterdir()):
                subprocess.run(["ruby", args.oracle, str(path)], env=env, check=True, stdout=subprocess.DEVNULL)
            ruby_s = time.perf_counter() - start
            in_process = ruby_s - startup * args.chats
            print(
                f"Ruby reference, final prompt of each chat once: {ruby_s:.2f} s as {args.chats} processes; "
                f"{max(in_process, 0):.2f} s without Ruby's start-up ({startup * 1000:.0f} ms each)"
            )
            # the measure: the reference in ONE process, reading, preparing and writing each chat's final prompt
            driver = (
                f"require {str(Path(args.oracle).resolve())!r}\n"
                "t = Process.clock_gettime(Process::CLOCK_MONOTONIC)\n"
                "ARGV.each { |p| JSON.generate(Chat.prepare_prompt(JSON.parse(File.read(p), symbolize_names: true), nil)) }\n"
                "$stderr.puts(Process.clock_gettime(Process::CLOCK_MONOTONIC) - t)\n"
            )
            paths = [str(p) for p in sorted(folder.iterdir())]
            done = subprocess.run(["ruby", "-e", driver, *paths], env=env, capture_output=True, text=True, check=True)
            one_ruby = float(done.stderr.strip().splitlines()[-1])
            print(f"Ruby reference in one process (read, prepare, write each final prompt): {one_ruby:.2f} s")
            # start-up measured once is as noisy as 200 start-ups minus 200 times it: no ratio when it eats all
            without = f", {one_s / in_process:.2f} (processes without start-up)" if in_process > 0.05 * ruby_s else ""
            print(
                f"ratio corpus --jobs 1 / reference: {one_s / one_ruby:.2f} (reference in one process; target <= 2, "
                f"goal 1), {one_s / ruby_s:.2f} (reference as processes){without}"
            )
            # the reference's clock starts once it is loaded; ours above includes the interpreter and imports: a run
            # on one chat (the largest) stands for those, to compare like with like
            print(
                f"ratio without start-up on either side: {(one_s - single_s) / one_ruby:.2f} "
                f"(corpus {one_s:.2f} s less a one-chat run's {single_s:.2f} s)"
            )
            if args.instructions:
                ours = instructions([*cmd, "--jobs", "1"], env)
                theirs = instructions(["ruby", "-e", driver, *paths], env)
                print(
                    f"instructions: corpus --jobs 1 {ours / 1e9:.2f} G, reference in one process {theirs / 1e9:.2f} G, "
                    f"ratio {ours / theirs:.2f}"
                )


if __name__ == "__main__":
    main()
