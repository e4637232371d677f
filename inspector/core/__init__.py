"""The UI-free core: loading, planning, explaining, exporting.

Nothing under this package may import textual or rich (a subprocess test keeps it so).

The public Python API is the names below (``from inspector.core import open_inspection, Setup``)::

    inspection = open_inspection("run.chat", Setup.of(strategies="shorten_tools_epoch"))
    prompt = inspection.prompt()          # a Prompt: one Decision per original message
    prompt.totals()                       # messages, characters and tiers, before and after

``open_inspection`` reads a chat whole; ``open_history`` steps through it call by call (``at(n)``: the
chat just before model call n). Both take a ``ChatSource`` (or a path) and a ``Setup``.

They are imported when first used (PEP 562): ``import inspector.core`` stays cheap, since loading the
engine costs tens of milliseconds that a command needing one module should not pay.
"""

from __future__ import annotations

from importlib import import_module

TYPE_CHECKING = False  # not typing's: importing typing would cost more than the rest of this module
if TYPE_CHECKING:  # the names as the type checker sees them; at run time __getattr__ imports them
    from typing import Any

    from inspector.core.calls.history import ChatHistory, open_history
    from inspector.core.inspection import Inspection, open_inspection
    from inspector.core.policies.decision import Decision, Tier
    from inspector.core.policies.planner import Planner
    from inspector.core.scout.prepare import Prompt
    from inspector.core.scout.strategies import register_strategy
    from inspector.core.setup import ChatSource, Setup

__all__ = [
    "ChatHistory",
    "ChatSource",
    "Decision",
    "Inspection",
    "Planner",
    "Prompt",
    "Setup",
    "Tier",
    "open_history",
    "open_inspection",
    "register_strategy",
]

# each public name, and the module that defines it
_HOMES = {
    "ChatHistory": "inspector.core.calls.history",
    "open_history": "inspector.core.calls.history",
    "Inspection": "inspector.core.inspection",
    "open_inspection": "inspector.core.inspection",
    "Decision": "inspector.core.policies.decision",
    "Tier": "inspector.core.policies.decision",
    "Planner": "inspector.core.policies.planner",
    "Prompt": "inspector.core.scout.prepare",
    "register_strategy": "inspector.core.scout.strategies",
    "ChatSource": "inspector.core.setup",
    "Setup": "inspector.core.setup",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(home), name)
    globals()[name] = value  # the next access is a plain module attribute
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
