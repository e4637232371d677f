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
