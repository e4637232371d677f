"""Run the CLI in this process: ``main([...])`` with its own stdout, stderr, environment and cwd.

Most CLI tests check what a command prints and its exit code; starting a Python process for each
costs far more than the command. The few tests about the real entry point (``python -m inspector``,
the console script, what a fresh process imports) keep using subprocesses.
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from inspector.cli.main import main

THRESHOLD_VARIABLES = ("_TOOL_CALLS", "_TOOL_OUTPUTS", "_TOOL_CHARS")


@dataclass
class Result:
    """The fields of ``subprocess.CompletedProcess`` the tests read."""

    returncode: int
    stdout: str | bytes
    stderr: str | bytes


@contextmanager
def _environment(values: Mapping[str, str]) -> Iterator[None]:
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(values)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


@contextmanager
def _cwd(path: str | Path | None) -> Iterator[None]:
    before = os.getcwd()
    if path is not None:
        os.chdir(path)
    try:
        yield
    finally:
        os.chdir(before)


def run_cli(
    *args: object,
    cwd: str | Path | None = None,
    env: Mapping[str, str] | None = None,
    home: str | Path | None = None,
    text: bool = True,
    scout_config: bool = True,
    environ: Mapping[str, str] | None = None,
) -> Result:
    """``prompt-inspector ARGS`` in process; threshold variables of the caller's environment are left out
    (``environ``: exactly this environment instead)."""
    if environ is not None:
        values = dict(environ)
    else:
        values = {k: v for k, v in os.environ.items() if not k.endswith(THRESHOLD_VARIABLES)}
    if home is not None:
        values["HOME"] = str(home)
    values.update(env or {})
    argv = [str(a) for a in args] + ([] if scout_config else ["--no-scout-config"])
    out, err = io.BytesIO(), io.BytesIO()
    stdout = io.TextIOWrapper(out, encoding="utf-8", errors="surrogateescape", write_through=True)
    stderr = io.TextIOWrapper(err, encoding="utf-8", errors="surrogateescape", write_through=True)
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = stdout, stderr
    try:
        with _environment(values), _cwd(cwd):
            code = main(argv)
    finally:
        sys.stdout, sys.stderr = saved
        stdout.flush()
        stderr.flush()
    if text:
        return Result(code, out.getvalue().decode("utf-8", "replace"), err.getvalue().decode("utf-8", "replace"))
    return Result(code, out.getvalue(), err.getvalue())
