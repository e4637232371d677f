"""Why (`w`): every occurrence of a text, whether the model sees it, the rule that hid it, and the fixes.

The trace is quick; the fix search can take seconds on a big chat, so both run in a
thread worker that posts each occurrence's fixes as they are found, and Escape stops it.
A fix is applied with one key (its number, or Enter on it): the dialog hands the fix back
to the app, which sets the threshold through the editor's path and jumps to the message.

Everything shown comes from the chat, so it goes in as Content through one_line.
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
from textual.worker import Worker, WorkerState, get_current_worker

from inspector.core.analysis.fixes import Fix, FixReport, FixSearchCancelled, find_fixes
from inspector.core.analysis.replan import Replanner
from inspector.core.analysis.trace import Occurrence, Trace, TraceStopped, trace
from inspector.core.errors import UsageError
from inspector.core.inspection import Inspection
from inspector.core.present.cells import cell
from inspector.core.present.sanitize import one_line
from inspector.core.present.wording import no_single_value

from ..messages import report_failure
from ..results import ApplyFix, JumpTo, JumpToCall
from ..widgets.dual_view import GLYPHS
from .base import Dialog

if TYPE_CHECKING:  # the timelines' module is imported when they are first computed
    from inspector.core.calls.history import ChatHistory
    from inspector.core.calls.timeline import CallSettings

MAX_SHOWN = 200  # occurrences listed (and searched for fixes); a common word can occur thousands of times
HINT = (
    "Enter: apply the fix / jump to the message · 1-9: apply fix N · l: the call where it was last seen · "
    "f: fixes for hidden copies · i: ignore case · x: regex · Esc: close"
)


def occurrence_text(o: Occurrence) -> str:
    where = f", line {o.line}" if o.line else ""
    state = "VISIBLE" if o.visible else "HIDDEN"
    trap = f"\n  trap: text swallowed by a parser trap: {one_line(o.trap, 600)}" if o.trap else ""
    return (
        f"#{o.row}  {cell(o.role)}  {cell(o.name)}  {cell(o.id)}{where}\n"
        f"  {state}: {GLYPHS.get(o.tier, '')} {o.tier} ({o.reason}) · in {one_line(o.field, 60)} "
        f"at {o.spot.start:,}-{o.spot.end:,}\n"
        f"  rule: {one_line(o.why, 600)}\n"
        f"  text: {one_line(o.context, 200)}{trap}"
    )


def fix_text(number: int, fix: Fix, pair: bool = False) -> str:
    label = f"[{number}]" if number <= 9 else "   "
    kept = "keeps it with its call/output pair: " if pair else ""
    return f"    {label} {kept}{one_line(fix.describe(), 300)}"


@dataclass
class Traced(Message):
    generation: int  # which search it belongs to: an older one may still post after i or x restarted it
    result: Trace | None
    error: str | None


@dataclass
class TimelinesFound(Message):
    generation: int
    lines: dict[int, tuple[str, int | None]]  # message index -> (sentence, call where last seen)


@dataclass
class FixesFound(Message):
    generation: int
    position: int  # index into the listed occurrences
    report: FixReport
    done: int  # hidden occurrences searched so far
    total: int


@dataclass(frozen=True)
class Search:
    """What one search traces, handed whole to its worker (the dialog's fields may change meanwhile)."""

    text: str
    regex: bool
    ignore_case: bool
    inspection: Inspection
    replanner: Replanner
    history: ChatHistory | None
    settings: CallSettings | None
    older_copies: bool = False  # search fixes for hidden copies even when the model sees another one


def _newest_first(o: Occurrence) -> tuple[int, int]:
    """The newest message first (the copy a model would use), then the order in the message."""
    return (-o.row, o.spot.start)


@dataclass
class Scanning(Message):
    generation: int
    scanned: int
    total: int

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, Scanning)


def timelines(
    asked: Search, history: ChatHistory, result: Trace, worker: Worker[None]
) -> dict[int, tuple[str, int | None]]:
    """Per occurrence's message, the sentence of its timeline and the call where it was last seen."""
    from inspector.core.calls.timeline import occurrence_timeline
    from inspector.core.present.timeline import sentence

    whole = history.whole.chat.messages
    mine = asked.inspection.chat.messages
    out: dict[int, tuple[str, int | None]] = {}
    for o in result.occurrences[:MAX_SHOWN]:
        if worker.is_cancelled:
            break
        index = o.message
        if index is None or index in out or index >= len(whole):
            continue
        if whole[index] is not mine[index] and whole[index].fields != mine[index].fields:
            continue  # not the same message in the whole chat (a chat pre-processed differently)
        line = occurrence_timeline(history, o, asked.settings)
        out[index] = (sentence(history, line), line.last_seen)
    return out


