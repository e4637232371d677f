"""Long loops that may run in a thread worker hand the interpreter back to the UI now and then.

A CPU-bound thread keeps the GIL for its whole switch interval, and the UI's event loop, which
gives the GIL up at each wait, queues behind it again and again: a key then takes seconds to be
handled. Sleeping a little every few tens of milliseconds lets the UI run freely in between.
On the main thread (the command line) this does nothing.
"""

from __future__ import annotations

import threading
import time

WORK = 0.02  # seconds of work between two pauses
PAUSE = 0.004  # seconds handed back each time

_last = threading.local()


def pause_if_due() -> None:
    """Sleep ``PAUSE`` when this worker thread has worked ``WORK`` seconds since its last pause."""
    if threading.current_thread() is threading.main_thread():
        return
    now = time.perf_counter()
    last = getattr(_last, "at", None)
    if last is None:
        _last.at = now
    elif now - last >= WORK:
        time.sleep(PAUSE)
        _last.at = time.perf_counter()
