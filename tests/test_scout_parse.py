"""The scout chat parser: each grammar rule of reference §1.4 and each hazard, on hand-written chats.

Expected outputs were checked against scout-ai's own ``Chat.parse`` (Ruby) while writing them.
"""

from __future__ import annotations

import pytest

from inspector.core.scout.parser import parse


def rc(text: str) -> list[tuple[str, str]]:
    return [(m.role, m.content) for m in parse(text).messages]


def lines(text: str) -> list[tuple[str, int | None, int | None]]:
    return [(m.role, m.line, m.end_line) for m in parse(text).messages]


def kinds(text: str) -> list[tuple[str, int | None, int]]:
    return [(f.kind, f.line, f.swallowed) for f in parse(text).findings]


def test_block_chat_starts_with_the_parsers_empty_user_message():
    text = "system:\n\nBe brief.\n\nuser:\n\nWhat is 2+2?\n\nassistant:\n\n4\n"
    assert rc(text) == [("user", ""), ("system", "Be brief."), ("user", "What is 2+2?"), ("assistant", "4")]
    parsed = parse(text)
    assert parsed.synthetic_first
    assert lines(text) == [("user", None, None), ("system", 1, 3), ("user", 5, 7), ("assistant", 9, 11)]


def test_text_before_any_header_is_a_user_message():
    assert rc("hello\nthere\nassistant: hi") == [("user", "hello\nthere"), ("assistant", "hi")]
    assert not parse("hello\nassistant: hi").synthetic_first
    assert lines("\nhello\nthere\nassistant: hi") == [("user", 2, 3), ("assistant", 4, 4)]


def test_a_byte_order_mark_turns_the_first_header_into_text_and_says_so():
    text = "\ufeffuser:\nhello\n\nassistant:\nhi\n"
    assert rc(text) == [("user", "\ufeffuser:\nhello"), ("assistant", "hi")]  # Ruby keeps the mark
    assert kinds(text) == [("byte_order_mark", 1, 0)]
    assert parse(text).findings[0].message.startswith("the file starts with a byte order mark (U+FEFF)")
    assert kinds("\ufeffhello\nassistant: hi") == []  # no header to lose: nothing to say
    assert kinds("user:\n\ufeffhello") == []


def test_inline_message_then_text_returns_to_the_last_block_role():
    text = 'assistant:\n\nfunction_call: {"a":1}\ntext after\n'
    assert rc(text) == [("user", ""), ("function_call", '{"a":1}'), ("assistant", "text after")]
    assert lines(text)[2] == ("assistant", 4, 4)


@pytest.mark.parametrize("role", ["previous_response_id", "agent"])
def test_inline_previous_response_id_and_agent_return_to_user(role):
    assert rc(f"assistant:\nanswer\n{role}: x\nmore") == [
        ("user", ""),
        ("assistant", "answer"),
        (role, "x"),
        ("user", "more"),
    ]


def test_bare_block_header_without_content_is_dropped():
    assert rc("user:\nhi\nclear:\nsystem:\nrules") == [("user", ""), ("user", "hi"), ("system", "rules")]
    assert kinds("user:\nhi\nclear:\nsystem:\nrules") == [("ignored_header", 3, 0)]


def test_whitespace_only_tail_emits_an_empty_message():
    assert rc("user:\nhi\nassistant:\n\n") == [("user", ""), ("user", "hi")]  # trailing empties are dropped by split
    assert rc("user:\nhi\nassistant:\n \n") == [("user", ""), ("user", "hi"), ("assistant", "")]


def test_headers_must_start_at_column_zero_and_be_lowercase():
    assert rc("user:\n  assistant: no\nUser: no\nstep1: yes\nhttp://x.com") == [
        ("user", ""),
        ("user", "assistant: no\nUser: no"),
        ("step1", "yes"),
        ("http", "//x.com"),
    ]


def test_escaped_header_loses_its_backslash():
    assert rc("user:\n\\assistant: kept as text\n\\Foo: not escaped") == [
        ("user", ""),
        ("user", "assistant: kept as text\n\\Foo: not escaped"),
    ]


def test_fence_protects_headers_and_keeps_the_fence_lines():
    text = "user:\n```\nassistant: inside\n\\user: stays escaped\n```\nassistant: out"
    assert rc(text) == [
        ("user", ""),
        ("user", "```\nassistant: inside\n\\user: stays escaped\n```"),
        ("assistant", "out"),
    ]
    assert kinds(text) == []


def test_odd_fence_swallows_the_rest_and_is_reported():
    text = "user:\nlook\n```python\nx = 1\nassistant: lost\n"
    assert rc(text) == [("user", ""), ("user", "look\n```python\nx = 1\nassistant: lost")]
    assert kinds(text) == [("unclosed_fence", 3, 1)]


