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


def _pairs(groups: list[list[str]], flag: str) -> list[tuple[str, str]]:
    """``KEY=VALUE`` items, each may hold several joined by commas (``policy=NAME,trigger=3000``); a piece
    without ``=`` continues the value before it (a list: ``exclude_tools=read_file,bash``)."""
    out: list[tuple[str, str]] = []
    for item in (x for group in groups for x in group):
        for piece in item.split(","):
            key, sep, value = piece.partition("=")
            if sep and key.strip():
                out.append((key.strip(), value.strip()))
            elif out:
                out[-1] = (out[-1][0], f"{out[-1][1]},{piece.strip()}")
            else:
                raise UsageError(f"{flag} expects KEY=VALUE, got {item!r}")
    return out


def _side(inspection: Inspection, pairs: list[tuple[str, str]], flag: str) -> Inspection:
    """One side of a diff that names a policy (or runs under one): its own plan of the chat."""
    from inspector.core.inspection import thresholds_for
    from inspector.core.setup import Setup, policy_name

    given = dict(pairs)
    named = given.pop("policy", None)
    current = inspection.setup.policy
    policy = current if named is None else policy_name(named)
    if policy is None:  # scout-ai's strategies, the thresholds in force changed by the scout keys given
        setup = inspection.setup.with_policy(None, inspection.setup.overrides_dict() if current is None else {})
        base = thresholds_for(inspection.chat, setup)
        values = {k.lower(): parse_value(k.lower(), v) for k, v in given.items()}
        return inspection.with_setup(setup, apply(base, values))
    overrides = inspection.setup.overrides_dict() if policy == current else {}
    overrides.update(given)
    setup = inspection.setup.with_policy(policy, overrides)
    Setup.policy_settings(setup)  # an unknown setting or a rejected value: a usage error naming it
    return inspection.with_setup(setup)


def run(args: Namespace, inspection: Inspection) -> int:
    pairs_a, pairs_b = _pairs(args.a, "--a"), _pairs(args.b, "--b")
    if inspection.policy is not None or any(k == "policy" for k, _ in [*pairs_a, *pairs_b]):
        from inspector.core.analysis.compare import compare_plans

        side_a, side_b = _side(inspection, pairs_a, "--a"), _side(inspection, pairs_b, "--b")
        result = compare_plans(side_a, side_b)
        if not result.plan_a:
            result.plan_a = result.plan_b = "(the same plan)"
        return _report(args, result)
    base = inspection.thresholds
    a = apply(base, assignments(args.a, "--a"))
    b = apply(base, assignments(args.b, "--b"))
    if a.key() == b.key():  # a diff of a setting with itself: say why it is empty
        note("A and B are the same setting, so nothing differs; give --a and/or --b, e.g. --b max_tool_chars=50000")
    result = compare(inspection, a, b)
    return _report(args, result)


def _report(args: Namespace, result: Comparison) -> int:
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
        return "it raises: nothing is sent"
    cleared = totals.tiers.get(Tier.CLEARED, 0)
    return (
        f"{totals.visible_messages:,} messages sent ({totals.tiers[Tier.TRUNCATED]:,} truncated, "
        f"{totals.tiers[Tier.DROPPED]:,} dropped" + (f", {cleared:,} cleared" if cleared else "") + f"), "
        f"{totals.chars_after:,} characters"
    )


def render(result: Comparison) -> str:
    label_a = result.plan_a or _setting(result.a, result.b)
    label_b = result.plan_b or _setting(result.b, result.a)
    lines = [
        f"A: {label_a}  ->  {_totals(result.totals_a)}",
        f"B: {label_b}  ->  {_totals(result.totals_b)}",
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
