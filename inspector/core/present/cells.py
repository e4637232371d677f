"""Table cells and text tables: the one way every report and view writes a value into a column."""

from __future__ import annotations

import json
from collections.abc import Sequence

from inspector.core.present.sanitize import one_line


def cell(value: object, limit: int = 60) -> str:
    """A value shown on one line, cut to ``limit`` characters, control characters as symbols; None is "-"."""
    return "-" if value is None else one_line(value if isinstance(value, str) else str(value), limit)


def report_cell(value: object) -> str:
    """A value in the explain report: whole (the caller cuts), containers as JSON, unprintables as "?".

    The report is a file people diff and grep, so it keeps plain ASCII-safe text rather than symbols.
    """
    if value is None:
        return "-"
    if isinstance(value, str):
        text = value
    else:
        text = json.dumps(value, ensure_ascii=False) if isinstance(value, (list, dict, bool)) else str(value)
    return "".join(ch if ch.isprintable() else "?" for ch in text)


def table(header: tuple[str, ...], body: Sequence[tuple[str, ...]], right: set[int]) -> list[str]:
    """Columns padded to their widest cell (``right``: the right-aligned ones), two spaces apart."""
    widths = [max([len(h), *(len(b[i]) for b in body)]) for i, h in enumerate(header)]
    return [
        "  ".join(c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths))).rstrip()
        for cells in (header, *body)
    ]
