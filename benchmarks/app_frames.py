"""Timing the app as a terminal would see it: a moment counts when the app hands a frame to the terminal.

``FrameWatch`` wraps ``App._display`` (called once per frame, after the frame is composed, headless
too): a condition waited for counts as met at the first frame composed after it became true, so the
time includes the refresh that puts it on screen. The condition reads the widgets' state (cheap),
not the whole screen: rendering the screen inside the hook would slow the frames it measures; the
callers check the whole screen once afterwards. Waiting polls with ``asyncio.sleep``, not
``Pilot.pause``, which first waits for every widget of the screen to empty its queue (that made the
old figures part measurement overhead).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable


def paint(app) -> list[str]:
    """The whole screen now (the compositor's full frame), as text."""
    return [strip.text for strip in app.screen._compositor.render_strips()]


def summary_text(app) -> str:
    return str(app.query_one("#summary").render())


def shows_totals(app) -> bool:
    text = summary_text(app)
    return app.chat.doc is not None and "->" in text and "sent" in text


class FrameWatch:
    def __init__(self, app):
        self.app = app
        self.want: Callable[[], bool] | None = None
        self.seen: float | None = None
        display = app._display

        def watched(screen, renderable) -> None:
            at = time.perf_counter()
            display(screen, renderable)
            if renderable is not None and self.want is not None and self.seen is None and self.want():
                self.seen = at

        app._display = watched

    async def wait(self, want: Callable[[], bool], timeout: float = 120.0) -> float:
        """The perf_counter time of the first frame composed once ``want()`` holds."""
        self.want, self.seen = want, None
        deadline = time.perf_counter() + timeout
        while self.seen is None:
            if time.perf_counter() > deadline:
                self.want = None
                raise TimeoutError
            await asyncio.sleep(0.001)
        self.want = None
        return self.seen
