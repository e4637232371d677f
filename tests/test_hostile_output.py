"""Issue 12, `-o`: links kept and their target written, devices and FIFOs written through, never the input,
and no temporary file left behind on any exit (an error, Ctrl-C, SIGTERM)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading

import pytest
from hostile_helpers import ROOT, assert_clean, run_cli, run_here

from inspector.core.errors import InputError
from inspector.core.io import atomic
from inspector.core.io.atomic import Interrupted, write_atomic

PREPARED = '[{"role":"user","content":"hello"}]\n'


def _chat(tmp_path):
    path = tmp_path / "c.chat"
    path.write_text("user:\nhello\n", encoding="utf-8")
    return path


def _temps(directory):
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".tmp"))


def test_output_through_a_link_writes_the_target_and_keeps_the_link(tmp_path):
    _chat(tmp_path)
    (tmp_path / "real.json").write_text("old\n")
    os.chmod(tmp_path / "real.json", 0o640)
    os.symlink("real.json", tmp_path / "link.json")
    r = run_here("prepare", "c.chat", "-o", "link.json", cwd=tmp_path)
    assert_clean(r, 0)
    assert os.path.islink(tmp_path / "link.json") and os.readlink(tmp_path / "link.json") == "real.json"
    assert (tmp_path / "real.json").read_text() == PREPARED
    assert os.stat(tmp_path / "real.json").st_mode & 0o777 == 0o640
    assert _temps(tmp_path) == []


def test_output_through_a_dangling_link_creates_its_target(tmp_path):
    (tmp_path / "out").mkdir()
    os.symlink("out/new.json", tmp_path / "link.json")
    write_atomic(tmp_path / "link.json", b"data")
    assert os.path.islink(tmp_path / "link.json")
    assert (tmp_path / "out" / "new.json").read_bytes() == b"data"


def test_output_to_dev_stdout_and_dev_null_writes_through(tmp_path):
    _chat(tmp_path)
    r = run_cli("prepare", "c.chat", "-o", "/dev/stdout", cwd=tmp_path)
    assert_clean(r, 0)
    assert r.stdout == PREPARED
    assert os.path.islink("/dev/stdout")
    r = run_cli("prepare", "c.chat", "-o", "/dev/null", cwd=tmp_path)
    assert_clean(r, 0)
    assert os.path.exists("/dev/null") and not os.path.isfile("/dev/null")


def test_output_to_dev_stdout_redirected_to_a_file_writes_through_to_that_file(tmp_path):
    _chat(tmp_path)
    with open(tmp_path / "redirected.txt", "w") as handle:
        done = subprocess.run(
            [sys.executable, "-m", "inspector", "prepare", "c.chat", "-o", "/dev/stdout"],
            stdout=handle,
            cwd=tmp_path,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            timeout=10,
        )
    assert done.returncode == 0
    assert (tmp_path / "redirected.txt").read_text() == PREPARED
    assert _temps(tmp_path) == []


def test_output_to_a_fifo_writes_through(tmp_path):
    _chat(tmp_path)
    os.mkfifo(tmp_path / "out.pipe")
    got = []
    reader = threading.Thread(target=lambda: got.append((tmp_path / "out.pipe").read_bytes()), daemon=True)
    reader.start()
    r = run_cli("prepare", "c.chat", "-o", "out.pipe", cwd=tmp_path)
    reader.join(10)
    assert_clean(r, 0)
    assert got == [PREPARED.encode()]
    assert os.path.exists(tmp_path / "out.pipe") and not os.path.isfile(tmp_path / "out.pipe")


def test_never_writes_onto_the_input_even_through_a_link_or_a_hard_link(tmp_path):
    chat = _chat(tmp_path)
    os.symlink("c.chat", tmp_path / "soft.json")
    os.link(chat, tmp_path / "hard.json")
    for target in ("soft.json", "hard.json", "c.chat"):
        r = run_here("prepare", "c.chat", "-o", target, cwd=tmp_path)
        assert_clean(r, 2)
        assert r.stderr == f"prompt-inspector: error: {target}: refusing to overwrite the input chat\n"
    assert chat.read_text() == "user:\nhello\n"


def test_output_into_a_directory_or_a_missing_directory(tmp_path):
    _chat(tmp_path)
    (tmp_path / "d").mkdir()
    r = run_here("prepare", "c.chat", "-o", "d", cwd=tmp_path)
    assert r.stderr == "prompt-inspector: error: d: is a directory\n"
    r = run_here("prepare", "c.chat", "-o", "nowhere/x.json", cwd=tmp_path)
    assert r.stderr == "prompt-inspector: error: nowhere: directory does not exist\n"


@pytest.mark.parametrize("raised", [KeyboardInterrupt, OSError])
def test_the_temporary_file_is_removed_when_the_write_is_interrupted(tmp_path, monkeypatch, raised):
    def fail(src, dst):
        raise raised("stop")

    monkeypatch.setattr(atomic.os, "replace", fail)
    with pytest.raises(KeyboardInterrupt if raised is KeyboardInterrupt else InputError):
        write_atomic(tmp_path / "out.json", b"x" * 1_000_000)
    assert list(tmp_path.iterdir()) == []


def test_a_signal_right_after_the_temporary_file_is_created_leaves_nothing(tmp_path, monkeypatch):
    real_open = os.open

    def created_then_interrupted(path, flags, *args):
        fd = real_open(path, flags, *args)
        os.close(fd)
        raise KeyboardInterrupt  # as if Ctrl-C landed before the name reached the caller

    monkeypatch.setattr(atomic.os, "open", created_then_interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_atomic(tmp_path / "out.json", b"data")
    assert list(tmp_path.iterdir()) == []


def test_sigterm_during_the_write_removes_the_temporary_file(tmp_path, monkeypatch):
    def killed(src, dst):
        os.kill(os.getpid(), signal.SIGTERM)  # the handler raises at the next bytecode
        raise AssertionError("not reached")

    previous = signal.getsignal(signal.SIGTERM)
    monkeypatch.setattr(atomic.os, "replace", killed)
    with pytest.raises(Interrupted):
        write_atomic(tmp_path / "out.json", b"x" * 1_000_000)
    assert list(tmp_path.iterdir()) == []
    assert signal.getsignal(signal.SIGTERM) is previous


# A real signal from outside, through the CLI: the child stops inside os.replace (temporary file complete,
# 50 MB) and says so; the test then signals it. No timing guesses, and a hang fails by the timeout.
_CHILD = """
import os, signal, sys, time
from inspector.cli.main import main
signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal, even if started from a background job
real = os.replace
def slow(src, dst):
    if src.endswith(".tmp"):
        print("ready", os.path.getsize(src), flush=True)
        time.sleep(30)
    real(src, dst)
os.replace = slow
sys.exit(main(["prepare", "big.json", "--strategies", "none", "-o", "out.json"]))
"""


@pytest.mark.parametrize("signum,code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_ctrl_c_or_sigterm_on_a_large_output_leaves_no_temporary_file(tmp_path, signum, code):
    big = "x" * 5_000_000
    (tmp_path / "big.json").write_text(json.dumps([{"role": "user", "content": big} for _ in range(10)]))
    child = subprocess.Popen(
        [sys.executable, "-c", _CHILD],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        word, size = child.stdout.readline().split()
        assert word == "ready" and int(size) > 50_000_000
        assert len(_temps(tmp_path)) == 1
        child.send_signal(signum)
        assert child.wait(25) == code  # a hang guard (the child sleeps 30 s), not a timing: loaded machines are slow
    finally:
        child.kill()
        child.wait()
    assert "Traceback" not in child.stderr.read()
    assert _temps(tmp_path) == []
    assert not (tmp_path / "out.json").exists()
