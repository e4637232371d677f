"""why / sweep / diff / explain --audit as a user runs them (subprocess): outputs, exit codes, the done-when."""

import json
import os
import subprocess
import sys
from pathlib import Path

from cli_runner import run_cli
from forget_chats import FACT, call, filler, out

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_chats" / "debug_session.json"


def run(*args, cwd=None):
    return run_cli(*args, cwd=cwd or ROOT, scout_config=False)


def shown_by_prepare(*sets) -> bool:
    args = [a for s in sets for a in ("--set", s)]
    r = run("prepare", SAMPLE, *args)
    assert r.returncode == 0, r.stderr
    return any(FACT in (m.get("content") or "") for m in json.loads(r.stdout))


def test_done_when_demo_fact_fixes_work_with_set():
    r = run("why", SAMPLE, FACT, "--format", "json")
    assert r.returncode == 0, r.stderr
    [row] = json.loads(r.stdout)
    assert (row["index"], row["tier"], row["visible"], row["reason"]) == (3, "dropped", False, "beyond_max")
    assert row["fixes"] and all({"key", "value", "prompt_chars"} <= set(f) for f in row["fixes"])
    assert not shown_by_prepare()
    for fix in row["fixes"]:
        assert shown_by_prepare(f"{fix['key']}={fix['value']}")
        step = -1 if fix["direction"] == "raise" else 1
        assert not shown_by_prepare(f"{fix['key']}={fix['value'] + step}")


def test_why_table_names_the_rule_and_the_fixes():
    r = run("why", SAMPLE, FACT)
    assert r.returncode == 0 and r.stderr == ""
    assert "sees none" in r.stdout and "beyond max_tool_outputs=40" in r.stdout
    assert "full_tool_outputs >= 54" in r.stdout and "max_tool_chars >= 213,862" in r.stdout


def test_why_regex_ignore_case_and_not_found(tmp_path):
    r = run("why", SAMPLE, r"RECONNECT_BACKOFF_MS: \d+", "--regex", "--ignore-case", "--format", "json")
    assert r.returncode == 0 and len(json.loads(r.stdout)) == 1
    r = run("why", SAMPLE, "no such text anywhere")
    assert r.returncode == 0 and "never occurs" in r.stdout
    r = run("why", SAMPLE, "no such text anywhere", "--format", "json")
    assert r.returncode == 0 and json.loads(r.stdout) == [] and "never occurs" in r.stderr


def test_why_usage_errors_are_one_line(tmp_path):
    for args in (
        ("why", SAMPLE, "(", "--regex"),
        ("why", tmp_path / "missing.json", "x"),
        ("sweep", SAMPLE, "--vary", "nope=1:2"),
        ("sweep", SAMPLE, "--vary", "full_tool_outputs=5:1"),
        ("diff", SAMPLE, "--a", "full_tool_outputs=x"),
        ("diff", SAMPLE, "--b", "oops"),
    ):
        r = run(*args)
        assert r.returncode == 2, (args, r.stderr)
        assert r.stderr.startswith("prompt-inspector: error: ") and r.stderr.count("\n") == 1
        assert "Traceback" not in r.stderr


def test_why_exit_3_when_scout_raises(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps([{"role": "user", "content": FACT}, {"role": "function_call", "content": "{x"}]))
    r = run("why", path, FACT, "--format", "json")
    assert r.returncode == 3 and json.loads(r.stdout)[0]["visible"] is False
    assert "scout-ai would raise" in r.stderr


def test_sweep_formats_match_explain():
    r = run("sweep", SAMPLE, "--vary", "full_tool_outputs=0:60:20", "--format", "json")
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)
    assert [row["value"] for row in rows] == [0, 20, 40, 60]
    for row in rows[::3]:
        e = run("explain", SAMPLE, "--set", f"full_tool_outputs={row['value']}", "--format", "json")
        tiers = [x["tier"] for x in json.loads(e.stdout)["rows"]]
        assert row["messages"] == tiers.count("full") + tiers.count("truncated")
        assert (row["truncated"], row["dropped"]) == (tiers.count("truncated"), tiers.count("dropped"))
    csv = run("sweep", SAMPLE, "--vary", "max_tool_chars=0:300000:100000", "--format", "csv")
    lines = csv.stdout.splitlines()
    assert lines[0] == "value,messages,truncated,dropped,chars,tokens,error" and len(lines) == 5
    table = run("sweep", SAMPLE, "--vary", "max_tool_calls=10:12", "--set", "max_tool_chars=1")
    assert table.returncode == 0 and "messages sent" in table.stdout


