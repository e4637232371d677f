"""Issue 12: fuzzing every loader, the pre-processing and the CLI (hypothesis, derandomized, fixed budgets).

What may come out: a chat, or one of the errors the CLI turns into one line (InputError and its
ScoutRaises, UsageError, UnknownStrategy, Ruby's JSON errors). Anything else is a bug; so is an escape
character on stderr or the guard's "this is a bug" line. The budgets keep the whole file to a few seconds.
"""

from __future__ import annotations

import importlib
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.core.errors import InputError, UsageError
from inspector.core.inspection import open_inspection
from inspector.core.io.formats import FORMATS, load_chat
from inspector.core.io.printers import PRINTERS, render
from inspector.core.present.sanitize import terminal_line
from inspector.core.ruby.json import RubyJSONError
from inspector.core.scout.settings import parse_assignments, read_config_files, resolve, ruby_to_i
from inspector.core.scout.strategies import UnknownStrategy
from inspector.core.setup import Setup

SAMPLES = Path(__file__).resolve().parent.parent / "sample_chats"
EXPECTED = (InputError, UsageError, UnknownStrategy, RubyJSONError)
FUZZ = settings(
    max_examples=60, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)

# what agents and attackers put in files: structure characters, escapes, odd digits, huge numbers
ALPHABET = st.sampled_from(
    list('[]{}":,\n \t\\/')
    + ["\x00", "\x1b", "\x07", "\x9b", "\u202e", "١", "１", "²", "é", "\ud800"]
    + ["role", "content", "user:", "assistant:", "import:", "file:", "directory:", "config:", "1e400", "-0", "9" * 30]
)
NOISE = st.lists(ALPHABET, max_size=40).map("".join)


def _documents():
    texts = []
    for name in ("debug_session.json", "debug_session.openai.json", "debug_session.anthropic.json"):
        texts.append((SAMPLES / name).read_text(encoding="utf-8")[:3000])
    texts.append((SAMPLES / "directives.chat").read_text(encoding="utf-8")[:3000])
    texts.append('{"input": [{"type": "message", "role": "user", "content": "hi"}]}')
    texts.append('{"role": "user", "content": "a"}\n{"role": "assistant", "content": "b"}\n')
    return texts


DOCUMENTS = _documents()


@st.composite
def mutated(draw):
    """A valid document of some format with a few random edits (insert, delete, replace)."""
    text = draw(st.sampled_from(DOCUMENTS))
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(text)))
        cut = draw(st.integers(0, 20))
        text = text[:at] + draw(NOISE) + text[at + cut :]
    return text


def _check_chat(chat) -> None:
    for message in chat.messages:
        assert isinstance(message.fields, dict)
    for finding in chat.findings:
        assert isinstance(finding.message, str)


@FUZZ
@given(text=st.one_of(NOISE, mutated(), st.text(max_size=300)), name=st.sampled_from(sorted(FORMATS)))
def test_every_loader_takes_any_text(text, name):
    try:
        chat = FORMATS[name].load(text, "fuzz")
    except EXPECTED:
        return
    _check_chat(chat)


@FUZZ
@given(data=st.one_of(st.binary(max_size=400), mutated().map(lambda t: t.encode("utf-8", "surrogatepass"))))
def test_loading_any_bytes_from_a_file(tmp_path, data):
    path = tmp_path / "fuzz.chat"
    path.write_bytes(data)
    try:
        chat = load_chat(path)
    except EXPECTED:
        return
    _check_chat(chat)


# -- pre-processing: directives pointing at files, directories, FIFOs, devices, themselves ---------------------
TARGETS = ["a.chat", "sub", "pipe", "zero", "self.chat", "missing", "big", "", "/dev/null", "a.chat\x00", "é" * 50]
DIRECTIVES = ["import", "continue", "last", "file", "directory", "pdf", "image", "clear", "clean", "skip", "config"]


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    root = tmp_path_factory.mktemp("fuzztree")
    (root / "a.chat").write_text("user:\nfrom a\n\nassistant:\nok\n")
    (root / "sub").mkdir()
    (root / "sub" / "x.txt").write_text("x\n")
    os.mkfifo(root / "sub" / "pipe")
    os.mkfifo(root / "pipe")
    os.symlink("/dev/zero", root / "zero")
    with open(root / "big", "wb") as handle:
        handle.truncate(300 * 1024**2)
    return root


