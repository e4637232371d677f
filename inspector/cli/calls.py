"""`prompt-inspector calls CHAT`: one row per model call: where its response starts, what its prompt held."""

from __future__ import annotations

from argparse import ArgumentParser, Namespace
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # only named in annotations: `prepare --at` need not import the whole history
    from inspector.core.calls.history import ChatHistory

    from .output import AddCommon, Subcommands
from inspector.core.numbering import RowNumbers
from inspector.core.policies import decision as d
from inspector.core.present.cells import cell, table

from .output import EXIT_OK, emit, to_json

TIERS = (d.FULL, d.TRUNCATED, d.DROPPED, d.ERROR, d.UNDECIDED)


def add_parser(sub: Subcommands, common: AddCommon) -> None:
    calls = sub.add_parser("calls", help="one row per model call: the prompt it was sent, in numbers")
    common(calls)
    calls.add_argument(
        "--format", default="table", choices=("table", "json"), help="table (default) or json, one object per call"
    )
    calls.add_argument("-o", "--output", metavar="FILE", help="write to FILE (atomically) instead of stdout")


def add_at(parser: ArgumentParser) -> None:
    parser.add_argument(
        "--at",
        metavar="N",
        help="the chat as it stood just before model call N (1-based, or 'last'); see the calls command",
    )


def call_rows(history: ChatHistory) -> list[dict[str, object]]:
    numbers = RowNumbers.of(history.whole.chat)  # `index` is explain's row number (consumed rows counted)
    rows: list[dict[str, object]] = []
    for call in history.calls:
        found = history.call_counts(call.number)
        counts = found.counts
        index = history.response_index(call.number)
        rows.append(
            {
                "call": call.number,
                "index": numbers.row_of_message(index) if index is not None else None,
                "line": call.line,
                "role": call.role,
                "messages": found.visible,
                "chars": found.chars_after,
                **{str(tier): counts.get(tier, 0) for tier in TIERS},
                "tools": list(call.tools),
                "raises": found.error.describe() if found.error is not None else None,
            }
        )
    return rows


def run(args: Namespace, history: ChatHistory) -> int:
    rows = call_rows(history)
    if args.format == "json":
        emit(args, to_json(rows))
        return EXIT_OK
    header = ("call", "index", "line", "messages", "chars", *TIERS, "tool")
    body = [
        (
            str(r["call"]),
            cell(r["index"]),
            cell(r["line"]),
            str(r["messages"]) if r["raises"] is None else "raises",
            f"{r['chars']:,}",
            *(str(r[t]) for t in TIERS),
            cell(", ".join(call.tools) or None),
        )
        for call, r in zip(history.calls, rows)  # the rows are the calls', in order
    ]
    lines = table(header, body, right=set(range(len(header) - 1)))
    summary = f"{len(rows)} call(s) in {history.path}"
    emit(args, summary + "\n" + "\n".join(lines) + "\n")
    return EXIT_OK
