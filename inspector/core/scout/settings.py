"""The five shorten_tools thresholds, each with the value scout-ai reads and where it came from."""

from __future__ import annotations

import errno
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import Any

from inspector.core.errors import UsageError
from inspector.core.files import CONFIG_LIMIT, Refused, read_regular
from inspector.core.lazy_re import lazy

KEYS = ("full_tool_calls", "full_tool_outputs", "max_tool_calls", "max_tool_outputs", "max_tool_chars")
# Every setting's default as scout-ai has it: the one source. The strategy modules derive theirs from it
# (shorten_tools_epoch.DEFAULTS, EpochSettings, IncrementSettings); tests/test_scout_defaults.py checks them
# against the reference's tables.
DEFAULTS = {
    "full_tool_calls": 0,
    "full_tool_outputs": 10,
    "max_tool_calls": 40,
    "max_tool_outputs": 40,
    "max_tool_chars": 100_000,
}
# The epoch strategies' settings (shorten_tools_epoch reads the first four, the increment all ten).
EPOCH_KEYS = ("epoch_tool_call_threshold", "epoch_full_tool_calls", "epoch_compacted_tool_calls", "epoch_size")
INCREMENT_KEYS = (
    "epoch_increment_epochs_per_increase",
    "epoch_increment_size_increase",
    "epoch_increment_repeat_increase",
    "epoch_increment_max_size",
    "epoch_increment_compacted_growth_ratio",
    "epoch_increment_max_compacted_tool_calls",
)
SETTING_KEYS = KEYS + EPOCH_KEYS + INCREMENT_KEYS
DEFAULTS.update(
    {
        "epoch_tool_call_threshold": 50,
        "epoch_full_tool_calls": 20,
        "epoch_compacted_tool_calls": 80,
        "epoch_size": 20,
        "epoch_increment_epochs_per_increase": 3,
        "epoch_increment_size_increase": 10,
        "epoch_increment_repeat_increase": 10,
        "epoch_increment_max_size": 60,
        "epoch_increment_compacted_growth_ratio": 2.0,  # type: ignore[dict-item]
        "epoch_increment_max_compacted_tool_calls": 160,
    }
)
# which strategy reads which settings
STRATEGY_KEYS = {
    "shorten_tools": KEYS,
    "shorten_tools_epoch": EPOCH_KEYS,
    "shorten_tools_epoch_increment": EPOCH_KEYS + INCREMENT_KEYS,
}
ENV_NAMES = {key: key.upper() for key in SETTING_KEYS}


def keys_for(names: list[str]) -> list[str]:
    """The settings the named strategies read, in the inspector's order."""
    wanted = {key for name in names for key in STRATEGY_KEYS.get(name, ())}
    return [key for key in SETTING_KEYS if key in wanted]


TOKENS = ("prompt", "context")  # Scout::Config.get(key, :prompt, :context, env: ...)

# Ruby String#to_i: leading white space, a sign, ASCII digits with single underscores; else 0.
# (Python's \d also matches other scripts' digits, which Ruby reads as 0: "١٢".to_i == 0.)
_TO_I = lazy(r"[ \t\n\v\f\r]*([+-]?)([0-9]+(?:_[0-9]+)*)", re.ASCII)
_PLAIN = lazy(r"[0-9]+", re.ASCII)
_INTEGER = lazy(r"[ \t]*[+-]?[0-9]+(?:_[0-9]+)*[ \t]*", re.ASCII)  # what --set accepts

# Ruby reads integers of any length; Python refuses to convert more than 4,300 digits (and a million
# digits would cost seconds). Past this many digits a value is read as the largest number of this
# many digits: every count and length the strategies compare it with stays far below either way.
MAX_DIGITS = 4000
HUGE = 10**MAX_DIGITS - 1


def ruby_to_i(text: str) -> int:
    match = _TO_I.match(text)
    if not match:
        return 0
    digits = match.group(2).replace("_", "").lstrip("0") or "0"
    value = int(digits) if len(digits) <= MAX_DIGITS else HUGE
    return -value if match.group(1) == "-" else value


