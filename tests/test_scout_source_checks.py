"""scout-ai's processing checked against its source (S = 733fc62, 1.2.6): the cases where the reference notes
were too coarse. The clear/clean/options/meta/previous_response_id expectations, the <file> tag text and the
directory order were produced by running that Ruby; the {PWD} directory names come from reading Path#find."""

from __future__ import annotations

import os

import pytest
from scout_helpers import consumed, load, rc

from inspector.core.errors import InputError
from inspector.core.io.formats import load_chat

CALL = 'function_call: {{"name":"t","arguments":{{}},"id":"{0}"}}\n'


# -- Chat.clear: one backward walk ----------------------------------------------------------------
def test_clear_tools_false_protects_the_tool_messages_before_it(tmp_path):
    # the nearest later clear_tools decides: 1 is guarded by `false`, 2 is cleared by `true`
    chat = load(
        tmp_path,
        "user: q\n" + CALL.format(1) + "clear_tools: false\n" + CALL.format(2) + "clear_tools: true\n" + CALL.format(3),
    )
    assert [m.role for m in chat.messages] == ["user", "function_call", "function_call"]
    assert [m.line for m in chat.messages] == [1, 2, 6]
    assert consumed(chat) == [
        ("clear_tools", "clear_tools", 3, 2),
        ("function_call", "clear_tools", 4, 2),
        ("clear_tools", "clear_tools", 5, 2),
    ]
    assert "before the `clear_tools` at line 5" in chat.consumed[1].reason
    assert "keeps the tool messages before it" in chat.consumed[0].reason


def test_clear_tools_true_before_false_clears_only_before_itself(tmp_path):
    chat = load(
        tmp_path,
        "user: q\n" + CALL.format(1) + "clear_tools: true\n" + CALL.format(2) + "clear_tools: false\n" + CALL.format(3),
    )
    assert [m.line for m in chat.messages] == [1, 4, 6]
    assert consumed(chat) == [
        ("function_call", "clear_tools", 2, 1),
        ("clear_tools", "clear_tools", 3, 1),
        ("clear_tools", "clear_tools", 5, 2),
    ]


@pytest.mark.parametrize("value", ["False", "no", "true"])
def test_only_the_exact_text_false_keeps_tool_messages(tmp_path, value):
    # `content.to_s != 'false'`: any other text clears
    chat = load(tmp_path, "user: q\n" + CALL.format(1) + f"clear_tools: {value}\n" + "user: z\n")
    assert rc(chat) == [("user", "q"), ("user", "z")]
    assert [c.step for c in chat.consumed] == ["clear_tools", "clear_tools"]


def test_clear_role_takes_its_whole_text_as_one_role_name(tmp_path):
    chat = load(tmp_path, "system: s\nuser: a\nclear_role: system, user\nassistant: b\n")
    assert rc(chat) == [("system", "s"), ("user", "a"), ("assistant", "b")]
    assert consumed(chat) == [("clear_role", "clear_role", 3, 2)]
    assert [(f.kind, f.line) for f in chat.findings] == [("clear_role", 3)]


def test_clear_role_removes_the_role_before_and_after_it(tmp_path):
    chat = load(tmp_path, "user: a\nclear_role: assistant\nassistant: b\nsystem: x\nclean_role: system\nuser: c\n")
    assert rc(chat) == [("user", "a"), ("user", "c")]
    assert consumed(chat) == [
        ("clear_role", "clear_role", 2, 1),
        ("assistant", "clear_role", 3, 1),
        ("system", "clean_role", 4, 1),
        ("clean_role", "clean_role", 5, 1),
    ]
    assert chat.consumed[1].reason == "role `assistant` removed by the `clear_role` at line 2"


def test_clear_role_before_the_last_clear_does_nothing(tmp_path):
    chat = load(tmp_path, "system: s\nclear_role: system\nclear: now\nsystem: t\nuser: u\n")
    assert rc(chat) == [("system", "t"), ("user", "u")]
    assert [c.step for c in chat.consumed] == ["clear", "clear", "clear"]


# -- Chat.options / LLM.ask -------------------------------------------------------------------------
def test_an_option_whose_value_is_nil_is_unset(tmp_path):
    # `options.delete_if{|k,v| v.nil? || v == 'nil' }` runs after sticky and plain are merged
    chat = load(
        tmp_path, "sticky_option: prompt_strategies none\nuser: a\noption: prompt_strategies nil\nmodel: nil\nuser: q\n"
    )
    assert chat.strategies is None and chat.strategies_line is None
    assert "prompt_strategies" not in chat.options and "model" not in chat.options
    assert rc(chat) == [("user", "a"), ("user", "q")]
    assert consumed(chat) == [("sticky_option", "option", 1, 0), ("option", "option", 3, 1), ("model", "option", 4, 1)]
    assert chat.consumed[1].reason.endswith("; the value nil unsets it")
    assert chat.consumed[2].reason == "sticky option model=nil; the value nil unsets it"


