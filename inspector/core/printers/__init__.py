"""Export printers: prepared messages to bytes-ready text, one function per format."""

from __future__ import annotations

from typing import Callable

from ..model import Message
from ..rubyjson import dumps


def print_json(messages: list[Message]) -> str:
    """``JSON.generate(prompt)`` plus a newline, as the reference prints it."""
    return "[" + ",".join(dumps(m.fields) for m in messages) + "]\n"


def print_jsonl(messages: list[Message]) -> str:
    return "".join(dumps(m.fields) + "\n" for m in messages)


PRINTERS: dict[str, Callable[[list[Message]], str]] = {"json": print_json, "jsonl": print_jsonl}


def register_printer(name: str, fn: Callable[[list[Message]], str]) -> None:
    PRINTERS[name] = fn


def printer_names() -> list[str]:
    return list(PRINTERS)
