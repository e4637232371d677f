"""`prompt-inspector sweep CHAT --vary KEY=START:STOP:STEP`: one row per value of one threshold."""

from __future__ import annotations

from argparse import Namespace
from typing import TYPE_CHECKING

from inspector.core.analysis.sweep import SweepRow, parse_range, sweep
from inspector.core.present.cells import table

from .output import emit, scout_error, to_json

if TYPE_CHECKING:
    from inspector.core.inspection import Inspection

    from .output import AddCommon, Subcommands

COLUMNS = ("value", "messages", "truncated", "dropped", "chars", "tokens", "error")


def add_parser(sub: Subcommands, common: AddCommon) -> None:
    sweep = sub.add_parser("sweep", help="re-plan once per value of one threshold and count what is sent")
    common(sweep)
    sweep.add_argument(
        "--vary",
        required=True,
        metavar="KEY=START:STOP:STEP",
        help="the threshold and its values, STOP included (STEP defaults to 1)",
    )
    sweep.add_argument(
        "--format", default="table", choices=("table", "json", "csv"), help="table (default), json or csv"
    )


def run(args: Namespace, inspection: Inspection) -> int:
    key, values = parse_range(args.vary)
    rows = sweep(inspection, key, values)
    if args.format == "json":
        text = to_json([r.as_dict() for r in rows])
    elif args.format == "csv":
        text = render_csv(rows)
    else:
        text = render_table(key, rows)
    emit(args, text)
    failing = next((r for r in rows if r.error), None)
    if failing is not None:
        return scout_error(args, f"with {key}={failing.value}: {failing.error}")
    return 0


def render_csv(rows: list[SweepRow]) -> str:
    import csv
    import io

    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(COLUMNS)
    for r in rows:
        writer.writerow([r.value, r.messages, r.truncated, r.dropped, r.chars, r.tokens, r.error or ""])
    return buffer.getvalue()


def render_table(key: str, rows: list[SweepRow]) -> str:
    header = (key, "messages sent", "truncated", "dropped", "characters", "~tokens")
    body = [
        (f"{r.value:,}", f"{r.messages:,}", f"{r.truncated:,}", f"{r.dropped:,}", f"{r.chars:,}", f"{r.tokens:,}")
        + (("scout-ai raises",) if r.error else ())
        for r in rows
    ]
    body = [b if len(b) == 7 else (*b, "") for b in body]
    lines = table((*header, ""), body, {0, 1, 2, 3, 4, 5})
    lines.append("")
    lines.append("~tokens is an estimate: characters / 4")
    return "\n".join(lines) + "\n"
