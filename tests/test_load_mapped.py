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
