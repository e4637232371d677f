"""The bundled demo chat: a long debugging session whose early config dump the defaults cut."""

from __future__ import annotations

from pathlib import Path


def demo_chat_path() -> Path:
    return Path(__file__).parent / "demo.chat"
