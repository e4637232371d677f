"""`prompt-inspector corpus PATH...`: settings scored over a corpus of chats, at every model call of each.

See ``inspector.core.corpus`` for what is scored and README's "Tune across runs: corpus" for the metrics.
"""

from __future__ import annotations

import os
import sys
import time
from argparse import Namespace
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from inspector.core.corpus.discover import Discovery, discover
from inspector.core.corpus.grid import InForce, Setting, in_force, parse_grid
from inspector.core.corpus.score import ChatScore, Job
from inspector.core.corpus.summary import Gate, SettingSummary, best_within_cost, parse_gate, summarize
from inspector.core.present.cells import table
from inspector.core.present.sanitize import terminal_line
from inspector.core.present.settings_lines import as_env, as_scout_config, value_text
from inspector.core.setup import Setup

from .output import EXIT_OK, emit, fail, to_json

if TYPE_CHECKING:
    from pathlib import Path

    from .output import AddCommon, Subcommands

FORMATS = ("table", "json", "csv", "markdown", "env", "scout-config")
EXIT_GATE, EXIT_INTERRUPTED = 1, 130


def add_parser(sub: Subcommands, common: AddCommon) -> None:
    p = sub.add_parser("corpus", help="score settings over many chats, at every model call (refetches, losses, cost)")
    p.add_argument("paths", metavar="PATH", nargs="+", help="chat files, directories (searched recursively) or globs")
    common(p, chat="none")
    p.add_argument("--input-format", metavar="FORMAT", help="force the input format of every chat")
    p.add_argument("--strategies", metavar="LIST", help="comma-separated strategies (default: each chat's choice)")
    p.add_argument(
        "--scout-version", metavar="VERSION", help="the scout-ai version whose prompt layer runs: seed, 1.2.6 or 2.1"
    )
    p.add_argument(
        "--policy",
        metavar="NAME",
        help="another framework's context policy instead of scout-ai's strategies (its settings by --set)",
    )
    p.add_argument(
        "--vary",
        action="append",
        default=[],
        metavar="KEY=START:STOP:STEP",
        help="score every value of a setting (repeatable: the cartesian product, in the order given); "
        "policy=A,B,... scores policies (scout: scout-ai's strategies)",
    )
    p.add_argument("--probe", action="append", default=[], metavar="TEXT", help="a text the runs need (repeatable)")
    p.add_argument("--regex", action="store_true", help="the probes are regular expressions")
    p.add_argument("--ignore-case", action="store_true", help="the probes ignore case")
    p.add_argument(
        "--format",
        default="table",
        choices=FORMATS,
        help="table (default), json, csv, markdown, or "
        "the current setting as env (KEY=VALUE) or scout-config (etc/config) lines",
    )
    p.add_argument("--jobs", type=int, default=None, metavar="N", help="worker processes (default: the cores)")
    p.add_argument("--engine", default="local", choices=("local", "dask"), help="local process pool (default) or dask")
    p.add_argument("--scheduler", metavar="ADDRESS", help="with --engine dask: an existing cluster's scheduler")
    p.add_argument(
        "--gate",
        action="append",
        default=[],
        metavar="METRIC<=VALUE",
        help="fail (exit 1) when the current setting breaks it: refetches, losses, chars, tokens, or NAME_per_call",
    )
    p.add_argument("--per-chat", action="store_true", help="also one row per chat and setting")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE (atomically) instead of stdout")


