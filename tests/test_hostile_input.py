"""Issue 25, "Bad input": files that change while read, followed files, deep JSON, --at, presets, budgets.

Quick cases run in this process; the ones that start processes (a real truncation race, the app under
SIGTERM in a terminal) are marked slow. Every wait is bounded: a FIFO never blocks a test.
"""

from __future__ import annotations

import json
import os
import shutil
import threading

import pytest
from hostile_helpers import CORPUS, assert_clean, run_here

from inspector.core import files
from inspector.core.calls.history import ChatHistory
from inspector.core.calls.live import Follower
from inspector.core.errors import InputError, ScoutRaises
from inspector.core.io import atomic, formats
from inspector.core.io.follow import Change
from inspector.core.io.formats import json_array, load_chat
from inspector.core.io.presets import PresetsError, load_presets
from inspector.core.scout import preprocess
from inspector.core.setup import Setup

PREFIX = "prompt-inspector: error: "
CHANGED = "changed while read (truncated or rewritten in place): read it again once its writer is done"


def _setup() -> Setup:
    return Setup.of(env={}, config_files=[])


def _big_json(path, count=400, text="é 数据 ") -> list[dict[str, str]]:
    items = [{"role": "user" if n % 2 else "assistant", "content": f"{text}{n} " + "x" * 200} for n in range(count)]
    path.write_text(json.dumps(items, ensure_ascii=False), encoding="utf-8")
    return items


def _truncate_before(monkeypatch, path, calls: int = 1) -> None:
    """The file is cut to 10 bytes just before call number ``calls`` of ``files.read_span`` (a writer at work)."""
    original = files.read_span
    seen = []

    def read_span(*args, **kwargs):
        seen.append(1)
        if len(seen) == calls:
            os.truncate(path, 10)
        return original(*args, **kwargs)

    monkeypatch.setattr(files, "read_span", read_span)


# -- 1. a file that changes while read: an input error, never SIGBUS ---------------------------------
@pytest.mark.parametrize("profile", ["ascii", "non-ascii"])
def test_a_json_chat_truncated_while_read_is_changed_while_read(tmp_path, monkeypatch, profile):
    path = tmp_path / "big.json"
    _big_json(path, text="plain " if profile == "ascii" else "é 数据 ")
    monkeypatch.setattr(formats, "MAP_FROM", 1024)  # the large-file path (once read through a memory map)
    monkeypatch.setattr(json_array, "STREAM_FROM", 1024)
    monkeypatch.setattr(json_array, "PIECE", 4096)
    if profile == "ascii":
        _truncate_before(monkeypatch, path, 2)  # head sniffed, then the whole read meets the cut
    else:
        original = json_array._File.read_into

        def read_into(self, buffer, at, start, count):
            if start > 8192:
                os.truncate(path, 10)
            return original(self, buffer, at, start, count)

        monkeypatch.setattr(json_array._File, "read_into", read_into)
    with pytest.raises(InputError) as info:
        load_chat(path)
    assert str(info.value) == f"{path}: {CHANGED}"


def test_the_cli_says_changed_while_read_in_one_line(tmp_path, monkeypatch):
    path = tmp_path / "c.chat"
    path.write_text("user:\n\n" + "hello there\n" * 20_000, encoding="utf-8")  # past the first 64 KiB block
    _truncate_before(monkeypatch, path)
    r = run_here("prepare", "c.chat", cwd=tmp_path)
    assert_clean(r, 2)
    assert r.lines() == [PREFIX + f"c.chat: {CHANGED}"]


def test_a_same_length_rewrite_in_place_while_read_is_seen(tmp_path, monkeypatch):
    path = tmp_path / "c.chat"
    path.write_text("user:\n\n" + "hello there\n" * 20_000, encoding="utf-8")
    original = files.read_span

    def read_span(opened, *args, **kwargs):
        out = original(opened, *args, **kwargs)
        with open(path, "r+b") as handle:  # the same length, another text, a later modification time
            handle.write(b"USER")
        os.utime(path, ns=(opened.mtime_ns + 10**9, opened.mtime_ns + 10**9))
        return out

    monkeypatch.setattr(files, "read_span", read_span)
    with pytest.raises(files.Refused) as info:
        files.read_regular(path, files.CHAT_LIMIT, "chat")
    assert info.value.reason == CHANGED


