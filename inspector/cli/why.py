"""`prompt-inspector why CHAT TEXT`: every occurrence, whether the model sees it, and what would show it."""

from __future__ import annotations

from argparse import Namespace
from typing import TYPE_CHECKING

from inspector.core.analysis.fixes import FixReport, fixes_for_trace
from inspector.core.analysis.replan import Replanner
from inspector.core.analysis.trace import Trace, trace
from inspector.core.present.cells import cell
from inspector.core.present.sanitize import one_line
from inspector.core.present.wording import no_single_value

from .output import add_at, emit, note, scout_error, to_json

if TYPE_CHECKING:
    from inspector.core.calls.history import ChatHistory
    from inspector.core.inspection import Inspection
    from inspector.core.scout.prepare import Prompt
    from inspector.core.scout.settings import Thresholds

    from .output import AddCommon, Subcommands


def add_parser(sub: Subcommands, common: AddCommon) -> None:
    why = sub.add_parser("why", help="why the model does or does not see a text, and what single change shows it")
    common(why)
    add_at(why)
    why.add_argument("text", metavar="TEXT", help="the text to trace (plain, or a pattern with --regex)")
    why.add_argument("--regex", action="store_true", help="TEXT is a Python regular expression")
    why.add_argument("-i", "--ignore-case", action="store_true", help="match regardless of case")
    why.add_argument(
        "--format", default="table", choices=("table", "json"), help="table (default) or json with every occurrence"
    )
    why.add_argument(
        "--context-window",
        type=_tokens,
        metavar="TOKENS",
        help="the model's context window in tokens: fixes whose estimated prompt would exceed it say so",
    )
    why.add_argument(
        "--timeline",
        action="store_true",
        help="for each occurrence, at which model calls it was sent full, truncated or not at all",
    )
    why.add_argument(
        "--limit",
        type=_count,
        default=TIMELINE_LIMIT,
        metavar="N",
        help=f"with --timeline: the first N occurrences (default {TIMELINE_LIMIT}, as the app lists; 0: every one)",
    )
    why.add_argument(
        "--fixes-for",
        type=_count,
        default=FIXES_LIMIT,
        metavar="N",
        help=f"search fixes for the newest N hidden occurrences (default {FIXES_LIMIT}, as the app does; 0: every one)",
    )


def run(args: Namespace, inspection: Inspection) -> int:
    if args.timeline:
        return run_timeline(args)
    prompt = inspection.prompt()
    result = trace(inspection, args.text, regex=args.regex, ignore_case=args.ignore_case, prompt=prompt)
    if inspection.policy is not None:
        return _run_policy(args, inspection, prompt, result)
    limit = args.fixes_for or None
    reports = fixes_for_trace(
        inspection, result, Replanner(inspection), context_window=args.context_window, limit=limit
    )
    hidden = sum(1 for o in result.occurrences if not o.visible and o.message is not None)
    if limit is not None and hidden > limit:
        note(
            f"{hidden:,} hidden occurrences: fixes searched for the newest {limit:,} (--fixes-for 0 searches every one)"
        )
    if args.format == "json":
        rows: list[dict[str, object]] = []
        for occurrence, report in zip(result.occurrences, reports):
            rows.append(
                {
                    **occurrence.as_dict(),
                    "fixes": [f.as_dict() for f in report.fixes],
                    "pair_fixes": [f.as_dict() for f in report.pair_fixes],
                    "blocked": report.blocked,
                    "notes": report.notes,
                }
            )
        emit(args, to_json(rows))
        if not rows:
            note(result.verdict())
    else:
        emit(args, render(result, reports, inspection.thresholds))
    if prompt.error is not None:
        return scout_error(args, prompt.describe_error())
    return 0


def _run_policy(args: Namespace, inspection: Inspection, prompt: Prompt, result: Trace) -> int:
    """`why` under another framework's policy: its rule per occurrence, and its settings' smallest fixes."""
    from inspector.core.analysis.policy_fixes import policy_fixes

    reports = policy_fixes(inspection, result.occurrences, args.fixes_for or None)
    if args.format == "json":
        rows = [
            {**o.as_dict(), "fixes": [f.as_dict() for f in r.fixes], "blocked": r.without}
            for o, r in zip(result.occurrences, reports)
        ]
        emit(args, to_json(rows))
        if not rows:
            note(result.verdict())
    else:
        lines = [one_line(result.verdict(), 2000)]
        for o, report in zip(result.occurrences, reports):
            where = f", line {o.line}" if o.line else ""
            lines += ["", f"#{o.row}  {cell(o.role)}  {cell(o.name)}  {cell(o.id)}{where}"]
            lines.append(
                f"    {'VISIBLE' if o.visible else 'HIDDEN'}: {o.tier} ({o.reason}); found in {o.field} at {o.spot.start:,}-{o.spot.end:,}"
            )
            lines.append(f"    rule: {one_line(o.why, 1000)}")
            lines.append(f"    text: {one_line(o.context, 200)}")
            if not o.visible:
                lines.extend(f"    {line}" for line in report.lines())
        emit(args, "\n".join(lines) + "\n")
    if prompt.error is not None:
        return scout_error(args, prompt.describe_error())
    return 0


