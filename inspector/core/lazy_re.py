"""Regular expressions compiled when first used, not when their module is imported.

A short `prepare` imports modules holding dozens of patterns and uses few of them: compiling each costs
0.1-0.4 ms (measured: 49 patterns, 10 ms of a 0.3 s run, about half of them the inspector's own).
"""

from __future__ import annotations

import re
from typing import Any, cast

_METHODS = ("match", "fullmatch", "search", "sub", "subn", "split", "findall", "finditer")


class _Lazy:
    def __init__(self, pattern: str, flags: int):
        self._source = (pattern, flags)

    def __getattr__(self, name: str) -> Any:
        compiled = re.compile(*self._source)
        for method in _METHODS:  # kept on the instance: later calls find them without this lookup
            setattr(self, method, getattr(compiled, method))
        return getattr(compiled, name)


def lazy(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)`` on first use (its methods; not for ``re`` functions taking a pattern)."""
    return cast("re.Pattern[str]", _Lazy(pattern, flags))
