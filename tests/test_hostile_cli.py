"""Issue 12: hostile and broken input ends in exit 0, 2 or 3, in seconds and bounded memory, one clear line.

Every case runs the CLI in a subprocess with timeout=10: a FIFO that blocks again makes the test fail
with TimeoutExpired instead of hanging the suite. FIFOs, device links and huge sparse files are made
here in tmp_path; the small hostile files are in tests/hostile/.
"""

from __future__ import annotations

import json
import os
import shutil

import pytest
from hostile_helpers import CORPUS, assert_clean, run_cli, run_here

PREFIX = "prompt-inspector: error: "


def _chat(tmp_path, text="user:\nhello\n", name="c.chat"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# -- the chat itself --------------------------------------------------------------------------------
def test_fifo_as_the_chat_is_refused_without_blocking(tmp_path):
    os.mkfifo(tmp_path / "pipe.chat")
    r = run_cli("explain", "pipe.chat", cwd=tmp_path)
    assert_clean(r, 2)
    assert r.lines() == [PREFIX + "pipe.chat: a FIFO (named pipe), not a regular file: the inspector does not read it"]


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_link_to_a_device_as_the_chat_is_refused(tmp_path, device):
    os.symlink(device, tmp_path / "dev.json")
    r = run_cli("prepare", "dev.json", cwd=tmp_path)
    assert_clean(r, 2)
    assert r.lines() == [PREFIX + "dev.json: a character device, not a regular file: the inspector does not read it"]


def test_a_huge_file_is_refused_by_its_size_before_any_read(tmp_path):
    with open(tmp_path / "huge.chat", "wb") as handle:
        handle.truncate(6 * 1024**3)  # sparse: costs nothing on disk
    r = run_cli("explain", "huge.chat", cwd=tmp_path)
    assert_clean(r, 2, max_mib=200)
    assert r.lines() == [PREFIX + "huge.chat: 6 GiB, over the inspector's 1 GiB limit for a chat: not read"]


def test_nul_bytes_are_refused_from_the_first_block_not_after_reading_the_file(tmp_path):
    with open(tmp_path / "nul.chat", "wb") as handle:
        handle.write(b"user:\nhi\n\x00")
        handle.truncate(900 * 1024**2)  # under the size limit: only the NUL sniff can stop it cheaply
    r = run_cli("explain", "nul.chat", cwd=tmp_path)
    assert_clean(r, 2, max_mib=200)
    assert r.lines() == [PREFIX + "nul.chat:3: binary file (NUL byte), not a chat"]


def test_a_directory_as_the_chat(tmp_path):
    (tmp_path / "d").mkdir()
    r = run_here("explain", "d", cwd=tmp_path)
    assert_clean(r, 2)
    assert r.lines() == [PREFIX + "d: is a directory, not a chat file"]


# -- directive targets --------------------------------------------------------------------------------
@pytest.mark.parametrize("role", ["import", "continue", "last"])
def test_fifo_or_device_as_an_import_target_is_named_in_a_note(tmp_path, role):
    os.mkfifo(tmp_path / "pipe.chat")
    os.symlink("/dev/zero", tmp_path / "zero.chat")
    chat = _chat(tmp_path, f"user:\nhello\n\n{role}: pipe.chat\n\n{role}: zero.chat\n")
    r = run_cli("prepare", chat.name, cwd=tmp_path)
    assert_clean(r, 0)
    assert r.lines() == [
        f"prompt-inspector: note: c.chat:4: `{role}: pipe.chat` at line 4: ./pipe.chat is a FIFO (named pipe), "
        "not a regular file: the inspector does not read it; scout-ai would try to read it, so what it sends "
        "differs here (the directive is left as stored)",
        f"prompt-inspector: note: c.chat:6: `{role}: zero.chat` at line 6: ./zero.chat is a character device, "
        "not a regular file: the inspector does not read it; scout-ai would try to read it, so what it sends "
        "differs here (the directive is left as stored)",
    ]


@pytest.mark.parametrize("name,role", [("import_directory.chat", "import"), ("last_directory.chat", "last")])
def test_import_naming_a_directory_is_what_scout_ai_raises(tmp_path, name, role):
    shutil.copy(CORPUS / name, tmp_path / name)
    (tmp_path / "sub").mkdir()
    r = run_here("prepare", name, cwd=tmp_path)
    assert_clean(r, 3)
    assert r.lines() == [PREFIX + f"{name}:4: {role}: 'sub' is a directory: scout-ai would raise Errno::EISDIR"]


def test_file_and_directory_targets_that_are_devices_fifos_or_too_large(tmp_path):
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "a.txt").write_text("A\n")
    os.mkfifo(tree / "b.pipe")
    os.symlink("/dev/zero", tree / "c.zero")
    with open(tree / "d.big", "wb") as handle:
        handle.truncate(300 * 1024**2)
    os.symlink("/dev/urandom", tmp_path / "random.txt")
    chat = _chat(tmp_path, "user:\nhello\n\ndirectory: tree\n\nfile: random.txt\n")
    r = run_cli("prepare", chat.name, cwd=tmp_path)
    assert_clean(r, 0, max_mib=200)
    assert r.lines() == [
        "prompt-inspector: note: c.chat:4: `directory: tree` at line 4: ./tree/b.pipe is a FIFO (named pipe), "
        "not a regular file: the inspector does not read it; scout-ai would try to include it, so what it sends "
        "differs here",
        "prompt-inspector: note: c.chat:4: `directory: tree` at line 4: ./tree/c.zero is a character device, "
        "not a regular file: the inspector does not read it; scout-ai would try to include it, so what it sends "
        "differs here",
        "prompt-inspector: note: c.chat:4: `directory: tree` at line 4: ./tree/d.big is 300 MiB, over the "
        "inspector's 256 MiB limit for a `file:` target: not read; scout-ai would try to include it, so what it "
        "sends differs here",
        "prompt-inspector: note: c.chat:6: `file: random.txt` at line 6: not found or not readable here, so it is "
        "left as stored (scout-ai raises 'File not found')",
    ]
    assert '<file name=\\"./tree/a.txt\\">\\nA\\n\\n</file>' in r.stdout


