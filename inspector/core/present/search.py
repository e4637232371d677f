"""Search the original content of every row (a substring; smart case, as less -i and vim's smartcase)."""

from __future__ import annotations

from collections.abc import Callable

from inspector.core.present.rows import RowModel, content_text


def ignores_case(text: str) -> bool:
    """The app's one case default (search and why): the case is ignored unless the text holds a capital."""
    return not any(ch.isupper() for ch in text)


def find_rows(rows: RowModel, query: str, cancelled: Callable[[], bool] = lambda: False) -> list[int]:
    """Rows whose original content (or role / tool name) contains ``query``, in row order; the case is
    ignored unless the query holds a capital."""
    if not query:
        return []
    if not ignores_case(query):
        return _exact_rows(rows, query, cancelled)
    needle = query.casefold()
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


def _exact_rows(rows: RowModel, query: str, cancelled: Callable[[], bool]) -> list[int]:
    hits: list[int] = []
    for row in range(len(rows)):
        if row % 1000 == 0 and cancelled():
            return hits
        name, _ = rows.tool(row)
        if (
            query in content_text(rows.original_content(row))
            or query in rows.role(row)
            or (isinstance(name, str) and query in name)
        ):
            hits.append(row)
    return hits
