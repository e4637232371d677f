"""Running the CLI on hostile input: in a subprocess, with a timeout (a regression fails, never hangs)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(__file__).resolve().parent / "hostile"


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str
    peak_mib: float | None  # None: run in this process (nothing that could block or blow memory)

    def lines(self) -> list[str]:
        return self.stderr.splitlines()


def run_cli(*args, cwd=None, home=None, env=None, timeout: float = 10) -> Run:
    """The CLI in a child process, its peak RSS read from the kernel's accounting of that one child
    (``os.wait4``): a hang is killed at ``timeout`` and raises, as ``subprocess.run`` would."""
    base = {k: v for k, v in os.environ.items() if not k.endswith(("_TOOL_CALLS", "_TOOL_OUTPUTS", "_TOOL_CHARS"))}
    base["PYTHONPATH"] = str(ROOT)
    base["HOME"] = str(home or cwd or ROOT)
    base.update(env or {})
    command = [sys.executable, "-m", "inspector", *map(str, args)]
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd or ROOT, env=base)
    streams: dict[str, bytes] = {}

    def drain(name: str, pipe) -> None:
        streams[name] = pipe.read()  # both at once: a child filling one pipe never waits on the other

    readers = [threading.Thread(target=drain, args=item) for item in (("out", child.stdout), ("err", child.stderr))]
    for reader in readers:
        reader.start()
    killed = threading.Event()

    def kill() -> None:
        killed.set()
        child.kill()

    killer = threading.Timer(timeout, kill)
    killer.start()
    try:
        _, status, usage = os.wait4(child.pid, 0)
    finally:
        killer.cancel()
    child.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait again
    for reader in readers:
        reader.join()
    child.stdout.close()
    child.stderr.close()
    if killed.is_set():
        raise subprocess.TimeoutExpired(command, timeout)
    stdout, stderr = (streams[name].decode("utf-8", "replace") for name in ("out", "err"))
    return Run(child.returncode, stdout, stderr, usage.ru_maxrss / 1024)


def run_here(*args, cwd=None, home=None, env=None) -> Run:
    """The CLI in this process (cli_runner): for cases that cannot hang or grow memory if they regress."""
    from cli_runner import run_cli as run_in_process

    done = run_in_process(*args, cwd=cwd or ROOT, home=home or cwd or ROOT, env=env)
    return Run(done.returncode, str(done.stdout), str(done.stderr), None)


def assert_clean(run: Run, code: int, max_mib: float = 400) -> None:
    """Exit ``code``, no traceback, no raw escape on either stream, bounded memory, no guard line."""
    assert run.returncode == code, (run.returncode, run.stderr[-2000:])
    for stream in (run.stdout, run.stderr):
        assert "Traceback" not in stream
        assert "\x1b" not in stream and "\x07" not in stream and "\x9b" not in stream
    assert "this is a bug" not in run.stderr
    if run.peak_mib is not None:
        assert 0 < run.peak_mib < max_mib, run.peak_mib
