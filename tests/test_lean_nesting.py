"""The tool facts' nesting check (JSON.parse's max_nesting of 100) walks only the large containers of a
tool message, a level at a time; it must answer as decoding the whole message and measuring it does."""

from __future__ import annotations

import json
import random

import msgspec
import pytest

from inspector.core.ruby import json as rubyjson
from inspector.core.scout import tool_facts
from inspector.core.scout.tool_facts import _CALL_IDENTITY, _IDENTITY, _may_nest_too_deep

BRACKETY = ["[bold]x[/bold]", '{"json": true}', "[[[[", "{{{{", "]]}}", "plain", "é[", "🙂{"]


def _reference(text: str) -> bool:
    """Decoded whole, as the check did before: a key given twice counts with its last value."""
    return rubyjson.too_deep(text, msgspec.json.decode(text.encode("utf-8")))


def _nested(depth: int, inner: object, rng: random.Random) -> object:
    value = inner
    for _ in range(depth):
        value = [value, "t" * rng.randint(0, 3)] if rng.random() < 0.5 else {"k": value, "s": "[" * rng.randint(0, 5)}
    return value


def _text(rng: random.Random, size: int) -> str:
    return " ".join(rng.choice(BRACKETY) for _ in range(size))


def _message(rng: random.Random) -> str:
    kind = rng.random()
    depth = rng.choice([0, 1, 50, 97, 98, 99, 100, 101, 150])
    inner = _text(rng, rng.choice([0, 10, 300]))
    main: object = _nested(depth, inner, rng) if rng.random() < 0.7 else inner
    if kind < 0.4:
        body = {"id": "c", "name": "bash", "content": main}
    elif kind < 0.8:
        body = {"name": "bash", "arguments": {"a": main, "b": _text(rng, 50)}, "id": "c"}
    else:  # the deep value beside the main one
        body = {"name": "bash", "content": _text(rng, 100), "extra": main, "id": "c"}
    text = json.dumps(body, ensure_ascii=rng.random() < 0.5)
    if rng.random() < 0.2:  # a key twice: the first value dropped, as the decoders read it
        head = json.dumps(_nested(rng.choice([99, 101, 120]), "x", rng))
        text = text[0] + f'"content": {head}, "arguments": {head}, ' + text[1:]
    return text


@pytest.mark.parametrize("seed", range(4))
def test_nesting_check_agrees_with_the_whole_reading(seed: int) -> None:
    rng = random.Random(seed)
    checked = deep = 0
    for _ in range(150):
        text = _message(rng)
        data: str | bytes = text if text.isascii() else text.encode("utf-8")
        shape = _IDENTITY.decode(data)
        forms: list[tuple[object, int]] = [((shape.content,), 2), ((shape.arguments,), 2)]  # an output, a call
        try:
            arguments = _CALL_IDENTITY.decode(data).arguments
        except msgspec.ValidationError:
            pass  # not an object: a call's arguments are kept raw
        else:
            forms.append((() if arguments is None else arguments.values(), 3))
        expected = _reference(text)
        for inner, level in forms:
            assert _may_nest_too_deep(data, inner, level) is expected, text[:200]
            checked += 1
            deep += expected
    assert deep and deep < checked  # both answers met


def test_the_walk_gives_up_on_text_repeated_at_every_level(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past its budget the walk decodes the message whole: the same answer, never a walk of every level."""
    walked = []
    real = tool_facts._nests_past

    def counting(raw: object, level: int, budget: list[int]) -> bool | None:
        walked.append(level)
        return real(raw, level, budget)

    monkeypatch.setattr(tool_facts, "_nests_past", counting)
    big = "[" * 20 + "x" * 20_000
    for depth in (99, 100):
        value: object = big
        for _ in range(depth):
            value = [value, big]
        text = json.dumps({"name": "n", "content": value})
        shape = _IDENTITY.decode(text)
        walked.clear()
        assert _may_nest_too_deep(text, (shape.content,), 2) is _reference(text) is (depth == 100)
        assert len(walked) < 10
