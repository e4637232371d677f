"""What happened to one original message, and why."""

from __future__ import annotations

from array import array
from collections.abc import Mapping
from enum import StrEnum
from typing import NamedTuple


class ToolKind(StrEnum):
    """A message read as a tool call, a tool output, or neither (then it equals "")."""

    CALL = "call"
    OUTPUT = "output"
    NONE = ""


class Tier(StrEnum):
    """What happened to a message (a StrEnum: equal to its string, printed as it)."""

    FULL = "full"
    TRUNCATED = "truncated"
    DROPPED = "dropped"
    CONSUMED = "consumed"  # removed or rewritten before the strategies ran
    ERROR = "error"  # scout-ai raises on this message
    UNDECIDED = "undecided"  # scout-ai raised on another message: nothing is sent, no decision took effect
    INSERTED = "inserted"  # added by a strategy (the epoch strategies' compaction notice): not in the chat
    INJECTED = "injected"  # appended by 2.x's inbox from a file: rebuilt from inbox_removed/, approximate
    CLEARED = "cleared"  # another framework's policy sent a placeholder instead: none of the text is seen


class Reason(StrEnum):
    """The rule that decided a message's tier, as reported in `explain` (`reason`)."""

    RECENT = "recent_band"
    BUDGET = "under_budget"
    BEYOND_MAX = "beyond_max"
    MIDDLE = "middle_band"
    NOTHING = "nothing_to_shorten"
    NOT_TOOL = "not_tool"
    NO_CONTENT = "no_content"
    SCOUT_ERROR = "scout_error"
    NOT_REACHED = "not_reached"
    NO_STRATEGY = "no_strategy"
    CUSTOM = "custom_strategy"
    # shorten_tools_epoch
    EPOCH_UNDER = "epoch_under_threshold"
    EPOCH_FULL = "epoch_full"
    EPOCH_PROTECTED = "epoch_protected"
    EPOCH_COMPACTED = "epoch_compacted"
    EPOCH_NOTHING = "epoch_nothing_to_shorten"
    EPOCH_DROPPED = "epoch_dropped"
    EPOCH_UNPARSED = "epoch_unparsed"
    # the other frameworks' policies (the rule in the library's own terms is the decision's detail)
    POLICY_KEPT = "policy_kept"
    POLICY_CHANGED = "policy_changed"
    POLICY_CLEARED = "policy_cleared"
    POLICY_DROPPED = "policy_dropped"
    POLICY_RAISED = "policy_raised"
    # decided before scout-ai raised on another message, so never sent (last: the other codes stay put)
    DISCARDED = "discarded"


# Short module-level names: the plans refer to these in their hot loops.
FULL, TRUNCATED, DROPPED, CONSUMED = Tier.FULL, Tier.TRUNCATED, Tier.DROPPED, Tier.CONSUMED
ERROR, UNDECIDED = Tier.ERROR, Tier.UNDECIDED
INSERTED, INJECTED, CLEARED = Tier.INSERTED, Tier.INJECTED, Tier.CLEARED
TIERS = tuple(Tier)

RECENT, BUDGET, BEYOND_MAX, MIDDLE = Reason.RECENT, Reason.BUDGET, Reason.BEYOND_MAX, Reason.MIDDLE
NOTHING, NOT_TOOL, NO_CONTENT = Reason.NOTHING, Reason.NOT_TOOL, Reason.NO_CONTENT
SCOUT_ERROR, NOT_REACHED, NO_STRATEGY, CUSTOM = (
    Reason.SCOUT_ERROR,
    Reason.NOT_REACHED,
    Reason.NO_STRATEGY,
    Reason.CUSTOM,
)
EPOCH_UNDER, EPOCH_FULL, EPOCH_PROTECTED = Reason.EPOCH_UNDER, Reason.EPOCH_FULL, Reason.EPOCH_PROTECTED
EPOCH_COMPACTED, EPOCH_NOTHING, EPOCH_DROPPED = Reason.EPOCH_COMPACTED, Reason.EPOCH_NOTHING, Reason.EPOCH_DROPPED
EPOCH_UNPARSED = Reason.EPOCH_UNPARSED

REASON_TEXT: dict[str, str] = {
    RECENT: "recent-N band",
    BUDGET: "under the character budget",
    BEYOND_MAX: "beyond the max count",
    MIDDLE: "middle band",
    NOTHING: "nothing to shorten",
    NOT_TOOL: "not a tool message",
    NO_CONTENT: "tool message without content",
    SCOUT_ERROR: "scout-ai raises here",
    NOT_REACHED: "not reached (scout-ai raised on a newer message)",
    NO_STRATEGY: "no strategy applied",
    CUSTOM: "changed by a custom strategy",
    EPOCH_UNDER: "epoch: tool outputs at or under epoch_tool_call_threshold (or the epoch strategy is off)",
    EPOCH_FULL: "epoch: in the full window (new since the epoch boundary plus epoch_full_tool_calls)",
    EPOCH_PROTECTED: "epoch: newest instance of a repeated call (same name and arguments), protected",
    EPOCH_COMPACTED: "epoch: in the compacted window, shortened",
    EPOCH_NOTHING: "epoch: in the compacted window, but nothing long enough to shorten",
    EPOCH_DROPPED: "epoch: older than the compacted window, removed",
    EPOCH_UNPARSED: "epoch: content is not a JSON value, kept as is and not counted",
    Reason.POLICY_KEPT: "kept by the policy",
    Reason.POLICY_CHANGED: "changed by the policy (part of the text kept)",
    Reason.POLICY_CLEARED: "replaced by the policy's placeholder (none of the text kept)",
    Reason.POLICY_DROPPED: "removed by the policy",
    Reason.POLICY_RAISED: "the library raises: nothing is sent",
    Reason.DISCARDED: "decided, then discarded: scout-ai raised on another message, so nothing is sent",
}


