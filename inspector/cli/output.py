"""What every command shares: the program name, exit codes, and writing a result (stdout or -o FILE)."""

from __future__ import annotations

import sys
from argparse import Namespace
from collections.abc import Iterable
from typing import Any

PROG = "prompt-inspector"
EXIT_OK, EXIT_USAGE, EXIT_SCOUT = 0, 2, 3


def fail(message: str, code: int = EXIT_USAGE) -> int:
    print(f"{PROG}: error: {message}", file=sys.stderr)
    return code


def note(message: str) -> None:
    print(f"{PROG}: note: {message}", file=sys.stderr)


def warn(message: str) -> None:
    print(f"{PROG}: warning: {message}", file=sys.stderr)


def emit(args: Namespace, text: str | bytes | Iterable[bytes]) -> None:
    """Write a command's output (text, bytes or pieces of bytes) to stdout, or atomically to
    ``-o FILE`` (never over the chat)."""
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    if getattr(args, "output", None):
        from inspector.core.io.atomic import write_atomic

        write_atomic(args.output, data, [args.chat] if getattr(args, "chat", None) else [])
    else:
        out = sys.stdout.buffer
        for piece in (data,) if isinstance(data, bytes) else data:
            out.write(piece)
        sys.stdout.flush()


def to_json(data: Any) -> str:
    import orjson

    return orjson.dumps(data, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS, default=str).decode() + "\n"


def table(header: tuple[str, ...], body: list[tuple[str, ...]], right: set[int]) -> list[str]:
    widths = [max([len(h), *(len(b[i]) for b in body)]) for i, h in enumerate(header)]
    return [
        "  ".join(c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths))).rstrip()
        for cells in (header, *body)
    ]


def cell(value: object) -> str:
    from inspector.core.present.sanitize import one_line

    return "-" if value is None else one_line(value if isinstance(value, str) else str(value), 60)


def scout_error(args: Namespace, what: str) -> int:
    """scout-ai itself would raise on this chat: say where and what, exit 3."""
    return fail(f"{args.chat}: {what}", EXIT_SCOUT)