@pytest.mark.slow
def test_a_large_json_chat_truncated_while_prepared_never_dies_of_sigbus(tmp_path):
    """Was: SIGBUS (exit 135, no message) on a memory-mapped chat truncated while parsed."""
    import subprocess
    import sys
    import time

    from hostile_helpers import ROOT

    source = tmp_path / "source.json"
    _big_json(source, count=120_000)  # about 30 MB of non-ASCII text: parsed in pieces
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    codes = set()
    for delay in (0.3, 0.45, 0.6, 0.75):
        path = tmp_path / "c.json"
        shutil.copy(source, path)
        child = subprocess.Popen(
            [sys.executable, "-m", "inspector", "prepare", str(path), "-o", os.devnull, "--no-scout-config"],
            stderr=subprocess.PIPE,
            env=env,
        )
        time.sleep(delay)
        os.truncate(path, 1000)
        _, err = child.communicate(timeout=60)
        codes.add(child.returncode)
        assert child.returncode in (0, 2), (child.returncode, err[-500:])
        if child.returncode == 2:
            assert len(err.decode().splitlines()) == 1 and b"Traceback" not in err
    assert codes <= {0, 2}


# -- 2, 3, 4. following a chat ---------------------------------------------------------------------------
def _follower(path, text="user:\n\nhi\n\nassistant:\n\none\n") -> Follower:
    path.write_text(text, encoding="utf-8")
    return Follower(ChatHistory(path, _setup()))


def _poll(follower: Follower, timeout: float = 10):
    """``follower.poll()`` in a thread: a blocking open fails the test instead of hanging it."""
    out: list[object] = []
    thread = threading.Thread(target=lambda: out.append(follower.poll()), daemon=True)
    thread.start()
    thread.join(timeout)
    assert not thread.is_alive(), "the follow poll blocked"
    return out[0]


def _same_as_a_fresh_load(follower: Follower) -> None:
    fresh = ChatHistory(follower.history.path, _setup())
    assert [m.fields for m in follower.history.whole.chat.messages] == [m.fields for m in fresh.whole.chat.messages]


def test_growth_past_the_chat_limit_is_refused_not_read(tmp_path, monkeypatch):
    path = tmp_path / "c.chat"
    follower = _follower(path)
    size = path.stat().st_size
    read = []
    original = files.read_span
    monkeypatch.setattr(files, "read_span", lambda o, s, n, *a, **k: read.append(n) or original(o, s, n, *a, **k))
    os.truncate(path, size + 1500 * files.MiB)  # sparse NULs, as `truncate -s +1500M` makes
    update = _poll(follower)
    assert update.change is Change.REFUSED and update.history is None
    assert (
        update.message
        == f"cannot read the chat now: {path}: 1.5 GiB, over the inspector's 1 GiB limit for a chat: not read"
    )
    assert sum(read) < files.MiB  # never read into memory
    assert _poll(follower) is None  # said once
    os.truncate(path, size)
    with open(path, "ab") as handle:
        handle.write(b"\nuser:\n\nmore\n")
    update = _poll(follower)
    assert update.history is not None
    _same_as_a_fresh_load(follower)


def test_appended_nul_bytes_are_refused_as_binary(tmp_path):
    path = tmp_path / "c.chat"
    follower = _follower(path)
    with open(path, "ab") as handle:
        handle.write(b"\nuser:\n\nx\x00y\n")
    update = _poll(follower)
    assert update.change is Change.REFUSED and "binary" in update.message
    assert update.message.startswith("cannot read the chat now: ")
    assert _poll(follower) is None


def test_a_fifo_swapped_in_at_the_chat_path_never_blocks_the_follow(tmp_path):
    path = tmp_path / "c.chat"
    follower = _follower(path)
    os.mkfifo(tmp_path / "pipe")
    os.replace(tmp_path / "pipe", path)
    update = _poll(follower)
    assert update.history is None
    assert update.message == (
        f"cannot read the chat now: {path}: a FIFO (named pipe), not a regular file: the inspector does not read it"
    )
    assert _poll(follower) is None
    (tmp_path / "new").write_text("user:\n\nback\n", encoding="utf-8")
    os.replace(tmp_path / "new", path)
    update = _poll(follower)  # rewritten (or shrunk: the old chat's inode may be the new file's)
    assert update.history is not None and update.history.whole.chat.messages[0].fields["content"] == "back"


