"""``ToolFacts.band_length``: the middle band's shortened length found by arithmetic (the marker's length fixed
by the string's, the kept head and tail escaped) equals the length of the text ``shortened`` writes, at every
tool position, under every scout-ai version's shortener; ``band_sums`` equals the old per-message sums; and the
shortened texts read after it are those of facts that never took the arithmetic."""

from __future__ import annotations

import json
import random

import agentgen
import pytest
from helpers import seeds

from inspector.core.model import Message
from inspector.core.ruby import json_bytes
from inspector.core.scout.shorten import ENVELOPE, LISTING, SIZED
from inspector.core.scout.tool_facts import FAIL, NOTHING_TO_SHORTEN, BandSums, ToolFacts

SHORTENERS = [LISTING, SIZED, ENVELOPE]

_PIECES = [
    "abcdefghij ",
    "0123456789",
    'say "hi"\\',  # quotes and backslashes: escaped in the JSON text
    "\n\t\r\x00\x01\x1f\x7f\x08\x0c",  # control characters: \n, \u0000 ...
    "é中文ß",  # non-ASCII, kept raw
    "😀🎉",  # astral: one character each
    "\u2028\u2029</script>",
    "/path/to/file.py",
]


def _text(rng: random.Random, size: int) -> str:
    out: list[str] = []
    length = 0
    while length < size:
        piece = rng.choice(_PIECES) if rng.random() < 0.7 else chr(rng.randint(32, 0x2FFF))
        out.append(piece)
        length += len(piece)
    return "".join(out)[:size]


# lengths about each version's limits (200, 400) and where the marker's digits change
_SIZES = [0, 5, 150, 199, 200, 201, 210, 399, 400, 401, 999, 1000, 1001, 3000, 9999, 10000, 10001, 100000]


def _size(rng: random.Random) -> int:
    return rng.choice(_SIZES) if rng.random() < 0.6 else rng.randint(0, 6000)


def _value(rng: random.Random) -> object:
    return rng.choice(
        [
            10**40,  # wide integers: written back exactly
            -(10**25) - 7,
            12345678901234567890123,
            1.5,
            1e-7,
            2.0**70,
            None,
            True,
            [1, "two", {"three": [3.25]}],
            {"nested": {"deep": "ünïcode"}},
            "plain",
        ]
    )


def _raw_only(rng: random.Random) -> str:
    """JSON texts the strict decoder refuses or reads in a way JSON.generate refuses: the fallbacks."""
    return rng.choice(
        [
            '{"name": "x", /* comment */ "content": "%s"}' % ("z" * 500),
            '{"name": "x", "content": "%s", "n": 1e400}' % ("z" * 500),  # Infinity: JSON.generate raises
            '{"name": "x", "content": "%s", "n": 1e400}' % ("z" * 50),  # ... unless nothing is cut
            '{"name": "x", "content": "lone \\ud800 surrogate %s"}' % ("q" * 500),
            '{"name": "x", "content": "' + "a" * 300 + "\\udc80" + "b" * 300 + '"}',
            '{"name": "x", "content": "' + "a" * 500 + '", "content": "' + "b" * 20 + '"}',  # the last counts
            '{"name": "x", "content": ' + json.dumps(list(range(300))) + "}",  # raises once shortened
            '{"name": "x", "content": ' + json.dumps(list(range(3))) + "}",
            '{"name": "x", "content": {"a": 1}}',
            '{"name": "x", "content": null}',
            '{"name": "x"}',
            "[1, 2]",
            "{not json",
            "null",
        ]
    )


