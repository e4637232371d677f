"""The headless commands: outputs, errors, exit codes (in process; a few tests start the real entry point)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_runner import run_cli
from helpers import output, rounds

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_chats" / "debug_session.json"


def run(*args, cwd=None, env=None, home=None):
    return run_cli(*args, cwd=cwd or ROOT, env=env, home=home)


def write(tmp_path, items, name="chat.json"):
    path = tmp_path / name
    path.write_text(json.dumps(items), encoding="utf-8")
    return path


def test_prepare_json_is_compact_and_keeps_extra_keys(tmp_path):
    items = [{"role": "user", "content": "hé", "_i": 0}, *rounds(3, 50)]
    r = run("prepare", write(tmp_path, items), "--format", "json", home=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout == json.dumps(items, ensure_ascii=False, separators=(",", ":")) + "\n"


def test_prepare_jsonl_and_set(tmp_path):
    items = rounds(3, 500)
    r = run(
        "prepare",
        write(tmp_path, items),
        "--format",
        "jsonl",
        "--set",
        "max_tool_chars=0",
        "--set",
        "full_tool_outputs=2",
        home=tmp_path,
    )
    assert r.returncode == 0, r.stderr
    lines = [json.loads(line) for line in r.stdout.splitlines()]
    assert len(lines) == 6
    assert json.loads(lines[1]["content"])["content"].startswith("Truncated (500): ")
    assert lines[5] == items[5]


def test_prepare_env_thresholds_and_warning(tmp_path):
    items = rounds(3, 500)
    r = run("prepare", write(tmp_path, items), env={"MAX_TOOL_CHARS": "0k", "FULL_TOOL_OUTPUTS": "1"}, home=tmp_path)
    assert r.returncode == 0
    assert "MAX_TOOL_CHARS='0k' from the environment is read by scout-ai as 0" in r.stderr
    assert "Truncated (500)" in r.stdout


def test_explain_json_rows(tmp_path):
    items = [{"role": "user", "content": "go"}, *rounds(2, 500)]
    r = run(
        "explain",
        write(tmp_path, items),
        "--format",
        "json",
        "--set",
        "max_tool_chars=0",
        "--set",
        "full_tool_outputs=0",
        "--set",
        "max_tool_calls=1",
        home=tmp_path,
    )
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert list(data) == ["rows", "findings", "summary", "settings"] and data["findings"] == []
    # the report says what made it: the call (none: the whole chat), the version, the strategies, each value
    assert data["settings"] == {
        "call": None,
        "scout_version": "seed",
        "strategies": ["shorten_tools"],
        "policy": None,
        "thresholds": {
            "full_tool_calls": {"value": 0, "source": "default"},
            "full_tool_outputs": {"value": 0, "source": "override", "where": "--set", "raw": "0"},
            "max_tool_calls": {"value": 1, "source": "override", "where": "--set", "raw": "1"},
            "max_tool_outputs": {"value": 1, "source": "follows max_tool_calls", "raw": "1"},
            "max_tool_chars": {"value": 0, "source": "override", "where": "--set", "raw": "0"},
        },
    }
    rows = data["rows"]
    assert [(row["index"], row["role"], row["tier"], row["reason"]) for row in rows] == [
        (0, "user", "full", "not_tool"),
        (1, "function_call", "dropped", "beyond_max"),
        (2, "function_call_output", "dropped", "beyond_max"),
        (3, "function_call", "full", "nothing_to_shorten"),
        (4, "function_call_output", "truncated", "middle_band"),
    ]
    assert rows[4]["name"] == "t" and rows[4]["id"] == "c1"
    assert rows[4]["original_chars"] == len(items[4]["content"])
    assert {"index", "role", "name", "id", "tier", "reason", "original_chars", "visible_chars"} <= set(rows[0])


def test_explain_table_summary_and_markdown():
    r = run("explain", SAMPLE)
    assert r.returncode == 0, r.stderr
    summary, settings = r.stdout.strip().splitlines()[-2:]
    assert summary.startswith("116 messages (79 full, 11 truncated, 26 dropped); 90 sent; characters 217,838 -> ")
    assert settings.startswith("settings: the whole chat (the next call); scout-ai seed, strategies shorten_tools;")
    r = run("explain", SAMPLE, "--format", "markdown")
    assert r.stdout.startswith("| # | line | role | tool | id | tier | reason | chars | visible |")


def test_thresholds_json_and_table(tmp_path):
    r = run("thresholds", "--format", "json", env={"MAX_TOOL_CALLS": "12"}, cwd=tmp_path, home=tmp_path)
    data = json.loads(r.stdout)
    assert data["max_tool_chars"] == {"value": 100000, "source": "default"}
    assert data["max_tool_calls"]["value"] == 12 and data["max_tool_calls"]["source"] == "environment"
    assert data["max_tool_outputs"]["source"] == "follows max_tool_calls"
    r = run("thresholds", "--set", "max_tool_chars=5000", cwd=tmp_path, home=tmp_path)
    assert "max_tool_chars" in r.stdout and "5,000  override" in r.stdout


def test_thresholds_from_scout_config_in_cwd(tmp_path):
    (tmp_path / "etc").mkdir()
    (tmp_path / "etc" / "config").write_text("max_tool_chars 777 prompt\n")
    r = run("thresholds", "--format", "json", cwd=tmp_path, home=tmp_path)
    data = json.loads(r.stdout)
    assert data["max_tool_chars"]["value"] == 777 and data["max_tool_chars"]["source"] == "config"


@pytest.mark.parametrize(
    "args,fragment",
    [
        (("prepare", "missing.json"), "missing.json: no such file"),
        (("prepare", "SAMPLE", "--set", "bogus=1"), "unknown setting 'bogus'"),
        (("prepare", "SAMPLE", "--set", "max_tool_chars"), "--set expects KEY=VALUE"),
        (
            ("prepare", "SAMPLE", "--strategies", "magic"),
            "unknown prompt strategy 'magic'; known: shorten_tools, none, shorten_tools_epoch",
        ),
        (("prepare", "SAMPLE", "--format", "yaml"), "unknown --format 'yaml'"),
        (("explain", "SAMPLE", "--format", "yaml"), "invalid choice"),
        (("prepare",), "the following arguments are required: CHAT"),
    ],
)
def test_usage_errors_exit_2_one_line(args, fragment):
    args = [str(SAMPLE) if a == "SAMPLE" else a for a in args]
    r = run(*args)
    assert r.returncode == 2
    assert r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("prompt-inspector: error: ") and fragment in lines[0]
    assert "Traceback" not in r.stderr


@pytest.mark.parametrize(
    "content,fragment",
    [
        (b"", "empty file"),
        (b"\x00\x01binary", "binary file"),
        (b'[{"role": "user", "content": "x"},\n {"role": ', ":2: invalid JSON"),
        (b'{"role": "user"}', "expected a JSON array of messages, found an object"),
        (b'[{"role": "user", "content": "x"},\n 42]', "message 1 is int, not an object"),
        (b"[\xff\xfe]", "invalid UTF-8"),
    ],
)
def test_bad_input_exit_2_naming_file_and_line(tmp_path, content, fragment):
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    r = run("explain", path)
    assert r.returncode == 2, r.stdout
    line = r.stderr.strip()
    assert "\n" not in line and line.startswith(f"prompt-inspector: error: {path}") and fragment in line


def test_scout_error_exit_3_prepare_prints_nothing_explain_prints_rows(tmp_path):
    items = [
        {"role": "user", "content": "x"},
        {"role": "function_call_output", "content": "{broken"},
        output("t", "a", "ok"),
    ]
    path = write(tmp_path, items)
    r = run("prepare", path)
    assert r.returncode == 3 and r.stdout == ""
    assert r.stderr.strip().startswith(
        f"prompt-inspector: error: {path}: message 1 (role function_call_output): "
        "scout-ai would raise JSON::ParserError: content is not valid JSON ("
    )
    assert r.stderr.strip().endswith("at line 1 column 2)") and len(r.stderr.strip().splitlines()) == 1
    r = run("explain", path, "--format", "json")
    assert r.returncode == 3
    rows = json.loads(r.stdout)["rows"]
    assert [row["tier"] for row in rows] == ["undecided", "error", "undecided"]
    assert [row["reason"] for row in rows] == ["not_reached", "scout_error", "discarded"]
    assert [row["visible_chars"] for row in rows] == [0, 0, 0]
    r = run("explain", path)
    width = str(len(output("t", "a", "ok")["content"]))
    row = ["2", "-", "function_call_output", "t", "a", "undecided", "discarded", width, "0"]
    assert r.stdout.splitlines()[3].split() == row
    assert "(0 full, 0 truncated, 0 dropped, 1 error, 2 undecided); 0 sent" in r.stdout


def test_output_file_atomic_and_refuses_the_input(tmp_path):
    path = write(tmp_path, rounds(2, 10))
    out = tmp_path / "out.json"
    r = run("prepare", path, "-o", out)
    assert r.returncode == 0 and r.stdout == ""
    assert out.read_text() == run("prepare", path).stdout
    before = path.read_bytes()
    r = run("prepare", path, "-o", path)
    assert r.returncode == 2 and "refusing to overwrite the input chat" in r.stderr
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


@pytest.mark.slow
def test_the_real_entry_point_answers_help():
    # a process, as a user starts it (the other tests run main() in this process)
    r = subprocess.run(
        [sys.executable, "-m", "inspector", "--help"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert r.returncode == 0 and "prepare" in r.stdout and "explain" in r.stdout


HEADLESS_RUNS = [
    ["thresholds", "--no-scout-config"],
    ["prepare", str(SAMPLE), "--format", "chat"],
    ["prepare", str(SAMPLE), "--format", "responses"],
    ["explain", str(SAMPLE), "--format", "json", "--audit"],
    ["explain", str(ROOT / "sample_chats" / "debug_session.chat")],
    ["why", str(SAMPLE), "reconnect_backoff_ms"],
    ["sweep", str(SAMPLE), "--vary", "max_tool_chars=1000:3000:1000"],
    ["diff", str(SAMPLE), "--a", "max_tool_chars=1000", "--b", "max_tool_chars=2000"],
    ["corpus", str(SAMPLE), "--vary", "max_tool_chars=1000:3000:1000", "--probe", "x", "--jobs", "1"],
]


@pytest.mark.slow
def test_headless_commands_import_neither_textual_nor_rich():
    # one fresh process runs every command, then looks at what it imported
    code = (
        "import sys, io, contextlib\n"
        "from inspector.cli import main\n"
        "codes = []\n"
        f"for argv in {HEADLESS_RUNS!r}:\n"
        "    with contextlib.redirect_stdout(io.TextIOWrapper(io.BytesIO())):\n"
        "        codes.append(main(argv))\n"
        "print(codes, sorted({m.split('.')[0] for m in sys.modules} & {'textual', 'rich'}))"
    )
    r = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().splitlines()[-1] == f"{[0] * len(HEADLESS_RUNS)} []"


def test_output_to_a_device_writes_through_it(tmp_path):
    path = write(tmp_path, rounds(1, 10))
    r = run("prepare", path, "-o", os.devnull)
    assert r.returncode == 0
    assert not Path(os.devnull).is_file()  # still the device, not replaced by a regular file


def test_prepare_keeps_wide_integers_and_ruby_floats(tmp_path):
    path = tmp_path / "chat.json"
    path.write_text(
        '[{"role":"user","content":"a","role":"assistant"},'
        '{"content":"x","role":"user","_i":1.5e20,"n":123456789012345678901234567890,'
        '"m":{"a":[1.0,2.5e-7,{"b":null}]}}]'
    )
    r = run("prepare", path)
    assert r.stdout == (
        '[{"role":"assistant","content":"a"},{"content":"x","role":"user","_i":1.5e+20,'
        '"n":123456789012345678901234567890,"m":{"a":[1.0,2.5e-07,{"b":null}]}}]\n'
    )


def test_output_file_gets_the_usual_mode(tmp_path):
    path = write(tmp_path, rounds(1, 10))
    out = tmp_path / "new.json"
    old = os.umask(0o022)
    try:
        assert run("prepare", path, "-o", out).returncode == 0
    finally:
        os.umask(old)
    assert out.stat().st_mode & 0o777 == 0o644


@pytest.mark.slow
def test_the_app_without_a_terminal_says_so_instead_of_hanging():
    r = subprocess.run(
        [sys.executable, "-m", "inspector"],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=20,
    )
    assert r.returncode == 2
    assert r.stderr.strip() == (
        "prompt-inspector: error: the app needs a terminal; for text output use "
        "'prompt-inspector explain CHAT' or 'prompt-inspector prepare CHAT'"
    )


def test_every_explain_report_says_the_call_and_the_settings_that_made_it(tmp_path):
    from inspector.demo import demo_chat_path

    demo = str(demo_chat_path())
    r = run("explain", demo, "--at", "5", "--format", "markdown", "--set", "max_tool_chars=5000", home=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[-1] == (
        "**Settings:** call 5; scout-ai seed, strategies shorten_tools; full_tool_calls=0 (default), "
        "full_tool_outputs=10 (default), max_tool_calls=40 (default), max_tool_outputs=40 (follows "
        "max_tool_calls), max_tool_chars=5000 (override (--set))"
    )
    r = run("explain", demo, home=tmp_path)
    assert r.stdout.splitlines()[-1].startswith(
        "settings: the whole chat (the next call); scout-ai seed, strategies shorten_tools; full_tool_calls=0"
    )
    r = run("explain", demo, "--format", "json", "--policy", "openai.tool_output_trimmer", home=tmp_path)
    assert json.loads(r.stdout)["settings"] == {
        "call": None,
        "scout_version": "seed",
        "strategies": ["shorten_tools"],
        "policy": "openai.tool_output_trimmer",
    }


def test_the_header_says_where_the_values_come_from():
    from inspector.core.present.provenance import origin_text
    from inspector.core.scout.settings import KEYS, Source, resolve

    thresholds = resolve(
        overrides={"full_tool_outputs": "4"}, env={"MAX_TOOL_CHARS": "5000", "MAX_TOOL_CALLS": "9"}, config_files=[]
    )
    assert origin_text(thresholds, list(KEYS)) == "1 from --set · 2 from the environment"
    edited = thresholds.with_value("full_tool_calls", 3, Source.EDITED)
    assert origin_text(edited, list(KEYS)) == "edited: full_tool_calls · 1 from --set · 2 from the environment"
    assert origin_text(resolve(env={}, config_files=[]), list(KEYS)) == ""  # defaults: nothing to say
    assert origin_text(thresholds, ["full_tool_calls"]) == ""  # only the keys the strategies read
