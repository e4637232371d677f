"""What a policy is: its name, the library it reproduces, its settings with their defaults and bounds."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from inspector.core.errors import UsageError
from inspector.core.peers.outcome import Outcome
from inspector.core.peers.wire import Item


class Kind(StrEnum):
    INT = "integer"
    FLOAT = "number"
    BOOL = "true/false"
    TEXT = "text"
    LIST = "comma-separated list"
    CHOICE = "choice"
    TYPES = "message types"
    THRESHOLD = "tokens, a fraction <= 1 of context_window, or always"


@dataclass(frozen=True, slots=True)
class Param:
    name: str
    kind: Kind
    default: Any
    help: str
    choices: tuple[str, ...] = ()
    minimum: float | None = None  # the library rejects less
    required: bool = False
    numeric: bool = False  # a setting `why` and `sweep` search (an integer the rule compares)

    def parse(self, text: str, policy: str) -> Any:
        where = f"{policy}: {self.name}={text!r}"
        if self.kind is Kind.INT:
            try:
                value: Any = int(text.replace("_", ""))
            except ValueError:
                raise UsageError(f"{where}: expected an integer") from None
        elif self.kind is Kind.FLOAT:
            try:
                value = float(text)
            except ValueError:
                raise UsageError(f"{where}: expected a number") from None
            if not math.isfinite(value):
                raise UsageError(f"{where}: expected a finite number")
        elif self.kind is Kind.BOOL:
            if text.lower() not in ("true", "false"):
                raise UsageError(f"{where}: expected true or false")
            value = text.lower() == "true"
        elif self.kind is Kind.CHOICE:
            if text not in self.choices:
                raise UsageError(f"{where}: expected one of {', '.join(self.choices)}")
            value = text
        elif self.kind in (Kind.LIST, Kind.TYPES):
            value = tuple(p.strip() for p in text.split(",") if p.strip())
            if self.kind is Kind.TYPES:
                bad = [p for p in value if p not in self.choices]
                if bad:
                    raise UsageError(f"{where}: {bad[0]!r} is not a message type; expected {', '.join(self.choices)}")
        elif self.kind is Kind.THRESHOLD:
            value = "always" if text == "always" else _threshold(text, where)
        else:
            value = text
        numeric = isinstance(value, (int, float)) and not isinstance(value, bool)
        if self.minimum is not None and numeric and value < self.minimum:
            raise UsageError(f"{where}: the library rejects it; {self.name} must be >= {_num(self.minimum)}")
        return value

    def show(self, value: Any) -> str:
        """As a command line writes it back."""
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, tuple):
            return ",".join(value)
        if value is None:
            return ""
        return str(value)


def _threshold(text: str, where: str) -> int | float:
    try:
        return int(text.replace("_", ""))
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError:
        raise UsageError(f"{where}: expected tokens (an integer), a fraction <= 1, or always") from None
    if not math.isfinite(value) or value <= 0:
        raise UsageError(f"{where}: expected a positive number of tokens or a fraction <= 1")
    return value


def _num(value: float) -> str:
    return str(int(value)) if value == int(value) else str(value)


Runner = Callable[[list[Item], dict[str, Any], Any], Outcome]


@dataclass(frozen=True, slots=True)
class PolicySpec:
    name: str
    library: str  # the library and version reproduced
    exact: bool
    params: tuple[Param, ...]
    run: Runner
    stateful: bool = False  # the prompt at a call depends on the calls before (replayed)
    counts: str = "tokens"  # what its settings count
    note: str = ""
    empty_content: str | None = None  # what an assistant message of calls only holds in its output
    # (LangChain and Inspect read the Chat Completions null as ""; the OpenAI SDK keeps null)
    who: str = ""  # the library in a sentence: "LangChain counts it"

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name), None)

    def numeric(self) -> list[Param]:
        return [p for p in self.params if p.numeric]
