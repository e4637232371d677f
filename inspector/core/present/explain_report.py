"""The explanation report: one row per original message, and a summary.

A chat may hold a million messages, so the rows are columns (``ExplainTable``: the plan's
decision columns, the roles, lines and tool identities) and each format is written in pieces
(``*_chunks``), a run of rows at a time, never as one string or an object per row.
``ExplainRow`` is one row, typed, for the few places that want rows one by one.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import repeat, starmap
from operator import attrgetter
from typing import TYPE_CHECKING, Any

import orjson

from inspector.core.inspection import Inspection
from inspector.core.model import Consumed
from inspector.core.policies import decision as d
from inspector.core.present.cells import report_cell
from inspector.core.present.sanitize import one_line
from inspector.core.scout.prepare import Prompt
from inspector.core.scout.tool_facts import chars_of

if TYPE_CHECKING:  # the audit is imported where it is run: prepare never needs it
    from inspector.core.analysis.audit import AuditFinding
from inspector.core.scout.totals import Totals

COLUMNS = ("index", "role", "name", "id", "tier", "reason", "original_chars", "visible_chars")
RUN = 4096  # rows written per piece
MAX_ID = 24  # the table cuts longer tool ids (and role and tool names) to this many characters


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


class ExplainTable:
    """Every row of `explain`, in row order: the messages the strategies saw (as columns), the
    consumed ones where they stood in the file, then what a strategy inserted.

    ``pieces()`` walks it as runs of message rows and single other rows; ``rows()`` as ExplainRow
    objects (slow on a large chat: for tests and small uses).
    """

    __slots__ = ("befores", "columns", "consumed", "ids", "inserted", "lines", "names", "roles", "size")

    def __init__(self, inspection: Inspection, prompt: Prompt) -> None:
        chat = inspection.chat
        messages = chat.messages
        self.columns = prompt.decision_columns()
        # per message; roles and lines read in C (map over the messages), no Python step per message
        self.roles: list[object] = list(map(dict.get, map(attrgetter("fields"), messages), repeat("role")))
        self.lines: list[int | None] = list(map(attrgetter("line"), messages))
        facts = inspection.facts
        names: list[object] = [None] * len(messages)  # tool name and id, as the facts read them
        ids: list[object] = [None] * len(messages)
        for index, (name, ident) in zip(facts.order, facts.idents):
            names[index] = name
            ids[index] = ident
        self.names, self.ids = names, ids
        consumed = chat.consumed
        order = sorted(range(len(consumed)), key=lambda k: consumed[k].before)  # stable: file order within
        self.befores = [consumed[k].before for k in order]  # ascending: where each consumed row stands
        self.consumed = [_consumed_row(self.befores[rank] + rank, consumed[k]) for rank, k in enumerate(order)]
        first = len(messages) + len(consumed)
        self.inserted = [_inserted_row(first + k, at, message) for k, (at, message) in enumerate(prompt.inserted())]
        self.size = first + len(self.inserted)

    def __len__(self) -> int:
        return self.size

    def pieces(self, run: int = RUN) -> Iterator[tuple[int, int, int] | ExplainRow]:
        """In row order: ``(row, start, stop)`` for message rows ``start..stop-1`` (the first numbered
        ``row``; at most ``run`` of them), or one consumed or inserted row."""
        befores, consumed = self.befores, self.consumed
        start, rank, count = 0, 0, len(self.roles)
        while start < count or rank < len(consumed):
            while rank < len(consumed) and befores[rank] <= start:
                yield consumed[rank]
                rank += 1
            stop = min(count, start + run, befores[rank] if rank < len(consumed) else count)
            if stop > start:
                yield (start + rank, start, stop)
            elif rank < len(consumed):  # past the last message: the consumed rows left
                yield consumed[rank]
                rank += 1
            start = stop
        yield from self.inserted

    def row(self, number: int, index: int) -> ExplainRow:
        """Message ``index`` as the row numbered ``number``."""
        dec = self.columns.decision(index)
        return ExplainRow(
            number,
            self.roles[index],
            self.names[index],
            self.ids[index],
            dec.tier,
            dec.reason,
            dec.original_chars,
            dec.visible_chars,
            dec.outputs_counted,
            dec.tool_chars_before,
            self.lines[index],
            index,
            dec.detail or None,
        )

    def rows(self) -> Iterator[ExplainRow]:
        for piece in self.pieces():
            if isinstance(piece, ExplainRow):
                yield piece
            else:
                number, start, stop = piece
                for index in range(start, stop):
                    yield self.row(number + index - start, index)

    def consumed_chars(self) -> int:
        return sum(r.original_chars for r in self.consumed)

    def extra(self) -> list[ExplainRow]:
        """The rows that are not messages the strategies saw: consumed, then inserted."""
        return [*self.consumed, *self.inserted]


def explain_table(inspection: Inspection, prompt: Prompt) -> ExplainTable:
    """Rows in original order: consumed messages stand where they were in the file."""
    return ExplainTable(inspection, prompt)


def _inserted_row(number: int, at: int, message: Any) -> ExplainRow:
    # a message a strategy added: the epoch strategies' notice, or one inbox appended from a file
    content = message.fields.get("content")
    injected = message.source
    return ExplainRow(
        number,
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
        f"{injected}" if injected else f"sent as message {at} of the prepared list: {one_line(str(content), 120)}",
    )


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


def summary(rows: ExplainTable, prompt: Prompt) -> Totals:
    """The plan's totals counted per row: consumed messages are rows too."""
    totals = prompt.totals(sum(rows.columns.original))  # every message's characters, already counted
    return totals.with_consumed(len(rows.consumed), rows.consumed_chars())


