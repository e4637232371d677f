"""Search the original content of every row (case-insensitive substring)."""

from __future__ import annotations

from collections.abc import Callable

from inspector.core.present.rows import RowModel, content_text


def find_rows(rows: RowModel, query: str, cancelled: Callable[[], bool] = lambda: False) -> list[int]:
    """Rows whose original content (or role / tool name) contains ``query``, in row order."""
    needle = query.casefold()
    if not needle:
        return []
    hits: list[int] = []
    for row in range(len(rows)):
        if row % 1000 == 0 and cancelled():
            return hits
        text = content_text(rows.original_content(row))
        # a cheap exact test first; casefold only when the plain text might match
        if needle in text or needle in text.casefold():
            hits.append(row)
            continue
        name, _ = rows.tool(row)
        if needle in rows.role(row).casefold() or (isinstance(name, str) and needle in name.casefold()):
            hits.append(row)
    return hits
