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


def test_large_non_ascii_files_are_read_piece_by_piece_with_the_same_result(tmp_path, monkeypatch):
    from inspector.core.io.formats import json_array

    items = [
        {"role": "user", "content": "café 😀 “q” \u001b[31m"},
        {"role": "function_call_output", "content": '{"name":"t","content":"\\ud83d\\ude00 数据","id":1}'},
        {"role": "assistant", "content": "x" * 5000, "n": 123456789012345678901234567890, "f": 1.5e300},
        # the bytes of a cut, inside a string and between objects nested deeper: cuts there must not hold
        {"role": "user", "content": "a},{b} , {c", "parts": [{"a": 1}, {"b": 2}, {"c": [{}, {}]}]},
    ] * 40
    path = tmp_path / "big.json"
    path.write_text(json.dumps(items, ensure_ascii=False), encoding="utf-8")
    whole = load_chat(path)
    monkeypatch.setattr(formats, "MAP_FROM", 1024)
    monkeypatch.setattr(json_array, "STREAM_FROM", 1024)
    pieces = []
    original = json_array._decode_pieces
    monkeypatch.setattr(json_array, "_decode_pieces", lambda *data: pieces.append(original(*data)) or pieces[-1])
    for size in (1, 7, 100, 4096, 10**9):  # cuts at every object boundary the search meets, and none
        monkeypatch.setattr(json_array, "PIECE", size)
        streamed = load_chat(path)
        assert [m.fields for m in streamed.messages] == [m.fields for m in whole.messages]
        assert streamed.messages[2].fields["n"] == 123456789012345678901234567890
    assert pieces[0] is not None and pieces[-1] is None  # cut in pieces; one piece: read whole


def test_a_cut_inside_a_string_is_tried_again_longer(tmp_path, monkeypatch):
    from inspector.core.io.formats import json_array

    # each string ends in `}, {`: with its closing quote, the bytes of a cut (`}, {"`) stand inside it
    items = [{"role": "user", "content": "é" + "x" * 40 + "}, {"}] * 3
    path = tmp_path / "big.json"
    path.write_text(json.dumps(items, ensure_ascii=False), encoding="utf-8")
    monkeypatch.setattr(formats, "MAP_FROM", 10)
    monkeypatch.setattr(json_array, "STREAM_FROM", 10)
    monkeypatch.setattr(json_array, "PIECE", 30)
    pieces = []
    original = json_array._decode_pieces
    monkeypatch.setattr(json_array, "_decode_pieces", lambda *data: pieces.append(original(*data)) or pieces[-1])
    tries = []
    decode = json_array._DECODE
    monkeypatch.setattr(json_array, "_DECODE", lambda data: tries.append(len(data)) or decode(data))
    assert [m.fields for m in load_chat(path).messages] == items
    # each cut inside a string fails once; the next one is looked for past it, and holds
    assert pieces == [items] and tries == [74, 79, 74, 79, 74, 79]


@pytest.mark.parametrize("tail", ['{"role": ', "42", '{"role": "user", "content": "x"}] x', '{"role": "user"}}'])
def test_a_large_non_ascii_file_with_an_error_after_the_first_piece(tmp_path, monkeypatch, tail):
    from inspector.core.io.formats import json_array

    elements = [f'{{"role": "user", "content": "é{n}"}}' for n in range(200)]
    text = '[{"role": "user", "content": "é"},\n' + ",\n".join(elements) + ",\n" + tail
    path = tmp_path / "bad.json"
    path.write_text(text, encoding="utf-8")
    monkeypatch.setattr(json_array, "PIECE", 100)
    plain = None
    try:
        plain = load_chat(path)
    except InputError as exc:
        plain = exc
    monkeypatch.setattr(formats, "MAP_FROM", 10)
    monkeypatch.setattr(json_array, "STREAM_FROM", 10)
    try:
        mapped = load_chat(path)
    except InputError as exc:
        assert isinstance(plain, InputError) and (exc.what, exc.line) == (plain.what, plain.line)
    else:
        raise AssertionError(f"loaded {mapped!r}; the plain path gave {plain!r}")
