"""The chats added up per setting: totals, means, the worst chat, the Pareto frontier, and gates.

- ``chats``: the chats read; ``errors``: the chats that could not be read plus those on which scout-ai
  raises at some call under the setting; ``calls``, ``chars``, ``refetches``, ``losses``: summed over the
  chats read; ``tokens``: the sum of each chat's estimate (characters / 4).
- ``mean_chars`` / ``mean_refetches``: per chat read; ``worst``: the chat with the most refetches (then
  the most losses, then the most characters, then the first path).
- ``pareto``: no other setting has fewer or equal chars and refetches with one of them fewer.
- ``best_within_cost``: the setting with the fewest refetches among those whose chars are at most the
  current setting's (ties: fewer chars, then the first in grid order).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from inspector.core.corpus.grid import Setting, Value
from inspector.core.corpus.score import ChatScore
from inspector.core.errors import UsageError

METRICS = ("refetches", "losses", "chars", "tokens")
GATE_METRICS = METRICS + tuple(f"{m}_per_call" for m in METRICS)


@dataclass(frozen=True, slots=True)
class SettingSummary:
    setting: Setting
    values: tuple[tuple[str, Value | str], ...]  # every setting in force, by its --set key
    chats: int
    calls: int
    chars: int
    tokens: int
    refetches: int
    losses: int
    losses_by_probe: tuple[int, ...]
    errors: int
    mean_chars: float
    mean_refetches: float
    worst: str | None
    pareto: bool = False

    def metric(self, name: str) -> float:
        """A gate's metric: a total, or ``NAME_per_call`` its mean per call."""
        base, per_call = (name[: -len("_per_call")], True) if name.endswith("_per_call") else (name, False)
        total = float(getattr(self, base))
        return (total / self.calls if self.calls else 0.0) if per_call else total


def summarize(
    settings: tuple[Setting, ...],
    values: list[tuple[tuple[str, Value | str], ...]],
    chats: list[ChatScore],
    probes: int,
) -> list[SettingSummary]:
    out = []
    failed = sum(1 for c in chats if not c.read)
    read = [c for c in chats if c.read]
    for k, setting in enumerate(settings):
        scores = [(c, c.per_setting[k]) for c in read]
        chars = sum(s.chars for _, s in scores)
        refetches = sum(s.refetches for _, s in scores)
        by_probe = tuple(sum(s.losses[p] for _, s in scores) for p in range(probes))
        worst = max(
            scores, key=lambda cs: (cs[1].refetches, cs[1].lost, cs[1].chars, _Reverse(cs[0].path)), default=None
        )
        out.append(
            SettingSummary(
                setting,
                values[k],
                len(read),
                sum(c.calls for c in read),
                chars,
                sum(s.tokens for _, s in scores),
                refetches,
                sum(by_probe),
                by_probe,
                failed + sum(1 for _, s in scores if s.raises),
                chars / len(read) if read else 0.0,
                refetches / len(read) if read else 0.0,
                worst[0].path if worst is not None else None,
            )
        )
    return [_with_pareto(s, out) for s in out]


class _Reverse:
    """Orders paths backwards, so ``max`` picks the first path among equals."""

    __slots__ = ("path",)

    def __init__(self, path: str):
        self.path = path

    def __lt__(self, other: _Reverse) -> bool:
        return self.path > other.path

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Reverse) and self.path == other.path

    def __hash__(self) -> int:
        return hash(self.path)


def _with_pareto(s: SettingSummary, all_: list[SettingSummary]) -> SettingSummary:
    dominated = any(
        o.chars <= s.chars and o.refetches <= s.refetches and (o.chars, o.refetches) != (s.chars, s.refetches)
        for o in all_
    )
    return replace(s, pareto=not dominated)


def best_within_cost(summaries: list[SettingSummary], current: SettingSummary) -> int | None:
    """The index of the setting with the fewest refetches whose chars are at most the current setting's."""
    fits = [(s.refetches, s.chars, k) for k, s in enumerate(summaries) if s.chars <= current.chars]
    return min(fits)[2] if fits else None


@dataclass(frozen=True, slots=True)
class Gate:
    metric: str
    limit: float
    text: str

    def breach(self, summary: SettingSummary) -> str | None:
        """One line when the setting breaks the gate, else None."""
        value = summary.metric(self.metric)
        if value <= self.limit:
            return None
        shown = f"{value:,.4g}" if self.metric.endswith("_per_call") else f"{int(value):,}"
        return f"gate {self.text} broken: {self.metric} is {shown}"


_GATE = re.compile(r"\s*([a-z_]+)\s*<=\s*([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)\s*")


def parse_gate(text: str) -> Gate:
    """``METRIC<=VALUE``; an unknown metric or another shape is a usage error."""
    found = _GATE.fullmatch(text)
    if found is None:
        raise UsageError(f"--gate expects METRIC<=VALUE (metrics: {', '.join(GATE_METRICS)}), got {text!r}")
    metric, value = found.group(1), found.group(2)
    if metric not in GATE_METRICS:
        raise UsageError(f"--gate: unknown metric {metric!r}; known: {', '.join(GATE_METRICS)}")
    return Gate(metric, float(value), f"{metric}<={value}")
