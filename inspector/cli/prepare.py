"""`prompt-inspector prepare CHAT`: the messages the model is sent, in one of the export formats."""

from __future__ import annotations

from argparse import Namespace
from typing import TYPE_CHECKING

from inspector.core.errors import UsageError
from inspector.core.io.printers import PRINTERS
from inspector.core.present.prepared_output import prepared_chunks

from .output import EXIT_OK, add_at, emit, scout_error

if TYPE_CHECKING:
    from inspector.core.inspection import Inspection

    from .output import AddCommon, Subcommands


def add_parser(sub: Subcommands, common: AddCommon) -> None:
    prepare = sub.add_parser("prepare", help="print the messages the model sees")
    common(prepare)
    add_at(prepare)
    prepare.add_argument(
        "--format",
        default="json",
        help="json (default), jsonl, chat (scout chat text), responses (OpenAI Responses input items) or openai "
        "(Chat Completions messages: calls in their assistant message, outputs as tool messages)",
    )
    prepare.add_argument("-o", "--output", metavar="FILE", help="write to FILE (atomically) instead of stdout")


def run(args: Namespace, inspection: Inspection) -> int:
    if args.format not in PRINTERS:
        raise UsageError(f"unknown --format {args.format!r}; known: {', '.join(PRINTERS)}")
    prompt = inspection.prompt()
    if prompt.error is not None:
        return scout_error(args, prompt.describe_error())
    emit(args, prepared_chunks(prompt, args.format))  # the format and the error are checked above
    return EXIT_OK
