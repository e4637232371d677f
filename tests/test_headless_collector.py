"""The console script reads a headless command's imports and chat with the cycle collector off, then freezes
them and runs the command with the collector on (cli.main.entry, _collector_on)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

SCRIPT = """
import gc, json, os, sys
import inspector.cli.main
cli = sys.modules["inspector.cli.main"]  # the package's `main` attribute is the function
seen = []
real = cli.command_module
def command_module(name):
    module = real(name)
    if not hasattr(module, "real_run"):
        module.real_run = module.run
        def run(*args):
            seen.append((gc.isenabled(), gc.get_freeze_count() > 0))
            return module.real_run(*args)
        module.run = run
    return module
cli.command_module = command_module
real_exit = os._exit
def leave(code):
    sys.stderr.write(json.dumps([code, seen]))
    sys.stderr.flush()
    real_exit(0)
os._exit = leave
sys.argv = ["prompt-inspector", *sys.argv[1:]]
cli.entry()
"""


@pytest.mark.parametrize(
    "arguments",
    [
        ("prepare", "{chat}"),
        ("explain", "{chat}"),
        ("calls", "{chat}"),
        ("prepare", "{chat}", "--at", "1"),
        ("thresholds",),
    ],
)
def test_the_collector_runs_again_for_the_command_and_the_chat_read_is_frozen(tmp_path, arguments):
    chat = tmp_path / "chat.json"
    chat.write_text(
        json.dumps(
            [
                {"role": "user", "content": "go"},
                {"role": "function_call", "content": json.dumps({"name": "ls", "arguments": {}, "id": "1"})},
                {"role": "function_call_output", "content": json.dumps({"name": "ls", "content": "x", "id": "1"})},
            ]
        )
    )
    argv = [a.format(chat=chat) for a in arguments] + ["--no-scout-config"]
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, *argv], capture_output=True, text=True, timeout=60, cwd=tmp_path
    )
    code, seen = json.loads(done.stderr.strip().splitlines()[-1])
    assert code == 0, done.stderr
    assert seen == [[True, True]]
