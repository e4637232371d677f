"""What every command shares: the program name, exit codes, and writing a result (stdout or -o FILE)."""

from __future__ import annotations

import sys
from argparse import Namespace
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from argparse import ArgumentParser, _SubParsersAction
    from typing import TypeAlias

    # what main's build_parser hands each command's add_parser
    Subcommands: TypeAlias = _SubParsersAction[ArgumentParser]

PROG = "prompt-inspector"
EXIT_OK, EXIT_USAGE, EXIT_SCOUT = 0, 2, 3


def _say(kind: str, message: str) -> None:
    from inspector.core.present.sanitize import terminal_line

    # chat and config text (role names, paths, values) reach these lines: made visible and cut short
    print(f"{PROG}: {kind}: {terminal_line(message)}", file=sys.stderr)


class AddCommon(Protocol):
    """main's ``_common``: adds the options every command shares (``chat``: required, optional or none)."""

    def __call__(self, parser: ArgumentParser, chat: str = ...) -> None: ...


def fail(message: str, code: int = EXIT_USAGE) -> int:
    _say("error", message)
    return code


def note(message: str) -> None:
    _say("note", message)


def warn(message: str) -> None:
    _say("warning", message)


def emit(args: Namespace, text: str | bytes | Iterable[bytes]) -> None:
    """Write a command's output (text, bytes or pieces of bytes) to stdout, or atomically to
    ``-o FILE`` (never over the chat).

    On a terminal, control characters from the chat are shown as symbols (as ``ls`` does with
    names); a pipe or a file gets the exact bytes.
    """
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    if getattr(args, "output", None):
        from inspector.core.io.atomic import write_atomic

        chat = [args.chat] if getattr(args, "chat", None) else []
        write_atomic(args.output, data, chat, getattr(args, "included", ()))
        return
    if _is_terminal():
        from inspector.core.present.sanitize import display_text

        if isinstance(text, str):
            data = display_text(text).encode("utf-8", "replace")
        else:
            # piece by piece (each is whole UTF-8, encoded from whole text; controls are single characters)
            pieces = (data,) if isinstance(data, bytes) else data
            data = (display_text(p.decode("utf-8", "replace")).encode("utf-8", "replace") for p in pieces)
    out = sys.stdout.buffer
    for piece in (data,) if isinstance(data, bytes) else data:
        out.write(piece)
    sys.stdout.flush()


def _is_terminal() -> bool:
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError, OSError):
        return False


def add_at(parser: ArgumentParser) -> None:
    """``--at N`` (prepare, explain, why): here, not in the calls command's module, which `prepare` need not import."""
    parser.add_argument(
        "--at",
        metavar="N",
        help="the chat as it stood just before model call N (1-based, or 'last'); see the calls command",
    )


def to_json(data: Any) -> str:
    from inspector.core.present.json_text import json_text  # here: `prepare` does not need it

    return json_text(data)


def short_int(value: int) -> str:
    """``1,234`` for a plain number; a number read from a file may have thousands of digits."""
    text = f"{value:,}"
    if len(text) <= 27:
        return text
    digits = len(str(abs(value)))
    return f"{text[:15]}... ({digits:,} digits)"


def scout_error(args: Namespace, what: str) -> int:
    """scout-ai itself would raise on this chat: say where and what, exit 3."""
    return fail(f"{args.chat}: {what}", EXIT_SCOUT)