# Ruby String#to_f: leading white space, then the longest decimal prefix; else 0.0.
_TO_F = lazy(
    r"[ \t\n\v\f\r]*([+-]?(?:[0-9]+(?:_[0-9]+)*)?(?:\.[0-9]+(?:_[0-9]+)*)?(?:[eE][+-]?[0-9]+(?:_[0-9]+)*)?)", re.ASCII
)
_PLAIN_FLOAT = lazy(r"[0-9]+(?:\.[0-9]+)?", re.ASCII)
_NUMBER = lazy(r"[ \t]*[+-]?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?[ \t]*", re.ASCII)  # --set of a ratio


def ruby_to_f(text: str) -> float:
    match = _TO_F.match(text)
    body = match.group(1).replace("_", "") if match else ""
    if not any(c in "0123456789" for c in body.split("e")[0].split("E")[0]):
        return 0.0
    if body[-1:] in "eE+-":
        body = body.rstrip("eE+-")
    try:
        return float(body)
    except ValueError:
        return 0.0


def digit_count(text: str) -> int:
    """How many significant digits ``to_i`` reads from ``text`` (to say when a value was capped)."""
    match = _TO_I.match(text)
    return len(match.group(2).replace("_", "").lstrip("0")) if match else 0


def shown(text: str, limit: int = 40) -> str:
    """A value from a file or the environment, quoted and cut short for a message."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}... ({len(text):,} characters)"


class Source(StrEnum):
    """Where a threshold's value came from (a StrEnum: equal to, and printed as, its string)."""

    OVERRIDE = "override"  # --set, --a/--b
    CHAT = "chat"  # the chat's own `config:` lines
    CONFIG = "config"  # a Scout config file
    ENVIRONMENT = "environment"
    DEFAULT = "default"
    FOLLOWS = "follows max_tool_calls"  # max_tool_outputs when not set itself
    EDITED = "edited"  # changed in the app
    PRESET = "preset"  # loaded from a saved preset in the app


@dataclass(frozen=True, slots=True)
class Value:
    key: str
    value: int | float  # float only for epoch_increment_compacted_growth_ratio (to_f)
    source: Source
    where: str = ""  # the file and line, or the variable name
    raw: str | None = None  # the text scout-ai read, before to_i

    def describe_source(self) -> str:
        return f"{self.source} ({self.where})" if self.where else self.source

    def reading(self) -> str | None:
        """How scout-ai read a text that is not a plain number (Ruby's ``to_i``/``to_f``): it explains the
        value shown; None for a plain number, or a value not read from a text."""
        raw = self.raw
        if raw is None or self.source in (Source.FOLLOWS, Source.EDITED):
            return None
        if raw in ("false", "nil") and self.source == Source.DEFAULT:
            return f"{shown(raw)} read as nil: the default"
        plain = _PLAIN_FLOAT if self.key in FLOAT_KEYS else _PLAIN
        if plain.fullmatch(raw):
            return None
        how = "to_f" if self.key in FLOAT_KEYS else "to_i"
        return f"{shown(raw)} read as {self.value!r} (Ruby {how})"

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"value": self.value, "source": self.source}
        if self.where:
            out["where"] = self.where
        if self.raw is not None:
            out["raw"] = self.raw
        return out