def run(args: Namespace, overrides: dict[str, str], config_files: list[Path] | None) -> int:
    setup = Setup.of(
        overrides=overrides,
        config_files=config_files,
        strategies=args.strategies,
        version=args.scout_version,
        policy=args.policy,
    )
    grid = parse_grid(args.vary, setup.policy)
    if setup.policy is not None and args.format in ("env", "scout-config"):
        return fail(f"--format {args.format} writes scout-ai's settings; {setup.policy} is not scout-ai's policy")
    gates = [parse_gate(g) for g in args.gate]
    if args.probe:  # without one, the search is never imported
        from inspector.core.analysis.trace import compile_pattern

        for text in args.probe:
            compile_pattern(text, args.regex, args.ignore_case)
    jobs = args.jobs if args.jobs is not None else (os.cpu_count() or 1)
    if jobs < 1:
        return fail("--jobs must be at least 1")
    if args.scheduler and args.engine != "dask":
        return fail("--scheduler needs --engine dask")
    current = in_force(setup)
    settings, values = _settings(setup, grid)
    current_index = next((k for k, v in enumerate(values) if v == current.values()), None)
    if current_index is None:  # the current setting is not a point of the grid: scored too, shown apart
        settings, values = (*settings, Setting()), [*values, current.values()]
    found = discover(args.paths)
    if not found.chats:
        for s in found.skipped:
            _note(f"{s.path}: {s.reason}")
        return fail("nothing to score: no chat found in " + ", ".join(args.paths))
    job = Job(setup, settings, tuple(args.probe), args.regex, args.ignore_case, args.input_format)
    scores, partial = _score(list(found.chats), job, jobs, args)
    summaries = summarize(settings, values, scores, len(args.probe))
    now = summaries[current_index if current_index is not None else -1]
    grid_summaries = summaries if current_index is not None else summaries[:-1]
    best = best_within_cost(grid_summaries, now)
    report = _Report(found, scores, grid_summaries, now, current_index, best, current, args, partial)
    emit(args, report.render())
    if partial:
        return EXIT_INTERRUPTED
    if not any(c.read for c in scores):
        return fail("nothing could be read: every chat failed (see the report)")
    return _gates(gates, now)


def _settings(setup: Setup, grid: tuple[Setting, ...]) -> tuple[tuple[Setting, ...], list[tuple[tuple[str, Any], ...]]]:
    return grid, [in_force(s.setup(setup)).values() for s in grid]


def _gates(gates: list[Gate], now: SettingSummary) -> int:
    breaches = [b for g in gates if (b := g.breach(now)) is not None]
    for line in breaches:
        print(f"prompt-inspector: {line}", file=sys.stderr)
    return EXIT_GATE if breaches else EXIT_OK


def _note(text: str) -> None:
    print(f"prompt-inspector: note: {terminal_line(text)}", file=sys.stderr)


def _score(paths: list[str], job: Job, jobs: int, args: Namespace) -> tuple[list[ChatScore], bool]:
    from inspector.core.corpus.engines import run_dask, run_local

    results: list[ChatScore] = []
    progress = _Progress(len(paths))
    stream = run_dask(paths, job, jobs, args.scheduler) if args.engine == "dask" else run_local(paths, job, jobs)
    partial = False
    try:
        for score in stream:
            results.append(score)
            progress.step(score)
    except KeyboardInterrupt:
        partial = True
    finally:
        close = getattr(stream, "close", None)
        if close is not None:
            close()
        progress.done()
    results.sort(key=lambda c: c.path)
    return results, partial


class _Progress:
    """Chats done, calls scored and an ETA on stderr, when stderr is a terminal."""

    def __init__(self, total: int):
        self.total, self.done_count, self.calls, self.start = total, 0, 0, time.monotonic()
        try:
            self.shown = sys.stderr.isatty()
        except (AttributeError, ValueError, OSError):
            self.shown = False

    def step(self, score: ChatScore) -> None:
        self.done_count += 1
        self.calls += score.calls
        if not self.shown:
            return
        spent = time.monotonic() - self.start
        eta = spent / self.done_count * (self.total - self.done_count)
        sys.stderr.write(f"\r{self.done_count}/{self.total} chats, {self.calls:,} calls scored, ETA {eta:.0f} s  ")
        sys.stderr.flush()

    def done(self) -> None:
        if self.shown:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()


