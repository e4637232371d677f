"""`prompt-inspector explain CHAT`: one row per stored message (tier, rule, sizes), optionally with the audit."""

from __future__ import annotations

from argparse import Namespace
from typing import TYPE_CHECKING

from inspector.core.inspection import Inspection
from inspector.core.present.export import EXPLAIN_FORMATS, explain_chunks

from .calls import add_tokenizer, window
from .output import EXIT_OK, add_at, emit, scout_error

if TYPE_CHECKING:
    from inspector.core.analysis.audit import AuditFinding

    from .output import AddCommon, Subcommands


def add_parser(sub: Subcommands, common: AddCommon) -> None:
    explain = sub.add_parser("explain", help="one row per message: tier, rule, sizes")
    common(explain)
    add_at(explain)
    explain.add_argument(
        "--format",
        default="table",
        choices=EXPLAIN_FORMATS,
        help="table (default), json (rows, findings, summary) or markdown",
    )
    explain.add_argument("-o", "--output", metavar="FILE", help="write to FILE (atomically) instead of stdout")
    explain.add_argument("--audit", action="store_true", help="add the forgetting audit: findings of likely damage")
    add_tokenizer(explain)
    explain.add_argument(
        "--context-window",
        type=window,
        metavar="N",
        help="with --audit: the model's context window in tokens; calls whose prompt is larger are listed",
    )


def run(args: Namespace, inspection: Inspection) -> int:
    prompt = inspection.prompt()
    history = args.history
    sent_before = None
    extra: list[AuditFinding] = []
    if args.audit and history is not None and inspection is history.whole:
        from inspector.core.calls.timeline import tiers_before_calls
        from inspector.core.calls.usage import usage_findings

        sent_before = tiers_before_calls(history)  # a repeated call judged in the prompt its call was sent
        extra = usage_findings(history, context_window=args.context_window)  # recorded usage, the window
    call = history.number(args.at) if history is not None and getattr(args, "at", None) is not None else None
    chunks = explain_chunks(
        inspection, prompt, args.format, with_audit=args.audit, sent_before=sent_before, extra_audit=extra, call=call
    )
    emit(args, chunks)
    if prompt.error is not None:
        return scout_error(args, prompt.describe_error())
    failed = prompt.send_error()
    if failed is not None:
        return scout_error(args, f"scout-ai would raise {failed}")
    return EXIT_OK
