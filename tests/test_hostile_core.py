"""Issue 12, in the core: unreadable imports, the app's export of an infinite number, the safe reader's checks."""

from __future__ import annotations

import errno
import os
import sys
import tempfile
from pathlib import Path

import pytest
from hostile_helpers import CORPUS

from inspector.core import files
from inspector.core.errors import ScoutRaises
from inspector.core.inspection import open_inspection
from inspector.core.present.export import prepared_bytes
from inspector.core.scout import named_files as scout_files
from inspector.core.setup import Setup


def _deny(monkeypatch, name):
    """Running as root, chmod 000 does not stop a read: make the open fail as it would for a user."""
    real = os.open

    def fake(path, flags, *args):
        if str(path).endswith(name):
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real(path, flags, *args)

    monkeypatch.setattr(files.os, "open", fake)


@pytest.mark.parametrize("role", ["import", "last"])
def test_an_unreadable_import_is_what_scout_ai_raises(tmp_path, monkeypatch, role):
    (tmp_path / "secret.chat").write_text("user:\nhidden\n")
    chat = tmp_path / "c.chat"
    chat.write_text(f"user:\nhello\n\n{role}: secret.chat\n")
    _deny(monkeypatch, "secret.chat")
    with pytest.raises(ScoutRaises) as caught:
        open_inspection(chat, Setup.of(env={}, config_files=[]))
    assert str(caught.value) == (
        f"{chat}:4: {role}: 'secret.chat' is not readable (permission denied): scout-ai would raise Errno::EACCES"
    )


def test_the_app_export_of_an_infinite_number_says_what_scout_ai_raises():
    inspection = open_inspection(CORPUS / "infinite_json.json", Setup.of(env={}, config_files=[]))
    with pytest.raises(ScoutRaises) as caught:  # an InputError: the app says "not exported: ..."
        prepared_bytes(inspection.prompt(), "json")
    assert str(caught.value) == "scout-ai would raise JSON::GeneratorError: Infinity not allowed in JSON"


def test_the_reader_refuses_before_reading(tmp_path):
    os.mkfifo(tmp_path / "pipe")  # O_NONBLOCK: opening a FIFO for reading returns at once
    with pytest.raises(files.Refused, match="a FIFO"):
        files.read_regular(tmp_path / "pipe", files.CONFIG_LIMIT)
    (tmp_path / "big").write_bytes(b"x" * 2000)
    with pytest.raises(files.Refused) as caught:
        files.read_regular(tmp_path / "big", 1000, "test file")
    assert caught.value.reason == "2.0 KiB, over the inspector's 1000 bytes limit for a test file: not read"
    (tmp_path / "bin").write_bytes(b"a\nb\x00" + b"y" * 10)
    with pytest.raises(files.Refused) as caught:
        files.read_regular(tmp_path / "bin", 1000)
    assert caught.value.line == 2
    assert files.read_regular(tmp_path / "bin", 1000, sniff_nul=False) == b"a\nb\x00" + b"y" * 10


def test_a_directory_past_the_file_cap_says_how_many_were_left_out(tmp_path, monkeypatch):
    for i in range(5):
        (tmp_path / f"f{i}.txt").write_text(str(i))
    monkeypatch.setattr(scout_files, "MAX_DIRECTORY_FILES", 3)
    listing = scout_files.directory_files(str(tmp_path))
    assert [os.path.basename(f) for f in listing.files] == ["f0.txt", "f1.txt", "f2.txt"]
    assert listing.more == 2 and listing.counted_all


def test_a_deep_directory_tree_is_no_recursion_error():
    # a walk that recursed per level would need 300 frames more than the test has: it gets 100
    depth, frame = 0, sys._getframe()
    while frame is not None:
        depth, frame = depth + 1, frame.f_back
    top = Path(tempfile.mkdtemp(prefix="deep-tree-"))  # not tmp_path: pytest's cleanup recurses
    path = top
    for _ in range(300):
        path = path / "d"
        path.mkdir()
    (path / "leaf.txt").write_text("x")
    try:
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(depth + 100)
        try:
            found = scout_files.directory_files(str(top)).files
        finally:
            sys.setrecursionlimit(limit)
        assert found == [str(path / "leaf.txt")]
    finally:
        (path / "leaf.txt").unlink()
        while path != top.parent:
            path.rmdir()
            path = path.parent


@pytest.mark.parametrize("size", [0, 1, files.SNIFF - 1, files.SNIFF, files.SNIFF + 1, 3 * files.SNIFF + 7])
def test_the_reader_returns_the_exact_bytes(tmp_path, size):
    data = bytes((i * 7 + 1) % 255 + 1 for i in range(size))  # no NUL
    (tmp_path / "f").write_bytes(data)
    assert files.read_regular(tmp_path / "f", size + 10) == data
    if size:
        with pytest.raises(files.Refused, match="limit"):
            files.read_regular(tmp_path / "f", size - 1)


def test_a_regular_file_whose_size_says_zero_is_read_to_its_end():
    # /proc files are regular files of size 0 whose text is made on reading
    assert files.read_regular("/proc/self/status", files.CONFIG_LIMIT).startswith(b"Name:")
