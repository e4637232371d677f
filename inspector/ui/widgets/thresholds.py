"""The threshold editor: the five values with where each came from, edited in place.

It only reports valid edits upwards; the app debounces them and re-plans off the UI
thread. Invalid text is marked (Input's -invalid class) and otherwise ignored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.validation import Regex
from textual.widget import Widget
from textual.widgets import Button, Input, Label, Select, Static
from textual.worker import Worker, get_current_worker

from inspector.core.analysis.replan import Replanner
from inspector.core.analysis.sweep import axis, sweep
from inspector.core.inspection import Inspection
from inspector.core.present.sanitize import one_line
from inspector.core.scout.settings import FLOAT_KEYS, KEYS, SETTING_KEYS, Source, Thresholds, ruby_to_f, ruby_to_i
from inspector.core.yielding import pause_if_due

from ..messages import SweepDone, WorkerFailed, report_failure
from .burst_input import BurstInput
from .sweep_chart import COLUMNS, SweepChart

if TYPE_CHECKING:
    from typing import Unpack

    from .options import WidgetOptions

NUMBER = r"\s*[0-9]+(?:_[0-9]+)*\s*"  # what a person means by a count; ruby's to_i reads it the same (ASCII digits)
RATIO = r"\s*[0-9]+(?:\.[0-9]+)?\s*"  # the growth ratio (to_f)
CHAT_CHOICE = "(chat's choice)"


def parse_value(text: str, key: str = "") -> int | float | None:
    if key in FLOAT_KEYS:
        return ruby_to_f(text) if re.fullmatch(RATIO, text) else None
    if not re.fullmatch(NUMBER, text):
        return None
    return ruby_to_i(text)  # any length: no ValueError past Python's 4,300-digit limit


STEPS = {"up": 1, "down": -1, "shift+up": 10, "shift+down": -10}  # ↑/↓ step the value, shift: x10


class ThresholdField(BurstInput):
    """A threshold's text field: digits only, so ``t`` is free to close the editor (help says so).
    ↑/↓ step the value by one (a ratio by 0.1), shift+↑/↓ by ten, in the order typed."""

    def check_consume_key(self, key: str, character: str | None) -> bool:
        return key != "t" and super().check_consume_key(key, character)

    @on(events.Key)
    def _stepping_key(self, event: events.Key) -> None:
        step = STEPS.get(event.key)
        if step is None:
            return
        event.stop()
        event.prevent_default()
        self.step(step)

    def step(self, step: int) -> None:
        """The value ``step`` units up or down (never below zero); an unreadable value is left alone."""
        key = (self.id or "")[3:]
        value = parse_value(self.value, key)
        if value is None:
            return
        if key in FLOAT_KEYS:
            stepped: int | float = max(0.0, round(float(value) + step / 10, 10))
        else:
            stepped = max(0, int(value) + step)
        self.value = str(stepped)
        self.cursor_position = len(self.value)


class ThresholdEditor(VerticalScroll):
    DEFAULT_CSS = """
    ThresholdEditor { width: 38; dock: right; border-left: vkey $panel-lighten-2; padding: 0 1; display: none; }
    ThresholdEditor.-open { display: block; }
    ThresholdEditor Label { margin-top: 1; text-style: bold; }
    ThresholdEditor Input { height: 1; border: none; padding: 0 1; background: $boost; }
    ThresholdEditor Input:focus { border: none; background: $accent 30%; }
    ThresholdEditor Input.-invalid, ThresholdEditor Input.-invalid:focus { border: none; background: $error 40%; }
    ThresholdEditor .source { color: $text-muted; height: auto; }
    ThresholdEditor .source.-edited { color: $text-warning; }
    ThresholdEditor Horizontal { height: auto; margin-top: 1; }
    ThresholdEditor Select { margin-top: 1; }
    """
    BINDINGS = [
        # app actions, run as the key is handled: a message would arrive after the keys typed next,
        # and those would land in a field that is going away
        Binding("escape", "screen.leave_editor(False)", "Back to list", show=False),
        # priority: a field would otherwise take t as text (the fields hold digits only)
        Binding("t", "screen.leave_editor(True)", "Close the editor", show=False, priority=True),
    ]

    @dataclass
    class Edited(Message):
        key: str
        value: int | float

    @dataclass
    class StrategiesPicked(Message):
        strategies: str | None

    @dataclass
    class KeyFocused(Message):
        """A threshold field got the focus: its sweep chart is wanted."""

        key: str

    class ResetPressed(Message):
        """The Reset button: the App puts back the loaded values."""

    def __init__(self, strategy_choices: list[str], **kwargs: Unpack[WidgetOptions]) -> None:
        super().__init__(**kwargs)
        self.sources_shown: dict[str, str] = {}  # key -> the source text on screen
        self.strategy_choices = strategy_choices
        self.chat_label = ""  # what the chat's choice resolves to, shown with it
        self.shown_choice = CHAT_CHOICE  # the strategies entry the Select shows (it starts on the first)
        self.chart_key = KEYS[0]  # the key the sweep chart sits under (the last one focused)
        self.generation = 0  # which sweep the chart waits for
        self.keys_shown: tuple[str, ...] = KEYS  # the settings of the strategies in force
        self.built = False  # the fields exist (made by the first open())
        self.rows: set[str] = set()  # the settings whose rows are made (those of the strategies shown so far)
        self.pending: Thresholds | None = None  # the values shown before the fields existed

    def compose(self) -> ComposeResult:
        yield from ()  # the fields come with the first open(): most sessions never open the editor

    def fields(self) -> list[Widget]:
        """The editor's widgets, showing the keys, strategies and chat label given to it so far.

        Only the rows of the settings in force are made (five of the fifteen for shorten_tools): every
        widget is styled and laid out at each open, and the rest come when a strategy that reads
        them is picked (``_add_rows``).
        """
        widgets: list[Widget] = [Static(Content("Settings"), classes="title")]
        for key in SETTING_KEYS:
            if key in self.keys_shown:
                widgets += self._row(key)
        if self.chart_key not in self.rows:
            widgets.insert(1, SweepChart(id="sweep-chart"))
        widgets.append(Label(Content("Strategies"), id="strategies-label"))
        # it starts on the choice in force: the value a Select announces as it mounts is then no pick
        widgets.append(Select(self._options(), id="strategies", allow_blank=False, value=self.shown_choice))
        widgets.append(Horizontal(Button("Reset", id="reset", tooltip="back to the values loaded (u)")))
        return widgets

    def _row(self, key: str, thresholds: Thresholds | None = None) -> list[Widget]:
        """One setting's label, field and source (and the sweep chart under the key it charts)."""
        self.rows.add(key)
        ratio = key in FLOAT_KEYS
        value = "" if thresholds is None else str(thresholds.setting(key))
        row: list[Widget] = [
            Label(Content(key), id=f"lb-{key}"),
            ThresholdField(
                value,
                id=f"th-{key}",
                validators=[Regex(f"^{RATIO if ratio else NUMBER}$", failure_description="a number")],
                valid_empty=False,
                select_on_focus=False,
            ),
            Static("", id=f"src-{key}", classes="source"),
        ]
        if key == self.chart_key:
            row.append(SweepChart(id="sweep-chart"))
        return row

    def _add_rows(self, keys: tuple[str, ...], thresholds: Thresholds) -> None:
        """Mount the rows of ``keys`` not made yet, each where it stands in the settings' order."""
        for key in keys:
            if key in self.rows:
                continue
            later = [k for k in SETTING_KEYS[SETTING_KEYS.index(key) + 1 :] if k in self.rows]
            before = self.query_one(f"#lb-{later[0]}" if later else "#strategies-label")
            self.mount_all(self._row(key, thresholds), before=before)  # a value given at construction posts no Changed

    async def open(self) -> None:
        """Show the editor; the first time, make its fields and put in the values shown to it so far."""
        self.add_class("-open")
        if self.built:
            return
        self.built = True
        await self.mount_all(self.fields())
        if self.pending is not None:
            strategies = None if self.shown_choice == CHAT_CHOICE else self.shown_choice
            self.show(self.pending, strategies, list(self.keys_shown))

    def show(
        self, thresholds: Thresholds, strategies: str | None, keys: list[str] | None = None, typing: str | None = None
    ) -> None:
        """Put values in without reporting them as edits; ``keys``: the settings to show (default: the five).

        ``typing``: the key whose field the user is typing in. Its text is left alone: the
        value reported a moment ago may be older than what is in the field by now (keys
        typed in a burst), and writing it back would eat or reorder the newer keys.
        """
        shown = tuple(keys) if keys else KEYS
        if not self.built:  # nothing on screen yet: open() makes the fields with these
            self.keys_shown, self.pending = shown, thresholds
            self.shown_choice = self.add_choice(strategies)
            return
        if shown != self.keys_shown:
            self.keys_shown = shown
            self._add_rows(shown, thresholds)
            for key in self.rows:
                for prefix in ("lb", "th", "src"):
                    self.query_one(f"#{prefix}-{key}").display = key in shown
        with self.prevent(Input.Changed, Select.Changed):
            for key in (key for key in SETTING_KEYS if key in self.rows):
                field = self.query_one(f"#th-{key}", Input)
                if key != typing:
                    value = thresholds.setting(key)
                    if parse_value(field.value, key) != value:
                        field.value = str(value)
                        field.cursor_position = len(field.value)
                    field.set_class(False, "-invalid")
                self.show_source(key, thresholds)
            select = self.query_one("#strategies", Select)
            known = len(self.strategy_choices)
            choice = self.add_choice(strategies)
            if len(self.strategy_choices) != known:
                select.set_options(self._options())
            select.value = choice
            self.shown_choice = choice

    def add_choice(self, strategies: str | None) -> str:
        """The Select's entry for ``strategies``, added to the choices if it is a new list."""
        choice = strategies if strategies is not None else CHAT_CHOICE
        if choice not in self.strategy_choices:
            self.strategy_choices.append(choice)
        return choice

    def _options(self) -> list[tuple[str, str]]:
        label = f"{CHAT_CHOICE[:-1]}: {self.chat_label})" if self.chat_label else CHAT_CHOICE
        return [(label if c == CHAT_CHOICE else c, c) for c in self.strategy_choices]

    def set_chat_label(self, label: str) -> None:
        """The chat's own choice, so "(chat's choice: shorten_tools)" and "shorten_tools" read apart."""
        if label != self.chat_label:
            self.chat_label = label
            if not self.built:
                return  # the Select is made with it
            select = self.query_one("#strategies", Select)
            with self.prevent(Select.Changed):
                value = select.value
                select.set_options(self._options())
                select.value = value

    def show_source(self, key: str, thresholds: Thresholds) -> None:
        value = thresholds.values.get(key)
        if value is None:
            return
        label = self.query_one(f"#src-{key}", Static)
        text = one_line(value.describe_source(), 200)
        if self.sources_shown.get(key) != text:  # each update is a layout pass
            self.sources_shown[key] = text
            label.update(Content(text))
        label.set_class(value.source == Source.EDITED, "-edited")

    def entry_field(self) -> Input:
        """The field the focus goes to on opening: the charted one, or the first shown."""
        key = self.chart_key if self.chart_key in self.keys_shown else self.keys_shown[0]
        return self.query_one(f"#th-{key}", Input)

    @property
    def chart(self) -> SweepChart:
        return self.query_one("#sweep-chart", SweepChart)

    @on(events.DescendantFocus)
    def _descendant_focus(self, event: events.DescendantFocus) -> None:
        key = (event.widget.id or "")[3:]
        if not (event.widget.id or "").startswith("th-") or key not in SETTING_KEYS or key in FLOAT_KEYS:
            return
        if key != self.chart_key:
            self.chart_key = key
            # one chart, moved under the field being edited, so it sits next to what it charts
            self.move_child(self.chart, after=self.query_one(f"#src-{key}"))
        self.post_message(self.KeyFocused(key))

    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        event.stop()
        key = (event.input.id or "")[3:]
        value = parse_value(event.value, key)
        event.input.set_class(value is None, "-invalid")
        event.input.tooltip = "not a number: ignored" if value is None else None
        if value is not None and key in SETTING_KEYS:
            self.post_message(self.Edited(key, value))

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()

    @on(Select.Changed, "#strategies")
    def _strategies(self, event: Select.Changed) -> None:
        event.stop()
        value = str(event.value)
        if value == self.shown_choice:
            # the Select announces its first value when it mounts, which may come after the App has
            # shown the strategies it started with: only a different pick is the user's
            return
        self.shown_choice = value
        self.post_message(self.StrategiesPicked(None if value == CHAT_CHOICE else value))

    @on(Button.Pressed, "#reset")
    def _reset(self, event: Button.Pressed) -> None:
        event.stop()
        self.post_message(self.ResetPressed())

    # -- the sweep chart: what each value of the focused key would send ------------------
    def request_sweep(self, inspection: Inspection, base: Thresholds, replanner: Replanner) -> None:
        if not self.has_class("-open"):
            return  # nobody would see it
        key = self.chart_key
        self.chart.waiting(key)
        self.generation += 1
        self._sweep(key, base, replanner, inspection, self.generation)

    @work(thread=True, exclusive=True, group="sweep", description="sweep chart", exit_on_error=False)
    def _sweep(self, key: str, base: Thresholds, rp: Replanner, inspection: Inspection, generation: int) -> None:
        worker = get_current_worker()
        rows = []
        for value in axis(inspection, key, COLUMNS):
            if worker.is_cancelled:
                return  # a newer edit or another key: this chart would be stale
            rows += sweep(inspection, key, [value], base, rp)
            pause_if_due()  # a plan per value: let keys and frames through between them
        now = sweep(inspection, key, [base[key]], base, rp)[0]
        if not worker.is_cancelled:
            self.post_message(SweepDone(key, base[key], rows + [now], generation))

    @on(SweepDone)
    def _sweep_done(self, event: SweepDone) -> None:
        if event.generation == self.generation and event.key == self.chart_key:
            self.chart.show(event.key, event.current, event.rows[:-1], event.rows[-1])

    @on(Worker.StateChanged)
    def _worker_state(self, event: Worker.StateChanged) -> None:
        report_failure(self, event)

    @on(WorkerFailed)
    def _worker_failed(self, event: WorkerFailed) -> None:
        """Its own sweep failed: the chart says so, where it was asked for."""
        event.stop()
        self.chart.failed(event.error_text)
        event.announce(self)
