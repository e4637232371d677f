"""Indented JSON as every `--format json` prints it: on its own, so a command writing JSON need not import the
report modules (`present.export` pulls in every policy's)."""

from __future__ import annotations

import json
from typing import Any

import orjson


def json_text(data: Any) -> str:
    """Indented JSON, as every `--format json` prints it (non-JSON values as their str)."""
    try:
        return orjson.dumps(data, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS, default=str).decode() + "\n"
    except TypeError:
        # orjson stops at 64-bit integers; a threshold from a file may be any length (see settings.MAX_DIGITS)
        return json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n"
