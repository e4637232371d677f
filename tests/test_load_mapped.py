"""Large JSON arrays are parsed from a memory map: same chat, same errors as the plain path."""

import json

import pytest

from inspector.core.errors import InputError
from inspector.core.io import formats
from inspector.core.io.formats import load_chat


@pytest.fixture
def map_everything(monkeypatch):
    monkeypatch.setattr(formats, "MAP_FROM", 0)


def test_mapped_load_equals_plain_load(tmp_path, monkeypatch):
    path = tmp_path / "chat.json"
    items = [
        {"role": "user", "content": "hé", "n": 123456789012345678901234567890},
        {"role": "assistant", "content": "x" * 70_000, "f": 1.5},
    ]
    path.write_text(json.dumps(items, ensure_ascii=False), encoding="utf-8")
    plain = load_chat(path)
    monkeypatch.setattr(formats, "MAP_FROM", 0)
    mapped = load_chat(path)
    assert [m.fields for m in mapped.messages] == [m.fields for m in plain.messages] == items
    assert mapped.format == "json" and mapped.line_of(1) == plain.line_of(1) == 1


def test_mapped_load_reports_errors_with_lines(tmp_path, map_everything):
    path = tmp_path / "bad.json"
    path.write_text('[{"role": "user", "content": "x"},\n' + " " * 70_000 + '\n {"role": ', encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_chat(path)
    assert info.value.line == 3 and "invalid JSON" in info.value.what
    path.write_text('[{"role": "user", "content": "x"},\n' + " " * 70_000 + "\n 42]", encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_chat(path)
    assert "message 1 is int" in info.value.what


def test_large_non_ascii_files_are_read_element_by_element_with_the_same_result(tmp_path, monkeypatch):
    from inspector.core.io.formats import json_array

    items = [
        {"role": "user", "content": "café 😀 “q” \u001b[31m"},
        {"role": "function_call_output", "content": '{"name":"t","content":"\\ud83d\\ude00 数据","id":1}'},
        {"role": "assistant", "content": "x" * 5000, "n": 123456789012345678901234567890, "f": 1.5e300},
    ] * 40
    path = tmp_path / "big.json"
    path.write_text(json.dumps(items, ensure_ascii=False), encoding="utf-8")
    whole = load_chat(path)
    monkeypatch.setattr(formats, "MAP_FROM", 1024)
    monkeypatch.setattr(json_array, "STREAM_FROM", 1024)
    monkeypatch.setattr(json_array, "RELEASE_EVERY", 4096)
    calls = []
    original = json_array._ELEMENTS
    monkeypatch.setattr(json_array, "_ELEMENTS", lambda data: calls.append(1) or original(data))
    streamed = load_chat(path)
    assert calls == [1]  # this file took the element-by-element path
    assert [m.fields for m in streamed.messages] == [m.fields for m in whole.messages]
    assert streamed.messages[2].fields["n"] == 123456789012345678901234567890