def _output(rng: random.Random, broken: bool) -> str:
    pick = rng.random()
    if pick < 0.12:
        return _raw_only(rng)
    text = _text(rng, _size(rng))
    if broken and rng.random() < 0.4:  # invalid bytes (surrogateescape characters), at the head, tail or middle
        at = rng.choice([0, 3, len(text) // 2, max(len(text) - 2, 0)])
        text = text[:at] + chr(rng.randint(0xDC80, 0xDCFF)) + text[at:]
    body: dict[str, object] = {}
    keys = ["name", "id", "content", "extra", "status"]
    rng.shuffle(keys)  # the content key anywhere among the others
    for key in keys:
        if key == "content":
            body[key] = text
        elif key == "name":
            body[key] = rng.choice(["read_file", "sh", "名前"])
        elif key == "id":
            body[key] = rng.choice(["call_1", 7, 10**30])
        elif rng.random() < 0.5:
            body[key] = _value(rng)
    # non-ASCII escaped or raw (an invalid byte then: "\\udc80" escaped, or the character itself)
    return json.dumps(body, ensure_ascii=rng.random() < 0.3)


def _call(rng: random.Random) -> str:
    pick = rng.random()
    if pick < 0.1:
        return rng.choice(
            [
                '{"name": "f", "arguments": "text"}',
                '{"name": "f", "arguments": null}',
                '{"name": "f"}',
                '{"name": "f", "arguments": {"q": 1e400}}',
                '{"name": "f", "arguments": {"q": "%s"}, "n": 1e400}' % ("w" * 300),
                '{"name": "f", // comment\n "arguments": {"q": "a"}}',
            ]
        )
    arguments: dict[str, object] = {}
    for key in rng.sample(["path", "command", "n", "big", "text"], rng.randint(0, 4)):
        if key in ("n", "big"):
            arguments[key] = _value(rng)
        else:
            arguments[key] = _text(rng, rng.choice([3, 20, 190, 199, 200, 201, 450]))
    body = {"name": rng.choice(["read_file", "sh"]), "arguments": arguments, "id": rng.choice(["c1", 3])}
    if rng.random() < 0.1:
        body = {"function": {"name": "f"}, "arguments": arguments, "call_id": "c9"}  # an older shape
    return json.dumps(body, ensure_ascii=rng.random() < 0.3)


def random_chat(seed: int, broken: bool = False) -> list[Message]:
    rng = random.Random(seed)
    out = [Message({"role": "user", "content": "start"})]
    for _ in range(rng.randint(1, 60)):
        pick = rng.random()
        if pick < 0.4:
            out.append(Message({"role": "function_call", "content": _call(rng)}))
        elif pick < 0.85:
            out.append(Message({"role": "function_call_output", "content": _output(rng, broken)}))
        elif pick < 0.9:
            out.append(Message({"role": "function_call_output", "content": rng.choice([None, 5, ["x"]])}))
        else:
            out.append(Message({"role": rng.choice(["assistant", "user"]), "content": _text(rng, 40)}))
    return out


def old_band_sums(facts: ToolFacts) -> BandSums:
    """``band_sums`` as it was: every tool message shortened by ``shortened``, one position at a time."""
    size = len(facts.order)
    sums = [[[0] * (size + 1) for _ in range(2)] for _ in range(5)]
    raw, tools, short, cuts, extra = sums
    for p in range(size):
        for column in sums:
            column[0][p + 1], column[1][p + 1] = column[0][p], column[1][p]
        kind = facts.kinds[p]
        if kind == FAIL:
            continue
        raw[kind][p + 1] += facts.raw[p]
        tools[kind][p + 1] += 1
        length = facts.shortened(p)
        if length == NOTHING_TO_SHORTEN:
            extra[kind][p + 1] += facts.raw[p]
        else:
            short[kind][p + 1] += length
            cuts[kind][p + 1] += 1
    return BandSums(raw, tools, short, cuts, extra, sorted(facts.band_errors))


def _agree(messages: list[Message], shortener) -> int:
    """Check one chat under one shortener; returns how many lengths the arithmetic found without a text."""
    old = ToolFacts(messages, shortener)
    new = ToolFacts(messages, shortener)
    fresh = ToolFacts(messages, shortener)
    arithmetic = 0
    for p in range(len(new.order)):
        if new.kinds[p] == FAIL:
            continue
        expected = old.shortened(p)
        text = old.short_text.get(p)
        assert expected == (len(text) if text is not None else NOTHING_TO_SHORTEN)
        found = new.band_length(p)
        assert found == expected, (p, new.messages[new.order[p]].fields["content"][:80])
        if found != NOTHING_TO_SHORTEN and p not in new.short_text.texts:  # a length without its text
            arithmetic += 1
    assert new.band_errors == old.band_errors
    band = new.band_sums()
    assert band == old_band_sums(fresh)
    assert all(type(n) is int for column in band[:5] for kind in column for n in kind)
    assert new.band_sent() == fresh.band_sent()
    # the texts read afterwards (written then) are those of facts that never took the arithmetic
    for p in range(len(new.order)):
        if new.kinds[p] != FAIL:
            if new.short[p] != NOTHING_TO_SHORTEN:
                assert new.short_text[p] == fresh.shortened_text(p)
                assert p in new.short_text
            else:
                assert new.short_text.get(p) is None
                assert p not in new.short_text
            assert new.shortened_text(p) == fresh.shortened_text(p)
            assert new.shortened(p) == fresh.shortened(p)
    assert new.band_errors == fresh.band_errors
    return arithmetic


@pytest.mark.parametrize("seed", seeds(300, 60))
def test_lengths_equal_the_shortened_texts(seed):
    messages = random_chat(seed)
    for shortener in SHORTENERS:
        _agree(messages, shortener)


@pytest.mark.parametrize("seed", seeds(100, 20))
def test_lengths_with_invalid_bytes(seed, monkeypatch):
    monkeypatch.setattr(json_bytes, "used", True)  # as once the loader has read a file with invalid bytes
    messages = random_chat(1000 + seed, broken=True)
    for shortener in SHORTENERS:
        _agree(messages, shortener)


def test_the_arithmetic_is_taken():
    """Most plain outputs past the limit are measured without their text (else the test checks nothing)."""
    taken = 0
    for seed in range(20):
        taken += _agree(random_chat(seed), LISTING) + _agree(random_chat(seed), SIZED)
    assert taken > 100


@pytest.mark.parametrize("seed", range(12))
def test_agent_chats(seed):
    items = agentgen.messages(seed, calls=40, output_chars=3000)
    messages = [Message(dict(m)) for m in items]
    for shortener in SHORTENERS:
        _agree(messages, shortener)


@pytest.mark.parametrize("seed", range(10))
def test_prefix_and_extended_facts(seed):
    """Facts cut from a chat's (an earlier call) and grown from them: the same sums, the same texts."""
    messages = random_chat(500 + seed)
    rng = random.Random(seed)
    for shortener in SHORTENERS:
        whole = ToolFacts(messages, shortener)
        whole.band_sums()
        cut = rng.randint(0, len(messages))
        prefix = whole.prefix_facts(messages[:cut])
        assert prefix.band_sums() == old_band_sums(ToolFacts(messages[:cut], shortener))
        grown = ToolFacts(messages[:cut], shortener)
        grown.band_sums()
        extended = grown.extended_facts(messages)
        assert extended.band_sums() == old_band_sums(ToolFacts(messages, shortener))
        fresh = ToolFacts(messages, shortener)
        fresh_prefix = ToolFacts(messages[:cut], shortener)
        # a prefix measured before the facts it was cut from: its lengths shared with them, their texts read there
        early = ToolFacts(messages, shortener)
        early_prefix = early.prefix_facts(messages[:cut])
        assert early_prefix.band_sums() == old_band_sums(ToolFacts(messages[:cut], shortener))
        assert early.band_sums() == old_band_sums(ToolFacts(messages, shortener))
        checks = [(whole, fresh), (prefix, fresh_prefix), (extended, fresh), (grown, fresh_prefix)]
        for facts, reference in [*checks, (early_prefix, fresh_prefix), (early, fresh)]:
            for p in range(len(facts.order)):
                if facts.kinds[p] != FAIL:
                    assert facts.shortened_text(p) == reference.shortened_text(p)
                    assert facts.shortened(p) == reference.shortened(p)


def test_lengths_where_the_marker_grows():
    """Outputs of 10**k characters and about, where the marker gains a digit and the kept halves shrink."""
    messages = []
    for size in (99, 100, 101, 999, 1000, 1001, 9999, 10000, 10001, 99999, 100000, 100001, 10**6):
        for fill in ("a", "é", '"', "\x01", "😀"):
            text = (fill * size)[:size]
            messages.append(Message({"role": "function_call_output", "content": json.dumps({"content": text})}))
    for shortener in SHORTENERS:
        assert _agree(messages, shortener) > 0 or shortener is ENVELOPE


def test_lengths_about_the_limits_in_the_tightest_json():
    """Messages with as little JSON around the string as can be: the whole text just past the limit while
    the string is just within it, and the other way round."""
    messages = []
    for size in [*range(190, 212), *range(390, 412)]:
        for fill in ("a", "é", "\n"):
            text = fill * size
            for body in ({"content": text}, {"content": text, "x": 1}):
                content = json.dumps(body, separators=(",", ":"), ensure_ascii=False)
                messages.append(Message({"role": "function_call_output", "content": content}))
            content = json.dumps({"arguments": {"a": text}}, separators=(",", ":"), ensure_ascii=False)
            messages.append(Message({"role": "function_call", "content": content}))
    for shortener in SHORTENERS:
        _agree(messages, shortener)
