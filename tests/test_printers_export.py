"""The chat and responses printers: scout-ai's exact bytes, the round trip, and each documented lossy case."""

from __future__ import annotations

import json

import pytest

from inspector.core.inspection import open_inspection
from inspector.core.io.formats import load_chat
from inspector.core.io.printers import PRINTERS
from inspector.core.io.printers.chat import print_chat
from inspector.core.io.printers.responses import response_items
from inspector.core.model import Message
from inspector.core.scout.parser import parse
from inspector.core.setup import Setup


def msgs(*pairs) -> list[Message]:
    return [Message({"role": r, "content": c}) for r, c in pairs]


def reparse(messages: list[Message]) -> list[tuple]:
    return [(m.role, m.content) for m in parse(print_chat(messages)).messages if m.content != ""]


def test_registered():
    assert {"json", "jsonl", "chat", "responses"} <= set(PRINTERS)


def test_chat_printer_bytes():
    text = print_chat(
        msgs(
            ("system", "Be brief."),
            ("option", "a b"),
            ("function_call", '{"a":1}'),
            ("user", "user: quoted\nok"),
            ("assistant", ""),
            ("user", {"k": [1]}),
        )
    )
    assert text == (
        '\nsystem:\n\nBe brief.\n\noption: a b\n\nfunction_call: {"a":1}\n\n'
        'user:\n\n\\user: quoted\nok\n\nassistant:\n\nuser:\n\n{"k":[1]}'
    )


def test_round_trip_of_a_prepared_prompt(tmp_path, root):
    inspection = open_inspection(root / "sample_chats" / "debug_session.chat", Setup.of(config_files=[], env={}))
    prepared = inspection.prompt().messages()
    assert any(m.content.startswith('{"name"') and "Truncated" in m.content for m in prepared)
    path = tmp_path / "prepared.chat"
    path.write_text(PRINTERS["chat"](prepared), encoding="utf-8")
    again = load_chat(path)
    assert [m.fields for m in again.messages] == [m.fields for m in prepared]
    assert again.consumed == []


def test_round_trip_of_escaped_headers_and_blank_lines():
    messages = msgs(("user", "note: kept\n\nassistant: also kept\n  indented"), ("assistant", "a\n\n\nb"))
    assert reparse(messages) == [("user", "note: kept\n\nassistant: also kept\n  indented"), ("assistant", "a\n\n\nb")]


@pytest.mark.parametrize(
    "content,back",
    [
        ("see foo:bar\nfoo:bar", [("user", "see foo:bar"), ("foo", "bar")]),  # no space after the colon: not escaped
        ("http://x.com", [("http", "//x.com")]),
        ("text\nbaz:", [("user", "text")]),  # a last line `word:` is not escaped; the empty block vanishes
        ("```\nuser: x\n```", [("user", "```\n\\user: x\n```")]),  # escaped inside a fence keeps its backslash
        ("  padded  ", [("user", "padded")]),  # stripped
        ("[[1, 2]]\nuser: x", [("user", "1, 2]]\n\\user: x")]),  # `[[` opens a protected block
    ],
)
def test_documented_lossy_cases(content, back):
    assert reparse(msgs(("user", content))) == back


def test_lossy_empty_message_extra_keys_and_non_string_content():
    assert reparse(msgs(("assistant", ""), ("user", "x"))) == [("user", "x")]
    assert reparse([Message({"role": "user", "content": "x", "meta": 1})]) == [("user", "x")]
    assert reparse(msgs(("user", {"a": 1}), ("user", 5))) == [("user", '{"a":1}'), ("user", "5")]
    assert reparse(msgs(("option", "a\nb"))) == [("option", "a"), ("user", "b")]  # inline role with a newline


def test_responses_items():
    items = response_items(
        msgs(
            ("system", "s"),
            ("previous_response_id", "r"),
            ("tool", "Baking"),
            ("function_call", '{"name":"ls","arguments":{"d":"/"},"id":"fc_1"}'),
            ("function_call_output", '{"name":"ls","content":"x","id":"fc_1"}'),
            ("function_call", '{"id":"c2","type":"function","function":{"name":"old","arguments":"{}"}}'),
            ("function_call_output", '{"content":["not","a string"]}'),
            ("function_call", '{"name":"s","arguments":"{\\"q\\":1}"}'),
        )
    )
    assert items == [
        {"role": "system", "content": "s"},
        {"type": "function_call", "status": "completed", "name": "ls", "arguments": '{"d":"/"}', "call_id": "1"},
        {"type": "function_call_output", "output": "x", "call_id": "1"},
        {"type": "function_call", "status": "completed", "name": "old", "arguments": "{}", "call_id": "c2"},
        {"type": "function_call_output", "output": ["not", "a string"], "call_id": "1"},
        {"type": "function_call", "status": "completed", "name": "s", "arguments": '{"q":1}', "call_id": "7"},
    ]


def test_responses_printer_is_compact_json():
    text = PRINTERS["responses"](msgs(("user", "é")))
    assert text == '[{"role":"user","content":"é"}]\n'
    assert json.loads(text) == [{"role": "user", "content": "é"}]
