"""The corpus view: a row per chat of the paths given, scored at every model call under the settings in force.

The chats are found (``core.corpus.discover``) and scored (``core.corpus.score.score_chat``) in a thread
worker, chat by chat, each score posted as it is done: the status line counts them and keys are handled
meanwhile. The threshold editor and the strategy switch change the settings every chat is scored under
(an edit becomes an override, as ``--set`` would); each change scores the corpus again in a new worker
(exclusive: it replaces one still running) and the rows keep the last scoring until the new one is done.
Under the table, a chart sums the corpus at a few values of the key being edited. Enter opens a chat on
a ``ChatScreen`` at its first refetch, under the same setup; Esc there comes back here, as it was left.

Paths and errors are untrusted text: every cell is a ``Text`` of ``one_line``'s output, never markup.
"""

from __future__ import annotations

import time
from typing import cast

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import DataTable, Static
from textual.worker import Worker, get_current_worker

from inspector.core.corpus.discover import Discovery, discover
from inspector.core.corpus.grid import InForce, Setting, Value, around, in_force
from inspector.core.corpus.score import ChatScore, Job, SettingScore, score_chat
from inspector.core.errors import UsageError
from inspector.core.present.sanitize import one_line
from inspector.core.scout.settings import KEYS, Source, Thresholds
from inspector.core.scout.strategies import UnknownStrategy, strategy_choices
from inspector.core.setup import ChatSource, Setup
from inspector.core.yielding import pause_if_due

from ..keymap import CORPUS_ACTIONS, bindings
from ..messages import (
    CorpusCharted,
    CorpusDone,
    CorpusFound,
    CorpusScored,
    StartFailed,
    WorkerFailed,
    report_failure,
)
from ..widgets.footer import KeyBar
from ..widgets.thresholds import CHAT_CHOICE, ThresholdEditor
from .chat import ChatScreen, Host

COLUMNS = (("path", "chat"), ("calls", "calls"), ("chars", "chars"), ("tokens", "~tokens"), ("refetches", "refetches"))
SORT_KEYS = tuple(key for key, _ in COLUMNS)
BAR = 24  # cells of the chart's longest bar
REBUILD_EVERY = 0.3  # seconds between two rebuilds of the table while the first scoring comes in


def chart_lines(key: str, current: Value, points: list[tuple[Value, int, int]]) -> list[str]:
    """One line per value: the value, the corpus's chars and refetches there, a bar of the chars; ▶ now."""
    if not points:
        return [f"cost against refetches over {key}: nothing to chart"]
    high = max(chars for _, chars, _ in points) or 1
    lines = [f"{key}: the corpus's chars and refetches at each value (▶ now)"]
    for value, chars, refetches in points:
        mark = "▶" if value == current else " "
        bar = "█" * round(chars * BAR / high)
        lines.append(f"{mark} {value!s:>9}  {chars:>13,} chars  {refetches:>6,} refetches  {bar}")
    return lines


class CorpusChart(Static):
    DEFAULT_CSS = (
        "CorpusChart { height: auto; padding: 0 1; background: $boost; } CorpusChart.-stale { color: $text-muted; }"
    )

    def __init__(self) -> None:
        super().__init__("", id="corpus-chart")
        self.lines: list[str] = []

    def set_lines(self, lines: list[str], stale: bool = False) -> None:
        self.lines = lines
        self.set_class(stale, "-stale")
        self.update(Content("\n".join(lines)))

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


