"""The epoch settings' fixes from the closed form equal the brute-force search (one real plan per value).

Random small chats with what makes the epoch strategies interesting: repeated calls (protected, and
growing 2.x's epochs), string and array arguments, non-string outputs, malformed JSON, numbers that read
as Infinity and lone surrogates (compaction raises on those), `step` keys, messages without a role.
"""

import json
import os
import random

import pytest
from helpers import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.core.analysis import fixes as fixes_module
from inspector.core.analysis.epoch_model import increment_windows
from inspector.core.analysis.fixes import find_fixes
from inspector.core.analysis.replan import Replanner
from inspector.core.analysis.trace import trace
from inspector.core.inspection import Inspection
from inspector.core.model import Chat, Message
from inspector.core.scout.settings import resolve
from inspector.core.scout.strategies import shorten_tools_epoch_increment as increment
from inspector.core.setup import Setup

# EPOCH_FIX_EXAMPLES raises it to check many more chats by hand
EXAMPLES = int(os.environ.get("EPOCH_FIX_EXAMPLES", examples(40, quick=10)))
WORDS = ["alpha", "beta", "gamma", "delta", "épsilon", "中文", "😀", 'q"uote', "back\\slash", "new\nline"]


def text(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def chat(seed: int, pairs: int) -> list[dict]:
    rng = random.Random(seed)
    items: list[dict] = [{"role": "user", "content": "go"}]
    earlier: list[tuple[str, object]] = []
    for n in range(pairs):
        ident = f"c{n}"
        if earlier and rng.random() < 0.25:
            name, arguments = rng.choice(earlier)  # a repeat: same name and arguments, new id
        else:
            name = rng.choice(["ls", "read", "grep"])
            arguments = {"q": f"M{n:03d} " + text(rng, rng.choice([1, 5, 60]))}
            if rng.random() < 0.05:
                arguments = rng.choice(["a string", [1, 2], [], None, 7])
            earlier.append((name, arguments))
        items.append(
            {"role": "function_call", "content": json.dumps({"name": name, "arguments": arguments, "id": ident})}
        )
        body: dict = {"name": name, "content": f"OUT{n:03d} " + text(rng, rng.choice([2, 30, 120])), "id": ident}
        if rng.random() < 0.2:
            body["step"] = rng.choice(["Agent/job_1", 7, None, {"j": 1}])
        if rng.random() < 0.06:
            body["content"] = rng.choice([{"k": "v"}, [1, 2], 12, None])
        content = json.dumps(body, ensure_ascii=rng.random() < 0.3)
        roll = rng.random()
        if roll < 0.012:
            content = content[:-1] + ', "n": 1e400}'  # reads as Infinity: writing it back raises
        elif roll < 0.024:
            content = content[:-1] + ', "s": "\\ud800"}'  # a lone surrogate: writing it back raises
        elif roll < 0.06:
            content = rng.choice(["not json", "[1,2]", '"str"', "null"])
        items.append({"role": "function_call_output", "content": content})
        if rng.random() < 0.08:
            items.append({"role": rng.choice(["user", "assistant"]), "content": f"TALK{n:03d} " + text(rng, 3)})
    if rng.random() < 0.04:
        items.insert(rng.randrange(len(items)), {"content": "a message without a role"})
    return items


epoch_settings = st.fixed_dictionaries(
    {
        "epoch_tool_call_threshold": st.integers(-2, 10),
        "epoch_full_tool_calls": st.integers(-2, 12),
        "epoch_compacted_tool_calls": st.integers(-3, 20),
        "epoch_size": st.integers(-1, 12),
        "epoch_increment_epochs_per_increase": st.integers(-1, 4),
        "epoch_increment_size_increase": st.integers(-2, 6),
        "epoch_increment_repeat_increase": st.integers(0, 6),
        "epoch_increment_max_size": st.integers(0, 25),
        "epoch_increment_compacted_growth_ratio": st.sampled_from([0.0, 0.5, 1.5, 2.0]),
        "epoch_increment_max_compacted_tool_calls": st.integers(0, 40),
    }
)


def brute_force(ins, occurrence):
    """The same search with one real plan per value and no cap: the reference."""
    with pytest.MonkeyPatch.context() as m:
        m.setattr(fixes_module, "_window_outcome", lambda *a: None)
        m.setattr(fixes_module, "EPOCH_SPAN", 10**9)
        return find_fixes(ins, occurrence, Replanner(ins))


@settings(max_examples=EXAMPLES, deadline=None)
@given(
    seed=st.integers(0, 100_000),
    pairs=st.integers(4, 30),
    values=epoch_settings,
    strategy=st.sampled_from(["shorten_tools_epoch", "shorten_tools_epoch_increment"]),
    version=st.sampled_from([None, "1.2.6", "2.1"]),
)
def test_epoch_fixes_equal_brute_force(seed, pairs, values, strategy, version):
    if strategy == increment.NAME and version == "1.2.6":
        version = "2.1"  # 1.2.6 has no such strategy (scout-ai raises: nothing to search)
    items = chat(seed, pairs)
    thresholds = resolve({k: str(v) for k, v in values.items()}, config_files=[], env={})
    ins = Inspection(Chat([Message(dict(m)) for m in items]), thresholds, Setup(strategies=strategy, version=version))
    rng = random.Random(seed)
    needles = [f"OUT{n:03d}" for n in range(pairs)] + [f"M{n:03d}" for n in range(pairs)]
    rng.shuffle(needles)
    for needle in needles[:6]:
        for o in trace(ins, needle).occurrences:
            if o.visible or o.message is None:
                continue
            got = find_fixes(ins, o, Replanner(ins))
            want = brute_force(ins, o)
            assert [f.as_dict() for f in got.fixes] == [f.as_dict() for f in want.fixes], (needle, o.message)
            assert got.blocked == want.blocked and got.notes == want.notes


@settings(max_examples=EXAMPLES * 8, deadline=None)
@given(
    total=st.integers(0, 400),
    repeated=st.lists(st.integers(1, 400), max_size=12).map(sorted),
    values=epoch_settings,
)
def test_increment_windows_equal_the_schedule(total, repeated, values):
    s = increment.IncrementSettings.from_values(values)
    threshold, full, base = s.clamped()[:3]
    if s.size <= 0 or total <= threshold or (full == 0 and base == 0):
        assert increment_windows(total, repeated, s) is None
        return
    schedule = increment.schedule(total, repeated, s)
    assert increment_windows(total, repeated, s) == (schedule.keep_full, schedule.truncate_to)


@settings(max_examples=EXAMPLES * 5, deadline=None)
@given(
    values=st.dictionaries(
        st.sampled_from(["name", "id", "content", "n", "args"]),
        st.recursive(
            st.one_of(st.text(max_size=5), st.integers(), st.floats(allow_nan=False), st.sampled_from(["1e400"])),
            lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
            max_leaves=6,
        ),
        max_size=4,
    ),
    huge=st.sampled_from(["", ', "x": 1e400', ', "x": [2, -3e999]', ', "x": "1e400"']),
)
def test_the_infinity_check_reads_as_the_parse_does(values, huge):
    """_has_infinite: False only when the parsed message holds no number past a double's range."""
    from inspector.core.ruby import json as rubyjson
    from inspector.core.scout.strategies.windows import _finite
    from inspector.core.scout.tool_facts import _has_infinite

    text = json.dumps(values, ensure_ascii=False)
    text = text[:-1] + (huge if values else huge[2:]) + "}"
    if not _has_infinite(text):
        assert _finite(rubyjson.parse(text))
