"""What made a report: the call it is about and the settings in force, written into the report itself.

A report read a week later, or next to another, says which plan it describes: the call (or the whole
chat), scout-ai's version and strategies, or the other framework's policy, and every threshold with where
it came from (the policy's own settings are in the report's policy section).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from inspector.core.inspection import Inspection
from inspector.core.scout.settings import Source, Thresholds, Value, keys_for
from inspector.core.setup import policy_name


@dataclass(frozen=True, slots=True)
class ReportSettings:
    call: int | None  # the model call the plan is the prompt of (None: the whole chat, the next call)
    version: str
    strategies: tuple[str, ...] | None  # None: a plugin's callable
    policy: str | None  # another framework's policy (its settings: the policy section)
    thresholds: tuple[tuple[str, Value], ...]  # each value the strategies in force read, with its source

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "call": self.call,
            "scout_version": self.version,
            "strategies": list(self.strategies) if self.strategies is not None else None,
            "policy": self.policy,
        }
        if self.policy is None:
            out["thresholds"] = {key: value.as_dict() for key, value in self.thresholds}
        return out

    def line(self) -> str:
        at = f"call {self.call}" if self.call is not None else "the whole chat (the next call)"
        if self.policy is not None:
            return f"{at}; policy {self.policy}"
        names = ",".join(self.strategies) if self.strategies is not None else "(a plugin's callable)"
        values = ", ".join(f"{key}={value.value} ({value.describe_source()})" for key, value in self.thresholds)
        return f"{at}; scout-ai {self.version}, strategies {names}; {values}"


def report_settings(inspection: Inspection, call: int | None = None) -> ReportSettings:
    names = inspection.strategy_names()
    values = inspection.thresholds.values
    read = keys_for(names) if names is not None else list(values)  # a plugin may read any of them
    thresholds = tuple((key, values[key]) for key in read if key in values)
    return ReportSettings(
        call,
        inspection.version.name,
        tuple(names) if names is not None else None,
        policy_name(inspection.setup.policy),
        thresholds,
    )


def origin_text(thresholds: Thresholds, keys: list[str]) -> str:
    """Where the values of ``keys`` come from, short, for a header: ``edited: full_tool_outputs · 2 from
    ./etc/config · 1 from --set``; empty when every one is a default (or follows one)."""
    edited: list[str] = []
    counts: dict[str, int] = {}
    for key in keys:
        value = thresholds.values.get(key)
        if value is None or value.source in (Source.DEFAULT, Source.FOLLOWS):
            continue
        if value.source is Source.EDITED:
            edited.append(key)
            continue
        where = {
            Source.OVERRIDE: "--set",
            Source.ENVIRONMENT: "the environment",
            Source.CHAT: "the chat's config lines",
            Source.PRESET: f"preset {value.where}" if value.where else "a preset",
        }.get(value.source, value.where or str(value.source))
        counts[where] = counts.get(where, 0) + 1
    parts = [f"edited: {', '.join(edited)}"] if edited else []
    parts += [f"{n} from {where}" for where, n in counts.items()]
    return " · ".join(parts)