def test_diff_lists_changed_messages():
    r = run("diff", SAMPLE, "--a", "--b", "full_tool_outputs=54", "--format", "json")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    changed = {c["index"]: c for c in data["changes"]}
    assert changed[3]["tier_a"] == "dropped" and changed[3]["tier_b"] == "full" and changed[3]["delta"] > 0
    t = run("diff", SAMPLE, "--a", "max_tool_chars=100000", "--b", "max_tool_chars=100000")
    assert t.returncode == 0 and "0 message(s) differ" in t.stdout


def test_explain_audit(tmp_path):
    items = [
        call("read", "c0", {"path": "a.py"}),
        out("read", "c0", "x" * 2000),
        *filler(4),
        call("read", "c9", {"path": "a.py"}),
        out("read", "c9", "x" * 2000),
    ]
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(items))
    sets = ("--set", "full_tool_outputs=1", "--set", "max_tool_calls=2", "--set", "max_tool_chars=1")
    r = run("explain", path, "--audit", "--format", "json", *sets)
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert len(data["rows"]) == len(items)
    assert any(f["kind"] == "repeated_call" and f["rows"] == [0, 1, 10] for f in data["audit"])
    t = run("explain", path, "--audit", *sets)
    assert "audit:" in t.stdout and "repeated_call" in t.stdout
    plain = json.loads(run("explain", path, "--format", "json", *sets).stdout)
    assert list(plain) == ["rows", "findings", "summary", "settings"]  # --audit adds "audit", nothing else changes
    assert plain["rows"] == data["rows"] and plain["summary"] == data["summary"]


def test_headless_commands_never_import_textual_or_rich():
    code = (
        "import sys; from inspector.cli import main\n"
        "if True:\n"
        f"    main(['why', {str(SAMPLE)!r}, 'x', '--no-scout-config'])\n"
        f"    main(['sweep', {str(SAMPLE)!r}, '--vary', 'full_tool_outputs=0:2', '--no-scout-config'])\n"
        f"    main(['diff', {str(SAMPLE)!r}, '--no-scout-config'])\n"
        f"    main(['explain', {str(SAMPLE)!r}, '--audit', '--no-scout-config'])\n"
        "assert not any(m.split('.')[0] in ('textual', 'rich') for m in sys.modules), sorted(sys.modules)\n"
    )
    r = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert r.returncode == 0, r.stderr


def test_why_names_the_parser_trap_that_swallowed_the_text():
    traps = ROOT / "sample_chats" / "traps.chat"
    r = run("why", traps, "This answer is swallowed")
    assert r.returncode == 0, r.stderr
    assert (
        "    trap: text swallowed by a parser trap: `[[` at line 8 protects every line up to a line ending in `]]` "
        "(1 header-like line, the first at line 10 swallowed)\n"
    ) in r.stdout
    r = run("why", traps, "Also swallowed", "--format", "json")
    [row] = json.loads(r.stdout)
    assert row["trap"].startswith("<thinking> at line 21 protects every line up to its closing tag")
    r = run("why", traps, "Visible again", "--format", "json")
    assert [row["trap"] for row in json.loads(r.stdout)] == [None, None]


def test_why_timeline_lists_the_first_occurrences_up_to_limit(tmp_path):
    messages = [{"role": "system", "content": "s"}]
    for k in range(30):
        messages += [{"role": "user", "content": f"zz {k}"}, {"role": "assistant", "content": "ok"}]
    chat = tmp_path / "freq.json"
    chat.write_text(json.dumps(messages), encoding="utf-8")
    r = run_cli("why", chat, "zz", "--timeline", "--limit", "5", "--no-scout-config")
    assert r.returncode == 0 and r.stdout.startswith("'zz': 5 occurrence(s) in messages, over 30 call(s)")
    assert "30 occurrences: the first 5 are listed (--limit 0 lists every one)" in r.stderr
    every = run_cli("why", chat, "zz", "--timeline", "--limit", "0", "--no-scout-config")
    assert every.stdout.startswith("'zz': 30 occurrence(s)") and "listed" not in every.stderr
    bad = run_cli("why", chat, "zz", "--timeline", "--limit", "-1", "--no-scout-config")
    assert bad.returncode == 2 and "expected a whole number" in bad.stderr
