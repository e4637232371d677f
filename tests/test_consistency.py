"""Every answer agrees with the plan the list shows, under every scout-ai version and the strategies it runs.

The list (``explain``, ``history.at(N).prompt()``) is the reference; each other answer is checked against
it, exactly, on the bundled demo and on generated chats:

1. ``why --timeline`` (``text_timelines``): at every call, each occurrence's tier is the decision of the
   plan at that call, and "sent" is what that plan really sends (nothing when scout-ai raises; for a
   truncated message, whether the occurrence survives in the text the call sent);
2. ``why`` (``trace``), at the whole chat and at calls: the tier, the rule and visible/HIDDEN as explain's
   rows and the text sent say;
3. the sweep row at each setting's current value is the plan's totals, A/B compare of a setting with itself
   changes nothing, the audit's findings hold in the plan shown (and a repeated call's earlier result is
   judged in the prompt of the call that repeated it), and ``prepare --at N`` prints the plan's bytes;
4. a followed chat keeps its setup (version, strategies) through an append and a rewrite by rename;
5. the CLI: ``why --timeline --scout-version V`` spans agree with ``explain --at N`` and ``why --at N``.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
from functools import cache
from pathlib import Path

import callgen
import pytest
from cli_runner import run_cli
from helpers import seeds

from inspector.core.analysis.audit import audit
from inspector.core.analysis.compare import compare
from inspector.core.analysis.sweep import sweep
from inspector.core.analysis.trace import trace
from inspector.core.analysis.visibility import survives
from inspector.core.calls.history import ChatHistory
from inspector.core.calls.live import Follower
from inspector.core.calls.timeline import index_at, message_tiers, text_timelines, tiers_before_calls
from inspector.core.inspection import Inspection, open_inspection
from inspector.core.io.follow import Change
from inspector.core.io.printers import render
from inspector.core.policies import decision as d
from inspector.core.present.export import explain_bytes, prepared_bytes
from inspector.core.scout.prepare import Prompt
from inspector.core.scout.settings import SETTING_KEYS
from inspector.core.setup import Setup

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "inspector" / "demo" / "demo.chat"
FACT = "reconnect_backoff_ms: 7350"
ENVIRON = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}  # no threshold variables, no PROMPT_STRATEGY

# (version, --strategies): each version's default, plain shorten_tools, and the epoch strategy where it has it
SETUPS = [
    ("seed", None),
    ("seed", "shorten_tools"),
    ("1.2.6", None),
    ("1.2.6", "shorten_tools"),
    ("1.2.6", "shorten_tools_epoch"),
    ("2.1", None),
    ("2.1", "shorten_tools"),
    ("2.1", "shorten_tools_epoch"),
]
SETUP_IDS = [f"{v}-{s or 'default'}" for v, s in SETUPS]
SENT = (d.FULL, d.TRUNCATED)


def setup_of(version: str, strategies: str | None, overrides: dict[str, str] | None = None) -> Setup:
    return Setup.of(version=version, strategies=strategies, env={}, config_files=[], overrides=overrides)


def cli_setup(version: str, strategies: str | None, overrides: dict[str, str] | None = None) -> list[str]:
    """The command-line options that give ``setup_of(version, strategies, overrides)``."""
    args = ["--scout-version", version, "--no-scout-config"]
    if strategies is not None:
        args += ["--strategies", strategies]
    for key, value in (overrides or {}).items():
        args += ["--set", f"{key}={value}"]
    return args


class Plans:
    """The reference: each call's plan, made once (``Inspection.prompt`` plans anew at every ask)."""

    def __init__(self, history: ChatHistory):
        self.history = history
        self._prompts: dict[int, Prompt] = {}

    def at(self, number: int) -> Prompt:
        found = self._prompts.get(number)
        if found is None:
            found = self._prompts[number] = self.history.at(number).prompt()
        return found

    def sent(self, number: int, index: int, spot) -> tuple[d.Tier | str, bool]:
        """The tier of whole-chat message ``index`` at call ``number`` and whether ``spot`` of it was sent."""
        at = index_at(self.history, number, index)
        if at is None:
            return d.CONSUMED, False
        prompt = self.at(number)
        tier = prompt.decision(at).tier
        content = self.history.at(number).chat.messages[at].fields.get("content")
        if prompt.error is not None or tier not in SENT:
            return tier, False
        return tier, spot is None or survives(spot, content, prompt.visible_content(at))


