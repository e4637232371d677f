"""Textual builds a worker's description from repr() of its arguments unless given one: with a chat of
20,000 messages that repr took seconds on the UI thread at every edit. Keep both guards."""

import re
from pathlib import Path

from inspector.core.inspection import Inspection
from inspector.core.model import Chat, Message
from inspector.core.scout.settings import resolve

UI = Path(__file__).resolve().parent.parent / "inspector" / "ui"


def test_every_worker_has_a_description():
    for path in UI.rglob("*.py"):
        for decorator in re.findall(r"@work\([^)]*\)", path.read_text(encoding="utf-8")):
            assert "description=" in decorator, f"{path.name}: {decorator}"


def test_chat_and_inspection_reprs_do_not_walk_the_messages():
    chat = Chat([Message({"role": "user", "content": "x" * 1000}) for _ in range(5000)], path="big.json")
    inspection = Inspection(chat, resolve(env={}, config_files=[]))
    assert repr(chat) == "Chat('big.json', format='json', 5000 messages)"
    assert repr(inspection) == "Inspection(Chat('big.json', format='json', 5000 messages))"
