"""The chat on screen as one frozen value, and the pure functions that plan it (run in workers).

``Document`` is what the list, the header and every analysis show: the chat (whole or at a call)
under the settings it was planned with. It is replaced whole, never patched, so a worker that was
handed one plans exactly what was on screen when it started, and every answer (why, the strip, the
sweep chart, A/B, the audit, an export) is about the plan the list shows.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from inspector.core.calls.changes import TierChange, changes_since_previous
from inspector.core.calls.history import ChatHistory
from inspector.core.calls.timeline import CallSettings
from inspector.core.inspection import Inspection
from inspector.core.peers.registry import PolicySettings, settings_for
from inspector.core.present.rows import RowModel, RowOrder, filter_rows, rows_at, summary_totals
from inspector.core.scout.prepare import Prompt
from inspector.core.scout.settings import Thresholds
from inspector.core.scout.totals import Totals
from inspector.core.setup import Setup


@dataclass(frozen=True, slots=True)
class Settings:
    """What the user asks the plan to be made under: the editor's values and the strategy list (None:
    the chat's choice), or another framework's policy (None: scout-ai's strategies) and the setup's
    overrides (scout-ai's --set values, or under a policy its settings as typed). The scout-ai version
    is part of the history's setup."""

    thresholds: Thresholds
    strategies: str | None
    policy: str | None = None
    overrides: tuple[tuple[str, str], ...] = ()

    def policy_settings(self) -> PolicySettings | None:
        """The policy asked for with its settings (None: scout-ai's strategies); checked when asked for."""
        return settings_for(self.policy, dict(self.overrides)) if self.policy is not None else None


def setup_under(setup: Setup, settings: Settings) -> Setup:
    """``setup`` (a history's) under the policy and overrides ``settings`` asks for: itself when they agree."""
    if (setup.policy, setup.overrides) == (settings.policy, settings.overrides):
        return setup
    return setup.with_policy(settings.policy, dict(settings.overrides))


def history_under(history: ChatHistory, settings: Settings) -> ChatHistory:
    """The history with ``settings``' policy: every call, a reload and the follow plan under it."""
    return history.with_setup(setup_under(history.setup, settings))


@dataclass(frozen=True, slots=True)
class RowFilter:
    """Which rows the list shows (None: any) and in what order."""

    tier: str | None = None
    role: str | None = None
    tool: str | None = None
    min_chars: int | None = None  # at least this many original characters
    order: RowOrder = RowOrder.FILE

    def order_of(self, rows: RowModel, prompt: Prompt) -> list[int] | None:
        return filter_rows(rows, prompt, self.tier, self.role, self.tool, self.min_chars, self.order)

    @property
    def active(self) -> bool:
        """Whether some rows are hidden (an order alone hides none)."""
        return bool(self.tier or self.role or self.tool or self.min_chars is not None)


@dataclass(frozen=True, slots=True)
class Document:
    history: ChatHistory
    call: int | None  # the call on screen (None: the whole chat, what the next call would send)
    inspection: Inspection  # the chat on screen under the settings planned
    loaded: Thresholds  # what the chat on screen resolved to at load: what u returns to
    rows: RowModel
    prompt: Prompt
    totals: Totals
    order: list[int] | None  # the rows the filter shows (None: all)
    changes: Mapping[int, TierChange] = field(default_factory=dict)  # row -> its tier change since the call before

    @property
    def settings(self) -> Settings:
        setup = self.history.setup
        return Settings(self.inspection.thresholds, self.inspection.strategies, setup.policy, setup.overrides)

    @property
    def thresholds(self) -> Thresholds:
        return self.inspection.thresholds

    @property
    def strategies(self) -> str | None:
        return self.inspection.strategies

    @property
    def edited(self) -> bool:
        """Whether the thresholds differ from the loaded ones: then every call is planned under them; else
        each call under its own chat's config lines, as scout-ai ran it."""
        return self.thresholds.key() != self.loaded.key()

    def call_settings(self) -> CallSettings:
        """What the strip and why's timelines plan every call under: what stepping to a call plans it under.
        Under another framework's policy each call is planned by the history's setup (the policy)."""
        if self.history.setup.policy is not None:
            return CallSettings()
        return CallSettings(self.thresholds if self.edited else None, self.strategies)

    def plan_key(self) -> tuple[object, ...]:
        """What every call is planned under, the policy included (two keys equal: the same timelines)."""
        setup = self.history.setup
        return (self.call_settings().key(), setup.policy, setup.overrides if setup.policy is not None else ())


def open_document(history: ChatHistory, settings: Settings | None, row_filter: RowFilter) -> Document:
    """The whole chat of a history just read; ``settings``: keep these (a reload), else the loaded ones."""
    whole = history.whole
    settings = settings or Settings(whole.thresholds, whole.strategies, history.setup.policy, history.setup.overrides)
    return plan_call(history, None, settings, row_filter, True)


def plan_call(
    history: ChatHistory, number: int | None, settings: Settings, row_filter: RowFilter, edited: bool
) -> Document:
    """The chat before call ``number`` (None: the whole chat), planned under ``settings`` when ``edited``,
    else under the call's own thresholds (its chat's config lines), as scout-ai ran it."""
    history = history_under(history, settings)
    base = history.whole if number is None else history.at(number)
    thresholds = settings.thresholds if edited else base.thresholds
    inspection = base.with_setup(base.setup.with_strategies(settings.strategies), thresholds)
    rows = rows_at(history, number, base)
    prompt = inspection.prompt()
    doc = Document(
        history,
        number,
        inspection,
        base.thresholds,
        rows,
        prompt,
        summary_totals(rows, prompt),
        row_filter.order_of(rows, prompt),
    )
    if number is None:
        return doc
    found = changes_since_previous(history, number, doc.call_settings())
    return replace(doc, changes={rows.numbers.row_of_message(c.index): c for c in found})


def replan(doc: Document, settings: Settings, row_filter: RowFilter) -> Document:
    """The same chat under other settings (one pass over the cached facts); another policy: the history
    takes it too (every call is then planned under it)."""
    base = doc.inspection
    history = history_under(doc.history, settings)
    setup = setup_under(base.setup, settings).with_strategies(settings.strategies)
    inspection = base.with_setup(setup, settings.thresholds)
    prompt = inspection.prompt()  # a raising plugin goes to the worker's failure handler
    planned = replace(
        doc,
        history=history,
        inspection=inspection,
        prompt=prompt,
        totals=summary_totals(doc.rows, prompt),
        order=row_filter.order_of(doc.rows, prompt),
    )
    if doc.call is None:
        return planned
    found = changes_since_previous(planned.history, doc.call, planned.call_settings())
    return replace(planned, changes={doc.rows.numbers.row_of_message(c.index): c for c in found})


def refiltered(doc: Document, row_filter: RowFilter) -> Document:
    return replace(doc, order=row_filter.order_of(doc.rows, doc.prompt))