class _Report:
    def __init__(
        self,
        found: Discovery,
        scores: list[ChatScore],
        summaries: list[SettingSummary],
        now: SettingSummary,
        current_index: int | None,
        best: int | None,
        current: InForce,
        args: Namespace,
        partial: bool,
    ):
        self.found, self.scores, self.summaries, self.now = found, scores, summaries, now
        self.current_index, self.best, self.current, self.args, self.partial = (
            current_index,
            best,
            current,
            args,
            partial,
        )
        self.varied = [k for k, _ in summaries[0].setting.varied] if summaries else []

    def render(self) -> str:
        fmt = self.args.format
        if fmt in ("env", "scout-config"):
            self._notes()
            keys = list(self.current.keys)
            return (
                as_env(self.current.thresholds, keys)
                if fmt == "env"
                else as_scout_config(self.current.thresholds, keys)
            )
        if fmt == "json":
            return to_json(self.as_json())
        if fmt == "csv":
            self._notes()
            return self.csv()
        return self.text(markdown=fmt == "markdown")

    def _notes(self) -> None:
        for s in self.found.skipped:
            _note(f"{s.path}: {s.reason}")
        for c in self.scores:
            if c.error is not None:
                _note(f"{c.path}: {c.error}")

    # -- json ------------------------------------------------------------------------
    def _setting_json(self, s: SettingSummary) -> dict[str, Any]:
        return {
            "values": dict(s.values),
            "chats": s.chats,
            "calls": s.calls,
            "chars": s.chars,
            "tokens": s.tokens,
            "refetches": s.refetches,
            "losses": s.losses,
            "errors": s.errors,
            "pareto": s.pareto,
            "losses_by_probe": list(s.losses_by_probe),
            "mean": {"chars": s.mean_chars, "refetches": s.mean_refetches},
            "worst": s.worst,
        }

    def as_json(self) -> dict[str, Any]:
        return {
            "settings": [self._setting_json(s) for s in self.summaries],
            "chats": [
                {
                    "path": c.path,
                    "calls": c.calls,
                    "error": c.error,
                    "per_setting": [
                        {"chars": p.chars, "tokens": p.tokens, "refetches": p.refetches, "losses": p.lost}
                        for p in c.per_setting[: len(self.summaries)]
                    ],
                }
                for c in self.scores
            ],
            "current": self.current_index if self.current_index is not None else self._setting_json(self.now),
            "best_within_cost": self.best,
            "probes": list(self.args.probe),
            "skipped": [{"path": s.path, "reason": s.reason} for s in self.found.skipped],
            "partial": self.partial,
        }

    # -- csv -------------------------------------------------------------------------
    def csv(self) -> str:
        import csv
        import io

        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        keys = [k for k, _ in self.summaries[0].values] if self.summaries else []
        metrics = ["chats", "calls", "chars", "tokens", "refetches", "losses", "errors", "pareto"]
        if self.args.per_chat:
            writer.writerow(["path", "setting", *keys, "calls", "chars", "tokens", "refetches", "losses", "error"])
            for c in self.scores:
                for k, s in enumerate(self.summaries):
                    p = c.per_setting[k] if c.read else None
                    row = [p.chars, p.tokens, p.refetches, p.lost] if p is not None else ["", "", "", ""]
                    writer.writerow(
                        [c.path, k + 1, *(value_text(v) for _, v in s.values), c.calls, *row, c.error or ""]
                    )
            return buffer.getvalue()
        writer.writerow(["setting", *keys, *metrics])
        for k, s in enumerate(self.summaries):
            writer.writerow([k + 1, *(value_text(v) for _, v in s.values), *(getattr(s, m) for m in metrics)])
        return buffer.getvalue()

    # -- table / markdown ----------------------------------------------------------------
    def text(self, markdown: bool) -> str:
        lines: list[str] = []
        read = sum(1 for c in self.scores if c.read)
        lines.append(
            f"{read} chat(s) scored of {len(self.scores)} found; {len(self.summaries)} setting(s)"
            + (" (PARTIAL: interrupted, the chats not yet scored are left out)" if self.partial else "")
        )
        header = (
            "#",
            *self.varied,
            "chats",
            "calls",
            "chars",
            "~tokens",
            "refetches",
            "losses",
            "errors",
            "chars/chat",
            "refetches/chat",
            "worst chat",
            "",
        )
        body: list[tuple[str, ...]] = []
        for k, s in enumerate(self.summaries):
            marks = ("pareto" if s.pareto else "") + (" current" if k == self.current_index else "")
            body.append(
                (
                    str(k + 1),
                    *(value_text(v) for _, v in s.setting.varied),
                    f"{s.chats:,}",
                    f"{s.calls:,}",
                    f"{s.chars:,}",
                    f"{s.tokens:,}",
                    f"{s.refetches:,}",
                    f"{s.losses:,}",
                    f"{s.errors:,}",
                    f"{s.mean_chars:,.0f}",
                    f"{s.mean_refetches:.2f}",
                    terminal_line(s.worst or "-", 60),
                    marks.strip(),
                )
            )
        lines += _table(header, body, markdown)
        now = self.now
        if self.current_index is None:
            lines.append(
                f"current setting (not in the grid): {now.chars:,} chars, {now.refetches:,} refetches, "
                f"{now.losses:,} losses, {now.errors:,} errors"
            )
        if self.best is not None:
            b = self.summaries[self.best]
            lines.append(
                f"fewest refetches within the current setting's cost ({now.chars:,} chars): setting #{self.best + 1} "
                f"({b.setting.label()}): {b.refetches:,} refetches, {b.chars:,} chars"
            )
        if self.args.probe:
            for q, text in enumerate(self.args.probe):
                lines.append(
                    f"probe {terminal_line(text, 80)!r}: losses per setting "
                    + ", ".join(f"#{k + 1} {s.losses_by_probe[q]:,}" for k, s in enumerate(self.summaries))
                )
        lines.append(
            "~tokens is an estimate: characters / 4; pareto: no setting has fewer or equal chars and refetches"
        )
        if self.args.per_chat:
            lines.append("")
            header2 = ("path", "setting", "calls", "chars", "refetches", "losses", "first refetch", "error")
            rows: list[tuple[str, ...]] = []
            for c in self.scores:
                if not c.read:
                    rows.append(
                        (terminal_line(c.path, 80), "-", "-", "-", "-", "-", "-", terminal_line(c.error or "", 120))
                    )
                    continue
                for k in range(len(self.summaries)):
                    p = c.per_setting[k]
                    rows.append(
                        (
                            terminal_line(c.path, 80),
                            str(k + 1),
                            f"{c.calls:,}",
                            f"{p.chars:,}",
                            f"{p.refetches:,}",
                            f"{p.lost:,}",
                            str(p.first_refetch or "-"),
                            terminal_line(p.error or "", 120),
                        )
                    )
            lines += _table(header2, rows, markdown)
        problems = [(s.path, s.reason) for s in self.found.skipped] + [
            (c.path, c.error) for c in self.scores if c.error is not None
        ]
        if problems:
            lines.append("")
            lines.append("not scored or raising:")
            lines += [f"  {terminal_line(p, 200)}: {terminal_line(r, 300)}" for p, r in problems]
        return "\n".join(lines) + "\n"


def _table(header: tuple[str, ...], body: Sequence[tuple[str, ...]], markdown: bool) -> list[str]:
    if not markdown:
        return table(header, body, set(range(1, len(header) - 1)))
    esc = [tuple(cell.replace("|", "\\|") for cell in row) for row in [header, *body]]
    out = ["| " + " | ".join(esc[0]) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(row) + " |" for row in esc[1:]]
    return out
