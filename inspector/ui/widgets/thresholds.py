"""The threshold editor: the five values with where each came from, edited in place.

It only reports valid edits upwards; the app debounces them and re-plans off the UI
thread. Invalid text is marked (Input's -invalid class) and otherwise ignored.

Under another framework's policy it shows that policy's settings instead (each with its value, its
default and where it comes from); their text goes up as typed, the screen checks it as the command
line does and hands back what it refuses (``mark_policy``): the message under the field, the plan
on screen kept. Its list names scout-ai's strategy choices, then the policies.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.validation import Regex
from textual.widget import AwaitMount, Widget
from textual.widgets import Button, Input, Label, Select, Static
from textual.worker import Worker, get_current_worker

from inspector.core.analysis.replan import Replanner
from inspector.core.analysis.sweep import axis, sweep
from inspector.core.inspection import Inspection
from inspector.core.peers.registry import POLICIES, Kind, Param, PolicySettings
from inspector.core.present.sanitize import one_line
from inspector.core.scout.settings import FLOAT_KEYS, KEYS, SETTING_KEYS, Source, Thresholds, ruby_to_f, ruby_to_i
from inspector.core.scout.strategies import UnknownStrategy, typed_list
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


# keys a number never holds, left to the screen from a number's field: t closes the editor, < and > step the
# model calls (the key bar shows them there too)
FREE_IN_NUMBERS = frozenset({"t", "less_than_sign", "greater_than_sign"})


class SteppingField(BurstInput):
    """A field whose value ↑/↓ step (shift: x10), each press in the order typed (``step``: how); a number's
    field leaves the keys no number holds to the screen (``holds_number``)."""

    holds_number = True

    def check_consume_key(self, key: str, character: str | None) -> bool:
        return not (key in FREE_IN_NUMBERS and self.holds_number) and super().check_consume_key(key, character)

    @on(events.Key)
    def _free_key(self, event: events.Key) -> None:
        if event.key in FREE_IN_NUMBERS and self.holds_number:
            event.prevent_default()  # not typed in: it goes on to the screen's binding

    @on(events.Key)
    def _stepping_key(self, event: events.Key) -> None:
        step = STEPS.get(event.key)
        if step is None:
            return
        event.stop()
        event.prevent_default()
        self.step(step)

    def step(self, step: int) -> None:
        raise NotImplementedError


class ThresholdField(SteppingField):
    """A threshold's text field: digits only, so ``t`` is free to close the editor and ``<``/``>`` to step
    the calls (help says so). ↑/↓ step the value by one (a ratio by 0.1), shift+↑/↓ by ten, in the order
    typed."""

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


STEPPED = (Kind.INT, Kind.FLOAT, Kind.THRESHOLD)  # the settings ↑/↓ step by a number (t stays free there)


def stepped_text(param: Param, text: str, step: int) -> str | None:
    """``text`` of ``param`` moved ``step`` units (a number by one, a fraction by 0.1, never below the
    library's minimum or zero; a true/false flips, a choice moves on); None when it cannot be read."""
    text = text.strip()
    if param.kind is Kind.BOOL:
        return {"true": "false", "false": "true"}.get(text.lower())
    if param.kind is Kind.CHOICE and param.choices:
        at = param.choices.index(text) if text in param.choices else -1
        return param.choices[(at + (1 if step > 0 else -1)) % len(param.choices)]
    if param.kind not in STEPPED:
        return None
    floor = param.minimum if param.minimum is not None else 0
    if re.fullmatch(NUMBER, text):
        return str(max(int(floor), ruby_to_i(text) + step))
    if re.fullmatch(RATIO, text):
        return str(max(float(floor), round(float(text) + step / 10, 10)))
    return None


def policy_id(name: str) -> str:
    """A widget id for a policy's rows (its name holds dots; a custom one a colon)."""
    return "policy-" + re.sub(r"[^A-Za-z0-9_-]", "-", name)


class PolicyField(SteppingField):
    """A policy setting's text field. On a number ↑/↓ step it (shift: by ten) and ``t`` closes the editor, as
    in a threshold's field; a true/false or a choice field steps through its values; a text takes ``t``."""

    def __init__(self, value: str, param: Param, policy: str, *, id: str, classes: str = "") -> None:
        # never validated by Input itself (it would clear the mark on blur): the screen marks what it refuses
        super().__init__(value, id=id, classes=classes, select_on_focus=False, validate_on=[])
        self.param = param
        self.policy = policy
        self.settled = value  # the text of the value in force (a Changed with it, the one at mount, is no edit)
        self.tooltip = f"{param.help} ({param.kind})"

    @property
    def holds_number(self) -> bool:  # type: ignore[override]  # a text setting takes every key as text
        return self.param.kind in STEPPED

    def step(self, step: int) -> None:
        stepped = stepped_text(self.param, self.value, step)
        if stepped is not None:
            self.value = stepped
            self.cursor_position = len(self.value)


class ThresholdEditor(VerticalScroll):
    DEFAULT_CSS = """
    ThresholdEditor { width: 38; dock: right; border-left: vkey $separator; padding: 0 1; display: none; }
    ThresholdEditor.-open { display: block; }
    ThresholdEditor Label { margin-top: 1; text-style: bold; }
    ThresholdEditor Input { height: 1; border: none; padding: 0 1; background: $boost; }
    ThresholdEditor Input:focus { border: none; background: $accent 30%; }
    ThresholdEditor Input.-invalid, ThresholdEditor Input.-invalid:focus { border: none; background: $error 40%; }
    ThresholdEditor .source { color: $text-muted; height: auto; }
    ThresholdEditor .source.-edited { color: $text-warning; }
    ThresholdEditor Horizontal { height: auto; margin-top: 1; }
    ThresholdEditor Select { margin-top: 1; }
    ThresholdEditor .policy-rows { height: auto; }
    ThresholdEditor .policy-about { color: $text-muted; height: auto; margin-top: 1; }
    ThresholdEditor .source.-error { color: $text-error; }
    ThresholdEditor .source.-warning { color: $text-warning; }
    """
    BINDINGS = [
        # app actions, run as the key is handled: a message would arrive after the keys typed next,
        # and those would land in a field that is going away
        Binding("escape", "screen.leave_editor(False)", "Back to list", show=False),
        # priority: a field would otherwise take t as text (the fields hold digits only)
        Binding("t", "screen.leave_editor(True)", "Close editor", priority=True),
        # the sweep chart's rows, from the field it charts: ↑/↓ step by one, PgDn/PgUp by a row
        Binding("pagedown", "chart_step(1)", "Next charted value", show=False),
        Binding("pageup", "chart_step(-1)", "Previous charted value", show=False),
    ]

    @dataclass
    class Edited(Message):
        key: str
        value: int | float

    class FollowAsked(Message):
        """max_tool_outputs emptied: it follows max_tool_calls again."""

    @dataclass
    class StrategiesPicked(Message):
        strategies: str | None

    @dataclass
    class PolicyPicked(Message):
        """Another framework's policy picked in the list (with its defaults)."""

        policy: str

    @dataclass
    class PolicyEdited(Message):
        """A policy setting typed in: ``key`` the one typed, ``texts`` every setting of ``policy`` as it reads."""

        policy: str
        key: str
        texts: dict[str, str]

    @dataclass
    class KeyFocused(Message):
        """A threshold field got the focus: its sweep chart is wanted."""

        key: str

    class ResetPressed(Message):
        """The Reset button: the App puts back the loaded values."""

    def __init__(self, strategy_choices: list[str], **kwargs: Unpack[WidgetOptions]) -> None:
        super().__init__(**kwargs)
        self.sources_shown: dict[str, str] = {}  # key -> the source text on screen
        self.thresholds_shown: Thresholds | None = None  # what the sources were read from
        self.strategy_choices = strategy_choices
        self.chat_label = ""  # what the chat's choice resolves to, shown with it
        self.shown_choice = CHAT_CHOICE  # the strategies entry the Select shows (it starts on the first)
        self.chart_key = KEYS[0]  # the key the sweep chart sits under (the last one focused)
        self.generation = 0  # which sweep the chart waits for
        self.keys_shown: tuple[str, ...] = KEYS  # the settings of the strategies in force
        self.built = False  # the fields exist (made by the first open())
        self.rows: set[str] = set()  # the settings whose rows are made (those of the strategies shown so far)
        self.pending: Thresholds | None = None  # the values shown before the fields existed
        self.policy_names = list(POLICIES)  # the list's entries after scout-ai's choices
        self.policy_shown: str | None = None  # the policy whose settings are shown (None: the thresholds)
        self.policy_rows: set[str] = set()  # the policies whose rows are made
        self.policy_sources: dict[str, str] = {}  # setting -> its default and source, as shown under the field
        # the policy's settings shown before the fields existed, with their sources and refusals
        self.pending_policy: tuple[PolicySettings, dict[str, str], dict[str, str]] | None = None
        self._policy_mount: AwaitMount | None = None  # the rows of a policy shown, while they are mounted

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
        widgets.append(Label(Content("Strategies / policy"), id="strategies-label"))
        # it starts on the choice in force: the value a Select announces as it mounts is then no pick
        widgets.append(Select(self._options(), id="strategies", allow_blank=False, value=self.shown_choice))
        widgets.append(
            BurstInput(placeholder="or type a list: a,b  (Enter)", id="strategies-typed", select_on_focus=False)
        )
        widgets.append(Static("", id="strategies-error", classes="source -error"))
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
            await self.policy_mounted()
            return
        self.built = True
        await self.mount_all(self.fields())
        if self.pending_policy is not None:
            self.show_policy(*self.pending_policy)
        elif self.pending is not None:
            strategies = None if self.shown_choice == CHAT_CHOICE else self.shown_choice
            self.show(self.pending, strategies, list(self.keys_shown))
        await self.policy_mounted()

    async def policy_mounted(self) -> None:
        """Wait for the rows of a policy just shown (its fields are then there to focus)."""
        mounting, self._policy_mount = self._policy_mount, None
        if mounting is not None:
            await mounting

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
            self.keys_shown, self.pending, self.pending_policy = shown, thresholds, None
            self.shown_choice = self.add_choice(strategies)
            return
        if self.policy_shown is not None:  # back to scout-ai's thresholds
            self._show_rows_of(None)
        if shown != self.keys_shown:
            self.keys_shown = shown
            self._add_rows(shown, thresholds)
            for key in self.rows:
                for prefix in ("lb", "th", "src"):
                    self.query_one(f"#{prefix}-{key}").display = key in shown
        self.thresholds_shown = thresholds
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

    # -- another framework's policy: its settings instead of the thresholds --------------------
    def show_policy(
        self,
        settings: PolicySettings,
        sources: dict[str, str],
        errors: dict[str, str] | None = None,
        typing: str | None = None,
    ) -> None:
        """Show ``settings``' policy with its values (the field ``typing`` in keeps its text), each setting's
        default and source (``sources``: setting -> "--set" or "edited"; the rest "default"), and the
        settings ``errors`` refuses, marked with the message."""
        errors = errors or {}
        name = settings.spec.name
        if not self.built:
            self.pending_policy = (settings, sources, errors)
            self.shown_choice = self._policy_choice(name)
            return
        values = settings.as_dict()
        self.policy_sources = {
            p.name: one_line(
                f"{'required' if p.required else 'default ' + (p.show(p.default) or '(none)')}; "
                f"{sources.get(p.name, 'default')}",
                200,
            )
            for p in settings.spec.params
        }
        if name not in self.policy_rows:
            self.policy_rows.add(name)
            # made with its values, sources and refusals: its fields exist once it is mounted (open() waits)
            block = self._policy_block(settings, errors)
            self._policy_mount = self.mount(block, before=self.query_one("#strategies-label"))
        else:
            with self.prevent(Input.Changed):
                for param in settings.spec.params:
                    field = self.policy_field(name, param.name)
                    text = field.settled = param.show(values[param.name])
                    if param.name != typing and field.value.strip() != text:
                        field.value = text
                        field.cursor_position = len(text)
        self._show_rows_of(name)
        self._mark(name, errors)
        select = self.query_one("#strategies", Select)
        known = len(self.policy_names)
        choice = self._policy_choice(name)
        with self.prevent(Select.Changed):
            if len(self.policy_names) != known:
                select.set_options(self._options())
            select.value = choice
        self.shown_choice = choice

    def _policy_choice(self, name: str) -> str:
        if name not in self.policy_names:  # a policy of one's own (module:function)
            self.policy_names.append(name)
        return name

    def _policy_block(self, settings: PolicySettings, errors: dict[str, str]) -> Vertical:
        """A policy's rows: what it reproduces, then per setting its label, field and default and source (or
        why it is refused)."""
        spec = settings.spec
        values = settings.as_dict()
        about = spec.library + ("" if spec.exact else " (approximate)")
        rows: list[Widget] = [Static(Content(one_line(about, 200)), classes="policy-about")]
        for param in spec.params:
            error = errors.get(param.name)
            invalid = "-invalid" if error is not None else ""
            text = one_line(error, 300) if error is not None else self.policy_sources[param.name]
            rows += [
                Label(Content(param.name), id=f"psl-{param.name}"),
                PolicyField(param.show(values[param.name]), param, spec.name, id=f"ps-{param.name}", classes=invalid),
                Static(Content(text), id=f"pss-{param.name}", classes="source -error" if error else "source"),
            ]
        return Vertical(*rows, id=policy_id(spec.name), classes="policy-rows")

    def _show_rows_of(self, policy: str | None) -> None:
        """The policy's rows shown (None: scout-ai's thresholds and the sweep chart)."""
        self.policy_shown = policy
        for block in self.query(".policy-rows"):
            block.display = policy is not None and block.id == policy_id(policy)
        for key in self.rows:
            for prefix in ("lb", "th", "src"):
                self.query_one(f"#{prefix}-{key}").display = policy is None and key in self.keys_shown
        self.chart.display = policy is None

    def policy_field(self, policy: str, key: str) -> PolicyField:
        return self.query_one(f"#{policy_id(policy)}", Vertical).query_one(f"#ps-{key}", PolicyField)

    def mark_policy(self, policy: str, errors: dict[str, str]) -> None:
        """The settings the screen refused (setting -> message): marked, the message under each field."""
        if self.built and policy in self.policy_rows:
            self._mark(policy, errors)

    def _mark(self, policy: str, errors: dict[str, str]) -> None:
        block = self.query_one(f"#{policy_id(policy)}", Vertical)
        for field in block.query(PolicyField):
            key = field.param.name
            error = errors.get(key)
            field.set_class(error is not None, "-invalid")
            source = block.query_one(f"#pss-{key}", Static)
            source.set_class(error is not None, "-error")
            text = one_line(error, 300) if error is not None else self.policy_sources.get(key, "")
            if str(source.render()) != text:
                source.update(Content(text))

    def policy_texts(self, policy: str) -> dict[str, str]:
        """Every setting of ``policy`` as its field reads now."""
        block = self.query_one(f"#{policy_id(policy)}", Vertical)
        return {field.param.name: field.value for field in block.query(PolicyField)}

    def add_choice(self, strategies: str | None) -> str:
        """The Select's entry for ``strategies``, added to the choices if it is a new list."""
        choice = strategies if strategies is not None else CHAT_CHOICE
        if choice not in self.strategy_choices:
            self.strategy_choices.append(choice)
        return choice

    def _options(self) -> list[tuple[str, str]]:
        """scout-ai's strategy choices, then the other frameworks' policies by name."""
        label = f"{CHAT_CHOICE[:-1]}: {self.chat_label})" if self.chat_label else CHAT_CHOICE
        scout = [(label if c == CHAT_CHOICE else c, c) for c in self.strategy_choices]
        return scout + [(name, name) for name in self.policy_names]

    def choices(self) -> list[str]:
        """The list's entries in order: scout-ai's strategy choices, then the policies."""
        return [value for _, value in self._options()]

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
        if self.query_one(f"#th-{key}", Input).has_class("-invalid"):
            return  # the field's own message stays until it reads as a value again
        label = self.query_one(f"#src-{key}", Static)
        reading = value.reading()  # a text scout-ai read as a number: what explains the value in the field
        text = one_line(value.describe_source(), 200) + (f"\n{one_line(reading, 200)}" if reading else "")
        if self.sources_shown.get(key) != text:  # each update is a layout pass
            self.sources_shown[key] = text
            label.update(Content(text))
        label.set_class(value.source == Source.EDITED, "-edited")
        label.set_class(reading is not None, "-warning")
        label.set_class(False, "-error")

    def entry_field(self) -> Input:
        """The field the focus goes to on opening: the charted one, or the first shown (under a policy: its
        first setting)."""
        if self.policy_shown is not None:
            return self.query_one(f"#{policy_id(self.policy_shown)}", Vertical).query(PolicyField).first()
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
            self._keep_focus_in_view()
        self.post_message(self.KeyFocused(key))

    def _keep_focus_in_view(self) -> None:
        """The focused widget stays in view as the chart moves or changes height: the focus scrolled it into
        view before, which can leave it above the top or below the bottom (Tab landing on an unseen field
        or on an unseen Reset)."""
        focused = self.screen.focused
        if focused is not None and self in focused.ancestors:
            self.call_after_refresh(self.scroll_to_widget, focused, animate=False)

    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        event.stop()
        if event.input.id == "strategies-typed":
            self.query_one("#strategies-error", Static).update("")
            return
        if isinstance(event.input, PolicyField):
            field = event.input
            if event.value == field.settled and not field.has_class("-invalid"):
                return  # the value in force (the field was just made, or put back): nothing asked
            self.post_message(self.PolicyEdited(field.policy, field.param.name, self.policy_texts(field.policy)))
            return
        key = (event.input.id or "")[3:]
        if key == "max_tool_outputs" and not event.value.strip():
            event.input.set_class(False, "-invalid")  # emptied: scout-ai then reads max_tool_calls for it
            self.post_message(self.FollowAsked())
            return
        value = parse_value(event.value, key)
        event.input.set_class(value is None, "-invalid")
        if value is None and key in SETTING_KEYS:
            # the command line's words (--set refuses the same text), under the field, in the error style
            wanted = "a decimal number" if key in FLOAT_KEYS else "an integer"
            label = self.query_one(f"#src-{key}", Static)
            label.update(Content(one_line(f"expects {wanted}, got {event.value!r}: not applied, the plan kept", 200)))
            label.set_class(True, "-error")
            self.sources_shown.pop(key, None)
        if value is not None and key in SETTING_KEYS:
            if self.thresholds_shown is not None:  # its message gone even if the value is the one in force
                self.show_source(key, self.thresholds_shown)
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
        if value in self.policy_names:
            self.post_message(self.PolicyPicked(value))
            return
        self.post_message(self.StrategiesPicked(None if value == CHAT_CHOICE else value))

    @on(Input.Submitted, "#strategies-typed")
    def _typed_strategies(self, event: Input.Submitted) -> None:
        """A list typed in: checked as --strategies checks it (each name some version knows or a plugin
        registers); a refusal is said under the field and the plan stays."""
        event.stop()
        error = self.query_one("#strategies-error", Static)
        try:
            strategies = typed_list(event.value)
        except (UnknownStrategy, ValueError) as exc:
            error.update(Content(one_line(str(exc), 300)))
            return
        error.update("")
        event.input.value = ""
        self.post_message(self.StrategiesPicked(strategies))

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

    def action_chart_step(self, step: int) -> None:
        """PgDn/PgUp in a charted field: the chart's next (or previous) row's value, typed in."""
        focused = self.app.focused
        key = (focused.id or "")[3:] if isinstance(focused, Input) else ""
        if key != self.chart_key or not isinstance(focused, Input):
            return
        current = parse_value(focused.value, key)
        found = self.chart.next_value(current if current is not None else 0, step)
        if found is not None:
            focused.value = str(found)
            focused.cursor_position = len(focused.value)

    @on(SweepChart.Picked)
    def _chart_picked(self, event: SweepChart.Picked) -> None:
        """A row of the chart: its value typed into the key's field, which applies it as typing does."""
        event.stop()
        if event.key in self.rows:
            field = self.query_one(f"#th-{event.key}", Input)
            field.value = str(event.value)
            field.cursor_position = len(field.value)

    @on(SweepDone)
    def _sweep_done(self, event: SweepDone) -> None:
        if event.generation == self.generation and event.key == self.chart_key:
            self.chart.show(event.key, event.current, event.rows[:-1], event.rows[-1])
            self._keep_focus_in_view()

    @on(Worker.StateChanged)
    def _worker_state(self, event: Worker.StateChanged) -> None:
        report_failure(self, event)

    @on(WorkerFailed)
    def _worker_failed(self, event: WorkerFailed) -> None:
        """Its own sweep failed: the chart says so, where it was asked for."""
        event.stop()
        self.chart.failed(event.error_text)
        self._keep_focus_in_view()
        event.announce(self)
