"""Helpers for the scout chat tests: write a chat, load it, and read messages and consumed records."""

from __future__ import annotations

from inspector.core.io.formats import load_chat


def load(tmp_path, text: str, name: str = "chat.chat"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return load_chat(path)


def rc(chat) -> list[tuple[str, str]]:
    return [(m.role, m.content) for m in chat.messages]


def consumed(chat) -> list[tuple[str, str, int | None, int]]:
    return [(c.message.role, c.step, c.message.line, c.before) for c in chat.consumed]
