"""The one writer of every output: `prepare` and `explain` print these bytes, and the app's export
writes them, so a file exported from the app equals the command's output byte for byte.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from itertools import chain
from typing import TYPE_CHECKING, Any

from inspector.core.errors import ScoutRaises, UsageError
from inspector.core.inspection import Inspection
from inspector.core.present import explain_report as report
from inspector.core.present.json_text import json_text
from inspector.core.present.policy import policy_report
from inspector.core.present.prepared_output import prepared_chunks
from inspector.core.present.provenance import report_settings
from inspector.core.ruby.json import RubyJSONError
from inspector.core.scout.prepare import Prompt
from inspector.core.tokens import Tokenizer

if TYPE_CHECKING:  # the audit is imported where it is run: prepare never needs it
    from inspector.core.analysis.audit import AuditFinding, SentBefore

EXPLAIN_FORMATS = ("table", "json", "markdown")


def prepared_bytes(prompt: Prompt, fmt: str) -> bytes:
    """The prepared prompt in ``fmt``, whole (the app's export): the pieces `prepare` writes, joined.

    Refuses when scout-ai would raise (prepare exits 3), JSON.generate's own refusals included.
    """
    try:
        return b"".join(prepared_chunks(prompt, fmt))
    except RubyJSONError as exc:  # e.g. an infinite number (1e400): JSON.generate refuses it
        raise ScoutRaises(f"scout-ai would raise {exc.exception}: {exc}") from None


def explain_bytes(
    inspection: Inspection,
    prompt: Prompt,
    fmt: str,
    with_audit: bool = False,
    sent_before: SentBefore | None = None,
    call: int | None = None,
) -> bytes:
    """The explanation report, whole (the app's export): the pieces `explain` writes, joined."""
    return b"".join(explain_chunks(inspection, prompt, fmt, with_audit, sent_before, call=call))


def sent_tokens(prompt: Prompt, tokenizer: Tokenizer) -> int | None:
    """The tokens of what the model is sent (its messages' contents, as ``calls`` counts a call's prompt),
    as ``tokenizer`` counts them (None: nothing is sent)."""
    if prompt.error is not None:
        return None
    count = tokenizer.count_content
    return sum(count(m.fields.get("content")) for m in prompt.messages())


def explain_chunks(
    inspection: Inspection,
    prompt: Prompt,
    fmt: str,
    with_audit: bool = False,
    sent_before: SentBefore | None = None,
    extra_audit: Sequence[AuditFinding] = (),
    call: int | None = None,
) -> Iterator[bytes]:
    """The explanation report in pieces: rows, the loader's findings and the summary, the settings that made
    it (``call``: the model call it is about; None: the whole chat); the audit when asked.

    Rows are written even when scout-ai raises (the caller reports that, `explain` exits 3). A
    million rows are never held as one text: the table is columns, written a run of rows at a time.
    The refusals (an unknown format) come up front, before any piece.
    """
    if fmt not in EXPLAIN_FORMATS:
        raise UsageError(f"unknown explain format {fmt!r}; known: {', '.join(EXPLAIN_FORMATS)}")
    rows = report.explain_table(inspection, prompt)
    info = report.summary(rows, prompt)
    if info.error is None and (failed := prompt.send_error()) is not None:
        info = replace(info, error=failed)  # the strategies ran; sending what they prepared raises
    findings = inspection.chat.findings
    audited = None
    if with_audit:
        from inspector.core.analysis.audit import audit

        audited = audit(inspection, prompt, sent_before, extra_audit)
    policy = policy_report(prompt)
    tokenizer = inspection.setup.token_counter()
    sent = sent_tokens(prompt, tokenizer)
    tokens_text = f"tokens sent {sent:,} ({tokenizer.label})" if sent is not None else ""
    made_by = report_settings(inspection, call)
    if fmt == "json":
        summary = info.as_dict()
        summary["tokens_after"], summary["tokenizer"] = sent, tokenizer.label
        rest: dict[str, Any] = {
            "findings": [f.as_dict() for f in findings],
            "summary": summary,
            "settings": made_by.as_dict(),
        }
        if policy is not None:
            rest["policy"] = policy.as_dict()
        if audited is not None:
            rest["audit"] = [f.as_dict() for f in audited]
        pieces = report.json_document(rows, rest)
        if pieces is not None:
            return pieces
        # a value orjson refuses (a wide integer, a lone surrogate): the whole document as json_text writes it
        data = {"rows": [r.as_dict() for r in rows.rows()], **rest}
        return iter((json_text(data).encode("utf-8", "surrogatepass"),))
    if fmt == "markdown":
        pieces = report.markdown_chunks(rows, info, findings, tokens_text)
        tail = b"" if audited is None else report.render_audit_markdown(audited).encode("utf-8", "surrogatepass")
        if policy is not None:
            tail = f"**Policy:** {policy.line()[len('policy: ') :]}\n".encode("utf-8", "surrogatepass") + tail
        tail = f"\n**Settings:** {made_by.line()}\n".encode("utf-8", "surrogatepass") + tail

    else:
        pieces = report.table_chunks(rows, info, findings=findings, tokens=tokens_text)
        tail = b"" if audited is None else ("\n" + report.render_audit_table(audited)).encode("utf-8", "surrogatepass")
        if policy is not None:
            tail = (policy.line() + "\n").encode("utf-8", "surrogatepass") + tail
        tail = f"settings: {made_by.line()}\n".encode("utf-8", "surrogatepass") + tail

    return chain(pieces, (tail,)) if tail else pieces
