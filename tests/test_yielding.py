"""Long loops in a thread worker pause now and then, and a stoppable search stops there."""

import threading

import pytest

from inspector.core import yielding
from inspector.core.yielding import pause_if_due, stops_when


class Stopped(Exception):
    pass


def in_thread(fn):
    out = {}

    def run():
        try:
            out["value"] = fn()
        except Exception as exc:  # handed back to the test
            out["error"] = exc

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    return out


def test_a_stoppable_search_stops_inside_a_long_loop(monkeypatch):
    monkeypatch.setattr(yielding, "WORK", 0.0)  # every call is due
    monkeypatch.setattr(yielding, "PAUSE", 0.0)
    stop = threading.Event()

    def check():
        if stop.is_set():
            raise Stopped

    def search():
        with stops_when(check):
            for n in range(100):
                if n == 10:
                    stop.set()  # the user pressed Escape
                pause_if_due()
        return n

    assert isinstance(in_thread(search).get("error"), Stopped)
    assert in_thread(lambda: [pause_if_due() for _ in range(5)] and "done") == {"value": "done"}  # no check left


def test_the_main_thread_never_pauses_nor_stops():
    def check():
        raise Stopped

    with stops_when(check):
        pause_if_due()  # the command line: nothing to let through


def test_find_fixes_stops_when_cancelled_in_a_worker():
    from forget_chats import FACT, call, filler, inspection, middle, out

    from inspector.core.analysis.fixes import FixSearchCancelled, find_fixes
    from inspector.core.analysis.trace import trace

    ins = inspection([call("read", "c0", {}), out("read", "c0", middle()), *filler(30)], max_tool_chars=1)
    [o] = trace(ins, FACT).occurrences
    assert not o.visible
    result = in_thread(lambda: find_fixes(ins, o, cancelled=lambda: True))
    assert isinstance(result.get("error"), FixSearchCancelled)
    with pytest.raises(FixSearchCancelled):
        find_fixes(ins, o, cancelled=lambda: True)
