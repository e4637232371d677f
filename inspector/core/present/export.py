"""Export text shared by the app: the same bytes ``prompt-inspector prepare``/``explain`` print."""

from __future__ import annotations

from inspector.core.errors import UsageError
from inspector.core.inspection import Inspection
from inspector.core.io.printers import PRINTERS
from inspector.core.scout.prepare import Prompt

EXPLAIN_FORMATS = ("table", "json", "markdown")


def prepared_bytes(prompt: Prompt, fmt: str) -> bytes:
    """The prepared prompt in ``fmt``; refuses when scout-ai would raise (prepare exits 3)."""
    printer = PRINTERS.get(fmt)
    if printer is None:
        raise UsageError(f"unknown format {fmt!r}; known: {', '.join(PRINTERS)}")
    if prompt.error is not None:
        raise UsageError(f"scout-ai would raise, nothing is sent: {prompt.error.describe()}")
    return printer(prompt.messages()).encode("utf-8", "surrogatepass")


def explain_bytes(inspection: Inspection, prompt: Prompt, fmt: str) -> bytes:
    from inspector.core.present import explain_report as report

    rows = report.explain_rows(inspection, prompt)
    if fmt == "json":
        import orjson

        text = (
            orjson.dumps(
                [r.as_dict() for r in rows], option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS, default=str
            ).decode()
            + "\n"
        )
    elif fmt == "markdown":
        text = report.render_markdown(rows, report.summary(rows, prompt))
    elif fmt == "table":
        text = report.render_table(rows, report.summary(rows, prompt))
    else:
        raise UsageError(f"unknown explain format {fmt!r}; known: {', '.join(EXPLAIN_FORMATS)}")
    return text.encode("utf-8", "surrogatepass")
