"""JSON lines, OpenAI Chat, OpenAI Responses and Anthropic inputs, normalised as scout-ai stores tool traffic."""

from __future__ import annotations

import json

import pytest

from inspector.core.errors import InputError
from inspector.core.io.formats import detect, load_chat

CALL = '{"name":"ls","arguments":{"dir":"/tmp"},"id":"call_1"}'
OUT = '{"name":"ls","content":"a\\nb","id":"call_1"}'
EXPECTED = [
    ("system", "Be brief."),
    ("user", "list /tmp"),
    ("function_call", CALL),
    ("function_call_output", OUT),
    ("assistant", "Two files."),
]


def write(tmp_path, value, name="chat.json") -> str:
    path = tmp_path / name
    path.write_text(value if isinstance(value, str) else json.dumps(value, indent=1), encoding="utf-8")
    return str(path)


def rc(chat):
    return [(m.role, m.content) for m in chat.messages]


def test_jsonl_one_message_per_line_with_lines(tmp_path):
    path = write(tmp_path, '{"role":"user","content":"hi"}\n\n{"role":"assistant","content":"yo","x":1}\n', "c.jsonl")
    chat = load_chat(path)
    assert chat.format == "jsonl"
    assert [m.fields for m in chat.messages] == [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "yo", "x": 1},
    ]
    assert [m.line for m in chat.messages] == [1, 3]


def test_jsonl_bad_line_names_the_line(tmp_path):
    path = write(tmp_path, '{"role":"user","content":"hi"}\n{"role": \n', "c.jsonl")
    with pytest.raises(InputError) as info:
        load_chat(path)
    assert info.value.line == 2


def test_openai_chat_completions(tmp_path):
    path = write(
        tmp_path,
        {
            "model": "m",
            "messages": [
                {"role": "developer", "content": "Be brief."},
                {"role": "user", "content": [{"type": "text", "text": "list /tmp"}]},
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {"id": "call_1", "type": "function", "function": {"name": "ls", "arguments": '{"dir":"/tmp"}'}}
                    ],
                },
                {"role": "tool", "tool_call_id": "call_1", "content": "a\nb"},
                {"role": "assistant", "content": "Two files."},
            ],
        },
    )
    chat = load_chat(path)
    assert chat.format == "openai-chat"
    assert rc(chat) == EXPECTED


def test_openai_outputs_are_paired_with_their_calls_and_bad_arguments_kept_raw(tmp_path):
    path = write(
        tmp_path,
        [
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "a", "arguments": "{oops"}},
                    {"id": "c2", "type": "function", "function": {"name": "b", "arguments": "{}"}},
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "one"},
            {"role": "tool", "tool_call_id": "c2", "content": [{"type": "text", "text": "two"}]},
        ],
    )
    chat = load_chat(path)
    assert chat.format == "openai-chat"
    assert rc(chat) == [
        ("function_call", '{"name":"a","arguments":"{oops","id":"c1"}'),
        ("function_call_output", '{"name":"a","content":"one","id":"c1"}'),
        ("function_call", '{"name":"b","arguments":{},"id":"c2"}'),
        ("function_call_output", '{"name":"b","content":"two","id":"c2"}'),
    ]


def test_openai_responses_input_items(tmp_path):
    path = write(
        tmp_path,
        {
            "instructions": "Be brief.",
            "input": [
                {"role": "user", "content": [{"type": "input_text", "text": "list /tmp"}]},
                {"type": "reasoning", "summary": []},
                {
                    "type": "function_call",
                    "name": "ls",
                    "arguments": '{"dir":"/tmp"}',
                    "call_id": "call_1",
                    "id": "fc_9",
                },
                {"type": "function_call_output", "call_id": "call_1", "output": "a\nb"},
                {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Two files."}]},
            ],
        },
    )
    chat = load_chat(path)
    assert chat.format == "openai-responses"
    assert rc(chat) == EXPECTED


def test_responses_bare_items_and_invalid_arguments_become_null(tmp_path):
    path = write(
        tmp_path,
        [
            {"type": "function_call", "name": "x", "arguments": "{bad", "call_id": "c"},
            {"type": "function_call_output", "call_id": "c", "output": {"k": 1}},
        ],
    )
    chat = load_chat(path)
    assert chat.format == "openai-responses"
    assert rc(chat) == [
        ("function_call", '{"name":"x","arguments":null,"id":"c"}'),
        ("function_call_output", '{"name":"x","content":"{\\"k\\":1}","id":"c"}'),
    ]


def test_anthropic_messages(tmp_path):
    path = write(
        tmp_path,
        {
            "model": "c",
            "system": "Be brief.",
            "messages": [
                {"role": "user", "content": "list /tmp"},
                {
                    "role": "assistant",
                    "content": [
                        {"type": "thinking", "thinking": "hm"},
                        {"type": "tool_use", "id": "call_1", "name": "ls", "input": {"dir": "/tmp"}},
                    ],
                },
                {
                    "role": "user",
                    "content": [
                        {"type": "tool_result", "tool_use_id": "call_1", "content": [{"type": "text", "text": "a\nb"}]}
                    ],
                },
                {"role": "assistant", "content": [{"type": "text", "text": "Two files."}]},
            ],
        },
    )
    chat = load_chat(path)
    assert chat.format == "anthropic"
    assert rc(chat) == EXPECTED


def test_anthropic_text_around_tool_blocks_keeps_block_order(tmp_path):
    path = write(
        tmp_path,
        [
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Looking."},
                    {"type": "tool_use", "id": "t", "name": "n", "input": {}},
                    {"type": "image", "source": {}},
                ],
            }
        ],
    )
    chat = load_chat(path)
    assert [m.role for m in chat.messages] == ["assistant", "function_call"]
    assert [f.kind for f in chat.findings] == ["dropped_part"]


def test_input_format_forces_the_format(tmp_path):
    path = write(tmp_path, '[{"role":"user","content":"hi"}]', "x.txt")
    assert load_chat(path, "json").format == "json"
    assert load_chat(path, "scout").messages[0].role == "user"  # the text read as a scout chat


@pytest.mark.parametrize(
    "text,fmt",
    [
        ('[{"role":"user","content":"x"}]', "json"),
        ('{"messages":[]}', "openai-chat"),
        ('{"system":"s","messages":[]}', "anthropic"),
        ('{"input":[]}', "openai-responses"),
        ('{"role":"user","content":"x"}\n{"role":"user","content":"y"}\n', "jsonl"),
        ("user: hi\n", "scout"),
        ('[{"role":"user","content":"contains \\"tool_calls\\": text"}]', "json"),
    ],
)
def test_detection_by_content(text, fmt):
    assert detect(text, None) == fmt


def test_unrecognised_file_names_the_formats_tried(tmp_path):
    with pytest.raises(InputError, match="tried anthropic, openai-responses, openai-chat, json, jsonl, scout"):
        load_chat(write(tmp_path, "just some words\nno header\n", "notes.txt"))
    with pytest.raises(InputError, match="tried"):
        load_chat(write(tmp_path, '{"hello": 1}', "x.txt"))
    with pytest.raises(InputError) as info:
        load_chat(write(tmp_path, '{"messages": [\n{"role": "user",\n', "x.json"))
    assert info.value.line is not None
