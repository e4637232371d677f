"""`prepare` on the shared benchmark profiles (issue 25, "lean on every profile"), side by side with Ruby.

    python benchmarks/bench_lean.py [--bench /work/shared/bench] [--oracle /work/shared/reference/prompt_oracle.rb]
                                    [--messages 20000] [--runs 3]

The profiles come from the shared generator (`big_chat.py`: random letter runs, 30% words with accents,
CJK, emoji and control characters; `GEN_ASCII=1`: the same shape, ASCII only). Each run is a whole
process, alternating `prompt-inspector prepare` (the console script beside this interpreter, else
`python -m inspector`) and the Ruby reference, each reaped with wait4 so its
peak RSS and CPU time are its own; the outputs are compared byte for byte once. Prints per profile: the
file size, the medians, the ratio inspector/Ruby (targets: 0.5x ASCII, 0.8x non-ASCII), the same ratio of
CPU time (user + system: steadier than wall time on a busy machine) and peak RSS over the file size
(target: 3x).

The package's bytecode is compiled first: with PYTHONDONTWRITEBYTECODE set (as in the shared sessions) a
module edited since its .pyc was written is compiled again by every run, which times the compiler.
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
ENV_KEYS = ("FULL_TOOL_CALLS", "FULL_TOOL_OUTPUTS", "MAX_TOOL_CALLS", "MAX_TOOL_OUTPUTS", "MAX_TOOL_CHARS")
TARGETS = {"ascii": 0.5, "mixed": 0.8}


def timed(command: list[str], out: Path, env: dict[str, str]) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (user + system) and peak RSS (MiB) of one whole process writing to ``out``."""
    with out.open("wb") as sink:
        start = time.perf_counter()
        proc = subprocess.Popen(command, stdout=sink, stderr=subprocess.PIPE, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        spent = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{command[:3]} failed: {proc.stderr.read().decode()[-400:] if proc.stderr else ''}")
    return spent, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bench", default="/work/shared/bench")
    parser.add_argument("--oracle", default="/work/shared/reference/prompt_oracle.rb")
    parser.add_argument("--messages", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if k not in ENV_KEYS}
    env["PYTHONPATH"] = str(ROOT)
    # the console script, as users run it (`python -m` adds runpy's imports, ~3 ms), else the module
    script = Path(sys.executable).parent / "prompt-inspector"
    ours_command = [str(script)] if script.exists() else [sys.executable, "-m", "inspector"]
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "inspector")], check=True, capture_output=True)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for profile in ("ascii", "mixed"):
            chat = folder / f"{profile}.json"
            gen_env = {**env, **({"GEN_ASCII": "1"} if profile == "ascii" else {})}
            subprocess.run(
                [sys.executable, str(Path(args.bench) / "big_chat.py"), str(chat), str(args.messages), "3"],
                env=gen_env,
                check=True,
                capture_output=True,
            )
            size = chat.stat().st_size / (1 << 20)
            ours, ruby, peaks = [], [], []
            for _ in range(args.runs):
                spent, cpu, peak = timed(
                    [*ours_command, "prepare", str(chat), "--no-scout-config"],
                    folder / "ours.out",
                    env,
                )
                ours.append((spent, cpu))
                peaks.append(peak)
                ruby.append(timed(["ruby", args.oracle, str(chat)], folder / "ruby.out", env)[:2])
            same = (folder / "ours.out").read_bytes() == (folder / "ruby.out").read_bytes()
            mine, theirs = (statistics.median(t[0] for t in runs) for runs in (ours, ruby))
            mine_cpu, theirs_cpu = (statistics.median(t[1] for t in runs) for runs in (ours, ruby))
            print(
                f"{profile}: {size:.1f} MiB, {args.messages:,} messages: prepare {mine:.2f} s, Ruby {theirs:.2f} s, "
                f"ratio {mine / theirs:.2f} (target {TARGETS[profile]}; CPU {mine_cpu:.2f} s / {theirs_cpu:.2f} s = "
                f"{mine_cpu / theirs_cpu:.2f}); peak RSS {max(peaks):.0f} MiB = "
                f"{max(peaks) / size:.1f}x the file (target 3x); output {'identical' if same else 'DIFFERS'}"
            )


if __name__ == "__main__":
    main()
