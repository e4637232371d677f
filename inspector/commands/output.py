"""Writing a command's result: stdout (or -o FILE), JSON, aligned tables, the scout-ai error line."""

from __future__ import annotations

import sys


def emit(args, text: str) -> None:
    from inspector.cli import _emit

    _emit(args, text, [args.chat])


def to_json(data) -> str:
    import orjson

    return orjson.dumps(data, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS, default=str).decode() + "\n"


def table(header: tuple[str, ...], body: list[tuple[str, ...]], right: set[int]) -> list[str]:
    widths = [max([len(h), *(len(b[i]) for b in body)]) for i, h in enumerate(header)]
    return ["  ".join(c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths))).rstrip()
            for cells in (header, *body)]


def cell(value) -> str:
    from inspector.core.sanitize import one_line

    return "-" if value is None else one_line(value if isinstance(value, str) else str(value), 60)


def scout_error(args, what: str) -> int:
    from inspector.cli import EXIT_SCOUT, PROG

    print(f"{PROG}: error: {args.chat}: {what}", file=sys.stderr)
    return EXIT_SCOUT
