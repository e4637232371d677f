"""The A/B panel: thresholds pinned as A against the ones being edited (B), with the rows that differ.

It shows what core.compare found (the app recomputes it in a worker after each re-plan);
Enter on a row asks the app to jump there. Chat-derived names go in as Content, never markup.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import Worker, get_current_worker

from inspector.core.analysis.compare import Change, Comparison, compare_plans
from inspector.core.analysis.replan import Replanner
from inspector.core.inspection import Inspection
from inspector.core.policies.decision import Tier
from inspector.core.present.cells import cell
from inspector.core.present.rows import ROLE_LABELS
from inspector.core.present.sanitize import one_line
from inspector.core.scout.settings import KEYS, Thresholds
from inspector.core.setup import Setup

from ..messages import Compared, WorkerFailed, report_failure
from .dual_view import GLYPHS, LABELS

if TYPE_CHECKING:
    from typing import Unpack

    from .options import WidgetOptions

MAX_LISTED = 500  # a 20,000-message chat can differ in thousands of rows; the first ones tell the story


def totals_line(comparison: Comparison) -> str:
    a, b = comparison.totals_a, comparison.totals_b
    parts = [
        f"sent {a.visible_messages:,} → {b.visible_messages:,}",
        f"✂ {a.tiers[Tier.TRUNCATED]:,} → {b.tiers[Tier.TRUNCATED]:,}",
        f"✗ {a.tiers[Tier.DROPPED]:,} → {b.tiers[Tier.DROPPED]:,}",
    ]
    cleared_a, cleared_b = a.tiers.get(Tier.CLEARED, 0), b.tiers.get(Tier.CLEARED, 0)
    if cleared_a or cleared_b:  # another framework's placeholders
        parts.append(f"▯ {cleared_a:,} → {cleared_b:,}")
    parts += [f"chars {a.chars_after:,} → {b.chars_after:,}"]
    delta = b.chars_after - a.chars_after
    return "A → B: " + " · ".join(parts) + f" ({delta:+,})"


def title(comparison: Comparison | None) -> str:
    if comparison is None:
        return "A/B: A pinned"
    if comparison.same_settings:
        return "A/B: B equals A (edit a threshold, t; switch strategies, s, or version, V)"
    parts = [f"{k} {comparison.a.setting(k):,} → {comparison.b.setting(k):,}" for k in comparison.changed_keys()]
    if comparison.plan_a != comparison.plan_b:
        parts.append(f"{comparison.plan_a} → {comparison.plan_b}")
    return "A/B: " + ", ".join(parts)


@dataclass(frozen=True, slots=True)
class Pinned:
    """A: the whole setting of the plan on screen when b was pressed (thresholds, strategies, version)."""

    thresholds: Thresholds
    setup: Setup


def change_line(change: Change) -> str:
    tiers = f"{GLYPHS[change.tier_a]} {LABELS[change.tier_a]} → {GLYPHS[change.tier_b]} {LABELS[change.tier_b]}"
    role = ROLE_LABELS.get(change.role, change.role) if isinstance(change.role, str) else change.role
    who = cell(role, 40) + (f" {cell(change.name, 40)}" if change.name is not None else "")
    return f"#{change.row:<5} {tiers:<23} {change.delta:>+9,}  {who}"


class ComparePanel(Vertical):
    DEFAULT_CSS = """
    ComparePanel {
        height: auto; max-height: 40%; display: none;
        border: round $warning; border-title-color: $warning; border-subtitle-color: $text-muted; padding: 0 1;
    }
    ComparePanel.-open { display: block; }
    ComparePanel .ab-head { height: auto; color: $text; }
    ComparePanel OptionList { height: auto; max-height: 8; border: none; padding: 0; background: $surface; }
    ComparePanel OptionList:focus { border: none; }
    """
    BINDINGS = [Binding("escape", "screen.focus_list", "Back to list", show=False)]

    @dataclass
    class Jump(Message):
        row: int

    @dataclass
    class Changed(Message):
        """The rows that differ between A and B (empty: unpinned), for the list to mark."""

        rows: set[int]

    def __init__(self, **kwargs: Unpack[WidgetOptions]) -> None:
        super().__init__(**kwargs)
        self.pinned: Pinned | None = None  # A; B is always the plan on screen
        self.generation = 0  # which compare the panel waits for
        self.comparison: Comparison | None = None
        self.border_title = title(None)
        self.border_subtitle = "b unpins · c: to the list, Enter jumps"

    def compose(self) -> ComposeResult:
        yield Static("", id="ab-head", classes="ab-head")
        yield OptionList(id="ab-list")

    @property
    def options(self) -> OptionList:
        return self.query_one("#ab-list", OptionList)

    def pin(self, pinned: Pinned) -> None:
        self.pinned, self.comparison = pinned, None
        self.add_class("-open")
        self.border_title = title(None)
        policy = pinned.setup.policy_settings()
        if policy is not None:  # another framework's policy: its name and the settings given
            values = "policy " + policy.label()
        else:
            values = ", ".join(f"{k}={pinned.thresholds[k]:,}" for k in KEYS)
        self._head(f"A = {values}; computing…")
        self.options.clear_options()

    def unpin(self) -> None:
        self.remove_class("-open")
        self.pinned, self.comparison = None, None
        self.generation += 1  # a compare still running is for nobody
        self.post_message(self.Changed(set()))

    def request(self, shown: Inspection, replanner: Replanner) -> None:
        """The plan changed: compare A, planned on the chat on screen, with the plan on screen (``shown``)
        off the UI thread."""
        if self.pinned is None:
            return
        self.generation += 1
        a = shown.with_setup(self.pinned.setup, self.pinned.thresholds)
        self._compare(a, shown, replanner, self.generation)

    @work(thread=True, exclusive=True, group="compare", description="A/B compare", exit_on_error=False)
    def _compare(self, a: Inspection, b: Inspection, rp: Replanner, generation: int) -> None:
        result = compare_plans(a, b, rp)
        if not get_current_worker().is_cancelled:
            self.post_message(Compared(result, generation))

    @on(Compared)
    def _compared(self, event: Compared) -> None:
        if event.generation == self.generation and self.pinned is not None:
            self.show(event.comparison)

    @on(Worker.StateChanged)
    def _worker_state(self, event: Worker.StateChanged) -> None:
        report_failure(self, event)

    @on(WorkerFailed)
    def _worker_failed(self, event: WorkerFailed) -> None:
        """Its own compare failed: shown here, where it was asked for."""
        event.stop()
        self.failed(event.error_text)
        event.announce(self)

    def failed(self, error: str) -> None:
        self.comparison = None
        self.options.clear_options()
        self._head(one_line(f"compare failed: {error}", 400))

    def _head(self, text: str) -> None:
        self.query_one("#ab-head", Static).update(Content(text))

    def show(self, comparison: Comparison) -> None:
        self.comparison = comparison
        changes = comparison.changes
        self.post_message(self.Changed({c.row for c in changes}))
        count = f"{len(changes):,} row(s) differ" if changes else "no row differs"
        self.border_title = title(comparison)
        self._head(f"{totals_line(comparison)} · {count}")
        options = self.options
        highlighted = options.highlighted
        options.clear_options()
        options.add_options([Option(Content(change_line(c)), id=str(c.row)) for c in changes[:MAX_LISTED]])
        if len(changes) > MAX_LISTED:
            options.add_option(Option(Content(f"… and {len(changes) - MAX_LISTED:,} more"), disabled=True))
        if changes:
            options.highlighted = min(highlighted or 0, len(changes[:MAX_LISTED]) - 1)

    @property
    def text(self) -> str:
        """Title, header and listed rows as plain text (what the tests and a screen reader would see)."""
        head = str(self.query_one("#ab-head", Static).render())
        rows = [str(self.options.get_option_at_index(i).prompt) for i in range(self.options.option_count)]
        return "\n".join([str(self.border_title), head, *rows])

    @on(OptionList.OptionSelected, "#ab-list")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id is not None:
            self.post_message(self.Jump(int(event.option.id)))
