"""`prompt-inspector explain --audit`: the explain report followed by the forgetting audit."""

from __future__ import annotations

from inspector.core import report
from inspector.core.audit import audit
from inspector.core.sanitize import one_line

from .output import emit, scout_error, to_json


def cmd_explain_audit(args, inspection) -> int:
    prompt = inspection.prompt()
    rows = report.explain_rows(inspection, prompt)
    info = report.summary(rows, prompt)
    findings = audit(inspection, prompt)
    if args.format == "json":
        # --audit changes the JSON from a list of rows to an object, so plain explain stays as it was
        text = to_json({"rows": rows, "summary": info, "audit": [f.as_dict() for f in findings]})
    elif args.format == "markdown":
        text = report.render_markdown(rows, info) + "\n## Audit\n\n" + "".join(
            f"- **{f.kind}** (rows {', '.join(map(str, f.rows)) or '-'}): {one_line(f.message, 1000)}\n"
            for f in findings) + ("" if findings else "No findings.\n")
    else:
        text = report.render_table(rows, info) + "\n" + render(findings)
    emit(args, text)
    if prompt.error is not None:
        return scout_error(args, prompt.error.describe())
    return 0


def render(findings) -> str:
    if not findings:
        return "audit: no findings\n"
    lines = [f"audit: {len(findings)} finding(s)"]
    for f in findings:
        rows = ", ".join(f"#{r}" for r in f.rows) or "-"
        lines.append(f"  {f.kind:<20} {rows:<16} {one_line(f.message, 1000)}")
    return "\n".join(lines) + "\n"
