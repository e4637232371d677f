"""Running the CLI on hostile input: in a subprocess, with a timeout (a regression fails, never hangs)."""

from __future__ import annotations

import os
import subprocess
import sys
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


# The child reports the high-water RSS of its own address space (VmHWM, reset at exec) on a pipe.
# The kernel's per-process figure (wait4's ru_maxrss) would not do: exec carries over the forking
# process's peak, so a child of a 300 MB test worker would "use" 300 MB.
_BOOT = """
import atexit, os, sys
fd = int(sys.argv.pop(1))
def report():
    try:
        with open("/proc/self/status") as status:
            peak = next((line.split()[1] for line in status if line.startswith("VmHWM:")), "")
        os.write(fd, peak.encode())
    except OSError:
        pass
atexit.register(report)  # SystemExit: the app and bad-usage paths
real_exit = os._exit
def leave(code):  # the headless commands leave by os._exit, which skips atexit
    report()
    real_exit(code)
os._exit = leave
from inspector.cli import entry
entry()
"""


def run_cli(*args, cwd=None, home=None, env=None, timeout: float = 10) -> Run:
    """The CLI's console entry in a child process, which reports its own peak RSS: a hang is killed
    at ``timeout`` and raises ``subprocess.TimeoutExpired``, as ``subprocess.run`` would."""
    base = {k: v for k, v in os.environ.items() if not k.endswith(("_TOOL_CALLS", "_TOOL_OUTPUTS", "_TOOL_CHARS"))}
    base["PYTHONPATH"] = str(ROOT)
    base["HOME"] = str(home or cwd or ROOT)
    base.update(env or {})
    read_end, write_end = os.pipe()
    command = [sys.executable, "-c", _BOOT, str(write_end), *map(str, args)]
    try:
        child = subprocess.Popen(
            command,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd or ROOT,
            env=base,
            pass_fds=(write_end,),
        )
    finally:
        os.close(write_end)  # the child holds its own copy: the read below ends when the child does
    with os.fdopen(read_end, "rb") as report:
        try:
            out, err = child.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            child.kill()
            child.communicate()
            raise
        peak = report.read().decode()
    if not peak.isdigit():  # every exit path reports; a silent child means the measure broke
        raise AssertionError(f"the child reported no peak RSS ({peak!r}); exit {child.returncode}")
    stdout, stderr = (stream.decode("utf-8", "replace") for stream in (out, err))
    return Run(child.returncode, stdout, stderr, int(peak) / 1024)


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