class Decision(NamedTuple):
    """A tuple, not a frozen dataclass: a plan builds 20,000 of them in a few milliseconds."""

    index: int  # type: ignore[assignment]  # shadows tuple.index, which nothing here calls
    tier: Tier
    reason: str  # a Reason, or a consumed message's step
    outputs_counted: int | None  # function_call_output messages counted, newest first, at this point
    tool_chars_before: int | None  # tool characters kept before this message was decided
    original_chars: int
    visible_chars: int
    kind: ToolKind = ToolKind.NONE
    detail: str = ""  # the step and line for consumed messages, the exception for errors


REASONS = tuple(Reason)
TIER_CODE = {t: i for i, t in enumerate(TIERS)}
REASON_CODE = {r: i for i, r in enumerate(REASONS)}
NO_COUNT = -1  # a counter column's None (counters and sizes are never negative)


class DecisionColumns:
    """Every message's decision as columns (codes and machine integers, no object per message):
    what `explain` reads to write a million rows. ``decision(i)`` gives the typed Decision back.

    ``tiers``/``reasons`` index TIERS/REASONS; ``counted``/``before`` hold NO_COUNT for None;
    ``details`` holds the non-empty details by index; ``kinds`` the ToolKind of each message.
    """

    __slots__ = ("before", "counted", "details", "kinds", "original", "reasons", "tiers", "visible")

    def __init__(
        self,
        tiers: bytearray,
        reasons: bytearray,
        counted: array[int],
        before: array[int],
        original: array[int],
        visible: array[int],
        kinds: list[ToolKind],
        details: Mapping[int, str],
    ) -> None:
        self.tiers, self.reasons, self.kinds, self.details = tiers, reasons, kinds, details
        self.counted, self.before, self.original, self.visible = counted, before, original, visible

    def __len__(self) -> int:
        return len(self.tiers)

    def decision(self, index: int) -> Decision:
        counted, before = self.counted[index], self.before[index]
        return Decision(
            index,
            TIERS[self.tiers[index]],
            REASONS[self.reasons[index]],
            None if counted == NO_COUNT else counted,
            None if before == NO_COUNT else before,
            self.original[index],
            self.visible[index],
            self.kinds[index],
            self.details.get(index, ""),
        )

    @classmethod
    def of(cls, decisions: list[Decision]) -> DecisionColumns:
        """The columns of decisions made one by one (the chain and the epoch planners)."""
        tier_code, reason_code = TIER_CODE, REASON_CODE
        return cls(
            bytearray(tier_code[x.tier] for x in decisions),
            bytearray(reason_code[x.reason] for x in decisions),  # type: ignore[index]
            array("q", [NO_COUNT if x.outputs_counted is None else x.outputs_counted for x in decisions]),
            array("q", [NO_COUNT if x.tool_chars_before is None else x.tool_chars_before for x in decisions]),
            array("q", [x.original_chars for x in decisions]),
            array("q", [x.visible_chars for x in decisions]),
            [x.kind for x in decisions],
            {x.index: x.detail for x in decisions if x.detail},
        )


# What a row had been decided stays in its detail: the rule is still worth reading when the raise is fixed.
_KEPT_TIERS = (Tier.ERROR, Tier.UNDECIDED, Tier.CONSUMED, Tier.INSERTED, Tier.INJECTED)


def discarded_tier(tier: Tier) -> Tier:
    """``discarded``'s tier: a message the strategy had decided is undecided when the plan raises."""
    return tier if tier in _KEPT_TIERS else Tier.UNDECIDED


def discarded(decision: Decision, raised_at: int) -> Decision:
    """``decision`` in a plan that raised on message ``raised_at``: scout-ai sends nothing, so no message
    is full, truncated or dropped; one the strategy had decided before the raise is undecided, with
    what it had been decided in its detail."""
    if decision.tier in _KEPT_TIERS:
        return decision
    return decision._replace(
        tier=Tier.UNDECIDED,
        reason=Reason.DISCARDED,
        visible_chars=0,
        detail=_discarded_detail(decision.tier, decision.reason, raised_at),
    )


def discarded_columns(columns: DecisionColumns, raised_at: int) -> DecisionColumns:
    """``discarded`` over every row of ``columns`` (a new set of columns: the plan's own stay as made)."""
    kept = {TIER_CODE[t] for t in _KEPT_TIERS}
    tiers, reasons, details = bytearray(columns.tiers), bytearray(columns.reasons), dict(columns.details)
    visible = array("q", columns.visible)
    undecided, reason = TIER_CODE[Tier.UNDECIDED], REASON_CODE[Reason.DISCARDED]
    for index, code in enumerate(columns.tiers):
        if code in kept:
            continue
        details[index] = _discarded_detail(TIERS[code], REASONS[columns.reasons[index]], raised_at)
        tiers[index], reasons[index], visible[index] = undecided, reason, 0
    return DecisionColumns(
        tiers, reasons, columns.counted, columns.before, columns.original, visible, columns.kinds, details
    )


def discarded_counts(counts: Mapping[Tier, int]) -> dict[Tier, int]:
    """A raising plan's messages per tier: the error, and every decided message undecided."""
    out = {tier: (n if tier in _KEPT_TIERS else 0) for tier, n in counts.items()}
    out[Tier.UNDECIDED] = out.get(Tier.UNDECIDED, 0) + sum(n for t, n in counts.items() if t not in _KEPT_TIERS)
    return out


def _discarded_detail(tier: str, reason: str, raised_at: int) -> str:
    rule = REASON_TEXT.get(reason, reason)
    return f"decided {tier} ({rule}) before scout-ai raised on message {raised_at}, so nothing is sent"