@dataclass(frozen=True, slots=True)
class Thresholds:
    values: dict[str, Value]
    warnings: tuple[str, ...] = field(default=())

    def __getitem__(self, key: str) -> int:
        return int(self.values[key].value)

    def as_tuple(self) -> tuple[int, int, int, int, int]:
        v = self.values
        return tuple(v[k].value for k in KEYS)  # type: ignore[return-value]

    def as_ints(self) -> dict[str, int]:
        return {k: int(self.values[k].value) for k in KEYS}

    def setting(self, key: str) -> int | float:
        """Any setting's value (the default when this object was built with the five only)."""
        found = self.values.get(key)
        return DEFAULTS[key] if found is None else found.value

    def key(self) -> tuple[int | float, ...]:
        """Every value, for caches of plans."""
        return tuple(self.setting(k) for k in SETTING_KEYS)

    def follows(self) -> bool:
        """True when max_tool_outputs is not set itself and follows max_tool_calls."""
        return self.values["max_tool_outputs"].source == Source.FOLLOWS

    def following(self) -> Thresholds:
        """A copy whose max_tool_outputs follows max_tool_calls again (as when neither sets it)."""
        follows = Value("max_tool_outputs", self.values["max_tool_calls"].value, Source.FOLLOWS)
        return replace(self, values={**self.values, "max_tool_outputs": follows})

    def with_value(self, key: str, value: int | float, source: Source = Source.OVERRIDE, where: str = "") -> Thresholds:
        """A copy with one value changed; max_tool_outputs keeps following max_tool_calls."""
        if key not in SETTING_KEYS:
            raise UsageError(f"unknown setting {key!r}; known: {', '.join(SETTING_KEYS)}")
        values = dict(self.values)
        values[key] = Value(key, value, source, where)
        if key == "max_tool_calls" and self.follows():
            values["max_tool_outputs"] = Value("max_tool_outputs", value, Source.FOLLOWS)
        return replace(self, values=values)


@dataclass(frozen=True, slots=True)
class ConfigEntry:
    key: str
    value: str
    tokens: dict[str, int | None]  # token -> explicit priority (tok::N) or None
    where: str  # path:line
    order: int  # load order: later entries win ties


def config_paths(cwd: Path | None = None, home: Path | None = None) -> list[Path]:
    """Scout's etc/config lookup order (scout-essentials path maps), highest priority first."""
    cwd = Path.cwd() if cwd is None else cwd
    home = Path.home() if home is None else home
    return [
        cwd / "etc/config",
        home / ".scout/etc/config",
        home / "etc/scout/config",
        Path("/usr/local/etc/scout/config"),
        Path("/etc/scout/config"),
        Path("/usr/etc/scout/config"),
        Path("/fast/etc/scout/config"),
        Path("/cache/etc/scout/config"),
        Path("/bulk/etc/scout/config"),
        Path("/tmp/scout/etc/config"),
    ]


def read_config_files(
    paths: list[Path], keys: tuple[str, ...] = KEYS, tokens_wanted: tuple[str, ...] = TOKENS
) -> tuple[list[ConfigEntry], list[str]]:
    """Entries for ``keys`` in every readable file, loaded lowest priority first as scout does."""
    entries: list[ConfigEntry] = []
    warnings: list[str] = []
    for path in reversed(paths):
        try:
            text = read_regular(path, CONFIG_LIMIT, "scout config file").decode("utf-8", "replace")
        except Refused as exc:
            if exc.errno in (errno.ENOENT, errno.ENOTDIR):
                continue
            if exc.errno is None:
                warnings.append(
                    f"{path}: this scout config file is {exc.reason}; scout-ai would try to read it, so its values may differ"
                )
            else:
                warnings.append(f"{path}: cannot read scout config ({exc.reason})")
            continue
        for number, line in enumerate(text.split("\n"), 1):
            if line.startswith("#"):
                continue
            parts = line.split()
            if not parts:
                continue
            key = parts[0]
            if key not in keys:
                continue
            where = f"{path}:{number}"
            if len(parts) < 2:
                warnings.append(f"{where}: {shown(line.strip())} has no value; scout-ai ignores it")
                continue
            tokens: dict[str, int | None] = {}
            for token in parts[2:]:
                # token_priority: `tok::N` is N.to_i (so "prompt::x" and "prompt::²" are 0); no N: by type
                name, _, priority = token.partition("::")
                tokens[name] = ruby_to_i(priority) if priority else None
            if not any(t in tokens for t in tokens_wanted):
                warnings.append(
                    f"{where}: {shown(line.strip())} has no 'prompt' or 'context' token, "
                    "so scout-ai does not use it for the prompt thresholds"
                )
                continue
            entries.append(ConfigEntry(key, parts[1], tokens, where, len(entries)))
    return entries, warnings