# -- scout config files -----------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["fifo", "zero", "big"])
def test_a_hostile_etc_config_in_the_checkout_is_skipped_with_a_warning(tmp_path, kind):
    (tmp_path / "etc").mkdir()
    config = tmp_path / "etc" / "config"
    if kind == "fifo":
        os.mkfifo(config)
        what = "a FIFO (named pipe), not a regular file: the inspector does not read it"
    elif kind == "zero":
        os.symlink("/dev/zero", config)
        what = "a character device, not a regular file: the inspector does not read it"
    else:
        with open(config, "wb") as handle:
            handle.truncate(2 * 1024**2)
        what = "2 MiB, over the inspector's 1 MiB limit for a scout config file: not read"
    _chat(tmp_path)
    r = run_cli("thresholds", "c.chat", cwd=tmp_path)
    assert_clean(r, 0)
    warning = f"{config}: this scout config file is {what}; scout-ai would try to read it, so its values may differ"
    assert r.lines() == [f"prompt-inspector: warning: {warning}"]  # shown once, on stderr
    assert "warning" not in r.stdout and r.stdout.splitlines()[-1].startswith("max_tool_chars ")


def test_config_priority_written_with_a_superscript_digit_is_to_i_zero(tmp_path):
    r = run_here("thresholds", "--scout-config", CORPUS / "priority_superscript.config", "--format", "json")
    assert_clean(r, 0)
    assert '"max_tool_chars": {\n    "value": 7,' in r.stdout