def test_after_a_failed_reload_the_next_append_is_checked_against_the_last_good_read(tmp_path):
    path = tmp_path / "c.chat"
    follower = _follower(path)
    with open(path, "r+b") as handle:
        handle.truncate(0)  # emptied in place: not a chat now
    update = _poll(follower)
    assert update.history is None and update.message.startswith("cannot read the chat now: ")
    with open(path, "ab") as handle:
        handle.write(b"user:\n\nanother chat\n")  # was: glued to the last chat read as an append
    update = _poll(follower)
    assert update.history is not None and not update.incremental
    assert [m.fields["content"] for m in update.history.whole.chat.messages] == ["another chat"]
    _same_as_a_fresh_load(follower)


def test_a_same_length_edit_before_the_seam_plus_growth_is_a_rewrite(tmp_path):
    path = tmp_path / "c.chat"
    follower = _follower(path, "user:\n\nold words\n\nassistant:\n\n" + "padding line\n" * 1000)
    with open(path, "r+b") as handle:
        handle.seek(7)
        handle.write(b"new")  # same length, 13 KB before the end
    with open(path, "ab") as handle:
        handle.write(b"\nuser:\n\nmore\n")
    update = _poll(follower)
    assert update.change is Change.REWRITTEN and not update.incremental
    assert update.history.whole.chat.messages[0].fields["content"] == "new words"
    _same_as_a_fresh_load(follower)


def test_a_followed_chat_changed_while_reloaded_is_retried(tmp_path, monkeypatch):
    path = tmp_path / "c.chat"
    follower = _follower(path)
    (tmp_path / "new").write_text("user:\n\n" + "hello there\n" * 20_000, encoding="utf-8")
    os.replace(tmp_path / "new", path)  # a new inode: read again whole
    _truncate_before(monkeypatch, path)
    update = _poll(follower)
    assert update.history is None and update.message == f"cannot read the chat now: {path}: {CHANGED}"
    monkeypatch.undo()
    path.write_text("user:\n\nsettled\n", encoding="utf-8")
    update = _poll(follower)
    assert update.history is not None and update.history.whole.chat.messages[0].fields["content"] == "settled"


# -- 5. deep tool JSON, the guard line, --at ---------------------------------------------------------------
@pytest.mark.parametrize("depth", [150, 990, 2000, 100_000])
def test_tool_json_nested_past_100_is_what_scout_ai_raises(tmp_path, depth):
    arguments = "[" * depth + "]" * depth
    chat = [
        {"role": "user", "content": "hi"},
        {"role": "function_call", "content": '{"name":"t","arguments":' + arguments + ',"id":"c1"}'},
        {"role": "function_call_output", "content": '{"id":"c1","content":"x"}'},
    ]
    (tmp_path / "deep.json").write_text(json.dumps(chat), encoding="utf-8")
    r = run_here("prepare", "deep.json", cwd=tmp_path)
    assert_clean(r, 3)
    assert r.lines() == [
        PREFIX + "deep.json: message 1 (role function_call): scout-ai would raise JSON::NestingError: "
        "content is not valid JSON (nesting of 101 is too deep)"
    ]


def test_nested_tool_json_in_the_corpus(tmp_path):
    shutil.copy(CORPUS / "nested_tool_json.json", tmp_path)
    r = run_here("explain", "nested_tool_json.json", cwd=tmp_path)
    assert_clean(r, 3)
    assert "JSON::NestingError" in r.stderr


@pytest.mark.parametrize("error,line", [(RuntimeError("boom"), None), (MemoryError(), "c.chat: ran out of memory")])
def test_the_guard_line_names_the_chat_not_an_option_value(tmp_path, monkeypatch, error, line):
    (tmp_path / "c.chat").write_text("user:\n\nhi\n", encoding="utf-8")

    def broken(*args, **kwargs):
        raise error

    monkeypatch.setattr("inspector.core.inspection.open_inspection", broken)
    r = run_here("prepare", "--set", "max_tool_chars=5", "--scout-version", "seed", "c.chat", cwd=tmp_path)
    assert r.returncode == 2 and len(r.lines()) == 1
    if line is None:
        assert r.lines()[0].startswith(PREFIX + "c.chat: unexpected error (RuntimeError: boom); this is a bug")
    else:
        assert r.lines() == [PREFIX + line]


@pytest.mark.parametrize("value", ["１", "1_0", " 3", "+2", "-1", "3 ", "٣"])
def test_at_takes_ascii_digits_or_last_only(tmp_path, value):
    (tmp_path / "c.chat").write_text("user:\n\nhi\n\nassistant:\n\none\n\nuser:\n\nmore\n\nassistant:\n\ntwo\n")
    r = run_here("prepare", "--at", value, "c.chat", cwd=tmp_path)
    assert_clean(r, 2)
    assert r.lines() == [PREFIX + f"c.chat: --at {value!r}: a call number (1-2) or 'last'"]
    assert run_here("prepare", "--at", "2", "c.chat", cwd=tmp_path).returncode == 0