class WhyScreen(Dialog[ApplyFix | JumpTo | JumpToCall]):
    """Dismisses with ApplyFix, JumpTo or None."""

    DEFAULT_CSS = """
    WhyScreen > .box { width: 120; height: auto; max-height: 90%; }
    WhyScreen #why-list { height: auto; max-height: 65vh; border: none; padding: 0; background: $panel; }
    WhyScreen #why-verdict { text-style: bold; }
    WhyScreen .status { color: $warning; }
    """
    BINDINGS = [
        Binding("escape", "close", "Close", show=False),
        Binding("i", "toggle_flag('ignore_case')", "Ignore case", show=False),
        Binding("x", "toggle_flag('regex')", "Regex", show=False),
        *[Binding(str(n), f"apply({n})", f"Fix {n}", show=False) for n in range(1, 10)],
        Binding("l", "last_seen", "Last seen", show=False),
        Binding("f", "older_copies", "Fixes for hidden copies", show=False),
    ]

    def __init__(
        self,
        text: str,
        inspection: Inspection,
        replanner: Replanner,
        regex: bool = False,
        ignore_case: bool = False,
        history: ChatHistory | None = None,
        call: int | None = None,
        settings: CallSettings | None = None,
    ) -> None:
        super().__init__()
        self.history, self.call = history, call  # the chat's model calls, and the call on screen
        self.settings = settings  # what the timelines plan every call under (the app's edits)
        self.timelines: dict[int, tuple[str, int | None]] = {}
        self.text, self.inspection, self.replanner = text, inspection, replanner
        self.regex, self.ignore_case = regex, ignore_case
        self.result: Trace | None = None
        self.shown: list[Occurrence] = []
        self.reports: dict[int, FixReport] = {}
        self.fixes: list[tuple[Fix, Occurrence]] = []  # numbered in list order: fix N is fixes[N - 1]
        self.searching = False
        self.older_copies = False  # f: the fixes for hidden copies though the model sees another
        self.worker: Worker[None] | None = None
        self.generation = 0

    def compose(self) -> ComposeResult:
        with Vertical(classes="box"):
            yield Static("", id="why-title")
            yield Static(Content("tracing…"), id="why-verdict")
            yield Static("", id="why-status", classes="status")
            yield OptionList(id="why-list")
            yield Static(Content(HINT), classes="hint")

    def on_mount(self) -> None:
        self.query_one("#why-list", OptionList).focus()
        self.start()

    # -- the search --------------------------------------------------------------------
    def start(self) -> None:
        flags = f"ignore case {'on' if self.ignore_case else 'off'} · regex {'on' if self.regex else 'off'}"
        self.query_one("#why-title", Static).update(Content(f"Why: {one_line(repr(self.text), 200)}  ({flags})"))
        self.result, self.shown, self.reports, self.fixes = None, [], {}, []
        self.query_one("#why-list", OptionList).clear_options()
        self.say("tracing…")
        self.searching = True
        self.generation += 1
        self.worker = self.search(
            Search(
                self.text,
                self.regex,
                self.ignore_case,
                self.inspection,
                self.replanner,
                self.history,
                self.settings,
                self.older_copies,
            ),
            self.generation,
        )

    def retrace(
        self,
        inspection: Inspection,
        replanner: Replanner,
        history: ChatHistory | None,
        call: int | None,
        settings: CallSettings | None,
    ) -> None:
        """The chat grew while the dialog was open (a followed file): trace the same text in the new chat."""
        self.inspection, self.replanner, self.history = inspection, replanner, history
        self.call, self.settings, self.timelines = call, settings, {}
        self.start()

    @work(thread=True, exclusive=True, group="why", description="why", exit_on_error=False)
    def search(self, asked: Search, generation: int) -> None:
        worker = get_current_worker()
        try:
            result = trace(
                asked.inspection,
                asked.text,
                regex=asked.regex,
                ignore_case=asked.ignore_case,
                # the replanner plans scout-ai's strategies: under another framework's policy, its own plan
                prompt=asked.replanner.current() if asked.inspection.policy is None else asked.inspection.prompt(),
                progress=lambda scanned, total: self._progress(generation, scanned, total),
                cancelled=lambda: worker.is_cancelled,
            )
        except UsageError as exc:
            self.post_message(Traced(generation, None, str(exc)))
            return
        except TraceStopped as stopped:
            self.post_message(Traced(generation, None, f"tracing {stopped} (Esc again closes)"))
            return
        result.occurrences.sort(key=_newest_first)
        self.post_message(Traced(generation, result, None))
        if worker.is_cancelled:
            return  # stopped: no timeline, no fix search
        if asked.history is not None and len(asked.history):
            self.post_message(TimelinesFound(generation, timelines(asked, asked.history, result, worker)))
        if not asked.older_copies and any(o.visible for o in result.occurrences):
            return  # the model still sees the text: the fixes for its hidden older copies are offered (f)
        hidden = [(i, o) for i, o in enumerate(result.occurrences[:MAX_SHOWN]) if not o.visible]
        policy = asked.inspection.policy
        if policy is not None:  # another framework's policy: each numeric setting's smallest fix
            from inspector.core.analysis.policy_fixes import policy_fixes

            found = policy_fixes(asked.inspection, [o for _, o in hidden])
            for done, ((position, occurrence), policy_report) in enumerate(zip(hidden, found), 1):
                if worker.is_cancelled:
                    return
                fixes = policy_report.as_fix_report(occurrence, policy)
                self.post_message(FixesFound(generation, position, fixes, done, len(hidden)))
            return
        for done, (position, occurrence) in enumerate(hidden, 1):
            try:
                report = find_fixes(asked.inspection, occurrence, asked.replanner, lambda: worker.is_cancelled)
            except FixSearchCancelled:
                return
            self.post_message(FixesFound(generation, position, report, done, len(hidden)))

    @on(TimelinesFound)
    def _timelines_found(self, event: TimelinesFound) -> None:
        if event.generation == self.generation:
            self.timelines = event.lines
            self.rebuild()

    @on(Worker.StateChanged)
    def _worker_state(self, event: Worker.StateChanged) -> None:
        report_failure(self, event)
        if event.worker is not self.worker or event.state not in (
            WorkerState.SUCCESS,
            WorkerState.ERROR,
            WorkerState.CANCELLED,
        ):
            return
        self.searching = False
        if event.state == WorkerState.ERROR:
            self.say(f"the search failed: {event.worker.error}")
        elif event.state == WorkerState.CANCELLED:
            if self.result is not None:
                self.say("fix search stopped (Esc again closes); the fixes found so far are listed")
        elif self.result is not None:
            hidden = len([o for o in self.shown if not o.visible])
            if hidden and any(o.visible for o in self.shown) and not self.older_copies:
                return  # the status offers f
            self.say(f"fixes searched for {hidden} hidden occurrence(s)" if hidden else "")

    @on(Traced)
    def _traced(self, event: Traced) -> None:
        if event.generation != self.generation:
            return
        if event.error is not None:
            self.query_one("#why-verdict", Static).update(Content(one_line(event.error, 400)))
            return
        result = event.result
        assert result is not None  # a Traced carries a result or an error
        self.result = result
        self.shown = result.occurrences[:MAX_SHOWN]
        verdict = one_line(result.verdict(), 600)
        if len(result.occurrences) > MAX_SHOWN:
            verdict += f" (the first {MAX_SHOWN} are listed)"
        self.query_one("#why-verdict", Static).update(Content(verdict))
        hidden = sum(1 for o in self.shown if not o.visible)
        if hidden and any(o.visible for o in self.shown) and not self.older_copies:
            self.say(f"the model still sees the text: f searches fixes for the {hidden} hidden older copies")
        else:
            self.say(f"searching for fixes: 0 of {hidden} hidden occurrence(s)… (Esc stops)" if hidden else "")
        self.rebuild()

    def _progress(self, generation: int, scanned: int, total: int) -> None:
        self.post_message(Scanning(generation, scanned, total))

    @on(Scanning)
    def _scanning(self, event: Scanning) -> None:
        if event.generation == self.generation and self.result is None:
            self.say(f"tracing: {event.scanned:,} of {event.total:,} messages scanned… (Esc stops)")

    def action_older_copies(self) -> None:
        """f: search the fixes for the hidden copies too (the model sees another copy of the text)."""
        if self.older_copies or self.result is None:
            return
        self.older_copies = True
        self.start()

    @on(FixesFound)
    def _fixes_found(self, event: FixesFound) -> None:
        if event.generation != self.generation:
            return
        self.reports[event.position] = event.report
        if event.done < event.total:
            self.say(f"searching for fixes: {event.done:,} of {event.total:,} hidden occurrence(s)… (Esc stops)")
        self.rebuild()

    # -- the list ------------------------------------------------------------------------
    def rebuild(self) -> None:
        options: list[Option] = []
        self.fixes = []
        for position, o in enumerate(self.shown):
            text = occurrence_text(o)
            known = self.timelines.get(o.message) if o.message is not None else None
            if known is not None:
                text += f"\n  calls: {one_line(known[0], 600)}"
            options.append(Option(Content(text), id=f"occ:{position}"))
            report = self.reports.get(position)
            if o.visible:
                continue
            if report is None:
                skipped = not self.older_copies and any(s.visible for s in self.shown)
                if o.message is not None:
                    note = "not searched: the model sees another copy (f searches)" if skipped else "searching…"
                    options.append(Option(Content(f"    fixes: {note}"), disabled=True))
                else:
                    options.append(
                        Option(
                            Content("    consumed before the strategies: no threshold brings it back"), disabled=True
                        )
                    )
                continue
            # first the changes that send the text with its call/output pair (the others would orphan one)
            for fix, pair in [*((f, True) for f in report.pair_fixes), *((f, False) for f in report.fixes)]:
                self.fixes.append((fix, o))
                options.append(Option(Content(fix_text(len(self.fixes), fix, pair)), id=f"fix:{len(self.fixes) - 1}"))
            if (report.fixes or report.pair_fixes) and self.call is not None:
                options.append(
                    Option(
                        Content(f"    found at call {self.call}: they hold for that call only (L: the whole chat)"),
                        disabled=True,
                    )
                )
            if report.fixes:
                unused = report.keys_without_fix()
                if unused:
                    options.append(Option(Content(f"    {no_single_value(unused)}"), disabled=True))
            for line in ([report.blocked] if report.blocked else []) + [f"note: {n}" for n in report.notes]:
                options.append(Option(Content("    " + one_line(line, 400)), disabled=True))
        option_list = self.query_one("#why-list", OptionList)
        highlighted = option_list.highlighted
        option_list.clear_options()
        option_list.add_options(options)
        if options:
            first_fix = next((i for i, opt in enumerate(options) if (opt.id or "").startswith("fix:")), None)
            # the first fix is what the user came for: land on it once it exists
            target = highlighted if highlighted is not None and highlighted > 0 else first_fix
            option_list.highlighted = min(target or 0, len(options) - 1)

    def say(self, text: str) -> None:
        self.query_one("#why-status", Static).update(Content(one_line(text, 400)))

    @property
    def list_text(self) -> str:
        option_list = self.query_one("#why-list", OptionList)
        return "\n".join(str(option_list.get_option_at_index(i).prompt) for i in range(option_list.option_count))

    # -- keys --------------------------------------------------------------------------
    def action_apply(self, number: int) -> None:
        if not 1 <= number <= len(self.fixes):
            self.say(f"no fix {number}" + (" yet: still searching" if self.searching else ""))
            return
        fix, occurrence = self.fixes[number - 1]
        self.dismiss(ApplyFix(fix, occurrence.row))

    def action_last_seen(self) -> None:
        """Close and show the call where the highlighted occurrence (or the first one) was last sent."""
        option_list = self.query_one("#why-list", OptionList)
        chosen = None
        if option_list.highlighted is not None:
            kind, _, number = (option_list.get_option_at_index(option_list.highlighted).id or "").partition(":")
            if kind == "occ":
                chosen = self.shown[int(number)]
        candidates = [chosen] if chosen is not None else self.shown
        for o in candidates:
            known = self.timelines.get(o.message) if o.message is not None else None
            if known is not None and known[1] is not None:
                self.dismiss(JumpToCall(known[1], o.row))
                return
        self.say("no call was sent this text" if self.timelines else "the timeline is still being computed")

    def action_toggle_flag(self, flag: str) -> None:
        """Flip ``ignore_case`` or ``regex`` and search again (DOMNode's async ``toggle`` is another action)."""
        setattr(self, flag, not getattr(self, flag))
        self.start()  # exclusive: the running search is cancelled

    def action_close(self) -> None:
        if self.searching and self.worker is not None:
            self.worker.cancel()  # the first Escape stops a long search and keeps what was found
            return
        self.dismiss(None)

    @on(OptionList.OptionSelected, "#why-list")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        kind, _, number = (event.option.id or "").partition(":")
        if kind == "fix":
            self.action_apply(int(number) + 1)
        elif kind == "occ":
            self.dismiss(JumpTo(self.shown[int(number)].row))
