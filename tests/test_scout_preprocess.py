"""scout-ai's processing before the strategies (reference §2.1/§2.2): each step, its consumed records and lines."""

from __future__ import annotations

import pytest
from scout_helpers import consumed, load, rc

from inspector.core.errors import InputError
from inspector.core.inspection import open_inspection
from inspector.core.io.formats import load_chat
from inspector.core.setup import Setup


def test_empty_messages_are_removed_but_the_parsers_own_first_message_is_not_reported(tmp_path):
    chat = load(tmp_path, "user:\nhi\nuser:\nagain\nassistant:\n \n")
    assert rc(chat) == [("user", "hi"), ("user", "again")]
    assert consumed(chat) == [("assistant", "empty", 5, 2)]


def test_clear_removes_everything_up_to_the_last_clear(tmp_path):
    chat = load(tmp_path, "user: a\nclear: x\nuser: b\nclear: y\nuser: c\n")
    assert rc(chat) == [("user", "c")]
    assert consumed(chat) == [
        ("user", "clear", 1, 0),
        ("clear", "clear", 2, 0),
        ("user", "clear", 3, 0),
        ("clear", "clear", 4, 0),
    ]
    assert "before the `clear` at line 4" in chat.consumed[0].reason


def test_clear_tools_removes_earlier_tool_messages_unless_false(tmp_path):
    text = (
        'user: q\nfunction_call: {"name":"a","arguments":{},"id":"1"}\n'
        'function_call_output: {"name":"a","content":"x","id":"1"}\nclear_tools: true\n'
        'function_call: {"name":"b","arguments":{},"id":"2"}\n'
    )
    chat = load(tmp_path, text)
    assert [m.role for m in chat.messages] == ["user", "function_call"]
    assert [c.step for c in chat.consumed] == ["clear_tools"] * 3
    kept = load(tmp_path, text.replace("clear_tools: true", "clear_tools: false"))
    assert [m.role for m in kept.messages] == ["user", "function_call", "function_call_output", "function_call"]


@pytest.mark.parametrize("directive", ["clear_role", "clean_role"])
def test_clear_role_removes_that_role(tmp_path, directive):
    chat = load(tmp_path, f"system: s\nuser: a\n{directive}: system\nuser: b\n")
    assert rc(chat) == [("user", "a"), ("user", "b")]
    assert [(c.message.role, c.step) for c in chat.consumed] == [("system", directive), (directive, directive)]


def test_config_sets_thresholds_only_with_a_prompt_or_context_token(tmp_path):
    chat = load(tmp_path, "config: max_tool_chars 5000 prompt\nconfig: full_tool_outputs 3\nuser: hi\n")
    assert chat.config == {"max_tool_chars": ("5000", 1)}
    assert [f.kind for f in chat.findings] == ["config"] and chat.findings[0].line == 2
    assert [c.step for c in chat.consumed] == ["config", "config"]
    inspection = open_inspection(tmp_path / "chat.chat", Setup.of(config_files=[], env={}))
    assert inspection.thresholds["max_tool_chars"] == 5000
    assert inspection.thresholds.values["max_tool_chars"].source == "chat"


def test_config_before_a_clear_is_gone(tmp_path):
    chat = load(tmp_path, "config: max_tool_chars 5000 prompt\nclear: now\nuser: hi\n")
    assert chat.config == {}


def test_option_prompt_strategies_after_the_last_assistant_selects_the_strategy(tmp_path):
    chat = load(tmp_path, "user: q\nassistant: a\noption: prompt_strategies none\nuser: again\n")
    assert chat.strategies == "none" and chat.strategies_line == 3
    assert rc(chat) == [("user", "q"), ("assistant", "a"), ("user", "again")]
    assert consumed(chat) == [("option", "option", 3, 2)]


def test_plain_option_resets_at_the_next_assistant_message_sticky_does_not(tmp_path):
    chat = load(tmp_path, "option: prompt_strategies none\nuser: q\nassistant: a\nuser: b\n")
    assert chat.strategies is None
    assert "reset by the assistant message at line 3" in chat.consumed[0].reason
    assert any(f.kind == "option" for f in chat.findings)
    sticky = load(tmp_path, "sticky_option: prompt_strategies none,shorten_tools\nuser: q\nassistant: a\n")
    assert sticky.strategies == "none,shorten_tools"


def test_option_roles_are_taken_as_options(tmp_path):
    chat = load(tmp_path, "endpoint: work\nmodel: m1\nbackend: openai\npersist: false\nformat: json\nuser: q\n")
    assert rc(chat) == [("user", "q")]
    assert {k: v for k, (v, _) in chat.options.items()} == {
        "endpoint": "work",
        "model": "m1",
        "backend": "openai",
        "persist": "false",
        "format": "json",
    }
    assert [c.step for c in chat.consumed] == ["option"] * 5


def test_meta_is_removed(tmp_path):
    chat = load(tmp_path, "user: q\nmeta: pt=1\nassistant: a\n")
    assert rc(chat) == [("user", "q"), ("assistant", "a")]
    assert consumed(chat) == [("meta", "meta", 2, 1)]


def test_previous_response_id_is_removed_by_default(tmp_path):
    chat = load(tmp_path, "user: q\nassistant: a\nprevious_response_id: r1\nuser: b\n")
    assert rc(chat) == [("user", "q"), ("assistant", "a"), ("user", "b")]
    assert consumed(chat) == [("previous_response_id", "previous_response_id", 3, 2)]
    assert any(f.kind == "previous_response_id" for f in chat.findings)


