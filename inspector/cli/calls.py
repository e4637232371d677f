"""`prompt-inspector calls CHAT`: one row per model call: where its response starts, what its prompt held."""

from __future__ import annotations

from argparse import ArgumentParser, Namespace
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # only named in annotations: `prepare --at` need not import the whole history
    from inspector.core.calls.history import ChatHistory

    from .output import AddCommon, Subcommands
import csv
import io

from inspector.core import tokens
from inspector.core.calls.usage import CallTokens, TrustCheck, Unexplained, call_usage, trust_check
from inspector.core.numbering import RowNumbers
from inspector.core.policies import decision as d
from inspector.core.present.cells import cell, table

from .output import EXIT_OK, emit, note, to_json

TIERS = (d.FULL, d.TRUNCATED, d.DROPPED, d.ERROR, d.UNDECIDED)
POLICY_TIERS = (d.FULL, d.TRUNCATED, d.DROPPED, d.CLEARED, d.ERROR, d.UNDECIDED)  # another framework's policy


def tiers_of(history: ChatHistory) -> tuple[d.Tier, ...]:
    """The tier columns: a policy's placeholders (cleared) get one of their own."""
    return POLICY_TIERS if history.setup.policy is not None else TIERS


def add_parser(sub: Subcommands, common: AddCommon) -> None:
    calls = sub.add_parser("calls", help="one row per model call: the prompt it was sent, in numbers")
    common(calls)
    calls.add_argument(
        "--format",
        default="table",
        choices=("table", "json", "csv"),
        help="table (default), json (one object per call) or csv (for plotting)",
    )
    calls.add_argument("-o", "--output", metavar="FILE", help="write to FILE (atomically) instead of stdout")
    add_tokenizer(calls)
    calls.add_argument(
        "--context-window",
        type=window,
        metavar="N",
        help="the model's context window in tokens: calls whose prompt is larger are flagged",
    )


def add_tokenizer(parser: ArgumentParser) -> None:
    """``--tokenizer``: checked where the setup is made (an unknown name exits 2 naming the allowed ones)."""
    parser.add_argument(
        "--tokenizer",
        default=tokens.DEFAULT,
        metavar="NAME",
        help=f"how tokens are counted: {', '.join(tokens.CHOICES)} (default {tokens.DEFAULT}; estimate: characters / 4)",
    )


def window(text: str) -> int:
    from argparse import ArgumentTypeError

    if not (text.isascii() and text.isdigit()) or int(text) <= 0:
        raise ArgumentTypeError(f"expected a positive number of tokens, got {text!r}")
    return int(text)


def call_rows(
    history: ChatHistory,
    context_window: int | None = None,
    problems: list[str] | None = None,
    unexplained: list[Unexplained] | None = None,
) -> list[dict[str, object]]:
    """One row per call. ``problems`` collects what is wrong with meta records (malformed, no ``pt``),
    ``unexplained`` the calls the trust check flags (checked once, for the rows and the notes)."""
    numbers = RowNumbers.of(history.whole.chat)  # `index` is explain's row number (consumed rows counted)
    counter = CallTokens(history, history.setup.token_counter())
    rows: list[dict[str, object]] = []
    for call in history.calls:
        found = history.call_counts(call.number)
        counts = found.counts
        index = history.response_index(call.number)
        usage, problem = call_usage(history, call.number)
        if problem is not None and problems is not None:
            where = f"line {call.line}: " if call.line is not None else ""
            problems.append(f"{where}call {call.number}: {problem}: no reported usage")
        reported = usage.as_dict() if usage is not None else {}
        row: dict[str, object] = {
            "call": call.number,
            "index": numbers.row_of_message(index) if index is not None else None,
            "line": call.line,
            "role": call.role,
            "messages": found.visible,
            "chars": found.chars_after,
            "tokens": counter.at(call.number),
            "reported_prompt_tokens": reported.get("reported_prompt_tokens"),
            "reported_completion_tokens": reported.get("reported_completion_tokens"),
            **{k: v for k, v in reported.items() if k not in ("reported_prompt_tokens", "reported_completion_tokens")},
            **{str(tier): counts.get(tier, 0) for tier in tiers_of(history)},
            "tools": list(call.tools),
            "raises": found.error.describe() if found.error is not None else None,
        }
        rows.append(row)
    check = checked(rows)
    if unexplained is not None:
        unexplained.extend(check.unexplained)
    flagged = {u.call: u for u in check.unexplained}
    for row in rows:
        found_u = flagged.get(int(str(row["call"])))
        row["unexplained_tokens"] = found_u.unexplained if found_u is not None else None
        if context_window is not None:
            row["over_window"] = _size(row) > context_window
    return rows


