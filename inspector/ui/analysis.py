"""The open chat as the analysis tools see it (why, sweep chart, A/B compare, audit).

Every answer comes from inspector.core (trace, fixes, sweep, compare, audit), computed in
thread workers owned by the widget or screen that shows it. They share one Replanner per
open chat and strategy list, so cached plans are reused, re-based on the thresholds in
force each time it is handed out.
"""

from __future__ import annotations

from inspector.core.analysis.replan import Replanner
from inspector.core.inspection import Inspection
from inspector.core.scout.settings import Thresholds


class Replanners:
    """Hands out the Replanner for the chat and strategies in force, rebuilt only when they change."""

    def __init__(self) -> None:
        self._replanner: Replanner | None = None
        self._for: tuple = ()

    def get(self, base: Inspection, thresholds: Thresholds, strategies: str | None) -> Replanner:
        key = (base, strategies)
        if self._replanner is None or self._for != key:
            # a reload or another strategy list plans differently: the cached plans are no use
            self._replanner = Replanner(base.with_setup(base.setup.with_strategies(strategies), thresholds))
            self._for = key
        return self._replanner.rebased(thresholds)
