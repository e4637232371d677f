"""Presets dialog: save the current thresholds under a name, load or delete one.

A presets file that cannot be read is reported here and never written over.
"""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Button, Input, OptionList, Static
from textual.widgets.option_list import Option

from inspector.core.io.presets import PresetsError, delete_preset, load_presets, presets_path, save_preset
from inspector.core.present.sanitize import one_line
from inspector.core.scout.settings import KEYS

from ..results import PresetChoice
from ..widgets.burst_input import BurstInput
from .base import Dialog

SHORT = {
    "full_tool_calls": "fc",
    "full_tool_outputs": "fo",
    "max_tool_calls": "mc",
    "max_tool_outputs": "mo",
    "max_tool_chars": "chars",
}


class PresetsScreen(Dialog[PresetChoice]):
    """Dismisses with a PresetChoice (load) or None; saving happens in place."""

    DEFAULT_CSS = """
    PresetsScreen OptionList { height: auto; max-height: 12; }
    """

    def __init__(
        self, current: dict[str, int | float | None], strategies: str | None, scout_version: str | None = None
    ):
        super().__init__()
        self.current, self.strategies = current, strategies
        self.scout_version = scout_version
        self.presets: dict[str, PresetChoice] = {}  # by name, as a load would hand each back
        self.broken = False

    def compose(self) -> ComposeResult:
        with Vertical(classes="box"):
            yield Static(Content(f"Presets in {presets_path()}"), classes="hint")
            yield OptionList(id="preset-list")
            yield BurstInput(placeholder="name for the current thresholds", id="preset-name")
            yield Static("", id="preset-message")
            with Horizontal(classes="buttons"):
                yield Button("Save current", id="save", variant="primary")
                yield Button("Load", id="load")
                yield Button("Delete", id="delete")
                yield Button("Close", id="close")

    def on_mount(self) -> None:
        self.refresh_list()
        self.query_one("#preset-name", Input).focus()

    def say(self, text: str, error: bool = False) -> None:
        message = self.query_one("#preset-message", Static)
        message.set_class(error, "error")
        message.update(Content(one_line(text, 500)))

    def refresh_list(self) -> None:
        options = self.query_one("#preset-list", OptionList)
        options.clear_options()
        try:
            self.presets = {
                name: PresetChoice(name, preset["thresholds"], preset["strategies"], preset.get("scout_version"))
                for name, preset in load_presets().items()
            }
            self.broken = False
        except PresetsError as exc:
            self.presets, self.broken = {}, True
            self.say(str(exc), True)
            return
        for name, preset in self.presets.items():
            values = " ".join(
                f"{SHORT[k]}={'follows' if preset.thresholds[k] is None else format(preset.thresholds[k], ',')}"
                for k in KEYS
            )
            strat = f" [{preset.strategies}]" if preset.strategies else ""
            options.add_option(Option(Content(one_line(f"{name}: {values}{strat}", 200)), id=name))
        if not self.presets:
            self.say("no presets yet: type a name and Save current")
        else:
            options.highlighted = 0  # Load works at once, even with a single preset

    def _selected(self) -> str | None:
        options = self.query_one("#preset-list", OptionList)
        if options.highlighted is None:
            return None
        return options.get_option_at_index(options.highlighted).id

    @on(Input.Submitted, "#preset-name")
    @on(Button.Pressed, "#save")
    def _save(self, event: Input.Submitted | Button.Pressed) -> None:
        event.stop()
        name = self.query_one("#preset-name", Input).value.strip()
        if self.broken:
            self.say("the presets file cannot be read, so nothing is saved (fix or move it first)", True)
            return
        try:
            path = save_preset(name, self.current, self.strategies, scout_version=self.scout_version)
        except PresetsError as exc:
            self.say(str(exc), True)
            return
        except OSError as exc:
            self.say(f"cannot save: {exc}", True)
            return
        self.refresh_list()
        self.say(f"saved {name!r} to {path}")

    @on(OptionList.OptionSelected, "#preset-list")
    @on(Button.Pressed, "#load")
    def _load(self, event: OptionList.OptionSelected | Button.Pressed) -> None:
        event.stop()
        name = self._selected()
        if name is None:
            self.say("pick a preset in the list first", True)
            return
        self.dismiss(self.presets[name])

    @on(Button.Pressed, "#delete")
    def _delete(self) -> None:
        name = self._selected()
        if name is None or self.broken:
            self.say("pick a preset in the list first", True)
            return
        delete_preset(name)
        self.refresh_list()
        self.say(f"deleted {name!r}")

    @on(Button.Pressed, "#close")
    def _close(self) -> None:
        self.dismiss(None)