# -- 7. NULs after the first block -------------------------------------------------------------------------
def test_nul_bytes_after_the_first_block_are_refused_at_their_block(tmp_path, monkeypatch):
    path = tmp_path / "nul.chat"
    with open(path, "wb") as handle:
        handle.write(b"user:\n\n" + b"hello there\n" * 10_000)  # 120 KB of text, then NULs
        handle.truncate(900 * files.MiB)  # sparse
    read = []
    pread, preadv = os.pread, os.preadv
    monkeypatch.setattr(os, "pread", lambda fd, n, at: read.append(n) or pread(fd, n, at))
    monkeypatch.setattr(os, "preadv", lambda fd, buffers, at: read.append(preadv(fd, buffers, at)) or read[-1])
    with pytest.raises(InputError) as info:
        formats.read_bytes(path)
    assert info.value.what == "binary file (NUL byte), not a chat" and info.value.line == 10_003
    assert sum(read) <= 3 * files.SCAN  # stopped at the first block holding a NUL, not after 900 MiB


def test_a_large_json_chat_followed_by_nuls_is_refused_without_reading_them(tmp_path, monkeypatch):
    path = tmp_path / "nul.json"
    _big_json(path, count=2000)  # about 450 KB parsed in pieces, then NULs
    with open(path, "r+b") as handle:
        handle.truncate(900 * files.MiB)
    monkeypatch.setattr(json_array, "PIECE", 65536)
    read = []
    pread, preadv = os.pread, os.preadv
    monkeypatch.setattr(os, "pread", lambda fd, n, at: read.append(n) or pread(fd, n, at))
    monkeypatch.setattr(os, "preadv", lambda fd, buffers, at: read.append(preadv(fd, buffers, at)) or read[-1])
    with pytest.raises(InputError) as info:
        load_chat(path)
    assert info.value.what == "binary file (NUL byte), not a chat" and info.value.line == 1
    assert sum(read) <= 8 * files.MiB


# -- 8. a budget for what one chat pulls in ---------------------------------------------------------------
def test_one_file_named_many_times_stops_at_the_chat_budget(tmp_path, monkeypatch):
    monkeypatch.setattr(preprocess, "INCLUDE_BUDGET", 1 * files.MiB)
    (tmp_path / "big.txt").write_text("y" * 300_000, encoding="utf-8")
    (tmp_path / "c.chat").write_text("user:\n\nhi\n\n" + "file: big.txt\n\n" * 10, encoding="utf-8")
    chat = load_chat(tmp_path / "c.chat")
    included = [m for m in chat.messages if m.fields["content"].startswith('<file name="big.txt">')]
    refused = [f for f in chat.findings if "limit for all the files one chat pulls in" in f.message]
    assert len(included) == 3 and len(refused) == 7
    assert refused[0].message == (
        f"`file: big.txt` at line 11: {tmp_path}/big.txt is past the inspector's 1 MiB limit for all the files one chat pulls "
        "in (imports, `file:` and `directory:` together): not read; scout-ai would try to read it, so what it "
        "sends differs here (left as stored)"
    )


def test_the_budget_is_shared_with_imports(tmp_path, monkeypatch):
    monkeypatch.setattr(preprocess, "INCLUDE_BUDGET", 1 * files.MiB)
    (tmp_path / "big.txt").write_text("y" * 300_000, encoding="utf-8")
    (tmp_path / "sub.chat").write_text("user:\n\n" + "file: big.txt\n\n" * 3, encoding="utf-8")
    (tmp_path / "c.chat").write_text("user:\n\nhi\n\nimport: sub.chat\n\nimport: sub.chat\n", encoding="utf-8")
    chat = load_chat(tmp_path / "c.chat")
    assert sum(m.fields["content"].startswith("<file") for m in chat.messages) == 3
    assert len({f.message for f in chat.findings if "one chat pulls in" in f.message}) == 3


