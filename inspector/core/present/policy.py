"""What another framework's policy did, in one line and as JSON (explain's report, prepare's notes)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from inspector.core.peers.plan import PeerPlan
from inspector.core.scout.prepare import Prompt


@dataclass(frozen=True, slots=True)
class PolicyReport:
    name: str
    library: str
    exact: bool
    settings: tuple[tuple[str, str, str], ...]  # name, value as typed, source
    summary: str | None  # what fired (None: the library raised)
    counted: int | None  # the library's count of the input, compared with its trigger
    unit: str
    note: str
    findings: tuple[str, ...] = ()  # what in the chat the library takes as it comes (unpaired calls, outputs)

    def line(self) -> str:
        given = ", ".join(f"{k}={v}" for k, v, source in self.settings if source != "default")
        head = f"policy: {self.name}" + (f" ({given})" if given else "")
        kind = "exact" if self.exact else "approximate"
        text = f"{head}; {self.library}, {kind}"
        if self.summary is not None:
            text += f": {self.summary}"
        if self.note:
            text += f" [{self.note}]"
        for finding in self.findings:
            text += f"\npolicy note: {finding}, handled as the library handles it"
        return text

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "library": self.library,
            "exact": self.exact,
            "settings": {k: v for k, v, _ in self.settings},
            "sources": {k: s for k, _, s in self.settings},
            "summary": self.summary,
            "counted": self.counted,
            "unit": self.unit,
            "findings": list(self.findings),
        }


def policy_report(prompt: Prompt) -> PolicyReport | None:
    plan = prompt.planner
    if not isinstance(plan, PeerPlan):
        return None
    spec = plan.settings.spec
    outcome = plan.outcome()
    return PolicyReport(
        spec.name,
        spec.library,
        spec.exact,
        tuple(plan.settings.shown()),
        outcome.summary if outcome is not None else None,
        outcome.total if outcome is not None else None,
        outcome.unit if outcome is not None else spec.counts,
        spec.note,
        tuple(plan.conversation.unpaired()),
    )
