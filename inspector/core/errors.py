"""Errors the core reports instead of raising tracebacks at the user."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


class InputError(Exception):
    """The input cannot be read as a chat: unreadable, malformed, or of an unknown shape.

    Rendered as one line, ``FILE[:LINE]: what``, and mapped to exit code 2.
    """

    def __init__(self, what: str, path: str | None = None, line: int | None = None):
        super().__init__(what)
        self.what = what
        self.path = path
        self.line = line

    def location(self) -> str:
        if self.path is None:
            return ""
        return f"{self.path}:{self.line}" if self.line else str(self.path)

    def __str__(self) -> str:
        loc = self.location()
        return f"{loc}: {self.what}" if loc else self.what


class ScoutRaises(InputError):
    """scout-ai itself would raise on this input (exit code 3); the message names the Ruby exception."""


class UsageError(Exception):
    """A bad option or value given by the user (exit code 2)."""


@dataclass(frozen=True, slots=True)
class ScoutError:
    """Where scout-ai itself would raise while preparing the prompt.

    scout-ai raises and sends nothing; the inspector names the message and the
    Ruby exception instead, and keeps the decisions it could make before that point.
    """

    index: int
    role: object
    name: object
    id: object
    exception: str
    why: str
    raiser: str = "scout-ai"  # who raises: scout-ai, or the library whose policy runs

    def describe(self, line: int | None = None) -> str:
        """In words; ``line``: the message's line in the chat file, when known (named after its index)."""
        if self.index < 0:  # raised by the dispatcher itself, before any message
            where = "the strategy list" if self.raiser == "scout-ai" else "the policy"
            return f"{where}: {self.raiser} would raise {self.exception}: {self.why}"
        who = f"message {self.index}" + (f" at line {line}" if line is not None else "") + f" (role {_show(self.role)}"
        if self.name is not None or self.id is not None:
            who += f", tool {_show(self.name)}, id {_show(self.id)}"
        who += ")"
        return f"{who}: {self.raiser} would raise {self.exception}: {self.why}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "role": self.role,
            "name": self.name,
            "id": self.id,
            "exception": self.exception,
            "why": self.why,
        }


def _show(value: object) -> str:
    if isinstance(value, str):
        return value
    import json

    try:
        return json.dumps(value, ensure_ascii=False)  # as it stands in the chat file
    except (TypeError, ValueError):
        return repr(value)
