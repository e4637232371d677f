"""One table of every speed and memory figure, on deterministic chats of several sizes and four profiles.

    python benchmarks/run.py [--sizes 1k,20k,100k] [--profiles ascii,mixed,shared-ascii,shared-mixed]
                             [--oracle /work/shared/reference/prompt_oracle.rb] [--runs 3]
                             [--skip app,why,...] [--million]

Chats are written once to benchmarks/out/ (git-ignored): `ascii` and `mixed` by benchmarks/chats.py,
`shared-ascii` and `shared-mixed` by the shared generator (../shared/bench/big_chat.py; $BENCH_SHARED: its
folder), whose texts are unlike the first two's (`why` looks for a run of letters of an output there,
not a marker). Each group of
figures runs in its own process, so peak RSS belongs to that work alone:
  load       chat read + tool facts, in process (s)
  plan       first plan (ms)
  replan     re-plan after a threshold change with the decisions a screen shows, median (ms)
  replan_all the same with a Decision for every message (ms)
  prepare    `prompt-inspector prepare` whole process, median (s); oracle: the Ruby reference's, and the ratio;
             cpu ratio: the same with CPU time (user + system), steadier than wall time on a busy machine
  rss        peak RSS / file size for prepare, explain and the app
  why        `prompt-inspector why` whole process on the oldest and a middle tool output (s)
  sweep      200 values of each threshold, in process (s)
  app        first full screen with totals (s), repaint after a threshold change (ms, median), a key in
             the list right after the first screen (nav ms, median), each from the frame the app hands
             the terminal (benchmarks/app_frames.py); key latency while the why search runs: Escape
             handled (key ms) and the search stopped (stop ms)
--million adds `explain` on 1,000,000 small messages (time and peak RSS).
Figures are wall-clock on a shared machine: compare ratios within one run, and repeat.
The package's bytecode is compiled first, as installing it does (with PYTHONDONTWRITEBYTECODE set,
every process would otherwise compile each module again: 0.2-0.3 s of a `prepare` run).
"""

from __future__ import annotations

import argparse
import asyncio
import compileall
import json
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = Path(os.environ.get("BENCH_OUT", ROOT / "benchmarks" / "out"))  # where the chats are written
# the tree whose code is measured (default: this one); another worktree gives a before/after in one run
CODE = Path(os.environ.get("BENCH_CODE", ROOT))
sys.path.insert(0, str(CODE))
sys.path.insert(0, str(ROOT / "benchmarks"))

import chats  # noqa: E402

from inspector.core.setup import ChatSource, Setup  # noqa: E402

ENV_KEYS = ("FULL_TOOL_CALLS", "FULL_TOOL_OUTPUTS", "MAX_TOOL_CALLS", "MAX_TOOL_OUTPUTS", "MAX_TOOL_CHARS")
WHY_TIMEOUT = 300.0


def parse_size(text: str) -> int:
    text = text.strip().lower()
    scale = 1_000_000 if text.endswith("m") else 1_000 if text.endswith("k") else 1
    return int(float(text.rstrip("km")) * scale)


def label(size: int) -> str:
    return f"{size // 1_000_000}M" if size >= 1_000_000 else f"{size // 1000}k" if size >= 1000 else str(size)


# the shared chat profiles (../shared/bench/big_chat.py): random letter runs with 30% words holding accents,
# CJK, emoji and control characters (shared-mixed), or the same shape ASCII-only (shared-ascii: GEN_ASCII=1)
SHARED = {"shared-ascii": True, "shared-mixed": False}
SHARED_BENCH = Path(os.environ.get("BENCH_SHARED", ROOT.parent / "shared" / "bench"))
LETTERS = re.compile(r"[A-Za-z]{6}[A-Za-z ]{18,}[A-Za-z]")  # a probe for `why` in a shared chat's output


def chat_path(size: int, profile: str, bytes_per_message: int = chats.BYTES_PER_MESSAGE) -> tuple[Path, int]:
    OUT.mkdir(parents=True, exist_ok=True)
    if profile in SHARED:
        path = OUT / f"{profile}-{label(size)}.json"
    else:
        path = OUT / f"{profile}-{label(size)}-{bytes_per_message}.json"
    meta = path.with_suffix(".pairs")
    if not path.exists() or not meta.exists():
        if profile in SHARED:
            pairs = _write_shared(path, size, SHARED[profile])
        else:
            _, pairs = chats.write(path, size, profile, bytes_per_message)
        meta.write_text(str(pairs))
    return path, int(meta.read_text())