def test_previous_response_id_with_responses_backend_drops_everything_before_the_last(tmp_path):
    chat = load(tmp_path, "backend: responses\nuser: q\nassistant: a\nprevious_response_id: r1\nuser: b\n")
    assert rc(chat) == [("user", "b")]
    assert [(c.message.role, c.step) for c in chat.consumed] == [
        ("backend", "option"),
        ("user", "previous_response_id"),
        ("assistant", "previous_response_id"),
        ("previous_response_id", "previous_response_id"),
    ]
    kept = load(
        tmp_path, "backend: responses\noption: previous_response false\nuser: q\nprevious_response_id: r\nuser: b\n"
    )
    assert rc(kept) == [("user", "q"), ("user", "b")]


def test_import_continue_last_resolve_relative_to_the_chat(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "base.chat").write_text(
        "system: base rules\nuser: first\nassistant: reply\nprevious_response_id: r\nmeta: m\n", encoding="utf-8"
    )
    chat = load(tmp_path, "import: sub/base.chat\nuser: mine\n")
    assert rc(chat) == [("system", "base rules"), ("user", "first"), ("assistant", "reply"), ("user", "mine")]
    assert chat.messages[0].source == str(tmp_path / "sub" / "base.chat") and chat.messages[0].line == 1
    assert consumed(chat)[0] == ("import", "import", 1, 0)
    assert ("meta", "meta") in [(c.message.role, c.step) for c in chat.consumed]
    cont = load(tmp_path, "continue: sub/base.chat\nuser: mine\n")
    assert rc(cont) == [("user", "mine")]  # the last non-empty message is meta, removed afterwards
    last = load(tmp_path, "last: sub/base.chat\n")
    assert rc(last) == []


def test_missing_import_is_an_input_error_naming_the_line(tmp_path):
    with pytest.raises(InputError) as info:
        load(tmp_path, "user: a\nimport: nowhere.chat\n")
    assert info.value.line == 2 and "nowhere.chat" in str(info.value)


def test_import_cycle_is_what_scout_ai_raises(tmp_path):
    from inspector.core.errors import ScoutRaises

    (tmp_path / "a.chat").write_text("import: b.chat\n", encoding="utf-8")
    (tmp_path / "b.chat").write_text("import: a.chat\n", encoding="utf-8")
    with pytest.raises(ScoutRaises, match=r"imports itself: .* SystemStackError"):
        load_chat(tmp_path / "a.chat")


def test_file_becomes_a_tagged_user_message_and_a_missing_one_is_a_finding(tmp_path):
    (tmp_path / "notes.txt").write_text("port 8443\n", encoding="utf-8")
    chat = load(tmp_path, "user: read this\nfile: notes.txt\nfile: missing.txt\n")
    assert rc(chat) == [
        ("user", "read this"),
        ("user", '<file name="notes.txt">\nport 8443\n\n</file>'),
        ("file", "missing.txt"),
    ]
    assert chat.messages[1].line == 2
    assert consumed(chat) == [("file", "file", 2, 1)]
    assert [f.kind for f in chat.findings] == ["file"]


def test_directory_expands_to_one_file_message_per_file_sorted(tmp_path):
    docs = tmp_path / "docs"
    (docs / "a").mkdir(parents=True)
    (docs / "b.txt").write_text("B", encoding="utf-8")
    (docs / "a" / "z.txt").write_text("Z", encoding="utf-8")
    (docs / ".hidden").write_text("H", encoding="utf-8")
    chat = load(tmp_path, "directory: docs\n")
    prefix = str(tmp_path)
    assert rc(chat) == [
        ("user", f'<file name="{prefix}/docs/a/z.txt">\nZ\n</file>'),
        ("user", f'<file name="{prefix}/docs/b.txt">\nB\n</file>'),
    ]


def test_workflow_roles_stay_with_a_finding(tmp_path):
    chat = load(tmp_path, "user: q\ntask: Baking bake_muffin\njob: /tmp/x\n")
    assert [m.role for m in chat.messages] == ["user", "task", "job"]
    assert [f.kind for f in chat.findings] == ["workflow", "workflow"]


def test_unknown_role_is_a_finding(tmp_path):
    chat = load(tmp_path, "user: see\nhttp://example.com\n")
    assert rc(chat) == [("user", "see"), ("http", "//example.com")]
    assert [(f.kind, f.line) for f in chat.findings] == [("unknown_role", 2)]


def test_invalid_utf8_deletes_high_bytes_with_a_warning(tmp_path):
    path = tmp_path / "latin1.chat"
    path.write_bytes(b"user:\ncaf\xe9 ol\xc3\xa9\n")
    chat = load_chat(path)
    assert rc(chat) == [("user", "caf ol")]
    assert chat.findings[0].kind == "encoding" and chat.findings[0].line == 2
    assert path.read_bytes() == b"user:\ncaf\xe9 ol\xc3\xa9\n"  # never modified


def test_skip_is_kept_in_s(tmp_path):
    chat = load(tmp_path, "user: q\nskip: this\n")
    assert rc(chat) == [("user", "q"), ("skip", "this")]


def test_consumed_records_are_in_file_order(tmp_path):
    chat = load(tmp_path, "meta: a\nuser: q\noption: x 1\nassistant: a\nmeta: b\nuser: z\n")
    assert [c.message.line for c in chat.consumed] == [1, 3, 5]
    assert [c.before for c in chat.consumed] == [0, 1, 2]