def test_unicode_digits_read_as_zero_with_a_warning(tmp_path):
    r = run_here("thresholds", "--scout-config", CORPUS / "unicode_digits.config")
    assert_clean(r, 0)
    assert r.lines() == [
        f"prompt-inspector: warning: max_tool_calls='１２' from {CORPUS}/unicode_digits.config:2 is read by scout-ai as 0",
        f"prompt-inspector: warning: max_tool_chars='١٢' from {CORPUS}/unicode_digits.config:1 is read by scout-ai as 0",
    ]
    r = run_here("thresholds", "--no-scout-config", env={"MAX_TOOL_CHARS": "１２"})
    assert r.lines() == [
        "prompt-inspector: warning: MAX_TOOL_CHARS='１２' from the environment is read by scout-ai as 0"
    ]


@pytest.mark.parametrize("source", ["set", "env", "config", "chat"])
def test_threshold_values_of_thousands_of_digits_from_any_source(tmp_path, source):
    digits = "7" * 5000
    args, env = [], {}
    chat = _chat(tmp_path, "user:\nhello\n")
    if source == "set":
        args = ["--set", f"max_tool_chars={digits}"]
    elif source == "env":
        env = {"MAX_TOOL_CHARS": digits}
    elif source == "config":
        (tmp_path / "etc").mkdir()
        (tmp_path / "etc" / "config").write_text(f"max_tool_chars {digits} prompt\n")
    else:
        chat = _chat(tmp_path, f"config: max_tool_chars {digits} prompt\n\nuser:\nhello\n")
    for command in (["thresholds", chat.name], ["explain", chat.name], ["prepare", chat.name]):
        r = run_here(*command, *args, cwd=tmp_path, env=env)
        assert_clean(r, 0)
        assert any("has 5,000 digits; the inspector reads it as the largest 4,000-digit number" in x for x in r.lines())
    r = run_here("thresholds", chat.name, "--format", "json", *args, cwd=tmp_path, env=env)
    assert '"value": 9999999999' in r.stdout


def test_set_must_be_an_integer():
    r = run_here("thresholds", "--set", "max_tool_chars=abc")
    assert_clean(r, 2)
    assert r.lines() == [PREFIX + "--set max_tool_chars expects an integer, got 'abc'"]
    r = run_here("thresholds", "--set", "max_tool_chars=١٢")
    assert r.lines() == [PREFIX + "--set max_tool_chars expects an integer, got '١٢'"]


# -- infinite numbers: JSON::GeneratorError in every printer ---------------------------------------------------
@pytest.mark.parametrize("name", ["infinite_json.json", "infinite_openai.json", "infinite_anthropic.json"])
@pytest.mark.parametrize("fmt", ["json", "jsonl", "chat", "responses"])
def test_an_infinite_number_is_json_generator_error_in_every_printer(name, fmt):
    r = run_here("prepare", CORPUS / name, "--format", fmt)
    assert_clean(r, 3)
    sign = "-" if "anthropic" in name else ""
    assert r.lines() == [
        PREFIX + f"{CORPUS / name}: scout-ai would raise JSON::GeneratorError: {sign}Infinity not allowed in JSON"
    ]
    assert r.stdout == ""


@pytest.mark.parametrize("fmt", ["table", "json", "markdown"])
def test_explain_of_an_infinite_number_says_scout_ai_raises_sending_it(fmt):
    """A JSON array's 1e400 passes the strategies (the rows are their decisions), but writing the prompt
    to send it raises: explain exits 3 as prepare does, and its summary carries the error. (The
    OpenAI and Anthropic files raise earlier, converting their tool calls.)"""
    name = "infinite_json.json"
    r = run_here("explain", CORPUS / name, "--format", fmt)
    assert_clean(r, 3)
    error = "JSON::GeneratorError: Infinity not allowed in JSON (writing the prompt to send it)"
    assert r.lines() == [PREFIX + f"{CORPUS / name}: scout-ai would raise {error}"]
    assert r.stdout
    if fmt == "json":
        assert json.loads(r.stdout)["summary"]["error"] == error


