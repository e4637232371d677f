"""prepare's lean read (io.formats.spill): tool contents checked as each piece is parsed and left in the file
give the prompt, the error and the exit of a plain read, and are read again only when the prompt sends them."""

from __future__ import annotations

import json
import os
import random
from typing import Any

import chatgen
import pytest
from cli_runner import run_cli
from helpers import seeds

from inspector.core import files
from inspector.core.errors import InputError
from inspector.core.inspection import open_inspection
from inspector.core.io import formats
from inspector.core.io.formats import json_array, spill
from inspector.core.io.printers import render
from inspector.core.model import Message, SpilledMessage
from inspector.core.setup import ChatSource, Setup


@pytest.fixture
def pieces(monkeypatch):
    """Every JSON chat read in pieces of about 700 bytes, every tool content of 8 characters or more spilled;
    the pieces a lean read took are counted (spilled messages, pieces read again)."""
    monkeypatch.setattr(formats, "MAP_FROM", 0)
    monkeypatch.setattr(json_array, "STREAM_FROM", 0)
    monkeypatch.setattr(json_array, "PIECE", 700)
    monkeypatch.setattr(json_array, "LOOK", 64)
    monkeypatch.setattr(spill, "SPILL_FROM", 8)
    taken: dict[str, Any] = {"spilled": 0}
    original = spill.Spill.take

    def take(self, elements, offset, length):
        out = original(self, elements, offset, length)
        taken["spilled"] += sum(type(e) is SpilledMessage for e in out)
        taken["spill"] = self
        return out

    monkeypatch.setattr(spill.Spill, "take", take)
    return taken


def _write(tmp_path, items, name="chat.json"):
    path = tmp_path / name
    path.write_text(json.dumps(items, ensure_ascii=False), encoding="utf-8")
    return path


@pytest.mark.parametrize("seed", seeds(120, 24))
def test_a_lean_prepare_writes_what_a_plain_read_does(tmp_path, monkeypatch, pieces, seed):
    rng = random.Random(seed)
    items = chatgen.chat(seed, messages=rng.randint(2, 90), scale=rng.choice([200, 3000]), traps=rng.random() < 0.4)
    path = _write(tmp_path, items)
    env = chatgen.thresholds(rng)
    fmt = rng.choice(["json", "json", "jsonl", "chat", "responses", "openai"])
    lean = run_cli("prepare", path, "--format", fmt, env=env, scout_config=False, text=False)
    spilled = pieces["spilled"]
    monkeypatch.setattr(Setup, "reads_few_contents", lambda self: False)
    plain = run_cli("prepare", path, "--format", fmt, env=env, scout_config=False, text=False)
    assert pieces["spilled"] == spilled  # the plain read took nothing
    assert (lean.returncode, lean.stdout, lean.stderr) == (plain.returncode, plain.stdout, plain.stderr)
    assert lean.returncode in (0, 3)
    long_tools = [
        m
        for m in items
        if m.get("role") in ("function_call", "function_call_output")
        and isinstance(m.get("content"), str)
        and len(m["content"]) >= spill.SPILL_FROM
        and m["content"].lstrip().startswith("{")
    ]
    assert spilled >= (1 if long_tools else 0)


def _outputs(count, size, seed=0):
    rng = random.Random(seed)
    items = [{"role": "user", "content": "go"}]
    for n in range(count):
        items.append(
            {"role": "function_call", "content": json.dumps({"name": "read", "arguments": {"n": n}, "id": f"c{n}"})}
        )
        body = "".join(rng.choice("abcdé😀 ") for _ in range(size))
        items.append(
            {"role": "function_call_output", "content": json.dumps({"name": "read", "content": body, "id": f"c{n}"})}
        )
    return items


