"""What the dialogs hand back when they close: one small dataclass per answer, never a tagged tuple."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from inspector.core.analysis.fixes import Fix


@dataclass(frozen=True)
class ExportChoice:
    kind: str  # "prepare" (the prompt as a printer writes it) or "explain" (the report)
    fmt: str
    target: Path


@dataclass(frozen=True)
class SettingsChoice:
    fmt: str  # "scout-config" (etc/config lines) or "env" (KEY=VALUE lines)
    target: Path


@dataclass(frozen=True)
class PresetChoice:
    name: str
    thresholds: dict[str, int | float | None]  # max_tool_outputs None: it follows max_tool_calls
    strategies: str | None
    scout_version: str | None = None


@dataclass(frozen=True)
class JumpTo:
    row: int  # the # column


@dataclass(frozen=True)
class ApplyFix:
    fix: Fix
    row: int  # the message the fix brings back


@dataclass(frozen=True)
class JumpToCall:
    number: int  # the model call to show
    row: int | None = None  # the # column to select there (None: keep the place)
