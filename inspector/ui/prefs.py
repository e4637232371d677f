"""What the app remembers between runs: the theme (in the user's config directory, beside the presets).

A file that cannot be read is as no file (the app starts with its default theme); writing is atomic.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from inspector.core.io.atomic import write_atomic
from inspector.core.io.presets import APP_NAME

FILE_NAME = "app.json"


def prefs_path() -> Path:
    from platformdirs import user_config_path

    return user_config_path(APP_NAME) / FILE_NAME


def load_prefs(path: Path | None = None) -> dict[str, Any]:
    path = prefs_path() if path is None else path
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def save_pref(key: str, value: Any, path: Path | None = None) -> None:
    """One value kept for the next run; a config directory that cannot be written is left as it is."""
    path = prefs_path() if path is None else path
    data = load_prefs(path)
    if data.get(key) == value:
        return
    data[key] = value
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, (json.dumps(data, indent=2) + "\n").encode("utf-8"))
    except OSError:
        pass
