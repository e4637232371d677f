"""One writer per output: the app's export writes the bytes the CLI prints, for every format and chat.

The app's export screen writes ``prepared_bytes`` / ``explain_bytes``; the CLI is run in process.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.cli.main import main
from inspector.core.errors import UsageError
from inspector.core.inspection import open_inspection
from inspector.core.io.printers import printer_names
from inspector.core.present.export import EXPLAIN_FORMATS, explain_bytes, prepared_bytes
from inspector.core.setup import Setup
from inspector.demo import demo_chat_path

SAMPLES = Path(__file__).parents[1] / "sample_chats"
CHATS = sorted(p for p in SAMPLES.iterdir() if p.suffix in (".chat", ".json")) + [demo_chat_path()]
OUTPUTS = [("prepare", f) for f in printer_names()] + [("explain", f) for f in EXPLAIN_FORMATS]


@pytest.fixture(autouse=True)
def _no_threshold_environment(monkeypatch):
    for key in ("FULL_TOOL_CALLS", "FULL_TOOL_OUTPUTS", "MAX_TOOL_CALLS", "MAX_TOOL_OUTPUTS", "MAX_TOOL_CHARS"):
        monkeypatch.delenv(key, raising=False)


def test_the_loop_covers_every_sample_and_format():
    assert len(CHATS) == 8 and {f for _, f in OUTPUTS} == {
        "json",
        "jsonl",
        "chat",
        "responses",
        "openai",
        "table",
        "markdown",
    }


@pytest.mark.parametrize("chat", CHATS, ids=lambda p: p.name)
def test_app_export_equals_cli_output(chat: Path, capsysbinary):
    inspection = open_inspection(chat, Setup.of(config_files=[]))
    prompt = inspection.prompt(inspection.thresholds, inspection.strategies)  # as the app's export does
    for command, fmt in OUTPUTS:
        code = main([command, str(chat), "--format", fmt, "--no-scout-config"])
        printed = capsysbinary.readouterr().out
        if command == "explain":
            exported = explain_bytes(inspection, prompt, fmt)
            assert code == (3 if prompt.error else 0)
        elif prompt.error is not None:  # nothing is sent: the CLI exits 3, the export refuses
            assert (code, printed) == (3, b"")
            with pytest.raises(UsageError):
                prepared_bytes(prompt, fmt)
            continue
        else:
            exported = prepared_bytes(prompt, fmt)
            assert code == 0
        assert printed and exported == printed, (chat.name, command, fmt)