def _config_lookup(entries: list[ConfigEntry], key: str, tokens_wanted: tuple[str, ...] = TOKENS) -> ConfigEntry | None:
    best, best_rank = None, None
    for entry in entries:
        if entry.key != key:
            continue
        for position, token in enumerate(tokens_wanted):
            if token not in entry.tokens:
                continue
            priority = entry.tokens[token]
            rank = (10 if priority is None else priority, position, -entry.order)
            if best_rank is None or rank < best_rank:
                best, best_rank = entry, rank
    return best


FLOAT_KEYS = ("epoch_increment_compacted_growth_ratio",)  # read with to_f; every other setting with to_i


def _read(text: str, key: str, source_text: str, warnings: list[str]) -> int | float:
    if key in FLOAT_KEYS:
        number = ruby_to_f(text)
        if not _PLAIN_FLOAT.fullmatch(text):
            warnings.append(f"{key}={shown(text)} from {source_text} is read by scout-ai as {number!r}")
        return number
    value = ruby_to_i(text)
    name = key.upper() if source_text.startswith("the environment") else key
    if digit_count(text) > MAX_DIGITS:
        warnings.append(
            f"{name}={shown(text)} from {source_text} has {digit_count(text):,} digits; the inspector reads it as "
            f"the largest {MAX_DIGITS:,}-digit number, which every count stays below, so scout-ai decides the same"
        )
    elif not _PLAIN.fullmatch(text):
        warnings.append(f"{name}={shown(text)} from {source_text} is read by scout-ai as {value}")
    return value


def resolve(
    overrides: dict[str, str] | None = None,
    *,
    chat_config: dict[str, tuple[str, int | None]] | None = None,
    env: dict[str, str] | None = None,
    config_files: list[Path] | None = None,
    chat_path: str | None = None,
) -> Thresholds:
    """Resolve the five values as scout-ai does: override, chat `config:`, config files, environment, default."""
    overrides = overrides or {}
    chat_config = chat_config or {}
    environ: Mapping[str, str] = os.environ if env is None else env
    entries, warnings = read_config_files(config_paths() if config_files is None else config_files, SETTING_KEYS)
    for key in overrides:
        if key not in SETTING_KEYS:
            raise UsageError(f"unknown setting {key!r}; known: {', '.join(SETTING_KEYS)}")
    values: dict[str, Value] = {}
    raws: dict[str, str | None] = {}
    for key in SETTING_KEYS:
        found = _find(key, overrides, chat_config, entries, environ, chat_path)
        if found is None and key == "max_tool_outputs":
            # default: max_tool_calls, i.e. whatever scout-ai read for it (nil falls back to 40)
            base = values["max_tool_calls"]
            values[key] = Value(key, base.value, Source.FOLLOWS, "", raws["max_tool_calls"])
            raws[key] = raws["max_tool_calls"]
            continue
        if found is None:
            values[key] = Value(key, DEFAULTS[key], Source.DEFAULT)
            raws[key] = None
            continue
        source, where, text = found
        if text in ("false", "nil") and source in (Source.CONFIG, Source.CHAT):
            # Scout::Config turns these into false/nil, and `value || DEFAULT` takes the default
            warnings.append(f"{key} {text!r} from {where} is read by scout-ai as nil, so the default applies")
            values[key] = Value(
                key,
                DEFAULTS[key] if key != "max_tool_outputs" else values["max_tool_calls"].value,
                Source.DEFAULT,
                "",
                text,
            )
            raws[key] = None
            continue
        label = {
            Source.OVERRIDE: "the command line",
            Source.CHAT: f"the chat ({where})",
            Source.CONFIG: where,
            Source.ENVIRONMENT: "the environment",
        }[source]
        values[key] = Value(key, _read(text, key, label, warnings), source, where, text)
        raws[key] = text
    return Thresholds(values, tuple(warnings))


