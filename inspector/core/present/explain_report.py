"""The explanation report: one row per original message, and a summary."""

from __future__ import annotations

from inspector.core.inspection import Inspection
from inspector.core.scout import decision as d
from inspector.core.scout.prepare import Prompt
from inspector.core.scout.tool_facts import chars_of

COLUMNS = ("index", "role", "name", "id", "tier", "reason", "original_chars", "visible_chars")


def tool_identity(parsed) -> tuple[object, object]:
    """Tool name and id of a parsed call/output, old shapes included."""
    if not isinstance(parsed, dict):
        return None, None
    name = parsed.get("name")
    function = parsed.get("function")
    if name is None and isinstance(function, dict):
        name = function.get("name")
    ident = parsed.get("id")
    if ident is None:
        ident = parsed.get("call_id")
    return name, ident


def explain_rows(inspection: Inspection, prompt: Prompt) -> list[dict]:
    """Rows in original order: consumed messages stand where they were in the file."""
    chat = inspection.chat
    facts = inspection.facts
    consumed = sorted(chat.consumed, key=lambda c: c.before)
    rows: list[dict] = []
    pending = 0
    for index, message in enumerate(chat.messages):
        while pending < len(consumed) and consumed[pending].before <= index:
            rows.append(_consumed_row(len(rows), consumed[pending]))
            pending += 1
        dec = prompt.decision(index)
        position = facts.position.get(index)
        parsed = facts.parsed[position] if position is not None else None
        name, ident = tool_identity(parsed)
        rows.append(
            {
                "index": len(rows),
                "role": message.fields.get("role"),
                "name": name,
                "id": ident,
                "tier": dec.tier,
                "reason": dec.reason,
                "original_chars": dec.original_chars,
                "visible_chars": dec.visible_chars,
                "outputs_counted": dec.outputs_counted,
                "tool_chars_before": dec.tool_chars_before,
                "line": message.line,
                "message": index,
                **({"detail": dec.detail} if dec.detail else {}),
            }
        )
    while pending < len(consumed):
        rows.append(_consumed_row(len(rows), consumed[pending]))
        pending += 1
    return rows


def _consumed_row(number: int, item) -> dict:
    message = item.message
    size = chars_of(message.fields.get("content"))
    return {
        "index": number,
        "role": message.fields.get("role"),
        "name": None,
        "id": None,
        "tier": d.CONSUMED,
        "reason": item.step,
        "original_chars": size,
        "visible_chars": 0,
        "outputs_counted": None,
        "tool_chars_before": None,
        "line": message.line,
        "message": None,
        "detail": item.reason,
    }


def summary(rows: list[dict], prompt: Prompt) -> dict:
    totals = prompt.totals()
    counts = {tier: 0 for tier in d.TIERS}
    for row in rows:
        counts[row["tier"]] += 1
    return {
        "messages": len(rows),
        "tiers": {t: n for t, n in counts.items() if n or t in (d.FULL, d.TRUNCATED, d.DROPPED)},
        "chars_before": totals["chars_before"] + sum(r["original_chars"] for r in rows if r["tier"] == d.CONSUMED),
        "chars_after": totals["chars_after"],
        "tool_chars_before": totals["tool_chars_before"],
        "tool_chars_after": totals["tool_chars_after"],
        "visible_messages": totals["visible_messages"],
    }


def _cell(value) -> str:
    if value is None:
        return "-"
    if isinstance(value, str):
        text = value
    else:
        import json

        text = json.dumps(value, ensure_ascii=False) if isinstance(value, (list, dict, bool)) else str(value)
    return "".join(ch if ch.isprintable() else "?" for ch in text)


def summary_line(info: dict) -> str:
    tiers = ", ".join(f"{n} {t}" for t, n in info["tiers"].items())
    return (
        f"{info['messages']} messages ({tiers}); {info['visible_messages']} sent; "
        f"characters {info['chars_before']:,} -> {info['chars_after']:,}; "
        f"tool characters {info['tool_chars_before']:,} -> {info['tool_chars_after']:,}"
    )


def finding_lines(findings) -> list[str]:
    return [f"line {f.line}: {f.message}" if f.line else f.message for f in findings]


def render_table(rows: list[dict], info: dict, max_id: int = 24, findings=()) -> str:
    header = ("#", "line", "role", "tool", "id", "tier", "reason", "chars", "visible")
    body = []
    for r in rows:
        ident = _cell(r["id"])
        if len(ident) > max_id:
            ident = ident[: max_id - 1] + "…"
        body.append(
            (
                str(r["index"]),
                _cell(r.get("line")),
                _cell(r["role"])[:24],
                _cell(r["name"])[:24],
                ident,
                r["tier"],
                r["reason"],
                f"{r['original_chars']:,}",
                f"{r['visible_chars']:,}",
            )
        )
    widths = [max(len(h), *(len(b[i]) for b in body)) if body else len(h) for i, h in enumerate(header)]
    right = {0, 1, 7, 8}
    lines = []
    for cells in (header, *body):
        lines.append(
            "  ".join(c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths))).rstrip()
        )
    if findings:
        lines.append("")
        lines.append("findings:")
        lines.extend(f"  {_cell(text)}" for text in finding_lines(findings))
    lines.append("")
    lines.append(summary_line(info))
    return "\n".join(lines) + "\n"


def render_markdown(rows: list[dict], info: dict, findings=()) -> str:
    def md(value) -> str:
        return _cell(value).replace("|", "\\|")

    lines = [
        "| # | line | role | tool | id | tier | reason | chars | visible |",
        "|---:|---:|---|---|---|---|---|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['index']} | {md(r.get('line'))} | {md(r['role'])} | {md(r['name'])} | {md(r['id'])} | {r['tier']} | "
            f"{r['reason']} | {r['original_chars']} | {r['visible_chars']} |"
        )
    if findings:
        lines.append("")
        lines.append("**Findings:**")
        lines.append("")
        lines.extend(f"- {md(text)}" for text in finding_lines(findings))
    lines.append("")
    lines.append(f"**Summary:** {summary_line(info)}")
    return "\n".join(lines) + "\n"
