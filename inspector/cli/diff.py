"""`prompt-inspector diff CHAT --a KEY=VALUE... --b KEY=VALUE...`: what changes between two settings."""

from __future__ import annotations

from argparse import Namespace
from typing import TYPE_CHECKING

from inspector.core.analysis.compare import Comparison, compare
from inspector.core.analysis.replan import apply, parse_value
from inspector.core.errors import UsageError
from inspector.core.policies.decision import Tier
from inspector.core.present.cells import cell, table
from inspector.core.scout.settings import KEYS, SETTING_KEYS
from inspector.core.scout.totals import Totals

from .output import emit, note, scout_error, short_int, to_json

if TYPE_CHECKING:
    from inspector.core.inspection import Inspection
    from inspector.core.scout.settings import Thresholds

    from .output import AddCommon, Subcommands


def assignments(groups: list[list[str]], flag: str) -> dict[str, int | float]:
    out: dict[str, int | float] = {}
    for item in (x for group in groups for x in group):
        key, sep, value = item.partition("=")
        key = key.strip().lower()
        if not sep or not key:
            raise UsageError(f"{flag} expects KEY=VALUE, got {item!r}")
        out[key] = parse_value(key, value)
    return out


def add_parser(sub: Subcommands, common: AddCommon) -> None:
    diff = sub.add_parser("diff", help="compare two settings: every message whose tier or visible text differs")
    common(diff)
    diff.add_argument(
        "--a",
        dest="a",
        metavar="KEY=VALUE",
        nargs="*",
        action="append",
        default=[],
        help="setting A, on top of the thresholds in force (none: those thresholds)",
    )
    diff.add_argument(
        "--b",
        dest="b",
        metavar="KEY=VALUE",
        nargs="*",
        action="append",
        default=[],
        help="setting B, on top of the thresholds in force",
    )
    diff.add_argument(
        "--format", default="table", choices=("table", "json"), help="table (default) or json with both settings"
    )


def run(args: Namespace, inspection: Inspection) -> int:
    base = inspection.thresholds
    a = apply(base, assignments(args.a, "--a"))
    b = apply(base, assignments(args.b, "--b"))
    if a.key() == b.key():  # a diff of a setting with itself: say why it is empty
        note("A and B are the same setting, so nothing differs; give --a and/or --b, e.g. --b max_tool_chars=50000")
    result = compare(inspection, a, b)
    if args.format == "json":
        emit(args, to_json(result.as_dict()))
    else:
        emit(args, render(result))
    for side, totals in (("A", result.totals_a), ("B", result.totals_b)):
        if totals.error:
            return scout_error(args, f"with setting {side}: {totals.error}")
    return 0


def _setting(values: Thresholds, other: Thresholds) -> str:
    keys = [k for k in SETTING_KEYS if values.setting(k) != other.setting(k)] or list(KEYS)
    return " ".join(f"{k}={_shown(values.setting(k))}" for k in keys)


def _shown(value: int | float) -> str:
    return repr(value) if isinstance(value, float) else str(value) if len(str(value)) < 20 else short_int(value)


def _totals(totals: Totals) -> str:
    if totals.error:
        return "scout-ai raises: nothing is sent"
    return (
        f"{totals.visible_messages:,} messages sent ({totals.tiers[Tier.TRUNCATED]:,} truncated, "
        f"{totals.tiers[Tier.DROPPED]:,} dropped), {totals.chars_after:,} characters"
    )


def render(result: Comparison) -> str:
    lines = [
        f"A: {_setting(result.a, result.b)}  ->  {_totals(result.totals_a)}",
        f"B: {_setting(result.b, result.a)}  ->  {_totals(result.totals_b)}",
    ]
    delta = result.totals_b.chars_after - result.totals_a.chars_after
    lines.append(f"{len(result.changes):,} message(s) differ; B sends {delta:+,} characters")
    if result.changes:
        lines.append("")
        body = [
            (
                str(c.row),
                cell(c.role),
                cell(c.name),
                cell(c.id),
                c.tier_a,
                c.tier_b,
                f"{c.chars_a:,}",
                f"{c.chars_b:,}",
                f"{c.delta:+,}",
            )
            for c in result.changes
        ]
        lines.extend(table(("#", "role", "tool", "id", "A", "B", "chars A", "chars B", "change"), body, {0, 6, 7, 8}))
    return "\n".join(lines) + "\n"
