"""Settings written back for scout-ai: environment lines and etc/config lines that read back to the same values."""

from __future__ import annotations

from inspector.core.scout.settings import Thresholds


def value_text(value: int | float) -> str:
    """A value as scout-ai reads it back: Ruby's to_i of an integer, to_f of a float (repr round-trips)."""
    return repr(float(value)) if isinstance(value, float) else str(value)


def as_env(values: Thresholds, keys: list[str]) -> str:
    """``KEY=VALUE`` lines (scout-ai's env: names are the keys in capitals)."""
    return "".join(f"{key.upper()}={value_text(values.setting(key))}\n" for key in keys)


def as_scout_config(values: Thresholds, keys: list[str]) -> str:
    """``key value prompt`` lines for an etc/config file: scout-ai asks Scout::Config.get(key, :prompt, :context)."""
    return "".join(f"{key} {value_text(values.setting(key))} prompt\n" for key in keys)
