"""The prepared prompt's writer skips its per-value checks when every message maps strings to strings
(``_text_only``, checked in C): the bytes must be those the checked path writes, and a prompt holding
anything else must still take that path."""

from __future__ import annotations

import math
import random

import pytest

from inspector.core.ruby import json as rubyjson
from inspector.core.ruby.json import RubyJSONError, _plain, _text_only, dumps, dumps_messages_chunks, has_nonfinite

ODD_VALUES: list[object] = [
    1,
    -0.0,
    1e20,
    2**70,
    math.inf,
    math.nan,
    None,
    True,
    [1.5],
    {"k": 2**64},
    ["x"],
    {"k": "v"},
]


def _messages(rng: random.Random) -> list[object]:
    messages: list[object] = []
    for _ in range(rng.randint(0, 600)):  # past CHUNK_MESSAGES: several pieces
        message: dict[object, object] = {"role": rng.choice(["user", "function_call_output"]), "content": "x é 🙂"}
        if rng.random() < 0.01:
            message[rng.choice(["content", "extra"])] = rng.choice(ODD_VALUES)
        messages.append(message)
    if messages and rng.random() < 0.05:
        messages[rng.randrange(len(messages))] = rng.choice([["not", "a dict"], {1: "int key"}])
    return messages


def _checked(messages: list[object]) -> bytes | str:
    """What the writer gave before the shortcut: every message written as ``dumps`` writes it (or the error)."""
    try:
        return ("[" + ",".join(dumps(m) for m in messages) + "]\n").encode("utf-8", "surrogatepass")
    except (RubyJSONError, TypeError, AttributeError) as exc:
        return type(exc).__name__


def _written(messages: list[object]) -> bytes | str:
    try:
        return b"".join(dumps_messages_chunks(messages, b"\n"))  # type: ignore[arg-type]
    except (RubyJSONError, TypeError, AttributeError) as exc:
        return type(exc).__name__


@pytest.mark.parametrize("seed", range(6))
def test_text_only_prompts_are_written_as_the_checked_path_writes_them(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(40):
        messages = _messages(rng)
        if _text_only(messages):  # type: ignore[arg-type]
            assert all(_plain(m) and not has_nonfinite(m) for m in messages)
            assert _written(messages) == _checked(messages)
        elif all(type(m) is dict and all(type(k) is str for k in m) for m in messages):
            assert _written(messages) == _checked(messages)


def test_only_strings_to_strings_are_text_only() -> None:
    assert _text_only([])
    assert _text_only([{"role": "user", "content": "a"}, {}])
    for odd in ODD_VALUES:
        assert not _text_only([{"role": "user", "content": "a"}, {"role": "tool", "content": odd}])
    assert not _text_only([{"role": "user", 1: "a"}])  # type: ignore[dict-item]
    assert not _text_only([["role", "user"]])  # type: ignore[list-item]
    assert not rubyjson._text_only([{"role": "user", "content": type("S", (str,), {})("sub")}])
