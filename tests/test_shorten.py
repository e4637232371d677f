import json
from hashlib import md5
from pathlib import Path

import pytest

from inspector.core.scout.shorten import shorten_string, truncate_string

EXPECTED = json.loads((Path(__file__).parent / "shorten_expected.json").read_text(encoding="utf-8"))

CASES = {
    "a201": "a" * 201,
    "a200": "a" * 200,
    "emoji": "😀" * 150 + "é" * 60,
    "combining": "e\u0301" * 120,
    "mixed": "".join("中" if i % 7 == 0 else ("\n" if i % 5 == 0 else chr(97 + i % 26)) for i in range(300)),
    "abc1000": "abcdefghij" * 100,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_shorten_string_matches_scout_ai(name):
    # expectations produced once by scout-ai's Ruby code and committed
    assert shorten_string(CASES[name]) == EXPECTED[name]


def test_truncate_at_150_default():
    assert truncate_string("x" * 151) == EXPECTED["trunc150"]


def test_spec_sample_shape():
    out = truncate_string("abcdefghij" * 100, 200)
    assert out == "abcdefghij" * 8 + "abcdefghi" + "<...1000 - 33ef3...>" + "abcdefghij" * 9
    assert len(out) == 199


@pytest.mark.parametrize("length", [0, 1, 149, 150, 151, 199, 200])
def test_short_strings_unchanged(length):
    s = "q" * length
    assert shorten_string(s) == s


@pytest.mark.parametrize("length", [201, 202, 399, 400, 401, 10_000])
def test_long_strings_shortened_to_200_whatever_the_size_argument(length):
    s = "".join(chr(0x4E00 + i % 50) for i in range(length))
    digest = md5(s.encode()).hexdigest()[:5]
    marker = f"<...{length} - {digest}...>"
    half = (200 - len(marker)) // 2
    expected = f"Truncated ({length}): " + s[: half - 1] + marker + s[-half:]
    assert shorten_string(s, 400) == expected
    assert shorten_string(s, 5) == expected


def test_md5_is_of_utf8_bytes_and_lengths_count_code_points():
    s = "é" * 300
    out = truncate_string(s, 200)
    assert f"<...300 - {md5(s.encode('utf-8')).hexdigest()[:5]}...>" in out
    assert len(out) in (198, 199)
