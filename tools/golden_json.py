"""How the goldens scripts write their files: JSON with one message (a dict with "role") or one number list
per line, to keep the files small and their diffs readable. Shared by tools/peer_goldens.py and
tools/peer_goldens_openhands.py, which run in different virtualenvs (each imports only its own library)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def fmt(obj: Any, ind: int = 0) -> str:
    pad = " " * ind
    if isinstance(obj, dict) and "role" not in obj and obj:
        items = [f"{pad} {json.dumps(k)}: {fmt(v, ind + 1)}" for k, v in obj.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(obj, list) and obj and all(isinstance(x, (dict, list)) for x in obj):
        return "[\n" + ",\n".join(pad + " " + fmt(x, ind + 1) for x in obj) + "\n" + pad + "]"
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def write_json(path: Path, obj: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = fmt(obj) + "\n"
    assert json.loads(text) == obj
    path.write_text(text, encoding="utf-8")
