"""What every strategy planner gives the rest of the inspector: the prepared list and a decision per message.

``shorten_tools`` (ShortenToolsPlan), the epoch strategies (windows.WindowPlan) and ``none``
(windows.Unchanged) answer through these methods; prepare.Prompt wraps one of them, or the
message-by-message chain for plugins and mixed lists.
"""

from __future__ import annotations

from typing import Any, Protocol

from inspector.core.errors import ScoutError
from inspector.core.model import Message
from inspector.core.scout import decision as d


class Planner(Protocol):
    error: ScoutError | None

    def messages(self) -> list[Message]:
        """The prepared messages, oldest first (a notice a strategy inserts included)."""

    def origins(self) -> list[int]:
        """For each prepared message, the original index it came from (-1: inserted)."""

    def decision(self, index: int) -> d.Decision: ...

    def decisions(self) -> list[d.Decision]: ...

    def tier_of(self, index: int) -> d.Tier: ...

    def visible_content(self, index: int) -> Any: ...

    def tier_counts(self) -> dict[d.Tier, int]: ...

    def sizes(self) -> tuple[int, int, int, int, int]:
        """Characters before, tool characters before, characters after, tool characters after, messages sent."""