def _write_shared(path: Path, size: int, ascii_only: bool) -> int:
    """A shared-profile chat of ``size`` messages (seed 3, as bench_lean.py writes it); its tool outputs'
    probes for `why` beside it (the chats of chats.py carry markers instead). Returns the outputs' count."""
    env = {k: v for k, v in os.environ.items() if k != "GEN_ASCII"}
    if ascii_only:
        env["GEN_ASCII"] = "1"
    generator = SHARED_BENCH / "big_chat.py"
    subprocess.run([sys.executable, str(generator), str(path), str(size), "3"], env=env, check=True)
    # read in a child: a parent that held the chat would pass its peak RSS on to every process it starts
    # (wait4's ru_maxrss counts the fork's before exec), and the table's RSS/f columns would show it
    done = subprocess.run([sys.executable, __file__, "--probes", str(path)], capture_output=True, check=True)
    return int(done.stdout)


def _write_probes(path: Path) -> int:
    outputs = [m["content"] for m in json.loads(path.read_bytes()) if m.get("role") == "function_call_output"]
    found = [LETTERS.search(content) for content in outputs]
    path.with_suffix(".probes").write_text(json.dumps([m.group() if m is not None else "" for m in found]))
    return len(outputs)


def probe(path: Path, n: int) -> str:
    """The text `why` looks for in the ``n``-th tool output (1 = the oldest): its marker in a chat of
    chats.py, else a run of letters from it (the first found at or after the n-th in a shared chat)."""
    probes_file = path.with_suffix(".probes")
    if not probes_file.exists():
        return chats.marker(n)
    probes = json.loads(probes_file.read_text())
    return next((text for text in probes[n - 1 :] if text), "")


def clean_env() -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ENV_KEYS}
    env["PYTHONPATH"] = str(CODE)
    return env


def run_process(command: list[str], timeout: float | None = None) -> dict:
    """Like ``measure`` but reaps with wait4 so the RSS is this process's alone."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=clean_env())
    deadline = None if timeout is None else start + timeout
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            proc.returncode = os.waitstatus_to_exitcode(status)
            return {
                "s": time.perf_counter() - start,
                "cpu_s": usage.ru_utime + usage.ru_stime,
                "rss_mib": usage.ru_maxrss / 1024,
                "timed_out": False,
                "rc": proc.returncode,
            }
        if deadline is not None and time.perf_counter() > deadline:
            proc.kill()
            _, status, usage = os.wait4(proc.pid, 0)
            return {
                "s": timeout,
                "cpu_s": usage.ru_utime + usage.ru_stime,
                "rss_mib": usage.ru_maxrss / 1024,
                "timed_out": True,
                "rc": None,
            }
        time.sleep(0.01)


def cli(*args: str) -> list[str]:
    # -P: `-m` would put the working directory first on the path, so run from a checkout it would
    # measure that checkout's package instead of BENCH_CODE's
    return [sys.executable, "-P", "-m", "inspector", *args, "--no-scout-config"]


def console(*args: str) -> list[str]:
    """``cli`` through the console script beside this interpreter, as users run it (``-m`` adds runpy's
    imports); it reads BENCH_CODE's package all the same (PYTHONPATH comes before the installed one)."""
    script = Path(sys.executable).parent / "prompt-inspector"
    return [str(script), *args, "--no-scout-config"] if script.exists() else cli(*args)


# -- in-process groups (each runs in a child: python run.py --group NAME PATH) ------------------------
def group_engine(path: Path, pairs: int) -> dict:
    from inspector.core.inspection import open_inspection
    from inspector.core.scout.strategies.shorten_tools import ShortenToolsPlan

    t0 = time.perf_counter()
    inspection = open_inspection(path, Setup.of(config_files=[], env={}))
    facts = inspection.facts
    t1 = time.perf_counter()
    ShortenToolsPlan(facts, (0, 10, 40, 40, 100_000)).tier_counts()
    t2 = time.perf_counter()
    variants = [
        (0, 10, 40, 40, 100_000 + 1000 * i)
        if i % 3 == 0
        else (0, 10 + i % 7, 40 + i % 11, 40 + i % 13, 100_000)
        if i % 3 == 1
        else (i % 5, 10, 30 + i % 20, 30 + i % 20, 50_000 + 997 * i)
        for i in range(30)
    ]
    for values in variants[:5]:
        ShortenToolsPlan(facts, values).decisions()
    shown, every = [], []
    count = len(inspection.chat.messages)
    window = range(max(0, count - 60), count)  # what one screen shows (the newest rows)
    for values in variants:
        start = time.perf_counter()
        plan = ShortenToolsPlan(facts, values)
        plan.tier_counts()
        for index in window:
            plan.decision(index)
        shown.append(time.perf_counter() - start)
        start = time.perf_counter()
        plan = ShortenToolsPlan(facts, values)
        plan.tier_counts()
        decisions = plan.decisions()
        every.append(time.perf_counter() - start)
        assert len(decisions) == count
    return {
        "load_s": t1 - t0,
        "plan_ms": (t2 - t1) * 1000,
        "replan_ms": statistics.median(shown) * 1000,
        "replan_all_ms": statistics.median(every) * 1000,
    }


