"""The plan cache the analysis tools share (why, sweep chart, A/B compare, audit).

Every answer comes from inspector.core (trace, fixes, sweep, compare, audit), computed in
thread workers owned by the widget or screen that shows it. They share one Replanner per
chat on screen and setup (strategies, version), so cached plans are reused, re-based on the
thresholds planned each time it is handed out.
"""

from __future__ import annotations

from inspector.core.analysis.replan import Replanner
from inspector.core.inspection import Inspection
from inspector.core.model import Chat
from inspector.core.setup import Setup


class Replanners:
    """Hands out the Replanner for the chat and setup on screen, rebuilt only when they change."""

    def __init__(self) -> None:
        self._replanner: Replanner | None = None
        self._chat: Chat | None = None
        self._setup: Setup | None = None

    def get(self, inspection: Inspection) -> Replanner:
        found = self._replanner
        if found is None or self._chat is not inspection.chat or self._setup != inspection.setup:
            # another chat (a reload, a call), strategy list or version plans differently: its plans are no use
            found = self._replanner = Replanner(inspection)
            self._chat, self._setup = inspection.chat, inspection.setup
        return found.rebased(inspection.thresholds)
