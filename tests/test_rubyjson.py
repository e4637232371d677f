import json
from pathlib import Path

import pytest

from inspector.core.ruby.json import RubyJSONError, dumps, parse, ruby_float

EXPECTED = json.loads((Path(__file__).parent / "shorten_expected.json").read_text(encoding="utf-8"))


def test_floats_as_ruby_writes_them():
    values = [1e15, 1.5e15, 1e16, 1e-5, 0.0001, 3.0, 1e20, -0.0, 5e-324, 1000000000000000.5]
    assert dumps({"a": values}) == EXPECTED["floats"]


@pytest.mark.parametrize(
    "value,text",
    [
        (100.0, "100.0"),
        (2.5, "2.5"),
        (1e100, "1.0e+100"),
        (123456.789, "123456.789"),
        (999999999999999.0, "999999999999999.0"),
        (1.2345678901234567e16, "1.2345678901234568e+16"),
    ],
)
def test_ruby_float(value, text):
    assert ruby_float(value) == text


def test_strings_raw_utf8_and_ruby_escapes():
    assert dumps({"a": 'é/\u2028\x7f\x01\n\t"\\'}) == '{"a":"é/\u2028\x7f\\u0001\\n\\t\\"\\\\"}'


def test_key_order_kept_and_compact():
    assert dumps({"z": 1, "a": [True, None, False], "m": {}}) == '{"z":1,"a":[true,null,false],"m":{}}'


def test_non_finite_float_raises_like_ruby_generator():
    with pytest.raises(RubyJSONError) as info:
        dumps({"a": float("inf")})
    assert info.value.exception == "JSON::GeneratorError"


def test_parse_accepts_comments_and_big_integers_like_ruby():
    assert parse('/* c */ {"a": 1} // x\n') == {"a": 1}
    assert parse('{"n": 123456789012345678901234567890}') == {"n": 123456789012345678901234567890}
    assert parse("2") == 2


@pytest.mark.parametrize(
    "text", ["", "{not json", '{"a": NaN}', "[1,]", '{"a":1,}', "[01]", '"\\ud800"', '{"a": "x\ny"}']
)
def test_parse_rejects_what_ruby_rejects(text):
    with pytest.raises(RubyJSONError) as info:
        parse(text)
    assert info.value.exception == "JSON::ParserError"


def _strings():
    import random

    rng = random.Random(11)
    chars = [chr(c) for c in range(0x800)] + ["\u2028", "\u2029", "\ufeff", "\uffff", "\U0001f600", "\U0010ffff"]
    fixed = [c * n for c in chars for n in (1, 3)]
    return fixed + ["".join(rng.choice(chars) for _ in range(rng.randint(0, 40))) for _ in range(2000)]


def test_msgspec_and_orjson_write_plain_values_alike():
    """Short outputs are written with msgspec's encoder, long ones with orjson: the bytes must not differ."""
    import msgspec
    import orjson

    encode = msgspec.json.Encoder().encode
    values = [
        *_strings(),
        {"role": "user", "content": "x", "n": 2**64 - 1, "m": -(2**63), "b": [True, False, None, {}, []]},
    ]
    assert [encode(v) for v in values] == [orjson.dumps(v) for v in values]


def test_prepare_json_in_pieces_is_the_whole_json(monkeypatch):
    """The pieces (msgspec's encoder, then orjson past ORJSON_FROM) join to what one call writes;
    a lone surrogate or a float in a piece takes the exact path."""
    from inspector.core.ruby import json as rubyjson

    monkeypatch.setattr(rubyjson, "CHUNK_MESSAGES", 3)
    monkeypatch.setattr(rubyjson, "ORJSON_FROM", 200)
    messages = [{"role": "user", "content": text} for text in _strings()[::97]]
    messages[5]["content"] = "lone \ud800 surrogate"
    messages[11]["f"] = 1e20
    whole = ("[" + ",".join(dumps(m) for m in messages) + "]").encode("utf-8", "surrogatepass") + b"\n"
    assert b"".join(rubyjson.dumps_messages_chunks(messages, b"\n")) == whole
