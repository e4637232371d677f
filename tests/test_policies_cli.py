"""`--policy` on every command: exact outputs on the demo, the bad input each gets, and the round trip
of a chat through the Chat Completions shape the other frameworks take."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_runner import run_cli

from inspector.core.inspection import open_inspection
from inspector.core.io.formats import load_chat
from inspector.core.peers.wire import as_openai, conversation_of
from inspector.core.policies import decision as d
from inspector.core.setup import Setup
from inspector.demo import demo_chat_path

ROOT = Path(__file__).parents[1]
SAMPLES = ROOT / "sample_chats"
DEMO = str(demo_chat_path())
CLEAR = ("--policy", "langchain.clear_tool_uses", "--set", "trigger=3000")


def cli(*args: object):
    return run_cli(*args, cwd=ROOT, scout_config=False)


def test_explain_names_the_policy_and_its_rule_per_row():
    r = cli("explain", DEMO, *CLEAR, "--format", "json")
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert report["policy"] == {
        "name": "langchain.clear_tool_uses",
        "library": "langchain 1.5.2 ContextEditingMiddleware + ClearToolUsesEdit",
        "exact": True,
        "settings": {
            "trigger": "3000",
            "keep": "3",
            "clear_at_least": "0",
            "clear_tool_inputs": "false",
            "exclude_tools": "",
            "placeholder": "[cleared]",
        },
        "sources": {
            "trigger": "--set",
            "keep": "default",
            "clear_at_least": "default",
            "clear_tool_inputs": "default",
            "exclude_tools": "default",
            "placeholder": "default",
        },
        "summary": "trigger exceeded: 54,199 > 3,000 tokens: 50 tool result(s) cleared",
        "counted": 54199,
        "unit": "tokens",
        "findings": [],
    }
    row = report["rows"][4]
    assert (row["tier"], row["reason"]) == ("cleared", "policy_cleared")
    assert row["detail"] == (
        "trigger exceeded: 54,199 > 3,000 tokens; older than the 3 newest tool results; replaced by "
        "'[cleared]' (794 tokens as LangChain counts it)"
    )
    newest = [r for r in report["rows"] if r["role"] == "function_call_output"][-3:]
    assert {r["tier"] for r in newest} == {"full"}
    assert {r["detail"].rsplit(" (", 1)[0] for r in newest} == {"one of the 3 newest tool results (keep=3)"}
    text = cli("explain", DEMO, *CLEAR).stdout.splitlines()
    assert text[-1] == (
        "policy: langchain.clear_tool_uses (trigger=3000); langchain 1.5.2 ContextEditingMiddleware + "
        "ClearToolUsesEdit, exact: trigger exceeded: 54,199 > 3,000 tokens: 50 tool result(s) cleared"
    )


def test_unpaired_calls_and_outputs_are_noted_and_handled_as_the_library_does():
    orphan = ROOT / "tests" / "golden_peers" / "chats" / "orphan_tool.json"
    r = cli(
        "explain",
        orphan,
        "--policy",
        "langchain.clear_tool_uses",
        "--set",
        "trigger=10",
        "--set",
        "keep=0",
        "--format",
        "json",
    )
    report = json.loads(r.stdout)
    assert report["policy"]["findings"] == ["message 4: a tool output whose call ('call_99') is not before it"]
    # LangChain never clears a result that is not under its own AI message: the orphan stays as it is
    assert report["rows"][4]["tier"] == "full"
    assert report["rows"][4]["detail"].startswith("trigger exceeded: 631 > 10 tokens; the nearest AI message")
    text = cli("explain", orphan, "--policy", "langchain.clear_tool_uses", "--set", "trigger=10").stdout
    assert text.endswith(
        "policy note: message 4: a tool output whose call ('call_99') is not before it, "
        "handled as the library handles it\n"
    )


def test_the_anthropic_policy_says_it_is_approximate():
    r = cli("explain", DEMO, "--policy", "anthropic.clear_tool_uses", "--set", "trigger=3000")
    last = r.stdout.splitlines()[-1]
    assert last.startswith("policy: anthropic.clear_tool_uses (trigger=3000); Anthropic context editing")
    assert ", approximate: " in last and "[approximate: Anthropic does not publish" in last


def test_why_gives_each_numeric_settings_smallest_fix():
    r = cli("why", DEMO, "reconnect_backoff_ms", *CLEAR)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert "    HIDDEN: cleared (policy_cleared); found in content at 1,884-1,904" in lines
    assert (
        "      1. trigger >= 54,199 (now 3,000; set trigger=54199): shown, prompt 217,838 characters (+201,586)"
        in lines
    )
    assert "      2. keep >= 53 (now 3; set keep=53): shown, prompt 217,838 characters (+201,586)" in lines
    assert "    no value of clear_at_least alone shows it" in lines
    # the fixes are real: each value keeps the text, one less does not
    for key, value in (("trigger", 54199), ("keep", 53)):
        for v, seen in ((value, True), (value - 1, False)):
            shown = cli("why", DEMO, "reconnect_backoff_ms", *CLEAR, "--set", f"{key}={v}").stdout.splitlines()[0]
            assert shown.endswith("the model sees every one." if seen else "the model sees none of them."), (key, v)


def test_sweep_and_diff_under_a_policy():
    r = cli("sweep", DEMO, *CLEAR, "--vary", "keep=0:60:30")
    assert r.stdout.splitlines()[:4] == [
        "keep  messages sent  truncated  dropped  cleared  characters  ~tokens",
        "   0            116          0        0       53       8,680    2,170",
        "  30            116          0        0       23     121,070   30,268",
        "  60            116          0        0        0     217,838   54,460",
    ]
    r = cli("diff", DEMO, "--a", "policy=scout", "--b", "policy=langchain.clear_tool_uses,trigger=3000")
    assert r.stdout.splitlines()[:3] == [
        "A: shorten_tools (scout-ai seed)  ->  90 messages sent (11 truncated, 26 dropped), 105,561 characters",
        "B: langchain.clear_tool_uses (trigger=3000)  ->  116 messages sent (0 truncated, 0 dropped, 50 cleared), "
        "16,252 characters",
        "63 message(s) differ; B sends -89,309 characters",
    ]
    listed = cli("diff", DEMO, "--b", "policy=langchain.clear_tool_uses,trigger=3000,exclude_tools=read_file,grep_logs")
    assert "B: langchain.clear_tool_uses (trigger=3000, exclude_tools=read_file,grep_logs)" in listed.stdout


def test_calls_and_at_under_a_stateful_policy():
    r = cli("calls", DEMO, "--policy", "inspect.compaction_edit", "--set", "threshold=8000", "--format", "json")
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)
    assert len(rows) == 60 and all("cleared" in row for row in rows)
    at = cli(
        "prepare",
        DEMO,
        "--policy",
        "inspect.compaction_edit",
        "--set",
        "threshold=8000",
        "--at",
        "20",
        "--format",
        "json",
    )
    sent = json.loads(at.stdout)
    assert len(sent) == rows[19]["messages"]
    table = cli("calls", DEMO, "--policy", "inspect.compaction_edit", "--set", "threshold=8000").stdout.splitlines()
    assert table[0].endswith(
        "; policy: inspect.compaction_edit (threshold=8000) (inspect-ai 0.3.285 CompactionEdit under compaction())"
    )
    assert table[1].split() == [
        "call", "index", "line", "messages", "chars", "tokens", "reported",
        "full", "truncated", "dropped", "cleared", "error", "undecided", "tool",
    ]  # fmt: skip


def test_the_timeline_follows_the_policy_at_every_call():
    r = cli(
        "why",
        DEMO,
        "reconnect_backoff_ms",
        "--timeline",
        "--policy",
        "inspect.compaction_edit",
        "--set",
        "threshold=20000",
    )
    lines = r.stdout.splitlines()
    assert "    calls 2-17: full, sent" in lines and "    calls 18-60: cleared, not sent" in lines
    # each span agrees with the plan at that call
    for number, tier in ((17, d.FULL), (18, d.CLEARED), (60, d.CLEARED)):
        at = cli(
            "explain",
            DEMO,
            "--policy",
            "inspect.compaction_edit",
            "--set",
            "threshold=20000",
            "--at",
            number,
            "--format",
            "json",
        )
        assert json.loads(at.stdout)["rows"][4]["tier"] == tier


def test_openai_export_of_the_trimmer_is_the_sdks_preview():
    r = cli("prepare", DEMO, "--policy", "openai.tool_output_trimmer", "--set", "recent_turns=1", "--format", "openai")
    sent = json.loads(r.stdout)
    original = conversation_of(load_chat(DEMO, None)).items
    first_output = next(i for i in original if i.role == "tool")
    expected = (
        f"[Trimmed: read_file output \u2014 {len(first_output.content)} chars \u2192 200 char preview]\n"
        f"{first_output.content[:200]}..."
    )
    assert next(m for m in sent if m["role"] == "tool")["content"] == expected
    assert next(m for m in sent if m["role"] == "assistant")["content"] is None  # the SDK keeps null


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--policy", "nope"), "unknown policy 'nope'; known: scout, langchain.trim_messages"),
        (("--policy", "openai.tool_output_trimmer", "--set", "recent_turns=0"), "recent_turns must be >= 1"),
        (("--policy", "langchain.trim_messages"), "langchain.trim_messages needs --set max_tokens=N"),
        (("--policy", "langchain.clear_tool_uses", "--set", "keep=x"), "keep='x': expected an integer"),
        (("--policy", "inspect.compaction_trim", "--set", "preserve=2"), "preserve must be in range [0,1], got 2.0"),
    ],
)
def test_bad_policy_input_is_one_line_and_exit_2(args, message):
    r = cli("explain", DEMO, *args)
    assert r.returncode == 2 and r.stdout == ""
    assert len(r.stderr.strip().splitlines()) == 1 and message in r.stderr


def test_a_library_that_raises_ends_the_run_with_exit_3():
    r = cli("prepare", DEMO, "--policy", "inspect.compaction_edit", "--set", "threshold=3000")
    assert r.returncode == 3 and r.stdout == ""
    assert (
        "would raise RuntimeError: Compaction insufficient: 3,920 tokens still exceeds threshold of 3,000" in r.stderr
    )


def test_corpus_scores_policies_side_by_side(tmp_path):
    r = cli(
        "corpus", SAMPLES / "debug_session.chat", "--vary", "policy=scout,langchain.clear_tool_uses",
        "--set", "trigger=3000", "--format", "json", "--jobs", "1",
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    settings = json.loads(r.stdout)["settings"]
    assert [s["values"].get("policy") for s in settings] == [None, "langchain.clear_tool_uses"]
    assert settings[1]["values"]["trigger"] == 3000 and settings[1]["values"]["keep"] == 3
    assert settings[1]["chars"] < settings[0]["chars"]
    bad = cli("corpus", SAMPLES / "debug_session.chat", "--vary", "policy=scout,nope", "--jobs", "1")
    assert bad.returncode == 2 and "unknown policy 'nope'" in bad.stderr


# -- the Chat Completions shape, both ways ----------------------------------------------------------
@pytest.mark.parametrize("chat", sorted(SAMPLES.glob("*.chat")) + [Path(DEMO)], ids=lambda p: p.name)
def test_a_scout_chat_goes_there_and_back_unchanged(chat):
    inspection = open_inspection(chat, Setup.of(config_files=[]))
    conversation = inspection.conversation()
    back = conversation.stored(conversation.items)
    assert [o for o, _ in back] == list(range(len(inspection.chat.messages)))
    assert all(m is inspection.chat.messages[o] for o, m in back)


def test_an_openai_file_converts_back_to_what_it_held():
    source = json.loads((SAMPLES / "debug_session.openai.json").read_text())["messages"]
    items = [as_openai(i) for i in conversation_of(load_chat(str(SAMPLES / "debug_session.openai.json"), None)).items]
    for theirs, ours in zip(source, items, strict=True):
        if "tool_calls" in theirs:
            for a, b in zip(theirs["tool_calls"], ours["tool_calls"], strict=True):
                assert json.loads(a["function"].pop("arguments")) == json.loads(b["function"].pop("arguments"))
        assert theirs == ours


def test_parallel_calls_stay_one_response(tmp_path):
    messages = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": "two at once", "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}},
            {"id": "b", "type": "function", "function": {"name": "g", "arguments": "{\"x\":1}"}},
        ]},
        {"role": "tool", "tool_call_id": "a", "content": "A"},
        {"role": "tool", "tool_call_id": "b", "name": "g", "content": "B"},
        {"role": "assistant", "content": "done"},
    ]  # fmt: skip
    path = tmp_path / "p.json"
    path.write_text(json.dumps(messages))
    r = cli("calls", path, "--format", "json")
    assert [row["tools"] for row in json.loads(r.stdout)] == [["f", "g"], []]
    sent = json.loads(cli("prepare", path, "--policy", "openai.tool_output_trimmer", "--format", "openai").stdout)
    assert sent == [{**m, "tool_calls": [{**c, "function": {**c["function"], "arguments": c["function"]["arguments"].replace(" ", "")}} for c in m["tool_calls"]]} if "tool_calls" in m else m for m in messages]  # fmt: skip


def test_an_edit_of_a_setting_keeps_the_chat_s_facts_and_reads_thresholds_again():
    """The app re-plans a policy's every edit through ChatHistory.with_setup: the chat's facts (its tool
    outputs cut, its counts) are kept, scout-ai's thresholds are read again from the new --set values."""
    from inspector.core.calls.history import open_history
    from inspector.core.setup import Setup

    history = open_history(Path(DEMO), Setup.of(policy="langchain.clear_tool_uses", overrides={"trigger": "3000"}))
    edited = history.with_setup(
        Setup.of(policy="langchain.clear_tool_uses", overrides={"trigger": "3000", "keep": "7"})
    )
    assert edited.whole.facts is history.whole.facts
    assert edited.whole.policy is not None and edited.whole.policy.as_dict()["keep"] == 7
    scout = edited.with_setup(Setup.of(overrides={"max_tool_calls": "5"}))
    assert scout.whole.facts is history.whole.facts
    assert scout.whole.thresholds["max_tool_calls"] == 5
    assert scout.with_setup(Setup.of()).whole.thresholds["max_tool_calls"] != 5