def _size(row: dict[str, object]) -> int:
    """The prompt's size against a window: the larger of the rebuilt and the recorded one."""
    rebuilt, recorded = row["tokens"], row["reported_prompt_tokens"]
    return max(rebuilt if isinstance(rebuilt, int) else 0, recorded if isinstance(recorded, int) else 0)


def checked(rows: list[dict[str, object]]) -> TrustCheck:
    """The trust check over the rows: recorded prompt sizes against the rebuilt ones."""
    points = []
    for r in rows:
        recorded, rebuilt, messages, line = r["reported_prompt_tokens"], r["tokens"], r["messages"], r["line"]
        points.append(
            (
                int(str(r["call"])),
                recorded if isinstance(recorded, int) else None,
                rebuilt if isinstance(rebuilt, int) and r["raises"] is None else 0,
                messages if isinstance(messages, int) else 0,
                line if isinstance(line, int) else None,
            )
        )
    return trust_check(points)


CSV_COLUMNS = (
    "call",
    "line",
    "messages",
    "chars",
    "tokens",
    "reported_prompt_tokens",
    "reported_completion_tokens",
    "unexplained_tokens",
)


def run(args: Namespace, history: ChatHistory) -> int:
    problems: list[str] = []
    window = getattr(args, "context_window", None)
    tokenizer = history.setup.token_counter()
    replaced = tokenizer.replaced
    flagged: list[Unexplained] = []
    rows = call_rows(history, window, problems, flagged)
    for problem in problems:
        note(f"{history.path}: {problem}")
    for u in flagged:
        note(f"{history.path}: {u.message()}")
    if window is not None:
        over = [r for r in rows if r["over_window"]]
        if over:
            note(
                f"{history.path}: {len(over)} call(s) over the {window:,}-token context window (first: call {over[0]['call']})"
            )
    if tokenizer.replaced > replaced:
        note(
            f"{history.path}: {tokenizer.replaced - replaced} text(s) hold lone surrogates or invalid UTF-8: "
            "counted as tiktoken counts them, each replaced by U+FFFD"
        )
    if args.format == "json":
        emit(args, to_json(rows))
        return EXIT_OK
    if args.format == "csv":
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        columns = CSV_COLUMNS + (("over_window",) if window is not None else ())
        writer.writerow(columns)
        for r in rows:
            writer.writerow(["" if r.get(c) is None else r.get(c) for c in columns])
        emit(args, out.getvalue())
        return EXIT_OK
    tiers = tiers_of(history)
    header = ("call", "index", "line", "messages", "chars", "tokens", "reported", *tiers, "tool")
    body = [
        (
            str(r["call"]),
            cell(r["index"]),
            cell(r["line"]),
            str(r["messages"]) if r["raises"] is None else "raises",
            f"{r['chars']:,}",
            f"{r['tokens']:,}" + ("!" if r.get("over_window") else ""),
            cell(f"{r['reported_prompt_tokens']:,}" if r["reported_prompt_tokens"] is not None else None)
            + ("?" if r["unexplained_tokens"] is not None else ""),
            *(str(r[t]) for t in tiers),
            cell(", ".join(call.tools) or None),
        )
        for call, r in zip(history.calls, rows)  # the rows are the calls', in order
    ]
    lines = table(header, body, right=set(range(len(header) - 1)))
    summary = f"{len(rows)} call(s) in {history.path}; tokens: {tokenizer.label}"
    settings = history.setup.policy_settings()
    if settings is not None:
        kind = "" if settings.spec.exact else ", approximate"
        summary += f"; policy: {settings.label()} ({settings.spec.library}{kind})"
    legend = []
    if any(r["unexplained_tokens"] is not None for r in rows):
        legend.append("reported?: the recorded prompt is further from the rebuilt one than the overhead explains")
    if any(r.get("over_window") for r in rows):
        legend.append(f"tokens!: over the {window:,}-token context window")
    emit(args, summary + "\n" + "\n".join([*lines, *legend]) + "\n")
    return EXIT_OK
