"""`prompt-inspector prepare CHAT`: the messages the model is sent, in one of the export formats."""

from __future__ import annotations

from inspector.core.errors import UsageError
from inspector.core.io.printers import PRINTERS, render_chunks

from .calls import add_at
from .output import EXIT_OK, emit, scout_error


def add_parser(sub, common) -> None:
    prepare = sub.add_parser("prepare", help="print the messages the model sees")
    common(prepare)
    add_at(prepare)
    prepare.add_argument(
        "--format",
        default="json",
        help="json (default), jsonl, chat (scout chat text) or responses (OpenAI Responses input items)",
    )
    prepare.add_argument("-o", "--output", metavar="FILE", help="write to FILE (atomically) instead of stdout")


def run(args, inspection) -> int:
    if args.format not in PRINTERS:
        raise UsageError(f"unknown --format {args.format!r}; known: {', '.join(PRINTERS)}")
    prompt = inspection.prompt()
    if prompt.error is not None:
        return scout_error(args, prompt.error.describe())
    emit(args, render_chunks(args.format, prompt.messages()))  # the format and the error are checked above
    return EXIT_OK