class CorpusScreen(Screen[None]):
    BINDINGS = bindings(CORPUS_ACTIONS, on_screen=True)
    DEFAULT_CSS = """
    CorpusScreen #corpus-title { height: 1; padding: 0 1; background: $panel; text-style: bold; }
    CorpusScreen #corpus-body { height: 1fr; }
    CorpusScreen #corpus-left { width: 1fr; }
    CorpusScreen #corpus-table { height: 1fr; }
    CorpusScreen #corpus-status { height: 1; padding: 0 1; color: $text-muted; }
    CorpusScreen #sweep-chart { display: none; }
    """

    def __init__(self, paths: list[str], setup: Setup, input_format: str | None = None) -> None:
        super().__init__()
        self.paths = list(paths)
        self.base = setup  # as given on the command line: edits go on top of it
        self.input_format = input_format
        self.edits: dict[str, Value] = {}  # values typed in the editor (overrides over the base)
        self.strategies: str | None = setup.strategies
        self.discovery: Discovery | None = None
        self.scores: dict[str, ChatScore] = {}  # the last complete scoring (the rows show it)
        self.incoming: dict[str, ChatScore] = {}  # the scoring under way
        self.scored_setup: Setup | None = None  # what ``scores`` were scored under
        self.generation = 0
        self.scoring = False
        self.done = self.total = 0
        self.elapsed: float | None = None
        self.sort_key, self.descending = "refetches", True
        self.chart_key = KEYS[-1]  # max_tool_chars until another field is focused
        self.chart_generation = 0
        self.chart_points: list[tuple[Value, int, int]] = []
        self._rebuilt_at = 0.0
        self._plan_timer: Timer | None = None
        self.strategy_choices = [CHAT_CHOICE, *strategy_choices()]

    @property
    def host(self) -> Host:
        return cast(Host, self.app)

    # -- layout ------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Static(Content(one_line("corpus: " + " ".join(self.paths), 300)), id="corpus-title")
        with Horizontal(id="corpus-body"):
            with Vertical(id="corpus-left"):
                yield DataTable(id="corpus-table", cursor_type="row", zebra_stripes=True)
                yield Static(Content("searching the paths…"), id="corpus-status")
                yield CorpusChart()
            yield ThresholdEditor(list(self.strategy_choices), id="editor")
        yield KeyBar()

    @property
    def table(self) -> DataTable[Text]:
        return cast("DataTable[Text]", self.query_one("#corpus-table", DataTable))

    @property
    def editor(self) -> ThresholdEditor:
        return self.query_one("#editor", ThresholdEditor)

    @property
    def chart(self) -> CorpusChart:
        return self.query_one(CorpusChart)

    async def on_mount(self) -> None:
        table = self.table
        for n, (key, title) in enumerate(COLUMNS, 1):
            table.add_column(Text(f"{n} {title} ▼"), key=key)  # as wide as its label with the sort arrow
        table.add_column(Text("first refetch"), key="first")
        table.add_column(Text("note"), key="note")
        self._show_headers()
        table.focus()
        try:
            self._show_editor()
        except (UsageError, UnknownStrategy) as exc:  # --strategies or --scout-version given wrong
            self.app.post_message(StartFailed(one_line(str(exc), 600)))
            return
        self.rescore()
        if self.app.size.width >= 140:
            await self.editor.open()

    # -- the settings scored under -------------------------------------------------------
    def setup(self) -> Setup:
        """The base setup with the strategies picked and the values typed as overrides."""
        return Setting(tuple(self.edits.items())).setup(self.base.with_strategies(self.strategies))

    def in_force(self) -> InForce:
        return in_force(self.setup())

    def thresholds(self) -> Thresholds:
        found = self.in_force().thresholds
        for key, value in self.edits.items():
            found = found.with_value(key, value, Source.EDITED, "in the corpus view")
        return found

    def _show_editor(self, typing: str | None = None) -> None:
        force = self.in_force()
        self.editor.show(self.thresholds(), self.strategies, list(force.keys) or list(KEYS), typing=typing)

    def job(self, settings: tuple[Setting, ...] = (Setting(),)) -> Job:
        return Job(self.setup(), settings, input_format=self.input_format)

    # -- scoring ---------------------------------------------------------------------------
    def rescore(self) -> None:
        """Score every chat again under the settings now asked for (a scoring under way gives way)."""
        self.generation += 1
        self.scoring, self.done, self.incoming = True, 0, {}
        self.total = len(self.discovery.chats) if self.discovery is not None else 0
        self.app.workers.cancel_group(self, "chart")
        self.chart.set_lines(self.chart.lines or ["chart: waiting for the scoring"], stale=True)
        self._show_status()
        self._score(self.paths, self.discovery, self.job(), self.generation)

    @work(thread=True, exclusive=True, group="score", description="scoring the corpus", exit_on_error=False)
    def _score(self, paths: list[str], found: Discovery | None, job: Job, generation: int) -> None:
        worker = get_current_worker()
        started = time.perf_counter()
        if found is None:
            found = discover(paths)
            self.post_message(CorpusFound(found))
        total = len(found.chats)
        for done, path in enumerate(found.chats, 1):
            if worker.is_cancelled:
                return
            score = score_chat(path, job)
            if worker.is_cancelled:
                return
            self.post_message(CorpusScored(score, done, total, generation))
            pause_if_due()
        self.post_message(CorpusDone(generation, time.perf_counter() - started))

    @on(CorpusFound)
    def _found(self, event: CorpusFound) -> None:
        self.discovery = event.discovery
        self.total = len(event.discovery.chats)
        if not event.discovery.chats:
            where = ", ".join(self.paths)
            reasons = "; ".join(f"{s.path}: {s.reason}" for s in event.discovery.skipped[:3])
            self.app.post_message(
                StartFailed(
                    one_line(f"nothing to open: no chat found in {where}" + (f" ({reasons})" if reasons else ""))
                )
            )
            return
        self._rebuild(by_path=False)

    @on(CorpusScored)
    def _scored(self, event: CorpusScored) -> None:
        if event.generation != self.generation:
            return
        self.incoming[event.score.path] = event.score
        self.done, self.total = event.done, event.total
        if not self.scores and time.monotonic() - self._rebuilt_at >= REBUILD_EVERY:
            self._rebuild(by_path=False)  # the first scoring: rows come in as they are scored
        self._show_status()

    @on(CorpusDone)
    def _done(self, event: CorpusDone) -> None:
        if event.generation != self.generation:
            return
        first = not self.scores
        self.scores, self.incoming = self.incoming, {}
        self.scored_setup = self.setup()
        self.scoring, self.elapsed = False, event.elapsed
        self._rebuild(by_path=not first)  # the first scoring: the cursor stays on the top row, the worst
        self._show_status()
        self.request_chart()

    @on(Worker.StateChanged)
    def _worker_state(self, event: Worker.StateChanged) -> None:
        report_failure(self, event)

    @on(WorkerFailed)
    def _worker_failed(self, event: WorkerFailed) -> None:
        event.stop()
        if event.worker.group == "score":
            self.scoring = False
            self._show_status()
        else:
            self.chart.set_lines([f"chart failed: {event.error_text}"])
        event.announce(self)

    # -- the chart -------------------------------------------------------------------------
    def request_chart(self) -> None:
        if self.discovery is None or self.scoring:
            return
        key = self.chart_key
        current = self.thresholds().setting(key)
        values = around(key, current)
        self.chart_generation += 1
        self.chart.set_lines(self.chart.lines or [f"charting {key}…"], stale=True)
        settings = tuple(Setting(((key, v),)) for v in values)
        readable = tuple(p for p in self.discovery.chats if self.scores.get(p) is None or self.scores[p].read)
        self._chart(readable, self.job(settings), key, current, values, self.chart_generation)

    @work(thread=True, exclusive=True, group="chart", description="the corpus chart", exit_on_error=False)
    def _chart(
        self, chats: tuple[str, ...], job: Job, key: str, current: Value, values: tuple[Value, ...], generation: int
    ) -> None:
        worker = get_current_worker()
        chars = [0] * len(values)
        refetches = [0] * len(values)
        for done, path in enumerate(chats, 1):
            if worker.is_cancelled:
                return
            score = score_chat(path, job)
            for k, s in enumerate(score.per_setting):
                chars[k] += s.chars
                refetches[k] += s.refetches
            pause_if_due()
            if worker.is_cancelled:
                return
            points = list(zip(values, chars, refetches))
            self.post_message(CorpusCharted(key, current, points, done, len(chats), generation))

    @on(CorpusCharted)
    def _charted(self, event: CorpusCharted) -> None:
        if event.generation != self.chart_generation:
            return
        self.chart_points = event.points
        lines = chart_lines(event.key, event.current, event.points)
        if event.done < event.total:
            lines[0] += f"  ({event.done:,} of {event.total:,} chats…)"
        self.chart.set_lines(lines, stale=event.done < event.total)

    # -- edits -----------------------------------------------------------------------------
    @on(ThresholdEditor.Edited)
    def _edited(self, event: ThresholdEditor.Edited) -> None:
        if self.thresholds().setting(event.key) == event.value and event.key in self.edits:
            return
        self.edits[event.key] = event.value
        self._show_editor(typing=event.key)
        self._schedule_rescore()

    @on(ThresholdEditor.StrategiesPicked)
    def _strategies_picked(self, event: ThresholdEditor.StrategiesPicked) -> None:
        self.set_strategies(event.strategies)

    @on(ThresholdEditor.ResetPressed)
    def _reset_pressed(self) -> None:
        self.edits, self.strategies = {}, self.base.strategies
        self._show_editor()
        self._schedule_rescore(0)

    @on(ThresholdEditor.KeyFocused)
    def _key_focused(self, event: ThresholdEditor.KeyFocused) -> None:
        if event.key != self.chart_key:
            self.chart_key = event.key
            self.chart.set_lines([], stale=True)
            self.request_chart()

    def set_strategies(self, strategies: str | None) -> None:
        self.strategies = strategies
        self._show_editor()
        self._schedule_rescore(0)

    def _schedule_rescore(self, delay: float | None = None) -> None:
        if self._plan_timer is not None:
            self._plan_timer.stop()
        self.generation += 1  # a scoring under way is for the values just left
        self.app.workers.cancel_group(self, "chart")
        delay = self.host.debounce if delay is None else delay
        if delay <= 0:
            self.rescore()
        else:
            self._plan_timer = self.set_timer(delay, self.rescore)

    async def action_thresholds(self) -> None:
        editor = self.editor
        await editor.open()
        if not editor.has_focus_within:
            self.host.focus_then_replay(editor.entry_field())

    def action_leave_editor(self, close: bool) -> None:
        if close:
            self.editor.remove_class("-open")
        self.set_focus(self.table)

    def action_cycle_strategies(self) -> None:
        current = self.strategies if self.strategies is not None else CHAT_CHOICE
        choices = self.strategy_choices
        following = choices[(choices.index(current) + 1) % len(choices)] if current in choices else choices[0]
        self.set_strategies(None if following == CHAT_CHOICE else following)
        shown = "each chat's choice" if following == CHAT_CHOICE else following
        self.notify(f"strategies: {shown}", markup=False)

    # -- the table -------------------------------------------------------------------------
    def action_sort(self, key: str) -> None:
        if key not in SORT_KEYS:
            return
        if key == self.sort_key:
            self.descending = not self.descending
        else:
            self.sort_key, self.descending = key, key != "path"  # numbers worst first, paths A to Z
        self._show_headers()
        self._rebuild()
        self._show_status()

    def _show_headers(self) -> None:
        table = self.table
        for n, (key, title) in enumerate(COLUMNS, 1):
            arrow = (" ▼" if self.descending else " ▲") if key == self.sort_key else ""
            table.columns[key].label = Text(f"{n} {title}{arrow}")  # type: ignore[index]
        table.refresh()

    def shown(self) -> dict[str, ChatScore]:
        """The scores the rows show: the last complete scoring, or the first one as it comes in."""
        return self.scores if self.scores else self.incoming

    def ordered(self) -> list[str]:
        """The row keys in order: the chats read, sorted; those not scored yet; then the unreadable ones."""
        found = self.discovery
        if found is None:
            return []
        scores = self.shown()
        read = [p for p in found.chats if p in scores and scores[p].read]
        waiting = [p for p in found.chats if p not in scores]
        unreadable = sorted(
            [p for p in found.chats if p in scores and not scores[p].read] + [s.path for s in found.skipped]
        )

        def value(path: str) -> tuple[int, str]:
            score = scores[path]
            now = score.per_setting[0]
            number = {"calls": score.calls, "chars": now.chars, "tokens": now.tokens, "refetches": now.refetches}
            return (number.get(self.sort_key, 0), path)

        if self.sort_key == "path":
            read.sort(reverse=self.descending)
        else:
            # ties by path A to Z whichever way the numbers go
            read.sort(key=lambda p: (-value(p)[0] if self.descending else value(p)[0], p))
        return read + waiting + unreadable

    def _rebuild(self, by_path: bool = True) -> None:
        """The rows again, in order; the cursor stays on its chat (``by_path``), else on its row."""
        self._rebuilt_at = time.monotonic()
        table = self.table
        current = self.current_path() if by_path else None
        row = table.cursor_row
        table.clear()
        found = self.discovery
        if found is None:
            return
        scores = self.shown()
        skipped = {s.path: s.reason for s in found.skipped}
        for path in self.ordered():
            table.add_row(*self._cells(path, scores.get(path), skipped.get(path)), key=path)
        if current is not None and current in table.rows:  # the row it was on, wherever it is now
            table.move_cursor(row=table.get_row_index(current), animate=False)
        elif table.row_count:
            table.move_cursor(row=min(row, table.row_count - 1), animate=False)

    @staticmethod
    def _cells(path: str, score: ChatScore | None, skipped: str | None) -> list[Text]:
        name = Text(one_line(path, 300))
        if skipped is not None or (score is not None and not score.read):
            reason = skipped if skipped is not None else (score.error if score is not None else None) or "unreadable"
            return [name, *(Text("-", justify="right") for _ in range(5)), Text(one_line(reason, 300), style="red")]
        if score is None:
            return [name, *(Text("…", justify="right") for _ in range(5)), Text("")]
        now: SettingScore = score.per_setting[0]
        numbers = (score.calls, now.chars, now.tokens, now.refetches)
        first = str(now.first_refetch) if now.first_refetch is not None else "-"
        return [
            name,
            *(Text(f"{n:,}", justify="right") for n in numbers),
            Text(first, justify="right"),
            Text(one_line(now.error or score.error or "", 300)),
        ]

    def current_path(self) -> str | None:
        table = self.table
        if not table.row_count:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key
        return str(key.value) if key.value is not None else None

    def row_texts(self) -> list[list[str]]:
        """The table as text, row by row (what the tests read)."""
        table = self.table
        return [[cell.plain for cell in table.get_row_at(y)] for y in range(table.row_count)]

    def _show_status(self) -> None:
        found = self.discovery
        if found is None:
            text = "searching the paths…"
        else:
            scores = self.shown()
            unreadable = sum(1 for s in scores.values() if not s.read) + len(found.skipped)
            parts = []
            if self.scoring:
                parts.append(f"scoring {self.done:,} of {self.total:,} chats…")
            read = sum(1 for s in scores.values() if s.read)
            parts.append(f"{read:,} chat(s) scored" + (f" in {self.elapsed:.1f} s" if self.elapsed is not None else ""))
            if unreadable:
                parts.append(f"{unreadable:,} unreadable or skipped")
            parts.append("strategies: " + (self.strategies or "each chat's choice"))
            if self.edits:
                parts.append("edited: " + ", ".join(f"{k}={v}" for k, v in self.edits.items()))
            parts.append(f"sorted by {self.sort_key} {'▼' if self.descending else '▲'}")
            text = "  ·  ".join(parts)
        self.query_one("#corpus-status", Static).update(Content(one_line(text, 600)))

    @property
    def status_text(self) -> str:
        return str(self.query_one("#corpus-status", Static).render())

    # -- opening a chat --------------------------------------------------------------------
    @on(DataTable.RowSelected)
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open_chat()

    def action_open_chat(self) -> None:
        path = self.current_path()
        if path is None:
            return
        score = self.shown().get(path)
        skipped = next((s.reason for s in self.discovery.skipped if s.path == path), None) if self.discovery else None
        if skipped is not None or (score is not None and not score.read):
            reason = skipped or (score.error if score is not None else None) or "unreadable"
            self.notify(one_line(f"cannot open {path}: {reason}", 600), severity="warning", markup=False)
            return
        first = score.per_setting[0].first_refetch if score is not None and score.per_setting else None
        setup = self.scored_setup if self.scored_setup is not None else self.setup()
        screen = ChatScreen(ChatSource.of(path, self.input_format), setup, one_line(path, 300))
        screen.initial_call = first
        self.app.push_screen(screen)
