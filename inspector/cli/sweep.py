"""`prompt-inspector sweep CHAT --vary KEY=START:STOP:STEP`: one row per value of one threshold."""

from __future__ import annotations

from argparse import Namespace
from typing import TYPE_CHECKING

from inspector.core.analysis.sweep import SweepRow, parse_policy_range, parse_range, policy_sweep, sweep
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
    if inspection.policy is not None:
        key, values = parse_policy_range(args.vary, inspection.policy.spec.name)
        rows = policy_sweep(inspection, key, values)
    else:
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
    policy = bool(rows) and rows[0].cleared is not None
    writer.writerow((*COLUMNS, "cleared") if policy else COLUMNS)
    for r in rows:
        row = [r.value, r.messages, r.truncated, r.dropped, r.chars, r.tokens, r.error or ""]
        writer.writerow([*row, r.cleared] if policy else row)
    return buffer.getvalue()


def render_table(key: str, rows: list[SweepRow]) -> str:
    policy = bool(rows) and rows[0].cleared is not None
    header: tuple[str, ...] = (key, "messages sent", "truncated", "dropped", "characters", "~tokens")
    if policy:
        header = (*header[:4], "cleared", *header[4:])
    body = []
    for r in rows:
        cells = [
            f"{r.value:,}",
            f"{r.messages:,}",
            f"{r.truncated:,}",
            f"{r.dropped:,}",
            f"{r.chars:,}",
            f"{r.tokens:,}",
        ]
        if policy:
            cells.insert(4, f"{r.cleared or 0:,}")
        cells.append(("the library raises" if policy else "scout-ai raises") if r.error else "")
        body.append(tuple(cells))
    lines = table((*header, ""), body, set(range(len(header))))
    lines.append("")
    lines.append("~tokens is an estimate: characters / 4")
    return "\n".join(lines) + "\n"
