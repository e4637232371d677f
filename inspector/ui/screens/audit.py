"""The forgetting audit (`a`): findings that point at likely damage, each naming its messages.

The audit re-plans prefixes of the chat, so on a big chat it runs in a worker; Enter on a
finding jumps to its first message. Finding texts quote the chat, so they go in as Content.
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
from textual.worker import Worker, WorkerState

from inspector.core.analysis.audit import AuditFinding, audit
from inspector.core.analysis.replan import Replanner
from inspector.core.calls.timeline import CallSettings, tiers_before_calls
from inspector.core.inspection import Inspection
from inspector.core.present.sanitize import one_line

from ..messages import report_failure
from ..results import JumpTo, JumpToCall
from .base import Dialog

if TYPE_CHECKING:
    from inspector.core.calls.history import ChatHistory


def finding_text(f: AuditFinding) -> str:
    rows = ", ".join(f"#{r}" for r in f.rows[:8]) + (" …" if len(f.rows) > 8 else "")
    line = f" · line {f.line}" if f.line else ""
    return f"{one_line(f.kind.replace('_', ' '), 40)}: {rows or 'no message'}{line}\n  {one_line(f.message, 600)}"


@dataclass
class Audited(Message):
    findings: list[AuditFinding] | None
    error: str | None = None


class AuditScreen(Dialog[JumpTo | JumpToCall]):
    """Dismisses with JumpTo (the finding's first message) or None."""

    DEFAULT_CSS = """
    AuditScreen > .box { width: 120; height: auto; max-height: 90%; }
    AuditScreen #audit-list { height: auto; max-height: 70vh; border: none; padding: 0; background: $panel; }
    """
    BINDINGS = [Binding("escape", "close", "Close", show=False)]

    def __init__(
        self,
        inspection: Inspection,
        replanner: Replanner,
        history: ChatHistory | None = None,
        settings: CallSettings | None = None,
        context_window: int | None = None,
    ) -> None:
        super().__init__()
        self.context_window = context_window  # tokens: calls over it are findings (as explain --audit's)
        self.history = history  # the chat's model calls: a repeated call jumps to the call that made it
        self.settings = settings  # what each call is planned under (the edits on screen, else its own)
        self.inspection, self.replanner = inspection, replanner
        self.findings: list[AuditFinding] | None = None

    def compose(self) -> ComposeResult:
        with Vertical(classes="box"):
            yield Static(Content("Forgetting audit: auditing…"), id="audit-title")
            yield OptionList(id="audit-list")
            yield Static(
                Content(
                    "Enter: jump to the finding's first message (a repeated call: to the call that repeated it) · ↑↓ move · Esc: close"
                ),
                classes="hint",
            )

    def on_mount(self) -> None:
        self.query_one("#audit-list", OptionList).focus()
        self.run_audit()

    @work(thread=True, exclusive=True, group="audit", description="audit", exit_on_error=False)
    def run_audit(self) -> None:
        # planned here, not taken from the app: a debounced edit may not have re-planned yet
        history = self.history
        sent_before = None
        extra = []
        if history is not None and self.inspection.chat is history.whole.chat:
            sent_before = tiers_before_calls(history, self.settings)  # judged at the call that repeated itself
            from inspector.core.calls.usage import usage_findings

            extra = usage_findings(history, context_window=self.context_window)  # recorded usage, the window
        prompt = self.replanner.current() if self.inspection.policy is None else self.inspection.prompt()
        self.post_message(Audited(audit(self.inspection, prompt, sent_before, extra)))

    @on(Worker.StateChanged)
    def _worker_state(self, event: Worker.StateChanged) -> None:
        report_failure(self, event)  # the App notifies; the title says it here too
        if event.state == WorkerState.ERROR:
            error = event.worker.error
            self.post_message(Audited(None, f"{type(error).__name__}: {error}"))

    @on(Audited)
    def _audited(self, event: Audited) -> None:
        title = self.query_one("#audit-title", Static)
        if event.findings is None:
            title.update(Content(one_line(f"Forgetting audit failed: {event.error}", 400)))
            return
        self.findings = event.findings
        count = len(event.findings)
        title.update(
            Content(
                f"Forgetting audit: {count:,} finding(s) under the current thresholds"
                if count
                else "Forgetting audit: no finding (no repeated call after a cut, no split pair, "
                "no cut error, no lost turns, no loader hazard)"
            )
        )
        options = self.query_one("#audit-list", OptionList)
        options.clear_options()
        options.add_options([Option(Content(finding_text(f)), id=str(i)) for i, f in enumerate(event.findings)])
        if event.findings:
            options.highlighted = 0

    @property
    def list_text(self) -> str:
        options = self.query_one("#audit-list", OptionList)
        return "\n".join(str(options.get_option_at_index(i).prompt) for i in range(options.option_count))

    @on(OptionList.OptionSelected, "#audit-list")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        # the list holds options only once the findings are in, each with its finding's index as id
        assert self.findings is not None and event.option.id is not None
        finding = self.findings[int(event.option.id)]
        if not finding.rows:
            self.notify("this finding names no message", severity="warning")
            return
        if finding.kind == "repeated_call" and self.history is not None and finding.messages[-1] is not None:
            # the call that repeated itself, showing what it was sent
            number = self.history.call_of(self.inspection.chat.messages[finding.messages[-1]])
            if number is not None:
                self.dismiss(JumpToCall(number, None))
                return
        self.dismiss(JumpTo(finding.rows[0]))
