"""Does a key wait while the app's why screen searches? The event loop's lateness during the search.

    python benchmarks/bench_why_keys.py [--sizes 20k,100k] [--profiles ascii,mixed] [--marker N]
                                        [--strategies LIST] [--scout-version V]

Opens the app (pilot, headless) on a benchmark chat, opens the why screen on the oldest tool output
(or marker N), and while its search runs wakes a timer on the UI's event loop every 10 ms: how late
each wake-up comes is how long a key typed then would wait before its handler could run (the loop
runs handlers in turn, and gets the GIL back from the worker at each switch interval or pause).
Then sends Escape as a terminal does: `key ms` until the search was told to stop, `stop ms` until it
had stopped. Prints the search's duration, the wake-ups' median / 95th percentile / largest lateness.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import chats  # noqa: E402
from app_frames import shows_totals  # noqa: E402
from run import _wait_for, chat_path, label, parse_size  # noqa: E402

TICK = 0.010


async def measure(path: Path, marker: str, strategies: str | None, version: str | None) -> dict:
    from textual import events

    from inspector.core.setup import ChatSource, Setup
    from inspector.ui.app import InspectorApp

    kwargs = {}
    if strategies:
        kwargs["strategies"] = strategies
    if version:
        kwargs["version"] = version
    app = InspectorApp(ChatSource.of(path), Setup.of(config_files=[], env={}, **kwargs))
    app.animation_level = "none"
    out: dict = {}
    async with app.run_test(size=(160, 50)) as pilot:
        await _wait_for(pilot, lambda: shows_totals(app), 300.0)
        base = app.screen
        # the load's background work (timelines, the detail pane, the sweep chart) finishes first: the
        # figures below are the why search's alone
        await _wait_for(pilot, lambda: not any(w.is_running for w in app.workers), 300.0)
        await asyncio.sleep(0.3)
        idle: list[float] = []  # the same wake-ups with nothing running: what the machine's load alone costs
        for _ in range(100):
            before = time.perf_counter()
            await asyncio.sleep(TICK)
            idle.append(time.perf_counter() - before - TICK)
        idle.sort()
        out["idle_p95_ms"] = idle[94] * 1000
        out["idle_max_ms"] = idle[-1] * 1000
        app.chat.open_why(marker)
        await _wait_for(pilot, lambda: app.screen is not base and getattr(app.screen, "worker", None) is not None)
        why = app.screen
        late: list[float] = []
        started = time.perf_counter()
        while getattr(why, "searching", False) and time.perf_counter() - started < 120:
            before = time.perf_counter()
            await asyncio.sleep(TICK)
            late.append(time.perf_counter() - before - TICK)
        out["search_s"] = time.perf_counter() - started
        out["ticks"] = len(late)
        if late:
            late.sort()
            out["late_median_ms"] = statistics.median(late) * 1000
            out["late_p95_ms"] = late[int(len(late) * 0.95) - 1 if len(late) > 1 else 0] * 1000
            out["late_max_ms"] = late[-1] * 1000
        # a second search, stopped by Escape half a second in
        why.start()
        await pilot.pause(0.5)
        t0 = time.perf_counter()
        app._driver.send_message(events.Key("escape", None))

        def handled() -> bool:
            worker = getattr(why, "worker", None)
            return app.screen is base or worker is None or worker.is_cancelled or worker.is_finished

        await _wait_for(pilot, handled, 60.0)
        out["key_ms"] = (time.perf_counter() - t0) * 1000
        await _wait_for(pilot, lambda: app.screen is base or not getattr(why, "searching", False), 60.0)
        out["stop_ms"] = (time.perf_counter() - t0) * 1000
        app.workers.cancel_all()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="20k,100k")
    parser.add_argument("--profiles", default="ascii,mixed")
    parser.add_argument("--marker", type=int, default=1)
    parser.add_argument("--strategies")
    parser.add_argument("--scout-version")
    args = parser.parse_args()
    print(f"# {time.strftime('%Y-%m-%d %H:%M')}  load: {os.getloadavg()[0]:.2f}  tree: {ROOT}")
    print(
        "| chat | idle p95 / max ms | search s | ticks | late median ms | late p95 ms | late max ms | key ms | stop ms |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for size in map(parse_size, args.sizes.split(",")):
        for profile in args.profiles.split(","):
            path, _ = chat_path(size, profile)
            r = asyncio.run(measure(path, chats.marker(args.marker), args.strategies, args.scout_version))
            cells = [f"{r.get(k, float('nan')):.{p}f}" for k, p in (
                ("search_s", 2), ("ticks", 0), ("late_median_ms", 1), ("late_p95_ms", 1), ("late_max_ms", 1),
                ("key_ms", 0), ("stop_ms", 0),
            )]  # fmt: skip
            idle = f"{r['idle_p95_ms']:.1f} / {r['idle_max_ms']:.1f}"
            print(f"| {profile} {label(size)} | {idle} | " + " | ".join(cells) + " |", flush=True)
    print(f"# load at the end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