# -- 9. the app ending on a signal ---------------------------------------------------------------------------
def test_a_signal_removes_the_temporary_file_of_a_write_in_another_thread(tmp_path, monkeypatch):
    monkeypatch.setattr(atomic, "_closing", False)
    started, release = threading.Event(), threading.Event()

    def pieces():
        yield b"x" * 1000
        started.set()
        release.wait(10)
        yield b"y"

    errors: list[BaseException] = []

    def write():
        try:
            atomic.write_atomic(tmp_path / "out.json", pieces())
        except BaseException as exc:  # the write fails: its temporary file is gone
            errors.append(exc)

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    assert started.wait(10)
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    atomic.remove_temporaries()  # what the app's SIGTERM/SIGHUP handler does first
    release.set()
    thread.join(10)
    assert not list(tmp_path.iterdir()) and isinstance(errors[0], InputError)
    with pytest.raises(InputError, match="the program is ending"):
        atomic.write_atomic(tmp_path / "later.json", b"{}")


@pytest.mark.slow
@pytest.mark.parametrize("signame", ["SIGTERM", "SIGHUP"])
def test_the_app_ends_in_order_on_sigterm_and_sighup(tmp_path, signame):
    """In a terminal (a pty): the signal leaves the alternate screen and mouse reporting, exit 128+N."""
    import pty
    import select
    import signal
    import sys
    import time

    from hostile_helpers import ROOT

    (tmp_path / "c.chat").write_text("user:\n\nhi\n\nassistant:\n\none\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(tmp_path), "TERM": "xterm-256color"}
    env.pop("NO_COLOR", None)
    pid, fd = pty.fork()
    if pid == 0:  # the child: the app in the terminal
        os.chdir(tmp_path)
        os.execve(sys.executable, [sys.executable, "-m", "inspector", "c.chat", "--no-scout-config"], env)
    output = b""

    def read_until(predicate, timeout: float) -> None:
        nonlocal output
        deadline = time.monotonic() + timeout
        while not predicate() and time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 0.2)
            if ready:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:
                    return
                if not chunk:
                    return
                output += chunk

    try:
        read_until(lambda: b"\x1b[?1049h" in output and b"one" in output, 30)
        assert b"\x1b[?1049h" in output, output[-500:]
        time.sleep(0.5)
        start = len(output)
        os.kill(pid, getattr(signal, signame))
        read_until(lambda: False, 10)
    finally:
        done, status = os.waitpid(pid, os.WNOHANG)
        if not done:
            time.sleep(3)
            done, status = os.waitpid(pid, os.WNOHANG)
            if not done:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                raise AssertionError("the app did not end on the signal")
        os.close(fd)
    assert os.waitstatus_to_exitcode(status) == 128 + getattr(signal, signame)
    tail = output[start:]
    assert b"\x1b[?1049l" in tail and b"\x1b[?1000l" in tail  # the terminal restored


# -- 10. presets ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text,why",
    [
        ('{"presets": ' + "[" * 200_000 + "]" * 200_000 + "}", "nested too deeply to be a presets file"),
        ('{"presets": {"a": {"thresholds": {"max_tool_chars": NaN}}}}', "NaN is not a number JSON allows"),
        ('{"presets": {"a": {"thresholds": {"max_tool_chars": -Infinity}}}}', "-Infinity is not a number"),
        (
            '{"presets": {"a": {"thresholds": {"full_tool_calls": true, "full_tool_outputs": 1, "max_tool_calls": 2, '
            '"max_tool_outputs": 2, "max_tool_chars": 3}}}}',
            "preset 'a' needs the five integer thresholds",
        ),
    ],
)
def test_a_bad_presets_file_is_one_line(tmp_path, text, why):
    path = tmp_path / "presets.json"
    path.write_text(text, encoding="utf-8")
    assert path.stat().st_size < files.PRESETS_LIMIT
    with pytest.raises(PresetsError) as info:
        load_presets(path)
    assert why in str(info.value) and "\n" not in str(info.value) and str(info.value).endswith("left untouched")


# -- 11. an import cycle -------------------------------------------------------------------------------------
def test_an_import_cycle_is_scout_ais_system_stack_error(tmp_path):
    for name in ("import_cycle_a.chat", "import_cycle_b.chat"):
        shutil.copy(CORPUS / name, tmp_path / name)
    with pytest.raises(ScoutRaises):
        load_chat(tmp_path / "import_cycle_a.chat")
    r = run_here("prepare", "import_cycle_a.chat", cwd=tmp_path)
    assert_clean(r, 3)
    assert r.lines() == [
        PREFIX + "./import_cycle_b.chat:4: import: 'import_cycle_a.chat' imports itself: scout-ai recurses until its "
        "stack overflows and would raise SystemStackError (stack level too deep)"
    ]
