"""The figures of one plan: messages and characters before and after, per tier.

One type for every place that shows them: the app's header, `explain`'s summary line and
JSON, `diff` and the A/B view.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from inspector.core.policies.decision import Tier
from inspector.core.tokens import estimate_chars

ALWAYS_SHOWN = (Tier.FULL, Tier.TRUNCATED, Tier.DROPPED)  # listed even at zero


@dataclass(frozen=True, slots=True)
class Totals:
    messages: int  # original messages (consumed ones included once `with_consumed` counted them)
    visible_messages: int  # messages sent (0 when scout-ai raises)
    tiers: dict[Tier, int]  # messages per tier, every tier present
    chars_before: int
    chars_after: int  # characters sent (0 when scout-ai raises)
    tool_chars_before: int
    tool_chars_after: int
    error: str | None = None  # what scout-ai raises, when it does

    @property
    def tokens_before(self) -> int:
        return estimate_tokens(self.chars_before)

    @property
    def tokens_after(self) -> int:
        return estimate_tokens(self.chars_after)

    def shown_tiers(self) -> dict[Tier, int]:
        """Tiers worth listing, in tier order: the non-empty ones plus full, truncated and dropped."""
        return {t: n for t, n in self.tiers.items() if n or t in ALWAYS_SHOWN}

    def with_consumed(self, count: int, chars: int) -> Totals:
        """The same plan counted per row: messages consumed before the strategies ran are included."""
        tiers = dict(self.tiers)
        tiers[Tier.CONSUMED] = count
        return replace(self, messages=self.messages + count, tiers=tiers, chars_before=self.chars_before + chars)

    def as_dict(self) -> dict[str, object]:
        """The JSON summary (`explain --format json`, `diff --format json`)."""
        out: dict[str, object] = {
            "messages": self.messages,
            "tiers": {str(t): n for t, n in self.shown_tiers().items()},
            "chars_before": self.chars_before,
            "chars_after": self.chars_after,
            "tool_chars_before": self.tool_chars_before,
            "tool_chars_after": self.tool_chars_after,
            "visible_messages": self.visible_messages,
        }
        if self.error is not None:
            out["error"] = self.error
        return out


def tier_counts(counts: dict[Tier, int]) -> dict[Tier, int]:
    """Every tier, in tier order, with the given counts (missing ones are 0)."""
    return {t: counts.get(t, 0) for t in Tier}


def estimate_tokens(chars: int) -> int:
    """A rough estimate (about 4 characters per token); never shown without saying so (the ``estimate``
    tokenizer of ``core.tokens``, its one source)."""
    return estimate_chars(chars)
