import pytest

from inspector.core.errors import UsageError
from inspector.core.scout.settings import parse_assignments, resolve, ruby_to_i


@pytest.mark.parametrize(
    "text,value",
    [
        ("100", 100),
        ("100k", 100),
        (" 12", 12),
        ("1_000", 1000),
        ("1__0", 1),
        ("", 0),
        ("abc", 0),
        ("-5", -5),
        ("+7", 7),
        ("0x10", 0),
        ("1e5", 1),
        ("12.9", 12),
        ("\t\n42", 42),
        ("_1", 0),
    ],
)
def test_ruby_to_i(text, value):
    assert ruby_to_i(text) == value


def test_defaults_and_following():
    t = resolve(env={}, config_files=[])
    assert t.as_ints() == {
        "full_tool_calls": 0,
        "full_tool_outputs": 10,
        "max_tool_calls": 40,
        "max_tool_outputs": 40,
        "max_tool_chars": 100000,
    }
    assert t.values["max_tool_chars"].source == "default"
    assert t.follows()
    t = resolve({"max_tool_calls": "12"}, env={}, config_files=[])
    assert t["max_tool_outputs"] == 12 and t.values["max_tool_outputs"].source == "follows max_tool_calls"
    t = resolve({"max_tool_calls": "12"}, env={"MAX_TOOL_OUTPUTS": "30"}, config_files=[])
    assert t["max_tool_outputs"] == 30 and t.values["max_tool_outputs"].source == "environment"


def test_environment_warning_text():
    t = resolve(env={"MAX_TOOL_CHARS": "100k"}, config_files=[])
    assert t["max_tool_chars"] == 100
    assert "MAX_TOOL_CHARS='100k' from the environment is read by scout-ai as 100" in t.warnings


def test_empty_environment_value_is_zero():
    t = resolve(env={"FULL_TOOL_OUTPUTS": ""}, config_files=[])
    assert t["full_tool_outputs"] == 0 and t.warnings


def test_config_file_beats_environment_and_needs_a_token(tmp_path):
    low = tmp_path / "home.config"
    high = tmp_path / "cwd.config"
    low.write_text("max_tool_chars 5000 prompt\nfull_tool_outputs 3 context\nmax_tool_calls 7\n")
    high.write_text("# comment\nmax_tool_chars 6000 context\n")
    t = resolve(env={"MAX_TOOL_CHARS": "9", "FULL_TOOL_OUTPUTS": "4"}, config_files=[high, low])
    # prompt is listed before context in scout's call, so the prompt line wins over the higher file's context line
    assert t["max_tool_chars"] == 5000 and t.values["max_tool_chars"].where == f"{low}:1"
    assert t["full_tool_outputs"] == 3 and t.values["full_tool_outputs"].source == "config"
    assert t["max_tool_calls"] == 40  # no token: not used
    assert any("no 'prompt' or 'context' token" in w for w in t.warnings)


def test_higher_priority_file_and_later_line_win(tmp_path):
    low = tmp_path / "a"
    high = tmp_path / "b"
    low.write_text("max_tool_chars 1 prompt\n")
    high.write_text("max_tool_chars 2 prompt\nmax_tool_chars 3 prompt\n")
    t = resolve(env={}, config_files=[high, low])
    assert t["max_tool_chars"] == 3


def test_override_beats_everything_and_chat_config_beats_files(tmp_path):
    f = tmp_path / "c"
    f.write_text("max_tool_chars 1 prompt\nfull_tool_outputs 2 prompt\n")
    t = resolve(
        {"max_tool_chars": "5"},
        chat_config={"full_tool_outputs": ("8", 3)},
        env={},
        config_files=[f],
        chat_path="x.chat",
    )
    assert t["max_tool_chars"] == 5 and t.values["max_tool_chars"].source == "override"
    assert t["full_tool_outputs"] == 8 and t.values["full_tool_outputs"].where == "x.chat:3"


def test_false_in_config_means_default(tmp_path):
    f = tmp_path / "c"
    f.write_text("full_tool_outputs false prompt\n")
    t = resolve(env={}, config_files=[f])
    assert t["full_tool_outputs"] == 10


def test_with_value_keeps_following():
    t = resolve(env={}, config_files=[]).with_value("max_tool_calls", 9)
    assert t["max_tool_outputs"] == 9
    t = t.with_value("max_tool_outputs", 3)
    assert t.with_value("max_tool_calls", 20)["max_tool_outputs"] == 3


def test_parse_assignments():
    assert parse_assignments(["MAX_TOOL_CHARS=5", "full_tool_outputs = 2"]) == {
        "max_tool_chars": "5",
        "full_tool_outputs": "2",
    }
    with pytest.raises(UsageError):
        parse_assignments(["nope=1"])
    with pytest.raises(UsageError):
        parse_assignments(["max_tool_chars"])