def render(result: Trace, reports: list[FixReport], thresholds: Thresholds) -> str:
    lines = [one_line(result.verdict(), 2000)]
    for occurrence, report in zip(result.occurrences, reports):
        o = occurrence
        lines.append("")
        where = f", line {o.line}" if o.line else ""
        lines.append(f"#{o.row}  {cell(o.role)}  {cell(o.name)}  {cell(o.id)}{where}")
        state = "VISIBLE" if o.visible else "HIDDEN"
        lines.append(f"    {state}: {o.tier} ({o.reason}); found in {o.field} at {o.spot.start:,}-{o.spot.end:,}")
        lines.append(f"    rule: {one_line(o.why, 1000)}")
        lines.append(f"    text: {one_line(o.context, 200)}")
        if o.trap:
            lines.append(f"    trap: text swallowed by a parser trap: {one_line(o.trap, 1000)}")
        if o.visible:
            continue
        if report.fixes:
            lines.append("    single changes that show it:")
            lines.extend(f"      {f.describe()}" for f in report.fixes)
            unused = report.keys_without_fix()
            if unused:
                lines.append(f"    {no_single_value(unused)}")
            # pair-keeping alternatives, where a fix above sends the message without its call (or output)
            plain = {(f.key, f.direction, f.value) for f in report.fixes if not f.breaks_pair}
            alternatives = [f for f in report.pair_fixes if (f.key, f.direction, f.value) not in plain]
            if any(f.breaks_pair for f in report.fixes):
                if alternatives:
                    lines.append("    single changes that send it with its call or output:")
                    lines.extend(f"      {f.describe()}" for f in alternatives)
                else:
                    lines.append("    no single change sends it together with its call or output")
        if report.blocked:
            lines.append(f"    {report.blocked}")
        lines.extend(f"    note: {n}" for n in report.notes)
    return "\n".join(lines) + "\n"


def _tokens(text: str) -> int:
    import argparse

    cleaned = text.replace(",", "").replace("_", "")
    if not cleaned.isdigit() or int(cleaned) <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive number of tokens, got {text!r}")
    return int(cleaned)


TIMELINE_LIMIT = 200
FIXES_LIMIT = 200  # a text found thousands of times: each hidden copy's fixes re-plan the chat per value


def _count(text: str) -> int:
    import argparse

    cleaned = text.strip()
    if not (cleaned.isascii() and cleaned.isdigit()):
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}")
    return int(cleaned)


def _occurrences_found(history: ChatHistory, args: Namespace) -> int:
    from inspector.core.calls.timeline import occurrences_in_messages

    return occurrences_in_messages(history, args.text, regex=args.regex, ignore_case=args.ignore_case)


def run_timeline(args: Namespace) -> int:
    from inspector.core.calls.timeline import text_timelines
    from inspector.core.present.timeline import Afters, sentence, span_lines, timeline_dict

    history: ChatHistory = args.history  # main opens it for --timeline
    limit = args.limit or None
    occurrences, lines = text_timelines(history, args.text, regex=args.regex, ignore_case=args.ignore_case, limit=limit)
    total = _occurrences_found(history, args)
    if limit is not None and total > len(occurrences):
        note(f"{total:,} occurrences: the first {len(occurrences):,} are listed (--limit 0 lists every one)")
    afters: Afters = {}  # the occurrences in one message share what each call after the last sent of it
    if args.format == "json":
        emit(args, to_json([timeline_dict(history, o, t, afters) for o, t in zip(occurrences, lines)]))
        if not occurrences:
            note(f"{args.text!r} occurs in no message of the chat")
        return 0
    out = [
        f"{one_line(repr(args.text), 200)}: {len(occurrences)} occurrence(s) in messages, over {len(history)} call(s)"
    ]
    for o, line in zip(occurrences, lines):
        where = f", line {o.line}" if o.line else ""
        out.append("")
        out.append(f"#{o.row}  {cell(o.role)}  {cell(o.name)}  {cell(o.id)}{where}")
        out.append(f"    {one_line(sentence(history, line, afters=afters), 1000)}")
        out.extend(f"    {s}" for s in span_lines(line))
        out.append(f"    text: {one_line(o.context, 200)}")
    emit(args, "\n".join(out) + "\n")
    return 0
