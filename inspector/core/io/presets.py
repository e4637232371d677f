"""Named threshold sets in a readable JSON file in the user config directory.

A file we cannot read is reported and never written over: the user may have edited
it by hand, and losing their presets silently is worse than refusing to save.
"""

from __future__ import annotations

import errno
import json
from pathlib import Path
from typing import Any

from inspector.core.files import PRESETS_LIMIT, Refused, read_regular
from inspector.core.io.atomic import write_atomic
from inspector.core.scout.settings import FLOAT_KEYS, KEYS, SETTING_KEYS
from inspector.core.scout.versions import VERSIONS

APP_NAME = "prompt-inspector"
FOLLOWING = "max_tool_outputs"  # None in a preset: follows max_tool_calls
FILE_NAME = "presets.json"


class PresetsError(Exception):
    """The presets file exists but cannot be used."""


def presets_path() -> Path:
    from platformdirs import user_config_path

    return user_config_path(APP_NAME) / FILE_NAME


def load_presets(path: Path | None = None) -> dict[str, dict[str, Any]]:
    """name -> {"thresholds": {key: int}, "strategies": str | None}; {} when there is no file.

    ``max_tool_outputs`` may be ``None``: it follows ``max_tool_calls`` (as when nothing sets it).
    """
    path = presets_path() if path is None else path
    try:
        text = read_regular(path, PRESETS_LIMIT, "presets file").decode("utf-8")
    except Refused as exc:
        if exc.errno == errno.ENOENT:
            return {}
        raise PresetsError(f"{path}: {exc.reason}; left untouched") from None
    except UnicodeDecodeError as exc:
        raise PresetsError(f"{path}: cannot read ({exc}); left untouched") from None
    try:
        data = json.loads(text, parse_constant=_no_constant)
    except RecursionError:
        raise PresetsError(f"{path}: nested too deeply to be a presets file; left untouched") from None
    except ValueError as exc:
        raise PresetsError(f"{path}: not valid JSON ({exc}); left untouched") from None
    presets = data.get("presets") if isinstance(data, dict) else None
    if not isinstance(presets, dict):
        raise PresetsError(f'{path}: expected an object with a "presets" object; left untouched')
    out: dict[str, dict[str, Any]] = {}
    for name, entry in presets.items():
        values = entry.get("thresholds") if isinstance(entry, dict) else None
        if not isinstance(values, dict) or not all(
            _integer(values.get(k)) or (k == FOLLOWING and values.get(k) is None) for k in KEYS
        ):
            raise PresetsError(f"{path}: preset {name!r} needs the five integer thresholds; left untouched")
        strategies = entry.get("strategies")
        kept = {k: values[k] for k in KEYS}
        for key in SETTING_KEYS[len(KEYS) :]:  # the epoch settings: optional (presets saved before them lack them)
            value = values.get(key)
            if value is None:
                continue
            number = (int, float) if key in FLOAT_KEYS else (int,)
            if isinstance(value, bool) or not isinstance(value, number):
                raise PresetsError(f"{path}: preset {name!r}: {key} must be a number; left untouched")
            kept[key] = value
        out[name] = {"thresholds": kept, "strategies": strategies if isinstance(strategies, str) else None}
        version = entry.get("scout_version")
        if isinstance(version, str) and version in VERSIONS:
            out[name]["scout_version"] = version
    return out


def _no_constant(name: str) -> Any:
    """``NaN``, ``Infinity`` and ``-Infinity``: not JSON, and no threshold."""
    raise ValueError(f"{name} is not a number JSON allows")


def _integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)  # `true` is no threshold


def _write(presets: dict[str, dict[str, Any]], path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {"version": 1, "presets": presets}
    return write_atomic(path, (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))


def save_preset(
    name: str,
    thresholds: dict[str, int | float | None],
    strategies: str | None = None,
    path: Path | None = None,
    scout_version: str | None = None,
) -> Path:
    """Add or replace one preset; raises PresetsError (and writes nothing) if the file is unusable."""
    name = name.strip()
    if not name:
        raise PresetsError("a preset needs a name")
    path = presets_path() if path is None else path
    presets = load_presets(path)
    values: dict[str, int | float | None] = {
        k: None if thresholds[k] is None and k == FOLLOWING else int(thresholds[k] or 0) for k in KEYS
    }
    for key in SETTING_KEYS[len(KEYS) :]:
        value = thresholds.get(key)
        if value is not None:
            values[key] = float(value) if key in FLOAT_KEYS else int(value)
    presets[name] = {"thresholds": values, "strategies": strategies}
    if scout_version is not None:
        presets[name]["scout_version"] = scout_version
    return _write(presets, path)


def delete_preset(name: str, path: Path | None = None) -> Path:
    path = presets_path() if path is None else path
    presets = load_presets(path)
    presets.pop(name, None)
    return _write(presets, path)
