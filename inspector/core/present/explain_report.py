"""The explanation report: one row per original message, and a summary."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from inspector.core.analysis.audit import AuditFinding
from inspector.core.inspection import Inspection
from inspector.core.model import Consumed
from inspector.core.numbering import RowNumbers
from inspector.core.present.cells import report_cell, table
from inspector.core.present.sanitize import one_line
from inspector.core.scout import decision as d
from inspector.core.scout.prepare import Prompt
from inspector.core.scout.tool_facts import chars_of
from inspector.core.scout.totals import Totals

COLUMNS = ("index", "role", "name", "id", "tier", "reason", "original_chars", "visible_chars")


@dataclass(frozen=True, slots=True)
class ExplainRow:
    """One row of `explain`: an original message (or a consumed one, where it stood in the file)."""

    index: int  # the `#` column
    role: object
    name: object
    id: object
    tier: d.Tier
    reason: str  # a Reason, or the pre-processing step for a consumed message
    original_chars: int
    visible_chars: int
    outputs_counted: int | None
    tool_chars_before: int | None
    line: int | None
    message: int | None  # index among the messages the strategies see; None for consumed ones
    detail: str | None = None  # the consumed step's reason, or the exception scout-ai raises here

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "index": self.index,
            "role": self.role,
            "name": self.name,
            "id": self.id,
            "tier": self.tier,
            "reason": self.reason,
            "original_chars": self.original_chars,
            "visible_chars": self.visible_chars,
            "outputs_counted": self.outputs_counted,
            "tool_chars_before": self.tool_chars_before,
            "line": self.line,
            "message": self.message,
        }
        if self.detail is not None:
            out["detail"] = self.detail
        return out


def explain_rows(inspection: Inspection, prompt: Prompt) -> list[ExplainRow]:
    """Rows in original order: consumed messages stand where they were in the file."""
    chat = inspection.chat
    facts = inspection.facts
    rows: list[ExplainRow] = []
    decisions = prompt.decisions()  # one pass over the plan: much cheaper than a lookup per message
    for ref in RowNumbers.of(chat).refs:
        if ref < 0:
            rows.append(_consumed_row(len(rows), chat.consumed[-ref - 1]))
            continue
        index, message = ref, chat.messages[ref]
        dec = decisions[index]
        name, ident = facts.identity(index)
        rows.append(
            ExplainRow(
                len(rows),
                message.fields.get("role"),
                name,
                ident,
                dec.tier,
                dec.reason,
                dec.original_chars,
                dec.visible_chars,
                dec.outputs_counted,
                dec.tool_chars_before,
                message.line,
                index,
                dec.detail or None,
            )
        )
    for at, message in prompt.inserted():
        # a message a strategy added: the epoch strategies' notice, or one inbox appended from a file
        content = message.fields.get("content")
        injected = message.source
        rows.append(
            ExplainRow(
                len(rows),
                message.fields.get("role"),
                None,
                None,
                d.INJECTED if injected else d.INSERTED,
                "inbox (approximate: rebuilt from inbox_removed/)" if injected else "compaction notice",
                0,
                chars_of(content),
                None,
                None,
                None,
                None,
                f"{injected}"
                if injected
                else f"sent as message {at} of the prepared list: {one_line(str(content), 120)}",
            )
        )
    return rows


def _consumed_row(number: int, item: Consumed) -> ExplainRow:
    message = item.message
    size = chars_of(message.fields.get("content"))
    return ExplainRow(
        number,
        message.fields.get("role"),
        None,
        None,
        d.CONSUMED,
        item.step,
        size,
        0,
        None,
        None,
        message.line,
        None,
        item.reason,
    )


def summary(rows: list[ExplainRow], prompt: Prompt) -> Totals:
    """The plan's totals counted per row: consumed messages are rows too."""
    consumed = [r.original_chars for r in rows if r.tier == d.CONSUMED]
    return prompt.totals().with_consumed(len(consumed), sum(consumed))


def summary_line(info: Totals) -> str:
    tiers = ", ".join(f"{n} {t}" for t, n in info.shown_tiers().items())
    return (
        f"{info.messages} messages ({tiers}); {info.visible_messages} sent; "
        f"characters {info.chars_before:,} -> {info.chars_after:,}; "
        f"tool characters {info.tool_chars_before:,} -> {info.tool_chars_after:,}"
    )


def finding_lines(findings: Any) -> list[str]:
    return [f"line {f.line}: {f.message}" if f.line else f.message for f in findings]


def render_table(rows: list[ExplainRow], info: Totals, max_id: int = 24, findings: Any = ()) -> str:
    header = ("#", "line", "role", "tool", "id", "tier", "reason", "chars", "visible")
    body = []
    for r in rows:
        ident = report_cell(r.id)
        if len(ident) > max_id:
            ident = ident[: max_id - 1] + "…"
        body.append(
            (
                str(r.index),
                report_cell(r.line),
                report_cell(r.role)[:24],
                report_cell(r.name)[:24],
                ident,
                r.tier,
                r.reason,
                f"{r.original_chars:,}",
                f"{r.visible_chars:,}",
            )
        )
    lines = table(header, body, {0, 1, 7, 8})
    if findings:
        lines.append("")
        lines.append("findings:")
        lines.extend(f"  {report_cell(text)}" for text in finding_lines(findings))
    lines.append("")
    lines.append(summary_line(info))
    return "\n".join(lines) + "\n"


def render_markdown(rows: list[ExplainRow], info: Totals, findings: Any = ()) -> str:
    def md(value: Any) -> str:
        return report_cell(value).replace("|", "\\|")

    lines = [
        "| # | line | role | tool | id | tier | reason | chars | visible |",
        "|---:|---:|---|---|---|---|---|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r.index} | {md(r.line)} | {md(r.role)} | {md(r.name)} | {md(r.id)} | {r.tier} | "
            f"{r.reason} | {r.original_chars} | {r.visible_chars} |"
        )
    if findings:
        lines.append("")
        lines.append("**Findings:**")
        lines.append("")
        lines.extend(f"- {md(text)}" for text in finding_lines(findings))
    lines.append("")
    lines.append(f"**Summary:** {summary_line(info)}")
    return "\n".join(lines) + "\n"


def render_audit_table(findings: Sequence[AuditFinding]) -> str:
    if not findings:
        return "audit: no findings\n"
    lines = [f"audit: {len(findings)} finding(s)"]
    for f in findings:
        rows = ", ".join(f"#{r}" for r in f.rows) or "-"
        lines.append(f"  {f.kind:<20} {rows:<16} {one_line(f.message, 1000)}")
    return "\n".join(lines) + "\n"


def render_audit_markdown(findings: Sequence[AuditFinding]) -> str:
    return (
        "\n## Audit\n\n"
        + "".join(
            f"- **{f.kind}** (rows {', '.join(map(str, f.rows)) or '-'}): {one_line(f.message, 1000)}\n"
            for f in findings
        )
        + ("" if findings else "No findings.\n")
    )