@st.composite
def directive_chat(draw):
    lines = []
    for _ in range(draw(st.integers(1, 6))):
        role = draw(st.sampled_from(DIRECTIVES + ["user", "assistant", "option", draw(NOISE)]))
        arg = draw(st.one_of(st.sampled_from(TARGETS), NOISE))
        if role == "config":
            arg = f"{draw(st.sampled_from(['max_tool_chars', 'max_tool_calls', 'x']))} {arg} prompt{draw(NOISE)}"
        lines.append(f"{role}: {arg}" if draw(st.booleans()) else f"{role}:\n{arg}")
    return "\n\n".join(lines) + "\n"


@FUZZ
@given(text=directive_chat(), fmt=st.sampled_from(sorted(PRINTERS)))
def test_preprocessing_and_printing_any_directives(tree, text, fmt):
    (tree / "self.chat").write_text(text, encoding="utf-8", errors="surrogatepass")
    cwd = os.getcwd()
    os.chdir(tree)  # directive targets are found beside the chat and in the current directory
    try:
        inspection = open_inspection(tree / "self.chat", Setup.of(env={}, config_files=[]))
        prompt = inspection.prompt()
        if prompt.error is None:
            render(fmt, prompt.messages())
    except EXPECTED:
        return
    finally:
        os.chdir(cwd)


# -- settings and the CLI ------------------------------------------------------------------------------------------
@FUZZ
@given(
    text=st.one_of(
        st.sampled_from(["²", "١٢", "１２", "٣" * 5000, "9" * 5000, "-" + "1_" * 3000 + "1", "0" * 9000 + "7", "nil"]),
        st.text(max_size=60),
        NOISE,
        st.from_regex(r"[ \t]*[+-]?[0-9_]{0,6000}", fullmatch=True),
    )
)
def test_numbers_from_the_environment_and_config_files(tmp_path, text):
    assert isinstance(ruby_to_i(text), int)
    config = tmp_path / "config"
    config.write_text(f"max_tool_chars {text} prompt::{text}\nmax_tool_calls 1 context {text}\n", errors="replace")
    read_config_files([config])
    values = resolve(env={"FULL_TOOL_CALLS": text.replace("\x00", "")}, config_files=[config])
    for warning in values.warnings:
        assert len(terminal_line(warning)) < 1100
    try:
        parse_assignments([f"max_tool_chars={text}"])
    except UsageError:
        pass


ARGS = st.sampled_from(
    [
        "prepare",
        "explain",
        "thresholds",
        "why",
        "sweep",
        "diff",
        "--set",
        "max_tool_chars=5",
        "max_tool_chars=x",
        "--format",
        "json",
        "chat",
        "table",
        "--strategies",
        "none",
        "nope",
        "--input-format",
        "jsonl",
        "-o",
        "out.json",
        "--no-scout-config",
        "--vary",
        "max_tool_chars=1,2",
        "--b",
        "x",
        "fuzz.chat",
        "\x1b[2J",
        "--json",
    ]
)


@FUZZ
@given(argv=st.lists(ARGS, max_size=8), data=st.one_of(mutated(), NOISE))
def test_the_cli_never_fails_unexpectedly(tmp_path, capsys, argv, data):
    cli = importlib.import_module("inspector.cli.main")
    (tmp_path / "fuzz.chat").write_text(data, encoding="utf-8", errors="surrogatepass")
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        code = cli.main(["thresholds" if not argv else argv[0], "fuzz.chat", "--no-scout-config", *argv[1:]])
    finally:
        os.chdir(cwd)
    err = capsys.readouterr().err
    assert code in (0, 2, 3), err
    assert "this is a bug" not in err and "Traceback" not in err
    assert "\x1b" not in err and "\x07" not in err