def test_square_block_removes_the_first_brackets_and_closes_on_a_line_ending_in_them():
    text = "user:\n[[one\nassistant: two\nthree]] end]]\nassistant: out"
    assert rc(text) == [("user", ""), ("user", "one\nassistant: two\nthree end]]"), ("assistant", "out")]
    assert kinds(text) == [("square_block", 2, 1)]


def test_square_on_one_line_does_not_close():
    text = "assistant:\n\nSee [[docs]]\n[[1, 2], [3, 4]]\nuser: this is NOT a new message\n"
    assert rc(text) == [("user", ""), ("assistant", "See [[docs]]\n1, 2], [3, 4]]\nuser: this is NOT a new message")]
    assert kinds(text) == [("unclosed_square", 4, 1)]


def test_blank_bracket_lines_are_not_appended():
    assert rc("user:\na\n[[\nb\n]]\nc") == [("user", ""), ("user", "a\nb\nc")]


def test_square_opens_inside_another_block_and_fence_inside_it_is_dropped():
    text = "user:\n```\n[[x\n```\ny]]\nassistant: out"
    assert rc(text) == [("user", ""), ("user", "```\nx\ny"), ("assistant", "out")]
    assert [k for k, _, _ in kinds(text)] == ["dropped_fence"]


def test_xml_tag_protects_only_when_its_closing_tag_is_in_the_file():
    text = "user:\n<think>\nassistant: inside\n</think>\nassistant: out"
    assert rc(text) == [("user", ""), ("user", "<think>\nassistant: inside\n</think>"), ("assistant", "out")]
    assert kinds(text) == [("xml_block", 2, 1)]
    assert rc("user:\n<think>\nassistant: out") == [("user", ""), ("user", "<think>"), ("assistant", "out")]


def test_xml_closing_tag_anywhere_in_the_file_makes_the_block_run_over_headers():
    text = (
        'assistant:\n<thinking>\nuser: swallowed\nfunction_call: {"a":1}\n'
        'function_call_output: {"content":"x </thinking> y"}\nuser: visible'
    )
    assert rc(text)[-1] == ("user", "visible")
    assert len(rc(text)) == 3
    assert kinds(text) == [("xml_block", 2, 3)]


def test_xml_closing_on_the_opening_line_is_ignored_and_first_closing_tag_counts():
    text = "user:\n<b>x</b>\nassistant: inside\n</i> </b>\n</b>\nassistant: out"
    assert rc(text) == [("user", ""), ("user", "<b>x</b>\nassistant: inside\n</i> </b>\n</b>"), ("assistant", "out")]


def test_xml_stack_survives_a_square_takeover():
    # a tag opened before `[[` took the block over must still be closed (found by differential testing)
    text = "user:\n<b>\n[[\n]]\n<i>\n</i>\nassistant: inside\n</b>\nassistant: out"
    assert rc(text)[-1] == ("assistant", "out")
    assert "assistant: inside" in rc(text)[1][1]


def test_xml_attributes_and_non_tags():
    assert rc('user:\n<cmd a="1">\nassistant: in\n</cmd>\nassistant: out')[-1] == ("assistant", "out")
    assert rc("user:\n< b>\nassistant: x\n</b>") == [
        ("user", ""),
        ("user", "< b>"),
        ("assistant", "x"),
        ("user", "</b>"),
    ]


def test_cmd_output_fold_is_rewritten_and_protected():
    text = "user:\nls:-- ls -la {{{\nassistant: listing\nend:-- x }}}\nassistant: out"
    assert rc(text) == [
        ("user", ""),
        ("user", '<cmd_output cmd="ls -la">\nassistant: listing\n</cmd_output>'),
        ("assistant", "out"),
    ]


def test_cmd_output_with_leading_space_is_protected_but_not_rewritten():
    text = "user:\n  x:-- ls {{{\nassistant: in\n:--  }}}\nassistant: out"
    assert rc(text) == [("user", ""), ("user", "x:-- ls {{{\nassistant: in\n</cmd_output>"), ("assistant", "out")]


def test_ruby_strip_removes_nul_and_vertical_tab_but_not_unicode_spaces():
    assert rc("user:\n\0\v hi \u00a0\n\v") == [("user", ""), ("user", "hi \u00a0")]


def test_crlf_is_kept_inside_content_and_a_bare_header_with_cr_is_a_block_header():
    text = "user:\r\nline one\r\nline two\r\nassistant: hi\r\n"
    assert rc(text) == [("user", ""), ("user", "line one\r\nline two"), ("assistant", "hi")]


def test_regexes_are_ascii_only():
    assert rc("user:\né: not a header\n<é>\nassistant: out\n</é>") == [
        ("user", ""),
        ("user", "é: not a header\n<é>"),
        ("assistant", "out"),
        ("user", "</é>"),
    ]


def test_huge_single_line_is_linear():
    line = "<a" + " " * 400_000 + ":--" * 100_000 + " {{{"[:-1]
    assert len(rc("user:\n" + line)) == 2
