"""Long loops that may run in a thread worker hand the interpreter back to the UI now and then.

A CPU-bound thread keeps the GIL for its whole switch interval, and the UI's event loop, which
gives the GIL up at each wait, queues behind it again and again: a key then takes seconds to be
handled. Sleeping a little every few tens of milliseconds lets the UI run freely in between.
On the main thread (the command line) this does nothing.

A search the user can stop (``stops_when``) is also stopped there: deep inside a long plan, where
the search's own checks between plans would come only after it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

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
        stop = getattr(_last, "stop", None)
        if stop is not None:
            stop()  # raises when the user has stopped the work
        time.sleep(PAUSE)
        _last.at = time.perf_counter()


@contextmanager
def stops_when(check: Callable[[], None]) -> Iterator[None]:
    """Within the block, ``pause_if_due`` (in this thread) first calls ``check``, which raises to stop."""
    previous = getattr(_last, "stop", None)
    _last.stop = check
    try:
        yield
    finally:
        _last.stop = previous
