"""Save settings dialog: the settings in force as etc/config lines (or env lines) to a file.

Same path field and the same "replace it?" question as the export dialog (``WriteDialog``); the app
writes atomically, so the file holds exactly ``thresholds --format scout-config`` (or ``env``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..results import SettingsChoice
from .write_dialog import WriteDialog

FORMATS = (("scout-config", "etc/config lines (key value prompt)"), ("env", "environment lines (KEY=VALUE)"))
SUFFIXES = {"scout-config": "scout-config", "env": "env"}


def default_path(source: str | None, fmt: str) -> str:
    stem = Path(source).stem if source else "chat"
    return f"{stem}.settings.{SUFFIXES[fmt]}"


class SaveSettingsScreen(WriteDialog[SettingsChoice]):
    """Dismisses with a SettingsChoice or None."""

    RADIO_ID = "format"
    MESSAGE_ID = "settings-message"

    def __init__(self, source: str | None, count: int, fmt: str = "scout-config", included: Sequence[str] = ()):
        super().__init__(source, included)
        self.count, self.fmt = count, fmt

    def heading(self) -> str:
        return f"Save the {self.count} settings in force (Enter in the path field writes, Esc cancels)"

    def options(self) -> list[tuple[str, str, bool]]:
        return [(label, fmt, fmt == self.fmt) for fmt, label in FORMATS]

    def default_path(self) -> str:
        return default_path(self.source, self.fmt)

    def pick(self, name: str | None) -> None:
        self.fmt = name or "scout-config"

    def choice(self, target: Path) -> SettingsChoice:
        return SettingsChoice(self.fmt, target)
