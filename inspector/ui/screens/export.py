"""Export dialog: pick a format and a path; refuses the source chat, asks before replacing a file.

The dialog only decides *what* and *where*; the app writes atomically with the core's
writers, so the bytes equal ``prompt-inspector prepare``/``explain`` output.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from inspector.core.io.printers import printer_names
from inspector.core.present.export import EXPLAIN_FORMATS

from ..results import ExportChoice
from .write_dialog import WriteDialog

EXTENSIONS = {"json": "json", "jsonl": "jsonl", "table": "txt", "markdown": "md"}


def choices() -> list[tuple[str, str]]:
    """(kind, format) for every printer, then the explanation report formats."""
    return [("prepare", f) for f in printer_names()] + [("explain", f) for f in EXPLAIN_FORMATS]


def default_path(source: str | None, kind: str, fmt: str) -> str:
    stem = Path(source).stem if source else "chat"
    suffix = "prompt" if kind == "prepare" else "explain"
    return f"{stem}.{suffix}.{EXTENSIONS.get(fmt, fmt)}"


class ExportScreen(WriteDialog[ExportChoice]):
    """Dismisses with an ExportChoice or None."""

    RADIO_ID = "what"
    MESSAGE_ID = "export-message"

    def __init__(
        self,
        source: str | None,
        kind: str = "prepare",
        fmt: str = "json",
        included: Sequence[str] = (),
        about: str = "",
    ):
        super().__init__(source, included)
        self.kind, self.fmt = kind, fmt
        self.about = about  # what is written: the plan on screen and its size, tokens named

    def heading(self) -> str:
        head = "Export (Enter in the path field writes, Esc cancels)"
        return f"{head}\n{self.about}" if self.about else head

    def options(self) -> list[tuple[str, str, bool]]:
        return [
            (
                f"prepared prompt as {fmt}" if kind == "prepare" else f"explanation report as {fmt}",
                f"{kind}:{fmt}",
                (kind, fmt) == (self.kind, self.fmt),
            )
            for kind, fmt in choices()
        ]

    def default_path(self) -> str:
        return default_path(self.source, self.kind, self.fmt)

    def pick(self, name: str | None) -> None:
        self.kind, self.fmt = (name or "prepare:json").split(":", 1)

    def choice(self, target: Path) -> ExportChoice:
        return ExportChoice(self.kind, self.fmt, target)