# -- texts to follow: rare pieces of the chat's messages, from their head, middle and tail --------------------


def texts_of(inspection: Inspection, count: int, seed: int) -> list[str]:
    """Up to ``count`` pieces of message text found in at most two messages (a piece in every message
    would make each check a walk over the whole chat)."""
    contents = [m.fields.get("content") for m in inspection.chat.messages]
    contents = [c for c in contents if isinstance(c, str)]
    rng = random.Random(seed)
    found: list[str] = []
    older = contents[: max(1, len(contents) * 3 // 4)]  # older messages: cut and dropped at later calls
    for content in rng.sample(older, len(older)):
        if len(found) >= count:
            break
        if len(content) < 16:
            continue
        where = rng.choice((0.01, 0.5, 0.98))
        start = min(int(len(content) * where), len(content) - 9)
        piece = content[start : start + 8]
        if piece.strip() and piece not in found and sum(piece in c for c in contents) <= 2:
            found.append(piece)
    return found


# -- 1. the timeline against each call's plan ----------------------------------------------------------------


def check_timelines(history: ChatHistory, texts: list[str], plans: Plans) -> int:
    """Every occurrence's per-call tier and "sent" equal the plan at that call; returns the cells checked."""
    checked = 0
    for text in texts:
        occurrences, lines = text_timelines(history, text)
        assert occurrences, text
        for k, (o, line) in enumerate(zip(occurrences, lines)):
            assert o.message is not None
            assert line.first == history.first_call_after(o.message)
            if line.first is None:
                assert line.tiers == []
                continue
            assert len(line.tiers) == len(line.visible) == len(history) - line.first + 1
            got = list(zip(line.tiers, line.visible))
            want = [plans.sent(number, o.message, o.spot) for number in range(line.first, len(history) + 1)]
            assert got == want, (text, o.message, [n for n, (a, b) in enumerate(zip(got, want), line.first) if a != b])
            checked += len(got)
            if k:
                continue
            # the message's own timeline (the app's strip): the same tiers, "sent" whenever the call sends it
            own = message_tiers(history, o.message)
            assert own.tiers == line.tiers
            want_message = [plans.sent(number, o.message, None)[1] for number in range(line.first, len(history) + 1)]
            assert own.visible == want_message, (text, o.message)
    return checked


# -- 2. why at the whole chat and at a call against explain's rows -------------------------------------------


def check_trace(inspection: Inspection, prompt: Prompt, texts: list[str]) -> None:
    report = json.loads(explain_bytes(inspection, prompt, "json"))
    rows = {row["index"]: row for row in report["rows"]}
    raises = "error" in report["summary"]
    assert raises == (prompt.error is not None)
    for text in texts:
        result = trace(inspection, text, prompt=prompt)
        for o in result.occurrences:
            row = rows[o.row]
            assert (str(o.tier), str(o.reason)) == (row["tier"], row["reason"]), (text, o.row)
            assert row.get("message") == o.message, (text, o.row)
            if o.message is None:
                assert not o.visible
                continue
            content = inspection.chat.messages[o.message].fields.get("content")
            shown = not raises and row["tier"] in SENT and survives(o.spot, content, prompt.visible_content(o.message))
            assert o.visible == shown, (text, o.row, row["tier"])


# -- 3. sweep, compare, audit, prepare against the plan ------------------------------------------------------


def check_analyses(inspection: Inspection, prompt: Prompt) -> None:
    totals = prompt.totals()
    counts = prompt.tier_counts()
    error = prompt.error.describe() if prompt.error is not None else None
    for key in SETTING_KEYS:
        (row,) = sweep(inspection, key, [inspection.thresholds.setting(key)])
        assert (row.messages, row.truncated, row.dropped, row.chars, row.error) == (
            totals.visible_messages,
            counts[d.TRUNCATED],
            counts[d.DROPPED],
            totals.chars_after,
            error,
        ), key
    same = compare(inspection, inspection.thresholds, inspection.thresholds)
    assert same.changes == []
    assert same.totals_a == same.totals_b == totals
    for finding in audit(inspection):
        tiers = [prompt.tier_of(i) if i is not None else d.CONSUMED for i in finding.messages]
        if finding.kind == "call_without_output":
            assert prompt.error is None and tiers[0] in SENT and tiers[1] not in SENT, (finding, tiers)
        elif finding.kind == "output_without_call":
            assert prompt.error is None and tiers[0] not in SENT and tiers[1] in SENT, (finding, tiers)
        elif finding.kind == "cut_error":
            assert prompt.error is None and tiers == [d.TRUNCATED], (finding, tiers)


def check_repeated_calls(history: ChatHistory, plans: Plans) -> int:
    """A repeated call's earlier result is judged in the prompt the repeating call was sent."""
    checked = 0
    whole = history.whole
    for finding in audit(whole, sent_before=tiers_before_calls(history)):
        if finding.kind != "repeated_call" or "before the repeat" not in finding.message:
            continue
        earlier, answer, call = finding.messages
        assert earlier is not None and answer is not None and call is not None
        number = history.call_of(whole.chat.messages[call])
        if number is None:
            continue  # a response the call index does not count (a meta record not right before it): no call
        at = index_at(history, number, answer)
        tier = plans.at(number).decision(at).tier if at is not None else d.CONSUMED
        assert f"was {tier} in the prompt it was sent before the repeat" in finding.message, (
            "the audit's repeated_call judges the earlier result in a prompt other than the one call "
            f"{number} was sent (history.at({number}).prompt() says {tier}): {finding.message}"
        )
        checked += 1
    return checked


def check_prepare_at(path: Path, history: ChatHistory, plans: Plans, numbers, options: list[str]) -> None:
    for number in numbers:
        prompt = plans.at(number)
        r = run_cli("prepare", path, "--at", number, "--format", "json", *options, environ=ENVIRON, text=False)
        if prompt.error is not None:  # nothing is sent: prepare says why and prints nothing
            assert (r.returncode, r.stdout) == (3, b""), number
            continue
        assert (r.returncode, r.stdout) == (0, prepared_bytes(prompt, "json")), (number, r.stderr)


# -- the walks -----------------------------------------------------------------------------------------------


def sample_calls(history: ChatHistory, count: int) -> list[int]:
    total = len(history)
    if total <= count:
        return list(range(1, total + 1))
    return sorted({1, total, *(round(1 + k * (total - 1) / (count - 1)) for k in range(count))})


def walk(path: Path, setup: Setup, options: list[str], texts: int, calls: int, seed: int) -> dict[str, int]:
    history = ChatHistory(path, setup)
    assert history.whole.version.name == setup.version
    plans = Plans(history)
    chosen = texts_of(history.whole, texts, seed)
    if path == DEMO:
        chosen = [FACT, *chosen]
    cells = check_timelines(history, chosen, plans)
    whole = history.whole
    check_trace(whole, whole.prompt(), chosen)
    check_analyses(whole, whole.prompt())
    numbers = sample_calls(history, calls)
    for number in numbers:
        check_trace(history.at(number), plans.at(number), chosen)
        check_analyses(history.at(number), plans.at(number))
    repeats = check_repeated_calls(history, plans)
    check_prepare_at(path, history, plans, numbers[:: max(1, len(numbers) // 3)], options)
    return {"cells": cells, "repeats": repeats}


@pytest.mark.parametrize(("version", "strategies"), SETUPS, ids=SETUP_IDS)
def test_the_demo_agrees_with_its_plans(version, strategies):
    found = walk(DEMO, setup_of(version, strategies), cli_setup(version, strategies), texts=1, calls=3, seed=1)
    assert found["cells"] >= 59  # the fact alone is followed over calls 2-60


def generated(tmp_path: Path, seed: int) -> tuple[Path, dict[str, str]]:
    """A generated chat (scout chats, with directives for every third seed; a JSON array for every fourth)
    and thresholds low enough that every strategy cuts and drops in it."""
    if seed % 4 == 3:
        path = tmp_path / f"gen{seed}.json"
        path.write_text(callgen.json_chat(500 + seed, messages=70), encoding="utf-8")
    else:
        path = tmp_path / f"gen{seed}.chat"
        path.write_text(callgen.scout_chat(500 + seed, messages=70, directives=seed % 3 == 2), encoding="utf-8")
    rng = random.Random(seed)
    overrides = {
        "full_tool_outputs": str(rng.randint(0, 2)),
        "max_tool_outputs": str(rng.randint(3, 8)),
        "max_tool_chars": str(rng.choice((0, 300, 2000))),
        "epoch_tool_call_threshold": str(rng.randint(2, 6)),
        "epoch_full_tool_calls": str(rng.randint(0, 2)),
        "epoch_compacted_tool_calls": str(rng.randint(1, 4)),
        "epoch_size": str(rng.randint(2, 5)),
    }
    return path, overrides


@pytest.mark.parametrize("seed", seeds(24, quick=2))
def test_generated_chats_agree_with_their_plans(tmp_path, seed):
    path, overrides = generated(tmp_path, seed)
    setups = SETUPS if seed >= 2 else [SETUPS[seed * 3 % len(SETUPS)], SETUPS[(seed * 3 + 5) % len(SETUPS)]]
    for version, strategies in setups:
        walk(
            path,
            setup_of(version, strategies, overrides),
            cli_setup(version, strategies, overrides),
            texts=4 if seed >= 2 else 2,
            calls=6 if seed >= 2 else 3,
            seed=seed,
        )


@pytest.mark.slow
@pytest.mark.parametrize(("version", "strategies"), SETUPS, ids=SETUP_IDS)
def test_the_demo_agrees_with_its_plans_thoroughly(version, strategies):
    walk(DEMO, setup_of(version, strategies), cli_setup(version, strategies), texts=15, calls=15, seed=7)


# -- 4. a followed chat keeps its setup ----------------------------------------------------------------------


def plan_json(history: ChatHistory) -> str:
    return render("json", history.whole.prompt().messages())


def fresh(path: Path, setup: Setup) -> ChatHistory:
    return ChatHistory(path, setup)


@cache
def follow_text() -> bytes:
    return callgen.scout_chat(41, messages=70).encode()


def _append(path: Path, data: bytes) -> None:
    with open(path, "ab") as handle:
        handle.write(data)


@pytest.mark.parametrize("strategies", [None, "shorten_tools_epoch"])
def test_a_followed_chat_keeps_its_version_and_strategies(tmp_path, strategies):
    text = follow_text()
    ends = [i + 1 for i, b in enumerate(text) if b == 10]
    half = next(e for e in ends if e > len(text) // 2)
    path = tmp_path / "live.chat"
    path.write_bytes(text[:half])
    overrides = {"epoch_tool_call_threshold": "3", "epoch_size": "2", "epoch_full_tool_calls": "1"}
    setup = Setup.of(version="2.1", env={}, config_files=[], strategies=strategies, overrides=overrides)
    follower = Follower(ChatHistory(path, setup))
    _append(path, text[half:])
    update = follower.poll()
    assert update is not None and update.change is Change.APPENDED and update.history is follower.history
    history = follower.history
    assert history.setup == setup and history.whole.version.name == "2.1"
    assert history.whole.strategy_names() == fresh(path, setup).whole.strategy_names()
    assert plan_json(history) == plan_json(fresh(path, setup))
    assert plan_json(history) == render("json", open_inspection(path, setup).prompt().messages())
    assert render("json", history.at(len(history)).prompt().messages()) == render(
        "json", fresh(path, setup).at(len(history)).prompt().messages()
    )
    # a rewrite by rename: read again, under the same setup
    new = tmp_path / "live.chat.tmp"
    new.write_bytes(text[: ends[len(ends) * 3 // 4]])
    os.replace(new, path)
    update = follower.poll()
    assert update is not None and update.change is Change.REWRITTEN
    history = follower.history
    assert history.setup == setup and history.whole.version.name == "2.1"
    assert plan_json(history) == plan_json(fresh(path, setup))
    assert plan_json(history) == render("json", open_inspection(path, setup).prompt().messages())
    # and the plan is 2.1's, not what the file would plan under the version inferred from its strategies
    assert plan_json(history) != plan_json(fresh(path, Setup.of(env={}, config_files=[], overrides=overrides)))


def test_a_switched_history_keeps_its_version_through_an_append(tmp_path):
    text = follow_text()
    ends = [i + 1 for i, b in enumerate(text) if b == 10]
    half = next(e for e in ends if e > len(text) // 2)
    path = tmp_path / "live.chat"
    path.write_bytes(text[:half])
    overrides = {"epoch_tool_call_threshold": "3", "epoch_size": "2", "epoch_full_tool_calls": "1"}
    base = Setup.of(version="2.1", env={}, config_files=[], overrides=overrides)
    switched = ChatHistory(path, base).with_setup(base.with_version("1.2.6"))
    assert switched.whole.version.name == "1.2.6"
    follower = Follower(switched)
    _append(path, text[half:])
    update = follower.poll()
    assert update is not None and update.change is Change.APPENDED
    history = follower.history
    assert history.whole.version.name == "1.2.6" and history.setup == base.with_version("1.2.6")
    again = fresh(path, base.with_version("1.2.6"))
    assert plan_json(history) == plan_json(again)
    for number in (1, len(history) // 2, len(history)):
        assert history.at(number).version.name == "1.2.6"
        assert render("json", history.at(number).prompt().messages()) == render(
            "json", again.at(number).prompt().messages()
        )
    assert plan_json(history) != plan_json(fresh(path, base))  # 1.2.6 and 2.1 plan this chat differently


# -- 5. the CLI: why --timeline against explain --at and why --at --------------------------------------------

DEMO_CALLS = (2, 29, 30, 40, 47, 58, 60)
SPAN = re.compile(r"^    calls? (\d+)(?:-(\d+))?: (\w+), (sent|cut out|not sent)$")


def cli(*args: object) -> tuple[int, str]:
    r = run_cli(*args, environ=ENVIRON)
    assert r.returncode in (0, 3), r.stderr
    return r.returncode, r.stdout


CLI_SETUPS = [
    *((v, None) for v in ("seed", "1.2.6", "2.1")),
    *(pytest.param(v, s, marks=pytest.mark.slow) for v, s in SETUPS if s is not None),
]


@pytest.mark.parametrize(("version", "strategies"), CLI_SETUPS)
def test_the_cli_timeline_agrees_with_explain_at_each_call(tmp_path, version, strategies):
    shutil.copy(DEMO, tmp_path / "demo.chat")
    chat = tmp_path / "demo.chat"
    options = cli_setup(version, strategies)
    _, out = cli("why", chat, FACT, "--timeline", *options)
    lines = out.splitlines()
    header = [k for k, line in enumerate(lines) if line.startswith("#")]
    assert len(header) == 1, out
    row = int(lines[header[0]].split()[0][1:])
    spans = {}
    for line in lines[header[0] + 1 :]:
        m = SPAN.match(line)
        if m:
            first, last = int(m[1]), int(m[2] or m[1])
            for number in range(first, last + 1):
                spans[number] = (m[3], m[4])
    assert sorted(spans) == list(range(2, 61)), out
    for number in DEMO_CALLS:
        _, report = cli("explain", chat, "--at", number, "--format", "json", *options)
        (explained,) = [r for r in json.loads(report)["rows"] if r["index"] == row]
        _, traced = cli("why", chat, FACT, "--at", number, "--format", "json", *options)
        (occurrence,) = json.loads(traced)
        tier, sent = spans[number]
        assert tier == explained["tier"] == occurrence["tier"], (number, spans[number], explained["tier"])
        want = "sent" if occurrence["visible"] else "cut out" if tier == d.TRUNCATED else "not sent"
        assert sent == want, (number, spans[number], occurrence["visible"])


# -- the two bugs these checks found, on hand-made chats -----------------------------------------------------


def _write(path: Path, items: list[tuple[str, object]]) -> Path:
    path.write_text(
        "\n".join(
            f"{role}:\n\n{json.dumps(content) if isinstance(content, dict) else content}\n" for role, content in items
        ),
        encoding="utf-8",
    )
    return path


def test_a_call_at_which_scout_ai_raises_sends_nothing(tmp_path):
    """An older output that scout-ai cannot shorten makes the call raise after the newer message was decided
    full: the timeline said "full, sent" where why --at and explain --at say nothing is sent. Every view says
    undecided (nothing is sent), and why says what it had been decided."""
    path = _write(
        tmp_path / "raise.chat",
        [
            ("user", "go"),
            ("function_call", {"name": "ls", "arguments": {"dir": "/x"}, "id": "c1"}),
            ("function_call_output", {"name": "ls", "content": 5, "id": "c1"}),  # not a string: cannot be shortened
            ("assistant", "ok"),
            ("function_call", {"name": "ls", "arguments": {"dir": "/tmp"}, "id": "c2"}),
            ("function_call_output", {"name": "ls", "content": "alpha beta gamma", "id": "c2"}),
            ("assistant", "done"),
        ],
    )
    setup = Setup.of(env={}, config_files=[], overrides={"max_tool_chars": "0", "full_tool_outputs": "0"})
    history = ChatHistory(path, setup)
    (occurrence,), (line,) = text_timelines(history, "alpha")
    assert history.at(3).prompt().error is not None
    assert (line.first, line.tiers, line.visible) == (3, [d.UNDECIDED], [False])
    assert message_tiers(history, occurrence.message).visible == [False]
    (traced,) = trace(history.at(3), "alpha").occurrences
    assert (traced.tier, traced.visible) == (d.UNDECIDED, False)
    assert traced.why == (
        "undecided: decided full (nothing to shorten) before scout-ai raised on message 2, so nothing is sent"
    )


def test_a_cut_under_the_epoch_strategy_is_read_off_what_the_call_sent(tmp_path):
    """shorten_tools_epoch cuts an output whose content is not a string (shorten_tools leaves it whole), so
    the timeline must test each call's own text: it said the tail "247, 248" was cut out, but it is sent."""
    items: list[tuple[str, object]] = [("user", "go")]
    items.append(("function_call", {"name": "seq", "arguments": {}, "id": "c0"}))
    items.append(("function_call_output", {"name": "seq", "content": list(range(250)), "id": "c0"}))
    for i in range(1, 6):
        items.append(("function_call", {"name": "ls", "arguments": {"n": i}, "id": f"c{i}"}))
        items.append(("function_call_output", {"name": "ls", "content": f"out {i}", "id": f"c{i}"}))
    items.append(("assistant", "done"))
    path = _write(tmp_path / "epoch.chat", items)
    overrides = {
        "epoch_tool_call_threshold": "3",
        "epoch_full_tool_calls": "1",
        "epoch_size": "3",
        "epoch_compacted_tool_calls": "2",
    }
    history = ChatHistory(path, setup_of("1.2.6", None, overrides))
    plans = Plans(history)
    for text, kept in (("247, 248", True), ("120, 121", False)):
        (occurrence,), (line,) = text_timelines(history, text)
        assert [s.as_dict() for s in line.spans()] == [
            {"from": 2, "to": 4, "tier": d.FULL, "visible": True},
            {"from": 5, "to": 7, "tier": d.TRUNCATED, "visible": kept},
        ]
        assert list(zip(line.tiers, line.visible)) == [
            plans.sent(n, occurrence.message, occurrence.spot) for n in range(2, 8)
        ]


def test_a_repeated_call_is_judged_in_the_prompt_its_call_was_sent(tmp_path):
    """The prompt "before the repeat" is the one call 5 was sent (``history.at(5)``), under its own chat's
    config lines: those written after the repeat do not apply to it (they did once: whole-chat thresholds)."""
    items: list[tuple[str, object]] = [("user", "go")]
    items.append(("function_call", {"name": "read", "arguments": {"p": "a"}, "id": "c1"}))
    items.append(("function_call_output", {"name": "read", "content": "x" * 3000, "id": "c1"}))
    for i in range(2, 5):
        items.append(("function_call", {"name": "ls", "arguments": {"n": i}, "id": f"c{i}"}))
        items.append(("function_call_output", {"name": "ls", "content": "y" * 50, "id": f"c{i}"}))
    items.append(("function_call", {"name": "read", "arguments": {"p": "a"}, "id": "c9"}))
    items.append(("function_call_output", {"name": "read", "content": "x" * 3000, "id": "c9"}))
    items += [("config", "full_tool_outputs 0 prompt"), ("config", "max_tool_chars 10 prompt"), ("assistant", "done")]
    path = _write(tmp_path / "repeat.chat", items)
    history = ChatHistory(path, Setup.of(env={}, config_files=[]))
    assert len(history) == 6 and history.at(5).thresholds.as_tuple() != history.whole.thresholds.as_tuple()
    check_repeated_calls(history, Plans(history))
    # call 5 was sent message #2 in full: no finding; under the whole chat's thresholds it would be one
    exact = [f for f in audit(history.whole, sent_before=tiers_before_calls(history)) if f.kind == "repeated_call"]
    assert exact == []
    assert [f.kind for f in audit(history.whole)].count("repeated_call") == 1
    r = run_cli("explain", path, "--audit", "--format", "json", environ=ENVIRON)
    assert r.returncode == 0 and [f["kind"] for f in json.loads(r.stdout)["audit"]].count("repeated_call") == 0
