"""Running the CLI on hostile input: in a subprocess, with a timeout (a regression fails, never hangs)."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(__file__).resolve().parent / "hostile"

# Run the CLI as a child of a small wrapper that reports the child's peak RSS (KiB) on its last stderr line.
_WRAPPER = """
import resource, subprocess, sys
r = subprocess.run([sys.executable, "-m", "inspector", *sys.argv[1:]])
sys.stderr.write("\\npeak-rss-kib %d\\n" % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(r.returncode)
"""


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str
    peak_mib: float | None  # None: run in this process (nothing that could block or blow memory)

    def lines(self) -> list[str]:
        return self.stderr.splitlines()


def run_cli(*args, cwd=None, home=None, env=None, timeout: float = 10) -> Run:
    base = {k: v for k, v in os.environ.items() if not k.endswith(("_TOOL_CALLS", "_TOOL_OUTPUTS", "_TOOL_CHARS"))}
    base["PYTHONPATH"] = str(ROOT)
    base["HOME"] = str(home or cwd or ROOT)
    base.update(env or {})
    done = subprocess.run(
        [sys.executable, "-c", _WRAPPER, *map(str, args)],
        capture_output=True,
        cwd=cwd or ROOT,
        env=base,
        timeout=timeout,
    )
    stderr = done.stderr.decode("utf-8", "replace")
    body, _, last = stderr.rstrip("\n").rpartition("\n")
    peak = int(last.split()[-1]) / 1024 if last.startswith("peak-rss-kib") else -1.0
    return Run(done.returncode, done.stdout.decode("utf-8", "replace"), body, peak)


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