def test_only_the_messages_the_prompt_sends_are_read_again(tmp_path, monkeypatch, pieces):
    path = _write(tmp_path, _outputs(60, 300))
    setup = Setup(config_files=(), overrides=(("max_tool_chars", "2000"),))
    inspection = open_inspection(ChatSource.of(path, None, lean=True), setup)
    messages = inspection.chat.messages
    spilled = [m for m in messages if type(m) is SpilledMessage]
    assert len(spilled) == pieces["spilled"] == 120  # every call and output
    piece_of = {i: m.piece for i, m in enumerate(messages) if type(m) is SpilledMessage}
    read = []
    original = files.read_span
    monkeypatch.setattr(
        files, "read_span", lambda opened, offset, *rest: read.append(offset) or original(opened, offset, *rest)
    )
    plan = inspection.prompt()  # the cut ones are read again here, the whole ones as they are written
    written = render("json", plan.messages())
    sent = {i for i in range(len(messages)) if plan.tier_of(i).value in ("full", "truncated")}
    holding = {piece_of[i] for i in sent if i in piece_of}
    read_again = {i for i, m in enumerate(messages) if type(m) is SpilledMessage and m._cached is not None}
    assert read_again and read_again <= sent
    monkeypatch.setattr(files, "read_span", original)
    assert written == render("json", open_inspection(path, setup).prompt().messages())
    # each piece holding a sent message read again once, but the newest, held as it was read
    spill_ = pieces["spill"]
    newest = len(spill_.pieces) - 1
    assert newest in holding and len(holding) > 2
    assert sorted(read) == sorted(spill_.pieces[p][0] for p in holding - {newest})


def test_a_spilled_message_reads_as_the_message_it_was(tmp_path, pieces):
    items = _outputs(3, 50)
    path = _write(tmp_path, items)
    chat = formats.load_chat(path, lean=True)
    assert [m.fields for m in chat.messages] == items
    message = chat.messages[2]
    assert type(message) is SpilledMessage
    assert message.role == "function_call_output" and message.length == len(items[2]["content"])
    assert message.content == items[2]["content"]
    assert message.with_content("x").fields == {"role": "function_call_output", "content": "x"}
    message.fields = {"role": "function_call_output", "content": "set"}
    assert message.content == "set"
    assert repr(chat.messages[4]) == f"SpilledMessage('function_call_output', {len(items[4]['content'])} chars)"


def test_a_chat_changed_after_its_lean_read_is_an_input_error(tmp_path, pieces):
    path = _write(tmp_path, _outputs(20, 200))
    setup = Setup(config_files=())
    # appended to: what was read stands
    inspection = open_inspection(ChatSource.of(path, None, lean=True), setup)
    expected = render("json", open_inspection(path, setup).prompt().messages())
    with path.open("ab") as handle:
        handle.write(b"\n")
    assert render("json", inspection.prompt().messages()) == expected
    # rewritten in place (same size, a new modification time), or truncated: one input error, nothing written
    for change in ("rewrite", "truncate", "same time"):
        path = _write(tmp_path, _outputs(20, 200), f"{change}.json")
        inspection = open_inspection(ChatSource.of(path, None, lean=True), setup)
        info = path.stat()
        data = path.read_bytes()
        if change == "truncate":
            path.write_bytes(data[: len(data) // 2])
        else:
            # an older output the prompt sends (in a piece read again; the newest piece is held as read) with
            # its id one character longer, a space before it gone: the file as long, the content's length not
            at = data.index(
                b'"role": "function_call_output", "content": "{\\"name\\": \\"read\\", \\"content\\"',
                data.index(b"c12"),
            )
            tail = data[at:].replace(b'"role": "', b'"role":"', 1).replace(b'c12\\"', b'c12x\\"', 1)
            changed = data[:at] + tail
            assert len(changed) == len(data) and changed != data
            path.write_bytes(changed)
            if change == "same time":  # the length check catches what the clock does not
                os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))
        with pytest.raises(InputError) as caught:
            render("json", inspection.prompt().messages())
        assert caught.value.what == files.CHANGED
        assert caught.value.path == str(path)