def group_sweep(path: Path, pairs: int) -> dict:
    from inspector.core.analysis.replan import output_count
    from inspector.core.analysis.sweep import sweep
    from inspector.core.inspection import open_inspection
    from inspector.core.scout.settings import KEYS

    inspection = open_inspection(path, Setup.of(config_files=[], env={}))
    outputs = output_count(inspection)
    tool_chars = inspection.facts.prefix[-1]
    start = time.perf_counter()
    for key in KEYS:
        top = tool_chars + 1 if key == "max_tool_chars" else outputs + 1
        step = max(1, top // 200)
        sweep(inspection, key, [i * step for i in range(200)])
    return {"sweep_s": time.perf_counter() - start}


async def _wait_for(pilot, condition, timeout: float = 120.0) -> None:
    deadline = time.perf_counter() + timeout
    while not condition():
        if time.perf_counter() > deadline:
            raise TimeoutError
        await pilot.pause(0.002)


async def _app(path: Path, pairs: int) -> dict:
    from app_frames import FrameWatch, paint, shows_totals, summary_text
    from textual import events

    from inspector.ui.app import InspectorApp

    started = time.perf_counter()
    app = InspectorApp(ChatSource.of(path), Setup.of(config_files=[], env={}))
    app.animation_level = "none"
    frames = FrameWatch(app)
    figures: dict = {}
    async with app.run_test(size=(160, 50)) as pilot:
        # first paint: the first frame handed to the terminal that holds the totals (see app_frames.py)
        seen = await frames.wait(lambda: shows_totals(app))
        figures["first_paint_s"] = seen - started
        assert any(" sent " in line and "->" in line for line in paint(app))  # the header's totals
        # keys in the list right after it, while the load's background work runs (the strip's timeline, the
        # detail pane, the sweep chart): from the key, sent as a terminal sends it, to the frame that shows it
        status = app.query_one("#status")
        nav = []
        for _ in range(10):
            row = app.chat.view.current_row + 1
            t0 = time.perf_counter()
            app._driver.send_message(events.Key("down", None))
            nav.append(await frames.wait(lambda row=row: f"row {row} " in status.text) - t0)
            await asyncio.sleep(0.03)
        figures["nav_ms"] = statistics.median(nav) * 1000
        figures["nav_ms_max"] = max(nav) * 1000
        # threshold changes back to back: from the change to the frame with the new plan's totals
        repaints = []
        for value in (50_000, 20_000, 200_000, 100_000, 5_000, 1_000_000):
            t0 = time.perf_counter()
            app.chat.apply_thresholds(app.chat.thresholds.with_value("max_tool_chars", value, "edited"), None, delay=0)
            wanted = app.chat.thresholds

            def replanned(wanted=wanted) -> bool:
                return (
                    app.chat.document.settings.thresholds is wanted
                    and f"{app.chat.document.totals.tool_chars_after:,}" in summary_text(app)
                )

            repaints.append(await frames.wait(replanned) - t0)
            assert any(f"{app.chat.document.totals.tool_chars_after:,}" in line for line in paint(app))
        figures["repaint_ms"] = statistics.median(repaints) * 1000
        figures["repaint_ms_max"] = max(repaints) * 1000
        # key latency while the why search runs on the oldest tool output: the first Escape stops the
        # search (or closes the screen when it is done). key: from the key to its handler having run
        # (the search told to stop); stop: until the search has stopped and said so
        base = app.screen
        app.chat.open_why(probe(path, 1))
        await _wait_for(pilot, lambda: app.screen is not base)
        await pilot.pause(0.5)
        why = app.screen
        from textual import events

        t0 = time.perf_counter()
        # sent as the terminal would send it: Pilot.press would wait until the whole process is idle
        # (textual's wait_for_idle watches CPU time), which a searching worker never is
        app._driver.send_message(events.Key("escape", None))

        def handled() -> bool:
            worker = getattr(why, "worker", None)
            return app.screen is base or worker is None or worker.is_cancelled or worker.is_finished

        try:
            await _wait_for(pilot, handled, 60.0)
            figures["key_ms"] = (time.perf_counter() - t0) * 1000
            await _wait_for(pilot, lambda: app.screen is base or not getattr(why, "searching", False), 60.0)
            figures["stop_ms"] = (time.perf_counter() - t0) * 1000
        except TimeoutError:
            figures["key_ms"], figures["key_ms_timeout"] = 60_000.0, True
        app.workers.cancel_all()
    return figures


def group_app(path: Path, pairs: int) -> dict:
    return asyncio.run(_app(path, pairs))


GROUPS = {"engine": group_engine, "sweep": group_sweep, "app": group_app}


def run_group(name: str, path: Path, pairs: int, timeout: float = 600.0) -> dict:
    """Run one group in a child process; its figures plus the child's peak RSS."""
    out = OUT / f".group-{name}-{os.getpid()}.json"
    command = [sys.executable, __file__, "--group", name, str(path), str(pairs), str(out)]
    result = run_process(command, timeout)
    if result["timed_out"] or result["rc"] != 0 or not out.exists():
        return {"failed": True, "rss_mib": result["rss_mib"]}
    figures = json.loads(out.read_text())
    out.unlink()
    figures["rss_mib"] = result["rss_mib"]
    return figures


# -- the table -----------------------------------------------------------------------------------------
def bench_chat(size: int, profile: str, args) -> dict:
    path, pairs = chat_path(size, profile)
    mib = path.stat().st_size / 2**20
    row: dict = {"chat": f"{profile} {label(size)}", "file_mib": mib}
    skip = set(args.skip)
    if "engine" not in skip:
        row.update(run_group("engine", path, pairs))
    if "prepare" not in skip:
        ours, theirs, rss, our_cpu, their_cpu = [], [], [], [], []
        for _ in range(args.runs):
            r = run_process(console("prepare", str(path)))
            ours.append(r["s"])
            our_cpu.append(r["cpu_s"])
            rss.append(r["rss_mib"])
            if args.oracle:
                r = run_process(["ruby", args.oracle, str(path)])
                theirs.append(r["s"])
                their_cpu.append(r["cpu_s"])
        row["prepare_s"] = statistics.median(ours)
        row["prepare_cpu_s"] = statistics.median(our_cpu)
        row["prepare_rss"] = max(rss) / mib
        if theirs:
            row["oracle_s"] = statistics.median(theirs)
            row["oracle_cpu_s"] = statistics.median(their_cpu)
            row["ratio"] = row["prepare_s"] / row["oracle_s"]
            row["cpu_ratio"] = row["prepare_cpu_s"] / row["oracle_cpu_s"]
    if "explain" not in skip:
        r = run_process(cli("explain", str(path), "--format", "json", "-o", os.devnull))
        row["explain_s"] = r["s"]
        row["explain_rss"] = r["rss_mib"] / mib
    if "why" not in skip:
        for name, n in (("why_old", 1), ("why_mid", max(1, pairs // 2))):
            r = run_process(cli("why", str(path), probe(path, n)), timeout=args.why_timeout)
            row[name] = r["s"]
            row[name + "_timeout"] = r["timed_out"]
    if "sweep" not in skip:
        row.update(run_group("sweep", path, pairs))
    if "app" not in skip:
        figures = run_group("app", path, pairs)
        row["app_rss"] = figures.pop("rss_mib") / mib
        row.update(figures)
    return row


def fmt(value, spec: str, timed_out: bool = False) -> str:
    if value is None:
        return "-"
    if timed_out:
        return f">{value:.0f}"
    return format(value, spec)


COLUMNS = [
    ("chat", "chat", None),
    ("MiB", "file_mib", ".0f"),
    ("load s", "load_s", ".2f"),
    ("plan ms", "plan_ms", ".1f"),
    ("replan ms", "replan_ms", ".2f"),
    ("all ms", "replan_all_ms", ".1f"),
    ("prep s", "prepare_s", ".2f"),
    ("ruby s", "oracle_s", ".2f"),
    ("ratio", "ratio", ".2f"),
    ("cpu ratio", "cpu_ratio", ".2f"),
    ("RSS/f prep", "prepare_rss", ".1f"),
    ("RSS/f expl", "explain_rss", ".1f"),
    ("RSS/f app", "app_rss", ".1f"),
    ("why old s", "why_old", ".1f"),
    ("why mid s", "why_mid", ".1f"),
    ("sweep s", "sweep_s", ".2f"),
    ("paint s", "first_paint_s", ".2f"),
    ("repaint ms", "repaint_ms", ".0f"),
    ("nav ms", "nav_ms", ".0f"),
    ("key ms", "key_ms", ".0f"),
    ("stop ms", "stop_ms", ".0f"),
]


def render(rows: list[dict]) -> str:
    header = [c[0] for c in COLUMNS]
    body = []
    for row in rows:
        cells = []
        for _, key, spec in COLUMNS:
            value = row.get(key)
            cells.append(str(value) if spec is None else fmt(value, spec, row.get(key + "_timeout", False)))
        body.append(cells)
    widths = [max(len(h), *(len(b[i]) for b in body)) for i, h in enumerate(header)]
    lines = ["| " + " | ".join(h.ljust(w) for h, w in zip(header, widths)) + " |"]
    lines.append("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    lines += [
        "| " + " | ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(b, widths))) + " |"
        for b in body
    ]
    return "\n".join(lines)


def check(size: int, profile: str, oracle: str) -> str:
    """Byte-compare `prepare` with the Ruby oracle on one chat (default thresholds and a tight budget)."""
    path, _ = chat_path(size, profile)
    results = []
    for env in ({}, {"MAX_TOOL_CHARS": "20000", "FULL_TOOL_OUTPUTS": "3", "MAX_TOOL_CALLS": "500"}):
        full = {**clean_env(), **env}
        ours = subprocess.run(cli("prepare", str(path)), capture_output=True, env=full, check=True).stdout
        theirs = subprocess.run(["ruby", oracle, str(path)], capture_output=True, env=full, check=True).stdout
        results.append("same" if ours == theirs else f"DIFFERENT ({len(ours)} vs {len(theirs)} bytes)")
    return f"{profile} {label(size)}: " + ", ".join(results)


def million(args) -> str:
    path, _ = chat_path(1_000_000, "ascii", 300)
    mib = path.stat().st_size / 2**20
    r = run_process(cli("explain", str(path), "--format", "json", "-o", os.devnull), timeout=600)
    return (
        f"explain, 1,000,000 messages ({mib:.0f} MiB): {fmt(r['s'], '.1f', r['timed_out'])} s, "
        f"peak RSS {r['rss_mib']:.0f} MiB ({r['rss_mib'] / mib:.1f}x the file)"
    )


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--probes":
        print(_write_probes(Path(sys.argv[2])))
        return
    if len(sys.argv) > 1 and sys.argv[1] == "--group":
        name, path, pairs, out = sys.argv[2], Path(sys.argv[3]), int(sys.argv[4]), Path(sys.argv[5])
        out.write_text(json.dumps(GROUPS[name](path, pairs)))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1k,20k,100k")
    parser.add_argument("--profiles", default="ascii,mixed,shared-ascii,shared-mixed")
    parser.add_argument("--oracle", help="the Ruby reference prompt_oracle.rb (ruby must be on PATH)")
    parser.add_argument("--runs", type=int, default=3, help="prepare/oracle runs per chat (median)")
    parser.add_argument("--skip", default="", help="groups to leave out: engine,prepare,explain,why,sweep,app")
    parser.add_argument("--why-timeout", type=float, default=WHY_TIMEOUT)
    parser.add_argument("--million", action="store_true", help="also explain on 1,000,000 messages")
    parser.add_argument("--json", help="also write the rows to this file")
    parser.add_argument("--check", action="store_true", help="only byte-compare prepare with --oracle on each chat")
    args = parser.parse_args()
    args.skip = [s for s in args.skip.split(",") if s]
    compileall.compile_dir(ROOT / "inspector", quiet=2)  # as `pip install` does: no run pays for compiling
    if args.check:
        for size in (parse_size(s) for s in args.sizes.split(",")):
            for profile in args.profiles.split(","):
                print(check(size, profile, args.oracle), flush=True)
        return
    rows = []
    for size in (parse_size(s) for s in args.sizes.split(",")):
        for profile in args.profiles.split(","):
            rows.append(bench_chat(size, profile, args))
            print(render(rows[-1:]).splitlines()[-1], flush=True)
    print()
    print(render(rows))
    if args.million:
        print(million(args))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
