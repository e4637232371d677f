"""Settings written back for scout-ai: environment lines and etc/config lines that read back to the same values.

A value that follows another (``max_tool_outputs`` left to follow ``max_tool_calls``) is not written: a
line would pin it. The strategy list is written when it differs from the version's default and the
version reads it from the environment or the config (2.x: ``PROMPT_STRATEGY``, ``prompt_strategies``);
before 2.x only the chat chooses it (``option: prompt_strategies``), so no line could carry it.
"""

from __future__ import annotations

from inspector.core.scout import versions
from inspector.core.scout.settings import STRATEGY_TOKENS, Thresholds
from inspector.core.scout.strategies import parse_spec


def value_text(value: int | float | str) -> str:
    """A value as scout-ai reads it back: Ruby's to_i of an integer, to_f of a float (repr round-trips); a
    policy's name or other text as it is."""
    return repr(float(value)) if isinstance(value, float) else str(value)


def written_keys(values: Thresholds, keys: list[str]) -> list[str]:
    """The keys to write: a following max_tool_outputs is left out (scout-ai then follows it too)."""
    return [k for k in keys if not (k == "max_tool_outputs" and values.follows())]


def strategy_to_write(strategies: str | None, version: versions.ScoutVersion) -> str | None:
    """The strategy list a settings file should carry, or None (the version's default, or a version that
    reads the list from the chat only)."""
    if strategies is None or not version.strategies_from_config:
        return None
    names = parse_spec(strategies, version.default, validate=False)
    if callable(names) or tuple(names) == tuple(version.default):
        return None
    return ",".join(names)


def as_env(values: Thresholds, keys: list[str], strategies: str | None = None) -> str:
    """``KEY=VALUE`` lines (scout-ai's env: names are the keys in capitals); ``strategies``: what
    ``strategy_to_write`` chose, as ``PROMPT_STRATEGY``."""
    lines = [f"{key.upper()}={value_text(values.setting(key))}\n" for key in written_keys(values, keys)]
    if strategies is not None:
        lines.append(f"PROMPT_STRATEGY={strategies}\n")
    return "".join(lines)


def as_scout_config(values: Thresholds, keys: list[str], strategies: str | None = None) -> str:
    """``key value prompt`` lines for an etc/config file: scout-ai asks Scout::Config.get(key, :prompt, :context);
    ``strategies`` as ``prompt_strategies LIST chat`` (Scout::Config.get(:prompt_strategies, :chat, :scout_ai))."""
    lines = [f"{key} {value_text(values.setting(key))} prompt\n" for key in written_keys(values, keys)]
    if strategies is not None:
        lines.append(f"prompt_strategies {strategies} {STRATEGY_TOKENS[0]}\n")
    return "".join(lines)
