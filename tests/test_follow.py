"""Following a chat file: appends read incrementally (equal to a full re-load), rewrites, truncation, deletion."""

from __future__ import annotations

import json
import os
import random

import callgen
import pytest

from inspector.core.calls.history import ChatHistory
from inspector.core.calls.live import Follower
from inspector.core.io.follow import Change, Watch
from inspector.core.io.printers import render
from inspector.core.setup import Setup


def _equal(a: ChatHistory, b: ChatHistory) -> None:
    assert [m.fields for m in a.whole.chat.messages] == [m.fields for m in b.whole.chat.messages]
    assert [f.message for f in a.whole.chat.findings] == [f.message for f in b.whole.chat.findings]
    assert [(c.message.fields, c.step, c.reason, c.before) for c in a.whole.chat.consumed] == [
        (c.message.fields, c.step, c.reason, c.before) for c in b.whole.chat.consumed
    ]
    assert a.calls == b.calls and [f.message for f in a.findings] == [f.message for f in b.findings]
    assert a.whole.thresholds.as_tuple() == b.whole.thresholds.as_tuple()
    pa, pb = a.whole.prompt(), b.whole.prompt()
    assert render("json", pa.messages()) == render("json", pb.messages())
    assert [x.tier for x in pa.decisions()] == [x.tier for x in pb.decisions()]
    for number in {1, len(a) // 2, len(a)} - {0}:
        assert render("json", a.at(number).prompt().messages()) == render("json", b.at(number).prompt().messages())


@pytest.mark.parametrize("seed", range(16))
def test_appends_in_pieces_equal_a_full_reload(tmp_path, seed):
    text = callgen.scout_chat(seed, directives=seed % 4 == 3).encode()
    rng = random.Random(seed)
    if seed % 2:  # anywhere, even inside a line or a character
        cuts = sorted(rng.sample(range(1, len(text)), 4))
    else:  # whole lines, as scout-ai appends
        ends = [i + 1 for i, b in enumerate(text) if b == 10 and i > len(text) // 4]
        cuts = sorted(rng.sample(ends, 4))
    path = tmp_path / "live.chat"
    path.write_bytes(text[: cuts[0]])
    follower = Follower(ChatHistory(path, Setup.of(env={}, config_files=[])))
    incremental = 0
    for end in [*cuts[1:], len(text)]:
        with open(path, "ab") as handle:
            handle.write(text[path.stat().st_size : end])
        update = follower.poll()
        assert update is not None and update.change is Change.APPENDED and update.history is follower.history
        incremental += update.incremental
        _equal(follower.history, ChatHistory(path, Setup.of(env={}, config_files=[])))
    assert follower.poll() is None
    if seed % 2 == 0:
        assert incremental == 4


def test_a_rewrite_by_rename_is_read_again(tmp_path):
    path = tmp_path / "c.chat"
    path.write_text("user:\n\nhi\n\nassistant:\n\none\n", encoding="utf-8")
    follower = Follower(ChatHistory(path, Setup.of(env={}, config_files=[])))
    new = tmp_path / "c.chat.tmp"
    new.write_text("user:\n\nbye\n\nassistant:\n\ntwo\n\nuser:\n\nmore\n\nassistant:\n\nthree\n", encoding="utf-8")
    os.replace(new, path)
    update = follower.poll()
    assert update.change is Change.REWRITTEN and update.message == f"{path} rewritten"
    assert len(update.history) == 2 and update.history.whole.chat.messages[0].fields["content"] == "bye"


def test_truncated_and_vanished_files_are_reported(tmp_path):
    path = tmp_path / "c.chat"
    path.write_text("user:\n\nhi there\n\nassistant:\n\none\n", encoding="utf-8")
    follower = Follower(ChatHistory(path, Setup.of(env={}, config_files=[])))
    with open(path, "r+b") as handle:
        handle.truncate(12)
    update = follower.poll()
    assert update.change is Change.SHRUNK and len(update.history) == 0
    with open(path, "wb"):
        pass  # emptied: not a chat now
    update = follower.poll()
    assert update.change is Change.SHRUNK and update.history is None
    assert update.message == f"cannot read the chat now: {path}: empty file: no messages"
    assert follower.poll() is None  # reported once, tried again at the next change
    path.unlink()
    update = follower.poll()
    assert update.change is Change.VANISHED and update.message == f"{path} is gone; showing the last version read"
    assert follower.poll() is None
    path.write_text("user:\n\nback\n\nassistant:\n\nyes\n", encoding="utf-8")
    update = follower.poll()
    assert update.change is Change.RETURNED and len(update.history) == 1


def test_a_json_array_is_rewritten_whole(tmp_path):
    path = tmp_path / "c.json"
    items = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "one"}]
    path.write_text(json.dumps(items), encoding="utf-8")
    follower = Follower(ChatHistory(path, Setup.of(env={}, config_files=[])))
    items += [{"role": "user", "content": "more"}, {"role": "assistant", "content": "two"}]
    path.write_text(json.dumps(items), encoding="utf-8")
    update = follower.poll()
    assert update.change is Change.REWRITTEN and not update.incremental and len(update.history) == 2


def test_a_watch_checks_the_bytes_before_an_append(tmp_path):
    path = tmp_path / "f"
    path.write_bytes(b"abc")
    watch = Watch(str(path), 3, b"abc")
    path.write_bytes(b"xbcdef")  # longer, but the old bytes changed
    assert watch.poll().change is Change.REWRITTEN
