"""Model calls on a 20,000-message chat: stepping to another call, one message's timeline, following appends.

Run: python benchmarks/bench_calls.py [MESSAGES]
Targets (issue 10): another call repaints within 100 ms (the first frame after the key); the timeline of one message over all calls within
1 s; an append of a few messages to a followed chat re-plans within 200 ms. Figures are wall-clock on this
machine: the core work (cut chat, plan, rows), and in the app (Pilot, headless) from the key to the frame.
"""

from __future__ import annotations

import asyncio
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_app import paint, wait_for
from bigchat import write, write_scout
from textual import events

from inspector.cli.calls import call_rows
from inspector.core.calls.history import ChatHistory
from inspector.core.calls.live import Follower
from inspector.core.calls.timeline import message_tiers
from inspector.core.present.rows import RowModel, filter_rows, summary_totals
from inspector.core.setup import ChatSource, Setup
from inspector.ui.app import InspectorApp

APPEND = (
    '\n\nmeta: pt=1 ct=2\n\nfunction_call: {{"name":"ls","arguments":{{"dir":"/tmp/{n}"}},"id":"zz{n}"}}\n\n'
    'function_call_output: {{"name":"ls","content":"a b c {n}","id":"zz{n}"}}\n\nmeta: pt=3\n\n'
    "assistant:\n\nChecked {n}.\n"
)


def ms(values: list[float]) -> str:
    return f"median {statistics.median(values) * 1000:.0f} ms, max {max(values) * 1000:.0f} ms"


def core(path: Path, label: str) -> None:
    t0 = time.perf_counter()
    history = ChatHistory(path, Setup.of(config_files=[], env={}))
    print(
        f"{label}: {len(history.whole.chat.messages):,} messages, {len(history):,} calls, opened in "
        f"{time.perf_counter() - t0:.2f} s (plain={history.plain})"
    )
    rng = random.Random(1)
    steps = []
    numbers = [len(history) - k for k in range(1, 6)] + [rng.randrange(1, len(history) + 1) for _ in range(10)]
    for number in numbers:
        t0 = time.perf_counter()
        inspection = history.at(number)
        rows = RowModel(inspection.chat, inspection.facts)
        prompt = inspection.prompt()
        summary_totals(rows, prompt)
        filter_rows(rows, prompt, None, None)
        steps.append(time.perf_counter() - t0)
    print(f"  step to another call (cut chat, plan, rows, totals): {ms(steps)}; re-loads {history.reloads}")
    t0 = time.perf_counter()
    table = call_rows(ChatHistory(path, Setup.of(config_files=[], env={})))
    print(f"  the calls table ({len(table):,} rows, as `prompt-inspector calls`): {time.perf_counter() - t0:.2f} s")
    lines = []
    for index in (3, len(history.whole.chat.messages) // 2, len(history.whole.chat.messages) - 40):
        t0 = time.perf_counter()
        line = message_tiers(history, index)
        lines.append(time.perf_counter() - t0)
        print(
            f"  timeline of message {index:,} over {len(line.tiers):,} calls: {lines[-1] * 1000:.0f} ms "
            f"(last sent at call {line.last_seen})"
        )


def follow(path: Path) -> None:
    history = ChatHistory(path, Setup.of(config_files=[], env={}))
    follower = Follower(history)
    times = []
    for n in range(5):
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(APPEND.format(n=n))
        t0 = time.perf_counter()
        update = follower.poll()
        prompt = update.history.whole.prompt()
        prompt.tier_counts()
        times.append(time.perf_counter() - t0)
        assert update.incremental
    print(
        f"  append of 4 messages to the followed chat, read and re-planned: {ms(times)} "
        f"(now {len(follower.history.whole.chat.messages):,} messages)"
    )


async def app_steps(path: Path, switch: float | None = None) -> None:
    """Two figures: key to the first frame showing the other call (the key sent as a terminal would, the frame
    the app itself renders: App._display is timed), and key to idle as Pilot's press waits for it (the detail
    pane, the strip's timeline and the open analyses done too)."""
    default = sys.getswitchinterval()
    if switch is not None:
        sys.setswitchinterval(switch)
    app = InspectorApp(ChatSource.of(path), Setup.of(config_files=[], env={}))
    app.animation_level = "none"
    frames: list[float] = []
    display = app._display

    def timed_display(screen, renderable):
        display(screen, renderable)
        frames.append(time.perf_counter())

    app._display = timed_display  # type: ignore[method-assign]
    label = f"switch interval {switch * 1000:g} ms" if switch is not None else "default switch interval"
    try:
        async with app.run_test(size=(160, 50)) as pilot:
            await wait_for(pilot, lambda: app.chat.doc is not None and app.chat.doc is not None, 120)
            await pilot.pause(0.5)
            first, idle = [], []
            for key in ["comma"] * 6 + ["full_stop"] * 3:
                version, before = app.chat.generation, app.chat.document.totals
                shown: list[float] = []
                t0 = time.perf_counter()
                event = events.Key(key, "," if key == "comma" else ".")
                event.set_sender(app)
                app._driver.send_message(event)
                while not shown:
                    if app.chat.document.totals is not before and app.chat.generation > version:
                        handled = time.perf_counter()
                        while not any(f > handled for f in frames):
                            await asyncio.sleep(0.001)
                        shown.append(next(f for f in frames if f > handled))
                    else:
                        await asyncio.sleep(0.001)
                first.append(shown[0] - t0)
                await pilot.pause(0.5)
                version, before = app.chat.generation, app.chat.document.totals
                t0 = time.perf_counter()
                await pilot.press("comma" if key == "full_stop" else "full_stop")
                await wait_for(
                    pilot, lambda b=before, v=version: app.chat.document.totals is not b and app.chat.generation > v
                )
                paint(app)
                idle.append(time.perf_counter() - t0)
                await pilot.press(key)  # back to where the next step starts
                await pilot.pause(0.3)
            print(f"  app ({label}): key to the first frame at another call: {ms(first)}")
            print(f"  app ({label}): key to idle (Pilot press: detail, strip, analyses done): {ms(idle)}")
    finally:
        sys.setswitchinterval(default)


def main() -> None:
    messages = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    with tempfile.TemporaryDirectory() as tmp:
        chat = write_scout(Path(tmp) / "big.chat", messages)
        print(f"scout chat {chat.stat().st_size / 1e6:.1f} MB")
        core(chat, "scout chat")
        follow(chat)
        asyncio.run(app_steps(chat))
        asyncio.run(app_steps(chat, 0.001))
        data = write(Path(tmp) / "big.json", messages)
        core(data, "JSON array")


if __name__ == "__main__":
    main()
