"""What every planner gives the rest of the inspector: the prepared list and a decision per message.

scout-ai's ``shorten_tools`` (ShortenToolsPlan), its epoch strategies (windows.WindowPlan), ``none``
(windows.Unchanged) and any chain of strategies and plugins (scout.chain.ChainPlan) answer through
these methods; a ``Prompt`` holds exactly one of them. What the analyses need of a plan (the sizes,
the positions whose tier differs from another plan's) is asked here too, so nothing outside a planner
reads its private fields.
"""

from __future__ import annotations

from typing import Any, Protocol

from inspector.core.errors import ScoutError
from inspector.core.model import Message
from inspector.core.policies import decision as d

Sizes = tuple[int, int, int, int, int]  # characters before, tool characters before, after, tool after, sent


class Planner(Protocol):
    error: ScoutError | None

    def messages(self) -> list[Message]:
        """The prepared messages, oldest first (a notice a strategy inserts included; empty when it raises)."""

    def origins(self) -> list[int]:
        """For each prepared message, the original index it came from (-1: inserted)."""

    def inserted(self) -> list[tuple[int, Message]]:
        """Messages the planner added (a compaction notice), with their place in the prepared list."""

    def decision(self, index: int) -> d.Decision: ...

    def decisions(self) -> list[d.Decision]: ...

    def decision_columns(self) -> d.DecisionColumns:
        """``decisions()`` as columns (no object per message where the planner can give them so)."""

    def tier_of(self, index: int) -> d.Tier: ...

    def visible_content(self, index: int) -> Any: ...

    def tier_counts(self) -> dict[d.Tier, int]: ...

    def sizes(self, chars_before: int | None = None) -> Sizes:
        """Characters before, tool characters before, characters after, tool characters after, messages
        sent. ``chars_before``: every original message's characters, when the caller has them counted."""

    def changed_from(self, other: Planner) -> list[int] | None:
        """The original indices whose outcome may differ in ``other`` (None: any may; ask each)."""


class PlannerBase:
    """The methods a planner can derive from the others (a planner with a faster way overrides them)."""

    error: ScoutError | None = None

    def messages(self) -> list[Message]:
        raise NotImplementedError

    def origins(self) -> list[int]:
        raise NotImplementedError

    def decisions(self) -> list[d.Decision]:
        raise NotImplementedError

    def inserted(self) -> list[tuple[int, Message]]:
        return [(i, m) for i, (o, m) in enumerate(zip(self.origins(), self.messages())) if o < 0]

    def decision_columns(self) -> d.DecisionColumns:
        return d.DecisionColumns.of(self.decisions())

    def changed_from(self, other: Planner) -> list[int] | None:
        return None