# -- what reaches the terminal ----------------------------------------------------------------------------------
def test_escapes_in_a_role_never_reach_stderr_and_a_long_role_is_cut(tmp_path):
    long_role = "\x1b]52;c;aGVsbG8=\x07" + "r" * 100_000
    (tmp_path / "long.json").write_text(json.dumps([{"role": long_role, "content": "x"}]))
    r = run_here("prepare", "long.json", cwd=tmp_path)
    assert_clean(r, 0)
    (line,) = r.lines()
    assert line.startswith("prompt-inspector: note: long.json: role `␛]52;c;aGVsbG8=␇rrr")
    assert line.endswith("characters)") and len(line) < 1100
    r = run_here("explain", CORPUS / "escape_role.json")
    assert_clean(r, 0)
    assert "findings:" in r.stdout and "role `?]52;c;aGVsbG8=??[2J?]0;pwned?`" in r.stdout


# -- the top-level guard ----------------------------------------------------------------------------------------
def test_unexpected_errors_are_one_line_and_debug_shows_the_traceback(tmp_path, monkeypatch, capsys):
    import importlib

    from inspector.core import inspection

    cli = importlib.import_module("inspector.cli.main")

    def boom(*args, **kwargs):
        raise RuntimeError("kaput")

    monkeypatch.setattr(inspection, "open_inspection", boom)
    chat = _chat(tmp_path)
    assert cli.main(["explain", str(chat)]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"{PREFIX}{chat}: unexpected error (RuntimeError: kaput); this is a bug in prompt-inspector, "
        "please report it; run again with --debug for the traceback\n"
    )
    assert cli.main(["explain", str(chat), "--debug"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("Traceback (most recent call last):") and "RuntimeError: kaput" in err
    assert err.splitlines()[-1] == (
        f"{PREFIX}{chat}: unexpected error (RuntimeError: kaput); this is a bug in prompt-inspector, please report it"
    )


def test_o_never_replaces_a_file_the_chat_reads(tmp_path):
    """`-o` onto an imported chat, a `file:` or a file of a `directory:` would change what the chat's next
    load sends: refused as writing over the chat itself is, and the file is left as it was."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("alpha\n")
    (tmp_path / "notes.md").write_text("notes\n")
    (tmp_path / "base.chat").write_text("user:\nfrom the import\n")
    (tmp_path / "main.chat").write_text("import: base.chat\n\nfile: notes.md\n\ndirectory: docs\n\nuser:\nwhat now?\n")
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    for target in ("base.chat", "notes.md", "docs/a.md"):
        for command in (["prepare", "main.chat"], ["explain", "main.chat"], ["calls", "main.chat"]):
            r = run_here(*command, "-o", target, cwd=tmp_path)
            assert_clean(r, 2)
            assert (
                r.lines()[-1]
                == PREFIX + f"{target}: refusing to overwrite a file the chat reads (import:, file: or directory:)"
            )
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before
    r = run_here("prepare", "main.chat", "-o", "out.json", cwd=tmp_path)
    assert_clean(r, 0)
    assert "from the import" in (tmp_path / "out.json").read_text() and "alpha" in (tmp_path / "out.json").read_text()


@pytest.mark.parametrize(
    "args,error",
    [
        (["why", "CHAT", ""], "the text to trace is empty"),
        (["why", "CHAT", "x(", "--regex"], "bad --regex 'x(': missing ), unterminated subpattern at position 1"),
        (["sweep", "CHAT", "--vary", "full_tool_outputs=5:1"], "--vary STOP (1) is below START (5)"),
        (["sweep", "CHAT", "--vary", "full_tool_outputs=0:5:0"], "--vary STEP must be positive, got 0"),
        (["diff", "CHAT", "--b", "max_tool_chars=lots"], "max_tool_chars needs an integer, got 'lots'"),
    ],
)
def test_a_bad_argument_is_one_line_before_the_chat_is_read(args, error):
    """Checked before loading: no loader note first, and no wait for a large chat (a missing one is not
    even looked at)."""
    for chat in ("inspector/demo/demo.chat", "no/such/chat.json"):
        r = run_here(*[chat if a == "CHAT" else a for a in args])
        assert_clean(r, 2)
        assert r.lines() == [PREFIX + error]
