"""Compare two settings: every message whose tier or visible text differs, with the size change.

Feeds `prompt-inspector diff` and the app's A/B view (A pinned, B edited live), so it
must stay cheap: on the shorten_tools fast path only tool messages whose plan state
differs are looked at, since the same state means the same visible text.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from inspector.core.analysis.replan import Replanner
from inspector.core.inspection import Inspection
from inspector.core.numbering import RowNumbers
from inspector.core.peers.plan import PeerPlan
from inspector.core.policies import decision as d
from inspector.core.scout.prepare import Prompt
from inspector.core.scout.settings import SETTING_KEYS, Thresholds
from inspector.core.scout.tool_facts import chars_of
from inspector.core.scout.totals import Totals


@dataclass(frozen=True, slots=True)
class Change:
    row: int  # the `#` of explain
    message: int
    role: object
    name: object
    id: object
    tier_a: d.Tier
    tier_b: d.Tier
    chars_a: int  # visible characters under A (0 when not sent, as when scout-ai raises)
    chars_b: int

    @property
    def delta(self) -> int:
        return self.chars_b - self.chars_a

    def as_dict(self) -> dict[str, Any]:
        return {
            "index": self.row,
            "message": self.message,
            "role": self.role,
            "name": self.name,
            "id": self.id,
            "tier_a": self.tier_a,
            "tier_b": self.tier_b,
            "chars_a": self.chars_a,
            "chars_b": self.chars_b,
            "delta": self.delta,
        }


@dataclass(slots=True)
class Comparison:
    a: Thresholds
    b: Thresholds
    totals_a: Totals
    totals_b: Totals
    changes: list[Change] = field(default_factory=list)
    plan_a: str = ""  # the strategies and scout-ai version A was planned with ("" when both plan alike)
    plan_b: str = ""

    def changed_keys(self) -> list[str]:
        return [k for k in SETTING_KEYS if self.a.setting(k) != self.b.setting(k)]

    @property
    def same_settings(self) -> bool:
        """A and B are one setting: the same values, strategies and version."""
        return not self.changed_keys() and self.plan_a == self.plan_b

    def as_dict(self) -> dict[str, Any]:
        return {
            "a": self.a.as_ints(),
            "b": self.b.as_ints(),
            "totals_a": self.totals_a.as_dict(),
            "totals_b": self.totals_b.as_dict(),
            "changes": [c.as_dict() for c in self.changes],
        }


def _sent(prompt: Prompt, index: int) -> Any:
    return None if prompt.error is not None else prompt.visible_content(index)


def compare(inspection: Inspection, a: Thresholds, b: Thresholds, replanner: Replanner | None = None) -> Comparison:
    """Two thresholds on one chat under the inspection's strategies and version."""
    rp = replanner or Replanner(inspection)
    return _compared(inspection, a, b, rp.prompt(a.key()), rp.prompt(b.key()), "", "")


def compare_plans(a: Inspection, b: Inspection, replanner: Replanner | None = None) -> Comparison:
    """Two plans of one chat that may differ in everything: thresholds, strategies, scout-ai version
    (the app's A/B after a strategy or version switch). ``replanner``: B's, to reuse its cached plans."""
    pa = a.prompt()
    # B's replanner plans scout-ai's strategies: under another framework's policy B plans itself
    pb = replanner.prompt(b.thresholds.key()) if replanner is not None and b.policy is None else b.prompt()
    label_a, label_b = plan_label(a, pa), plan_label(b, pb)
    if label_a == label_b:
        label_a = label_b = ""
    return _compared(b, a.thresholds, b.thresholds, pa, pb, label_a, label_b)


def plan_label(inspection: Inspection, prompt: Prompt) -> str:
    if isinstance(prompt.planner, PeerPlan):  # another framework's policy: its name and the settings given
        return prompt.planner.spec_label
    return f"{prompt.strategy_label} (scout-ai {prompt.version or inspection.version.name})"


def _compared(
    inspection: Inspection, a: Thresholds, b: Thresholds, pa: Prompt, pb: Prompt, label_a: str, label_b: str
) -> Comparison:
    result = Comparison(a, b, totals_a=pa.totals(), totals_b=pb.totals(), plan_a=label_a, plan_b=label_b)
    facts = inspection.facts
    changed = pa.changed_from(pb)
    candidates: Iterable[int] = range(len(inspection.chat.messages)) if changed is None else changed
    numbers = RowNumbers.of(inspection.chat)
    for index in candidates:
        tier_a, tier_b = pa.tier_of(index), pb.tier_of(index)
        va, vb = _sent(pa, index), _sent(pb, index)
        if tier_a == tier_b and (va is vb or va == vb):
            continue
        name, ident = facts.identity(index)
        message = inspection.chat.messages[index]
        result.changes.append(
            Change(
                numbers.row_of_message(index),
                index,
                message.fields.get("role"),
                name,
                ident,
                tier_a,
                tier_b,
                chars_of(va),
                chars_of(vb),
            )
        )
    return result
