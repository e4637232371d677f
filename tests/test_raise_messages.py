"""What scout-ai would raise is named by the message's index and its line in the chat file."""

from __future__ import annotations

from cli_runner import run_cli


def test_a_raise_names_the_message_and_its_line(tmp_path):
    chat = tmp_path / "bad.chat"
    chat.write_text("user:\n\nhi\n\nfunction_call_output:\n\nnot json at all\n")
    for command in ("prepare", "explain", "why"):
        args = (command, chat, "hi") if command == "why" else (command, chat)
        r = run_cli(*args, scout_config=False)
        assert r.returncode == 3
        assert r.stderr.splitlines()[-1] == (
            f"prompt-inspector: error: {chat}: message 1 at line 5 (role function_call_output): scout-ai would "
            "raise JSON::ParserError: content is not valid JSON (invalid literal, expected 'null' at line 1 column 1)"
        )