def test_prepare_of_a_chat_changed_while_planned_exits_2_with_one_line(tmp_path, monkeypatch, pieces):
    path = _write(tmp_path, _outputs(20, 200))
    original = json_array.load_path

    def load_then_truncate(*args, **kwargs):
        chat = original(*args, **kwargs)
        path.write_bytes(path.read_bytes()[:100])
        return chat

    monkeypatch.setattr(json_array, "load_path", load_then_truncate)
    result = run_cli("prepare", path, scout_config=False)
    assert pieces["spilled"] == 40
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        f"prompt-inspector: error: {path}: changed while read (truncated or rewritten in place): "
        "read it again once its writer is done\n"
    )


@pytest.mark.parametrize(
    ("arguments", "lean"),
    [
        ((), True),
        (("--scout-version", "seed"), True),
        (("--strategies", "shorten_tools"), True),
        (("--scout-version", "2.1"), False),
        (("--scout-version", "1.2.6"), False),
        (("--strategies", "shorten_tools_epoch"), False),
        (("--policy", "langchain.trim_messages", "--set", "max_tokens=100"), False),
    ],
)
def test_the_lean_read_is_taken_where_the_plan_reads_few_contents(tmp_path, pieces, arguments, lean):
    path = _write(tmp_path, _outputs(10, 100))
    result = run_cli("prepare", path, *arguments, scout_config=False)
    assert result.returncode == 0, result.stderr
    assert (pieces["spilled"] > 0) is lean


def test_a_plain_message_is_no_spilled_one():
    message = Message({"role": "function_call_output", "content": "{}"})
    assert type(message) is not SpilledMessage and message.fields["content"] == "{}"


@pytest.mark.parametrize("bad", [42, "text", None, [1, 2]])
def test_a_non_object_after_spilled_pieces_names_its_index_as_a_plain_read_does(tmp_path, monkeypatch, pieces, bad):
    items = [*_outputs(15, 200), bad, *_outputs(2, 50)]
    path = _write(tmp_path, items)
    lean = run_cli("prepare", path, scout_config=False)
    assert pieces["spilled"] > 0  # pieces before the bad element were spilled
    monkeypatch.setattr(Setup, "reads_few_contents", lambda self: False)
    plain = run_cli("prepare", path, scout_config=False)
    assert (lean.returncode, lean.stdout, lean.stderr) == (plain.returncode, plain.stdout, plain.stderr)
    assert lean.returncode == 2 and "message 31 is " in lean.stderr, lean.stderr


def test_a_nul_byte_past_spilled_pieces_is_refused_as_binary(tmp_path, pieces):
    path = _write(tmp_path, _outputs(15, 200))
    data = path.read_bytes()
    at = data.index(b"c12")
    path.write_bytes(data[:at] + b"\x00" + data[at + 1 :])
    result = run_cli("prepare", path, scout_config=False)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == f"prompt-inspector: error: {path}:1: binary file (NUL byte), not a chat\n"


def test_the_descriptor_kept_for_reading_again_is_closed_with_the_chat(tmp_path, pieces):
    import gc

    def held(fd: int, path) -> bool:  # still open on the chat (known by its target: other tests' objects the
        try:  # collection below frees close descriptors too, and a closed number may be given out again)
            return os.readlink(f"/proc/self/fd/{fd}") == os.path.realpath(path)
        except FileNotFoundError:
            return False

    path = _write(tmp_path, _outputs(10, 100))
    chat = formats.load_chat(path, lean=True)
    fd = pieces.pop("spill").opened.fd  # (the fixture would hold the spill)
    assert any(type(m) is SpilledMessage for m in chat.messages) and held(fd, path)
    del chat
    gc.collect()
    assert not held(fd, path)
    # nothing spilled (every content short): nothing kept open
    short = _write(tmp_path, _outputs(10, 1), "short.json")
    spill_from = spill.SPILL_FROM
    spill.SPILL_FROM = 10**6
    try:
        chat = formats.load_chat(short, lean=True)
    finally:
        spill.SPILL_FROM = spill_from
    assert not any(type(m) is SpilledMessage for m in chat.messages)
    assert not held(pieces["spill"].opened.fd, short)
