"""What the CLI says about hard cases: the line scout-ai raises on, a text found very often in one message."""

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


def test_why_counts_a_text_found_very_often_in_one_message_without_listing_every_hit(tmp_path):
    chat = tmp_path / "many.chat"
    chat.write_text("user:\n\nfind it\n\nassistant:\n\n" + "ab " * 5000 + "\n")
    r = run_cli("why", chat, "ab", "--format", "json", scout_config=False)
    import json

    rows = json.loads(r.stdout)
    assert len(rows) == 200 and {row["index"] for row in rows} == {1}
    text = run_cli("why", chat, "ab", scout_config=False).stdout.splitlines()[0]
    assert (
        text
        == "'ab': 5,000 occurrence(s) in 1 message(s) (200 listed: at most 200 per message); the model sees every one."
    )
    regex = run_cli("why", chat, "a[b]", "--regex", scout_config=False).stdout.splitlines()[0]
    assert regex.startswith("'a[b]': 5,000 occurrence(s) in 1 message(s) (200 listed")


def test_why_searches_fixes_for_the_newest_hidden_copies_only(tmp_path):
    import json

    messages = [{"role": "user", "content": "go zz"}]
    for i in range(60):
        call = json.dumps({"name": "f", "arguments": {"i": i}, "id": f"c{i}"})
        out = json.dumps({"name": "f", "content": f"out {i} zz " + "x" * 3000, "id": f"c{i}"})
        messages += [{"role": "function_call", "content": call}, {"role": "function_call_output", "content": out}]
    chat = tmp_path / "freq.json"
    chat.write_text(json.dumps(messages))
    r = run_cli("why", chat, "zz", "--fixes-for", "3", "--format", "json", scout_config=False)
    rows = json.loads(r.stdout)
    hidden = [row for row in rows if not row["visible"]]
    searched = [row for row in hidden if row["fixes"] or row["pair_fixes"]]
    assert len(hidden) > 3 and len(searched) == 3
    assert {row["index"] for row in searched} == set(sorted((row["index"] for row in hidden), reverse=True)[:3])
    skipped = [row for row in hidden if row not in searched]
    assert {row["blocked"] for row in skipped} == {
        "fixes not searched: only the newest 3 hidden occurrences are (--fixes-for)"
    }
    assert (
        f"{len(hidden):,} hidden occurrences: fixes searched for the newest 3 (--fixes-for 0 searches every one)"
        in r.stderr
    )
    every = run_cli("why", chat, "zz", "--fixes-for", "0", "--format", "json", scout_config=False)
    assert "not searched" not in every.stdout
    assert sum(1 for row in json.loads(every.stdout) if row["fixes"] or row["pair_fixes"]) > 3
