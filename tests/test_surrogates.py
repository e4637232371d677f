"""Escaped surrogates and invalid UTF-8 read and written as Ruby's json 2.6.1 does.

Expectations come from Ruby (tests/golden_surrogates/make_cases.py); no Ruby is needed here.
"""

import json
from hashlib import md5
from pathlib import Path

import pytest
from cli_runner import run_cli

from inspector.core.ruby import json as rubyjson
from inspector.core.ruby import json_bytes
from inspector.core.scout.shorten import marker

HERE = Path(__file__).parent / "golden_surrogates"
STRINGS = json.loads((HERE / "strings.json").read_text())
CHATS = json.loads((HERE / "chats.json").read_text())


@pytest.fixture
def broken_bytes_read(monkeypatch):
    monkeypatch.setattr(json_bytes, "used", True)  # as once the loader has read a file with invalid bytes


@pytest.mark.parametrize("case", STRINGS, ids=lambda c: bytes.fromhex(c["input"]).decode("latin-1"))
def test_string_reads_as_ruby_does(case, broken_bytes_read):
    text = bytes.fromhex(case["input"]).decode("utf-8", "surrogateescape")
    if "raises" in case:
        with pytest.raises(rubyjson.RubyJSONError) as caught:
            rubyjson.parse(text)
        assert (caught.value.exception, str(caught.value)) == (case["raises"], case["message"])
        return
    value = rubyjson.parse(text)[0]
    data = value.encode("utf-8", "surrogateescape")
    assert data.hex() == case["bytes"]
    assert len(value) == case["length"]  # String#length: an invalid byte counts one
    assert md5(data).hexdigest() == case["md5"]
    assert marker(value) == f"<...{case['length']} - {case['md5'][:5]}...>"
    assert json_bytes.generator_error(value) == case["generate"]
    if case["generate"] is None:
        assert rubyjson.dumps([value]).encode() == b"[" + json.dumps(value, ensure_ascii=False).encode() + b"]"
    else:
        with pytest.raises(rubyjson.RubyJSONError, match=r"illegal|partial"):
            rubyjson.dumps([value])


def test_rules_in_brief(broken_bytes_read):
    assert rubyjson.parse(r'["lone \ud800 surrogate"]') == ["lone ?surrogate"]
    assert rubyjson.parse(r'["\ud800\u0041zzzzzz"]') == ["\U00010041zzzzzz"]
    assert rubyjson.parse(r'{"k\ud800abcdef": "\ud83d\ude00"}') == {"k?bcdef": "\U0001f600"}
    assert rubyjson.parse(r'["a\udc00b"]') == ["a\udced\udcb0\udc80b"]  # 3 invalid bytes
    assert rubyjson.parse(r'["\a\/\q"]') == ["a/q"]  # Ruby keeps the character after an unknown escape


@pytest.mark.parametrize("case", CHATS, ids=lambda c: f"seed{c['seed']}")
def test_chat_prepares_as_the_oracle(case, tmp_path):
    path = tmp_path / "chat.json"
    path.write_bytes(bytes.fromhex(case["input"]))
    result = run_cli("prepare", path, env=case["env"], text=False, scout_config=False)
    if case["raises"] is None:
        assert result.returncode == 0, result.stderr
        assert result.stdout == bytes.fromhex(case["expected"])
    elif case["at_load"]:
        assert (result.returncode, result.stdout) == (2, b""), result.stderr
    else:
        assert (result.returncode, result.stdout) == (3, b""), result.stderr
        assert f"would raise {case['raises']}".encode() in result.stderr


def test_invalid_utf8_in_a_dropped_message_is_fine(tmp_path):
    """The bad bytes sit only in an old tool output that the thresholds drop: Ruby writes the rest."""
    call = json.dumps({"name": "ls", "arguments": {}, "id": "c1"})
    out = json.dumps({"name": "ls", "content": "XX", "id": "c1"}).encode().replace(b"XX", b"ok \xff bad")
    data = b'[{"role":"user","content":"hi"},{"role":"function_call","content":' + json.dumps(call).encode()
    data += b'},{"role":"function_call_output","content":"' + out.replace(b'"', b'\\"') + b'"}'
    data += b',{"role":"user","content":"next"}]'
    path = tmp_path / "chat.json"
    path.write_bytes(data)
    env = {"MAX_TOOL_CHARS": "0", "MAX_TOOL_CALLS": "0", "MAX_TOOL_OUTPUTS": "0", "FULL_TOOL_OUTPUTS": "0"}
    result = run_cli("prepare", path, env=env, text=False, scout_config=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout == b'[{"role":"user","content":"hi"},{"role":"user","content":"next"}]\n'
    kept = run_cli("prepare", path, text=False, scout_config=False)  # kept whole: JSON.generate raises
    assert kept.returncode == 3 and kept.stdout == b""
    assert b"JSON::GeneratorError: source sequence is illegal/malformed utf-8" in kept.stderr


def test_explain_and_why_do_not_crash_on_broken_chats(tmp_path):
    path = tmp_path / "chat.json"
    path.write_bytes(bytes.fromhex(next(c["input"] for c in CHATS if c["raises"] == "JSON::GeneratorError")))
    for args in (("explain", path), ("why", path, "0"), ("calls", path)):
        result = run_cli(*args, text=False, scout_config=False)
        assert result.returncode in (0, 2, 3), (args, result.stderr)
        assert b"Traceback" not in result.stderr and b"this is a bug" not in result.stderr, (args, result.stderr)
