"""2.x's inbox, rebuilt read-only from the inbox_removed/ folders: appended, marked injected, nothing touched."""

import json
import os

from cli_runner import run_cli

BASE = {"PATH": "/usr/bin:/bin"}


def _tree(tmp_path):
    chat = tmp_path / "agent.json"
    chat.write_text(json.dumps([{"role": "user", "content": "hi"}]))
    removed = tmp_path / "agent.inbox_removed"
    removed.mkdir()
    (removed / "b.txt").write_text("second notice")
    (removed / "a.txt").write_text("first notice")
    os.utime(removed / "a.txt", (1000, 1000))
    os.utime(removed / "b.txt", (2000, 2000))
    (removed / ".hidden").write_text("skipped, as Dir.glob('*') skips it")
    files = tmp_path / "agent.json.files" / "inbox"
    files.mkdir(parents=True)
    (files / "abort").write_text("")
    return chat


def _snapshot(root):
    return sorted((str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in root.rglob("*"))


def test_inbox_messages_are_appended_and_nothing_changes(tmp_path):
    chat = _tree(tmp_path)
    before = _snapshot(tmp_path)
    r = run_cli("prepare", chat, "--no-scout-config", "--scout-version", "2.1", environ=BASE)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == [
        {"role": "user", "content": "hi"},
        {"role": "user", "content": "first notice"},
        {"role": "user", "content": "second notice"},
    ]
    assert "an abort file is waiting" in r.stderr
    r = run_cli("explain", chat, "--no-scout-config", "--scout-version", "2.1", "--format", "json", environ=BASE)
    rows = json.loads(r.stdout)["rows"] if "rows" in json.loads(r.stdout) else json.loads(r.stdout)
    injected = [row for row in rows if row["tier"] == "injected"]
    assert [row["visible_chars"] for row in injected] == [12, 13]
    assert _snapshot(tmp_path) == before


def test_without_inbox_nothing_is_appended(tmp_path):
    chat = _tree(tmp_path)
    for args in (["--scout-version", "1.2.6"], ["--scout-version", "2.1", "--strategies", "none"]):
        r = run_cli("prepare", chat, "--no-scout-config", *args, environ=BASE)
        assert json.loads(r.stdout) == [{"role": "user", "content": "hi"}]