def _find(key: Any, overrides: Any, chat_config: Any, entries: Any, env: Any, chat_path: Any) -> Any:
    if key in overrides:
        return Source.OVERRIDE, "--set", overrides[key]
    if key in chat_config:
        text, line = chat_config[key]
        where = f"{chat_path}:{line}" if chat_path and line else (f"line {line}" if line else "config")
        return Source.CHAT, where, text
    entry = _config_lookup(entries, key)
    if entry is not None:
        return Source.CONFIG, entry.where, entry.value
    name = ENV_NAMES[key]
    if name in env:
        return Source.ENVIRONMENT, name, env[name]
    return None


def resolve_settings(
    defaults: dict[str, int], *, env: dict[str, str] | None = None, config_files: list[Path] | None = None
) -> tuple[dict[str, Value], tuple[str, ...]]:
    """Other integer settings read as ``Scout::Config.get(key, :prompt, :context, env: KEY, default: N)``.

    Same order as the thresholds (config files matched by the tokens, then the environment,
    then the default) and the same ``to_i``; "false"/"nil" in a file fall back to the default.
    """
    environ: Mapping[str, str] = os.environ if env is None else env
    entries, warnings = read_config_files(config_paths() if config_files is None else config_files, tuple(defaults))
    values: dict[str, Value] = {}
    for key, default in defaults.items():
        entry = _config_lookup(entries, key)
        name = key.upper()
        if entry is not None and entry.value in ("false", "nil"):
            warnings.append(
                f"{key} {entry.value!r} from {entry.where} is read by scout-ai as nil, so the default applies"
            )
            values[key] = Value(key, default, Source.DEFAULT, "", entry.value)
        elif entry is not None:
            values[key] = Value(
                key, _read(entry.value, key, entry.where, warnings), Source.CONFIG, entry.where, entry.value
            )
        elif name in environ:
            values[key] = Value(
                key, _read(environ[name], key, "the environment", warnings), Source.ENVIRONMENT, name, environ[name]
            )
        else:
            values[key] = Value(key, default, Source.DEFAULT)
    return values, tuple(warnings)


def parse_pairs(items: list[str] | None) -> dict[str, str]:
    """``KEY=VALUE`` pairs from ``--set`` for another framework's policy: its own names, checked by it."""
    out: dict[str, str] = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"--set expects KEY=VALUE, got {item!r}")
        out[key.strip()] = value.strip()
    return out


def parse_assignments(items: list[str] | None) -> dict[str, str]:
    """``KEY=VALUE`` pairs from ``--set``; keys are case-insensitive."""
    out: dict[str, str] = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        key = key.strip().lower()
        if not sep or not key:
            raise UsageError(f"--set expects KEY=VALUE, got {item!r}")
        if key not in SETTING_KEYS:
            raise UsageError(f"unknown setting {key!r}; known: {', '.join(SETTING_KEYS)}")
        if key in FLOAT_KEYS:
            if not _NUMBER.fullmatch(value):
                raise UsageError(f"--set {key} expects a number, got {shown(value)}")
        elif not _INTEGER.fullmatch(value):
            # the inspector's own option: a typo is an error, not scout-ai's silent to_i
            raise UsageError(f"--set {key} expects an integer, got {shown(value)}")
        out[key] = value.strip()
    return out


STRATEGY_TOKENS = (
    "chat",
    "scout_ai",
)  # Scout::Config.get(:prompt_strategies, :chat, :scout_ai, env: 'PROMPT_STRATEGY')


def strategies_setting(*, env: dict[str, str] | None = None, config_files: list[Path] | None = None) -> str | None:
    """scout-ai 2.x's strategy list when none is given: scout config files, then PROMPT_STRATEGY."""
    environ: Mapping[str, str] = os.environ if env is None else env
    paths = config_paths() if config_files is None else config_files
    entries, _ = read_config_files(paths, ("prompt_strategies",), STRATEGY_TOKENS)
    entry = _config_lookup(entries, "prompt_strategies", STRATEGY_TOKENS)
    if entry is not None:
        return None if entry.value in ("nil", "false") else entry.value
    return environ.get("PROMPT_STRATEGY")
