"""`prompt-inspector explain CHAT`: one row per stored message (tier, rule, sizes), optionally with the audit."""

from __future__ import annotations

from inspector.core.analysis.audit import audit
from inspector.core.present import explain_report as report
from inspector.core.present.sanitize import one_line

from .calls import add_at
from .output import EXIT_OK, emit, scout_error, to_json


def add_parser(sub, common) -> None:
    explain = sub.add_parser("explain", help="one row per message: tier, rule, sizes")
    common(explain)
    add_at(explain)
    explain.add_argument("--format", default="table", choices=("table", "json", "markdown"))
    explain.add_argument("-o", "--output", metavar="FILE", help="write to FILE (atomically) instead of stdout")
    explain.add_argument("--audit", action="store_true", help="add the forgetting audit: findings of likely damage")


def shows_findings(args) -> bool:
    """True when the output itself lists the loader findings (so stderr need not)."""
    return args.format in ("table", "markdown")


def run(args, inspection) -> int:
    if args.audit:
        return run_audit(args, inspection)
    prompt = inspection.prompt()
    rows = report.explain_rows(inspection, prompt)
    info = report.summary(rows, prompt)
    if args.format == "json":
        text = to_json([r.as_dict() for r in rows])
    elif args.format == "markdown":
        text = report.render_markdown(rows, info, inspection.chat.findings)
    else:
        text = report.render_table(rows, info, findings=inspection.chat.findings)
    emit(args, text)
    if prompt.error is not None:
        return scout_error(args, prompt.error.describe())
    return EXIT_OK


def run_audit(args, inspection) -> int:
    prompt = inspection.prompt()
    rows = report.explain_rows(inspection, prompt)
    info = report.summary(rows, prompt)
    findings = audit(inspection, prompt)
    if args.format == "json":
        # --audit changes the JSON from a list of rows to an object, so plain explain stays as it was
        text = to_json(
            {"rows": [r.as_dict() for r in rows], "summary": info.as_dict(), "audit": [f.as_dict() for f in findings]}
        )
    elif args.format == "markdown":
        text = (
            report.render_markdown(rows, info)
            + "\n## Audit\n\n"
            + "".join(
                f"- **{f.kind}** (rows {', '.join(map(str, f.rows)) or '-'}): {one_line(f.message, 1000)}\n"
                for f in findings
            )
            + ("" if findings else "No findings.\n")
        )
    else:
        text = report.render_table(rows, info) + "\n" + render_findings(findings)
    emit(args, text)
    if prompt.error is not None:
        return scout_error(args, prompt.error.describe())
    return EXIT_OK


def render_findings(findings) -> str:
    if not findings:
        return "audit: no findings\n"
    lines = [f"audit: {len(findings)} finding(s)"]
    for f in findings:
        rows = ", ".join(f"#{r}" for r in f.rows) or "-"
        lines.append(f"  {f.kind:<20} {rows:<16} {one_line(f.message, 1000)}")
    return "\n".join(lines) + "\n"
