"""Re-opening a prepared prompt (`prepare --format chat|json`, or 2.x's envelope) says so in a loader finding."""

from pathlib import Path

from cli_runner import run_cli

from inspector.core.io.formats import load_chat
from inspector.core.model import Chat, Message
from inspector.core.scout.prepared import prepared_findings

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_chats" / "debug_session.json"
NOTE = (
    "this chat looks like an already-prepared prompt: 11 messages hold scout-ai's cut markers "
    "(`Truncated (N): ...<...N - md5...>` or `[CONTEXT-COMPACTED`), the first #5; "
    "the strategies cut it again, so open the original chat to see what the model gets"
)


def test_an_exported_chat_reopened_is_named_as_already_prepared(tmp_path):
    for fmt, line in (("chat", 20), ("json", 1)):
        r = run_cli("prepare", SAMPLE, "--format", fmt, cwd=ROOT, scout_config=False)
        assert r.returncode == 0, r.stderr
        path = tmp_path / f"prepared.{fmt}"
        path.write_text(r.stdout, encoding="utf-8")
        [finding] = [f for f in load_chat(path).findings if f.kind == "already_prepared"]
        assert (finding.message, finding.line, finding.indices) == (NOTE, line, (5,))
        r = run_cli("explain", path, cwd=ROOT, scout_config=False)
        assert f"  line {line}: {NOTE}\n" in r.stdout
    assert not [f for f in load_chat(SAMPLE).findings if f.kind == "already_prepared"]


def test_the_2x_envelope_and_a_plain_mention_of_truncated():
    def chat(*contents):
        return Chat([Message({"role": "function_call_output", "content": c}) for c in contents])

    [finding] = prepared_findings(chat("plain", "[CONTEXT-COMPACTED - Historical account ...]"))
    assert finding.message.startswith("this chat looks like an already-prepared prompt: 1 message holds")
    assert finding.indices == (1,)
    # the word alone, without scout-ai's MD5 marker after it, is just text
    assert prepared_findings(chat("Truncated (12): the log was cut by the tool itself")) == []