def test_option_splits_at_the_first_space_only(tmp_path):
    chat = load(tmp_path, "user: a\nassistant: b\noption: x 1 2\nuser: c\n")
    assert chat.options == {"x": ("1 2", 3)}


def test_previous_response_id_leaves_the_options_when_cleaned(tmp_path):
    chat = load(
        tmp_path, "backend: responses\noption: previous_response false\nuser: q\nprevious_response_id: r\nuser: b\n"
    )
    assert rc(chat) == [("user", "q"), ("user", "b")]
    assert {k: v for k, (v, _) in chat.options.items()} == {"backend": "responses", "previous_response": "false"}
    kept = load(tmp_path, "backend: responses\nuser: q\nprevious_response_id: r\nuser: b\n")
    assert kept.options["previous_response_id"] == ("r", 3)


@pytest.mark.parametrize("value", ["none", "no", "false"])
def test_agent_values_inside_none_false_nil_mean_no_agent(tmp_path, value):
    # `%(none false nil).include?(agent)` is a substring test on one String
    chat = load(tmp_path, f"agent: {value}\nuser: q\n")
    assert not [f for f in chat.findings if f.kind == "agent"]
    named = load(tmp_path, "agent: Planner\nuser: q\n")
    assert [f.kind for f in named.findings] == ["agent"]


# -- Chat.files -------------------------------------------------------------------------------------
def test_file_tag_keeps_the_text_exactly_and_the_name_as_written(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.txt").write_text("\n\nabc\n\n", encoding="utf-8")
    (tmp_path / "empty.txt").write_text("", encoding="utf-8")
    chat = load(tmp_path, "file:  sub/a.txt \nfile: empty.txt\n")
    assert rc(chat) == [
        ("user", '<file name="sub/a.txt">\n\n\nabc\n\n\n</file>'),
        ("user", '<file name="empty.txt">\n\n</file>'),
    ]
    assert consumed(chat) == [("file", "file", 1, 0), ("file", "file", 2, 1)]


def test_directory_names_are_absolute_even_for_a_relative_chat_path(tmp_path, monkeypatch):
    # Path#find puts an unlocated path under {PWD}: the names are absolute however the chat was named
    (tmp_path / "sub" / "docs").mkdir(parents=True)
    (tmp_path / "sub" / "docs" / "x.txt").write_text("X", encoding="utf-8")
    (tmp_path / "sub" / "chat.chat").write_text("directory: docs\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    chat = load_chat(os.path.join("sub", "chat.chat"))
    assert rc(chat) == [("user", f'<file name="{tmp_path}/sub/docs/x.txt">\nX\n</file>')]
    assert consumed(chat) == [("directory", "directory", 1, 0)]


def test_image_and_pdf_paths_are_resolved_and_a_missing_one_is_a_finding(tmp_path):
    (tmp_path / "pic.png").write_bytes(b"\x89PNG")
    chat = load(tmp_path, "user: look\nimage: pic.png\npdf: gone.pdf\n")
    assert rc(chat) == [("user", "look"), ("image", str(tmp_path / "pic.png")), ("pdf", "gone.pdf")]
    assert chat.messages[1].line == 2
    assert consumed(chat) == [("image", "image", 2, 1)]
    assert [(f.kind, f.line) for f in chat.findings] == [("file", 3)]


def test_a_url_is_reported_as_fetched_not_missing(tmp_path):
    chat = load(tmp_path, "file: https://example.com/a.txt\nuser: q\n")
    assert rc(chat) == [("file", "https://example.com/a.txt"), ("user", "q")]
    assert "is a URL" in chat.findings[0].message
    with pytest.raises(InputError, match="is a URL"):
        load(tmp_path, "import: https://example.com/a.chat\n")


def test_find_file_prefers_the_chats_directory_beside_the_chat_over_the_literal_path(tmp_path, monkeypatch):
    (tmp_path / "here").mkdir()
    (tmp_path / "here" / "n.txt").write_text("beside", encoding="utf-8")
    (tmp_path / "n.txt").write_text("cwd", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    chat = load(tmp_path / "here", "file: n.txt\n")
    assert rc(chat) == [("user", '<file name="n.txt">\nbeside\n</file>')]


# -- Chat.imports -----------------------------------------------------------------------------------
def test_continue_takes_a_trailing_previous_response_id_and_import_drops_it(tmp_path):
    # `continue` does not purge; the id it takes is then cleaned by LLM.ask
    (tmp_path / "base.chat").write_text("user: first\nassistant: reply\nprevious_response_id: r9\n", encoding="utf-8")
    cont = load(tmp_path, "continue: base.chat\nuser: mine\n")
    assert rc(cont) == [("user", "mine")]
    assert [(c.message.role, c.step) for c in cont.consumed] == [
        ("continue", "continue"),
        ("previous_response_id", "previous_response_id"),
    ]
    last = load(tmp_path, "last: base.chat\nuser: mine\n")
    assert rc(last) == [("assistant", "reply"), ("user", "mine")]