def summary_line(info: Totals) -> str:
    tiers = ", ".join(f"{n} {t}" for t, n in info.shown_tiers().items())
    return (
        f"{info.messages} messages ({tiers}); {info.visible_messages} sent; "
        f"characters {info.chars_before:,} -> {info.chars_after:,}; "
        f"tool characters {info.tool_chars_before:,} -> {info.tool_chars_after:,}"
    )


def finding_lines(findings: Any) -> list[str]:
    return [f"line {f.line}: {f.message}" if f.line else f.message for f in findings]


def _encode(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


# -- writing runs of rows -------------------------------------------------------------------
# Each format writes a run of message rows with one template applied to columns zipped in C
# (map, zip, starmap): the values that repeat (roles, tool names) are written once each, then
# looked up; nothing is done per row in Python but the template.
_STRINGS = {str, type(None)}
_SCALARS = {str, type(None), int, float, bool}


def _cells(values: list[Any], cell: Any) -> list[Any]:
    """``cell`` of every value; made once per distinct value when they are all strings (or None)."""
    if set(map(type, values)) <= _STRINGS:
        known = {v: cell(v) for v in set(values)}
        return list(map(known.__getitem__, values))
    return list(map(cell, values))  # a set would take 1 for True and 0.0 for -0.0: each made alone


def _dashes(lines: list[int | None]) -> list[Any]:
    """Line numbers as the table and markdown write them: "-" for None."""
    return ["-" if v is None else v for v in lines] if None in lines else lines


# -- the table ------------------------------------------------------------------------------
_HEADER = ("#", "line", "role", "tool", "id", "tier", "reason", "chars", "visible")
_RIGHT = {0, 1, 7, 8}
_GROUPED = {7, 8}  # written with thousands separators


def _id_cell(value: object, max_id: int = MAX_ID) -> str:
    text = report_cell(value)
    return text if len(text) <= max_id else text[: max_id - 1] + "…"


def _role_cell(value: object) -> str:
    return report_cell(value)[:24]


_TIER_TEXT = [str(t) for t in d.TIERS]
_REASON_TEXT = [str(r) for r in d.REASONS]


def _run_cells(
    piece: tuple[int, int, int], cols: Any, lines: list[Any], roles: list[Any], names: list[Any], ids: list[Any]
) -> Iterator[tuple[Any, ...]]:
    """One run of rows (``pieces()``: first row number, start, stop) as cell tuples in column order:
    #, line, role, tool, id, tier, reason, chars, visible; the text formats fill them in."""
    number, start, stop = piece
    return zip(
        range(number, number + stop - start),
        lines[start:stop],
        roles[start:stop],
        names[start:stop],
        ids[start:stop],
        map(_TIER_TEXT.__getitem__, cols.tiers[start:stop]),
        map(_REASON_TEXT.__getitem__, cols.reasons[start:stop]),
        cols.original[start:stop],
        cols.visible[start:stop],
    )


def table_chunks(
    rows: ExplainTable, info: Totals, max_id: int = MAX_ID, findings: Any = (), tokens: str = ""
) -> Iterator[bytes]:
    """The table: columns padded to their widest cell (measured over every row first), then the
    findings and the summary line, as cells.table writes them."""
    cols = rows.columns
    tier_text, reason_text = _TIER_TEXT, _REASON_TEXT
    roles = _cells(rows.roles, _role_cell)
    names = _cells(rows.names, _role_cell)
    # a tool id is unique: printable ones (the common case) are their own cell
    ids = [
        "-" if v is None else v if type(v) is str and len(v) <= max_id and v.isprintable() else _id_cell(v, max_id)
        for v in rows.ids
    ]
    lines = _dashes(rows.lines)
    extra = [_table_cells(r, max_id) for r in rows.extra()]
    widths = [len(h) for h in _HEADER]
    if rows.size:
        widths[0] = max(widths[0], len(str(rows.size - 1)))
    if len(roles):
        numbers = [v for v in rows.lines if v is not None]
        widths[1] = max(widths[1], len(str(max(numbers))) if numbers else 1)
        for column, values in ((2, set(roles)), (3, set(names)), (4, ids)):  # roles and names repeat
            widths[column] = max(widths[column], max(map(len, values)))
        widths[5] = max(widths[5], max(len(tier_text[t]) for t in set(cols.tiers)))
        widths[6] = max(widths[6], max(len(reason_text[r]) for r in set(cols.reasons)))
        widths[7] = max(widths[7], len(f"{max(cols.original):,}"))
        widths[8] = max(widths[8], len(f"{max(cols.visible):,}"))
    for cells in extra:
        widths = [max(w, len(c)) for w, c in zip(widths, cells)]

    def spec(column: int, width: int, numbers: bool) -> str:
        grouped = "," if numbers and column in _GROUPED else ""
        return f"{{{column}:{'>' if column in _RIGHT else '<'}{width}{grouped}}}"

    template = "  ".join(spec(i, w, True) for i, w in enumerate(widths)).format
    text = "  ".join(spec(i, w, False) for i, w in enumerate(widths)).format
    # the last column is right-aligned: no line has trailing blanks for cells.table's rstrip to remove
    yield _encode(text(*_HEADER).rstrip() + "\n")
    done = 0
    for piece in rows.pieces():
        if isinstance(piece, ExplainRow):
            yield _encode(text(*extra[done]).rstrip() + "\n")
            done += 1
            continue
        written = starmap(template, _run_cells(piece, cols, lines, roles, names, ids))
        yield _encode("\n".join(written) + "\n")
    rest = []  # after the rows, as cells.table's lines are followed
    if findings:
        rest.append("")
        rest.append("findings:")
        rest.extend(f"  {report_cell(text)}" for text in finding_lines(findings))
    rest.append("")
    rest.append(summary_line(info) + (f"; {tokens}" if tokens else ""))
    yield _encode("\n".join(rest) + "\n")


def _table_cells(r: ExplainRow, max_id: int) -> tuple[str, ...]:
    return (
        str(r.index),
        report_cell(r.line),
        _role_cell(r.role),
        _role_cell(r.name),
        _id_cell(r.id, max_id),
        str(r.tier),
        str(r.reason),
        f"{r.original_chars:,}",
        f"{r.visible_chars:,}",
    )


def render_table(rows: ExplainTable, info: Totals, max_id: int = MAX_ID, findings: Any = ()) -> str:
    return b"".join(table_chunks(rows, info, max_id, findings)).decode("utf-8", "surrogatepass")


# -- markdown -------------------------------------------------------------------------------
_MD_ROW = "| %s | %s | %s | %s | %s | %s | %s | %d | %d |"


def _md(value: Any) -> str:
    return report_cell(value).replace("|", "\\|")


def markdown_chunks(rows: ExplainTable, info: Totals, findings: Any = (), tokens: str = "") -> Iterator[bytes]:
    yield b"| # | line | role | tool | id | tier | reason | chars | visible |\n|---:|---:|---|---|---|---|---|---:|---:|\n"
    cols = rows.columns
    roles = _cells(rows.roles, _md)
    names = _cells(rows.names, _md)
    ids = [v if type(v) is str and v.isprintable() and "|" not in v else _md(v) for v in rows.ids]
    lines = _dashes(rows.lines)
    row = _MD_ROW.__mod__
    for piece in rows.pieces():
        if isinstance(piece, ExplainRow):
            r = piece
            cells = (r.index, _md(r.line), _md(r.role), _md(r.name), _md(r.id), r.tier, r.reason)
            yield _encode(row((*cells, r.original_chars, r.visible_chars)) + "\n")
            continue
        written = map(row, _run_cells(piece, cols, lines, roles, names, ids))
        yield _encode("\n".join(written) + "\n")
    rest = []
    if findings:
        rest.append("")
        rest.append("**Findings:**")
        rest.append("")
        rest.extend(f"- {_md(text)}" for text in finding_lines(findings))
    rest.append("")
    rest.append(f"**Summary:** {summary_line(info)}" + (f"; {tokens}" if tokens else ""))
    yield _encode("\n".join(rest) + "\n")


def render_markdown(rows: ExplainTable, info: Totals, findings: Any = ()) -> str:
    return b"".join(markdown_chunks(rows, info, findings)).decode("utf-8", "surrogatepass")


# -- JSON -----------------------------------------------------------------------------------
_ROWS_OPEN = b'{\n  "rows": ['
_NULL = b"null"
_INDENT = orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS
_KEYS = (
    "index",
    "role",
    "name",
    "id",
    "tier",
    "reason",
    "original_chars",
    "visible_chars",
    "outputs_counted",
    "tool_chars_before",
    "line",
    "message",
)


def _json_template(specs: tuple[bytes, ...], detail: bool) -> bytes:
    """A row with each value written by its spec: b"%d", b"%s" (JSON bytes) or a literal (b"null")."""
    fields = b",\n".join(b'      "%s": %s' % (key.encode(), spec) for key, spec in zip(_KEYS, specs))
    return b"    {\n" + fields + (b"%s" if detail else b"") + b"\n    }"


_ANY_ROW = _json_template((b"%s",) * 12, True)


def json_document(rows: ExplainTable, rest: dict[str, Any]) -> Iterator[bytes] | None:
    """``{"rows": [...], **rest}`` as `--format json` writes it (orjson, indented), in pieces; None
    when orjson would refuse a value (an integer wider than 64 bits, a lone surrogate): the caller
    then writes the whole document the careful way. Decided before the first piece."""
    try:
        skeleton = orjson.dumps({"rows": [], **rest}, option=_INDENT, default=str) + b"\n"
    except TypeError:
        return None
    if not rows.size:
        return iter((skeleton,))
    if not skeleton.startswith(_ROWS_OPEN + b"]") or not _plain_json(rows):
        return None
    return _json_pieces(rows, skeleton[len(_ROWS_OPEN) + 1 :])


def _scalar(value: object) -> bytes:
    """A JSON value inside a row, as orjson writes it there (objects and arrays indented to the row's depth)."""
    return orjson.dumps(value, option=_INDENT, default=str).replace(b"\n", b"\n      ")


def _json_pieces(rows: ExplainTable, tail: bytes) -> Iterator[bytes]:
    dumps = orjson.dumps
    cols = rows.columns
    tier_json = [dumps(str(t)) for t in d.TIERS]
    reason_json = [dumps(str(r)) for r in d.REASONS]
    roles = _cells(rows.roles, _scalar)
    names = _cells(rows.names, _scalar)
    odd = bool(set(map(type, rows.ids)) - _SCALARS)  # objects, arrays: written as they nest
    ids, details, none = rows.ids, cols.details, d.NO_COUNT
    templates: dict[tuple[Any, ...], Any] = {}
    first = True
    for piece in rows.pieces():
        if isinstance(piece, ExplainRow):
            out = _json_row(piece)
        else:
            number, start, stop = piece
            count = stop - start
            columns: list[Any] = [range(number, number + count), roles[start:stop], names[start:stop]]
            columns.append(map(_scalar if odd else dumps, ids[start:stop]))
            columns.append(map(tier_json.__getitem__, cols.tiers[start:stop]))
            columns.append(map(reason_json.__getitem__, cols.reasons[start:stop]))
            columns.append(cols.original[start:stop])
            columns.append(cols.visible[start:stop])
            specs = [b"%d"] + [b"%s"] * 5 + [b"%d"] * 6
            nullable: tuple[tuple[int, Sequence[Any], object], ...] = (
                (8, cols.counted, none),
                (9, cols.before, none),
                (10, rows.lines, None),
            )
            for at, values, empty in nullable:
                run: Sequence[Any] = values[start:stop]
                blanks = run.count(empty)
                if blanks == count:
                    specs[at] = _NULL
                    continue
                if blanks:
                    specs[at] = b"%s"
                    run = [_NULL if v == empty else b"%d" % v for v in run]
                columns.append(run)
            columns.append(range(start, stop))
            with_detail = bool(details) and any(i in details for i in range(start, stop))
            if with_detail:
                columns.append(
                    [b',\n      "detail": ' + dumps(details[i]) if i in details else b"" for i in range(start, stop)]
                )
            key = (*specs, with_detail)
            template = templates.get(key)
            if template is None:
                template = templates[key] = _json_template(tuple(specs), with_detail).__mod__
            out = b",\n".join(map(template, zip(*columns)))
        yield (_ROWS_OPEN + b"\n" if first else b",\n") + out
        first = False
    yield b"\n  ]" + tail


def _json_row(r: ExplainRow) -> bytes:
    def number(value: int | None) -> bytes:
        return _NULL if value is None else b"%d" % value

    detail = b"" if r.detail is None else b',\n      "detail": ' + orjson.dumps(r.detail)
    return _ANY_ROW % (
        b"%d" % r.index,
        _scalar(r.role),
        _scalar(r.name),
        _scalar(r.id),
        orjson.dumps(str(r.tier)),
        orjson.dumps(str(r.reason)),
        b"%d" % r.original_chars,
        b"%d" % r.visible_chars,
        number(r.outputs_counted),
        number(r.tool_chars_before),
        number(r.line),
        number(r.message),
        detail,
    )


def _plain_json(rows: ExplainTable) -> bool:
    """Whether orjson writes every value of the rows (it refuses integers wider than 64 bits and
    strings holding lone surrogates); checked per kind of value, in C where it can be."""
    extra = rows.extra()
    details = [*rows.columns.details.values(), *(r.detail for r in extra if r.detail is not None)]
    values: list[list[Any]] = [rows.roles, rows.names, rows.ids, details]
    values.append([value for r in extra for value in (r.role, r.name, r.id, r.reason)])
    return all(_orjson_writes(v) for v in values)


def _orjson_writes(values: list[Any]) -> bool:
    kinds = set(map(type, values))
    if str in kinds:
        # (None and "" add nothing: filter drops them in C, the common case)
        text = "".join(filter(None, values) if kinds <= _STRINGS else [v for v in values if type(v) is str])
        if not text.isascii():
            try:
                text.encode("utf-8")  # a lone surrogate refuses to encode, as orjson refuses it
            except UnicodeEncodeError:
                return False
    kinds -= _STRINGS
    if kinds - {int, float, bool}:
        try:
            orjson.dumps([v for v in values if type(v) not in _STRINGS], option=_INDENT, default=str)
        except TypeError:
            return False
        return True
    if int in kinds:
        ints = [v for v in values if type(v) is int]
        return min(ints) >= -(2**63) and max(ints) < 2**64
    return True


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
