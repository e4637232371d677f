"""App benchmark with the Pilot on a 20,000-message chat: first paint, threshold repaint, paging.

Run: python benchmarks/bench_app.py [MESSAGES]   (targets: first paint < 2 s, repaint < 100 ms)
Figures are wall-clock on this machine, headless, animations off.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

sys.path.insert(0, str(Path(__file__).resolve().parent))
from app_frames import FrameWatch, shows_totals, summary_text
from bigchat import write

from inspector.core.setup import ChatSource, Setup
from inspector.ui.app import InspectorApp


def paint(app) -> list[str]:
    """Render what is on screen now (the compositor's full frame), as a terminal would receive it."""
    return [strip.text for strip in app.screen._compositor.render_strips()]


async def wait_for(pilot, condition, timeout: float = 30.0) -> None:
    deadline = time.perf_counter() + timeout
    while not condition():
        if time.perf_counter() > deadline:
            raise TimeoutError
        await pilot.pause(0.002)


async def run(messages: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        path = write(Path(tmp) / "big_chat.json", messages)
        size_mb = path.stat().st_size / 1e6
        started = time.perf_counter()
        app = InspectorApp(ChatSource.of(path), Setup.of(config_files=[], env={}))
        app.animation_level = "none"
        figures: dict = {"messages": messages, "file_mb": round(size_mb, 1)}
        frames = FrameWatch(app)
        async with app.run_test(size=(160, 50)) as pilot:
            # first paint: the first frame handed to the terminal that shows the totals (app_frames.py)
            figures["first_paint_s"] = await frames.wait(lambda: shows_totals(app)) - started
            figures["load_worker_s"] = app.load_seconds

            # threshold change: from the edit to the frame with both columns and the totals repainted
            repaints = []
            for value in (50_000, 20_000, 200_000, 100_000, 5_000, 1_000_000):
                t0 = time.perf_counter()
                app.chat.apply_thresholds(
                    app.chat.thresholds.with_value("max_tool_chars", value, "edited"), None, delay=0
                )
                wanted = app.chat.thresholds

                def replanned(wanted=wanted) -> bool:
                    return (
                        app.chat.document.settings.thresholds is wanted
                        and f"{app.chat.document.totals.tool_chars_after:,}" in summary_text(app)
                    )

                repaints.append(await frames.wait(replanned) - t0)
            figures["repaint_ms_median"] = statistics.median(repaints) * 1000
            figures["repaint_ms_max"] = max(repaints) * 1000

            # the same through the editor: typing, debounce, worker, repaint (debounce excluded)
            app.chat.editor.add_class("-open")
            field = app.chat.editor.query_one("#th-max_tool_chars")
            field.focus()
            await pilot.pause()
            field.value = ""
            await wait_for(pilot, lambda: not app.workers._workers or all(w.is_finished for w in app.workers))
            await pilot.pause(app.debounce + 0.05)
            await pilot.press(*"3000")
            await pilot.pause(app.debounce + 0.05)
            await app.workers.wait_for_complete()
            await pilot.pause()
            before = app.chat.document.totals
            t0 = time.perf_counter()
            await pilot.press("0")  # the last keystroke: 3000 -> 30000
            await wait_for(
                pilot,
                lambda: app.chat.document.totals is not before and app.chat.thresholds["max_tool_chars"] == 30_000,
            )
            paint(app)
            figures["typed_ms"] = (time.perf_counter() - t0 - app.debounce) * 1000
            await pilot.press("escape")

            # paging: each press moves a screenful; time the key plus a full repaint
            pages, cpu = [], []
            for key in ["pagedown"] * 40 + ["pageup"] * 10:
                t0, c0 = time.perf_counter(), time.process_time()
                await pilot.press(key)
                paint(app)
                pages.append(time.perf_counter() - t0)
                cpu.append(time.process_time() - c0)
            t0 = time.perf_counter()
            await pilot.press("end")
            paint(app)
            figures["end_key_ms"] = (time.perf_counter() - t0) * 1000
            figures["page_ms_median"] = statistics.median(pages) * 1000
            figures["page_ms_max"] = max(pages) * 1000
            figures["page_cpu_ms_median"] = statistics.median(cpu) * 1000
            figures["rows_rendered"] = app.chat.view.rendered_rows
        return figures


def main() -> None:
    messages = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    figures = asyncio.run(run(messages))
    print(f"chat: {figures['messages']:,} messages, {figures['file_mb']} MB")
    print(
        f"first paint with totals: {figures['first_paint_s']:.2f} s (load+plan worker {figures['load_worker_s']:.2f} s)"
        "  target < 2 s"
    )
    print(
        f"threshold change repainted: median {figures['repaint_ms_median']:.1f} ms, "
        f"max {figures['repaint_ms_max']:.1f} ms  target < 100 ms"
    )
    print(
        f"typed in the editor, last keystroke to repaint, {0.15 * 1000:.0f} ms debounce excluded: "
        f"{figures['typed_ms']:.1f} ms"
    )
    print(
        f"page down/up incl. repaint: median {figures['page_ms_median']:.1f} ms, max {figures['page_ms_max']:.1f} ms;"
        f" end key {figures['end_key_ms']:.1f} ms"
    )
    print(
        f"page down/up CPU time (all threads, excludes the pilot's idle waits): "
        f"median {figures['page_cpu_ms_median']:.1f} ms"
    )
    print(f"rows rendered in total: {figures['rows_rendered']:,}")


if __name__ == "__main__":
    main()
