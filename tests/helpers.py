"""Small builders for hand-made chats, and the budgets of the random checks."""

from __future__ import annotations

import json
import os

import pytest

from inspector.core.model import Message
from inspector.core.scout.prepare import prepare_prompt
from inspector.core.scout.settings import DEFAULTS, KEYS

# The random differential checks (generated chats against a reference: a fresh plan, a brute-force
# search, a reload of the cut file) run a share of their cases in the quick suite and all of them in the
# thorough run, which CI adds after it: INSPECTOR_THOROUGH=1 python -m pytest -m "slow or hypothesis".
THOROUGH = os.environ.get("INSPECTOR_THOROUGH", "") not in ("", "0")


def examples(full: int, quick: int) -> int:
    """A hypothesis test's max_examples: ``quick`` in the quick suite, ``full`` in the thorough run."""
    return full if THOROUGH else quick


def budgets(full: int, quick: int) -> list:
    """The case counts of a random check that walks its cases in one test (its assertion is over all of
    them): ``quick`` in the quick suite, ``full`` under the ``slow`` marker for the thorough run."""
    return [quick, pytest.param(full, marks=pytest.mark.slow)]


def seeds(full: int, quick: int) -> list:
    """Seeds ``0..full-1`` for a parametrized random check: the first ``quick`` run in the quick suite, the
    rest carry the ``slow`` marker (the quick suite deselects it; the thorough run takes them)."""
    return [*range(quick), *(pytest.param(seed, marks=pytest.mark.slow) for seed in range(quick, full))]


def call(name: str, ident: str, **arguments) -> dict:
    return {"role": "function_call", "content": json.dumps({"name": name, "arguments": arguments, "id": ident})}


def output(name: str, ident: str, content) -> dict:
    return {"role": "function_call_output", "content": json.dumps({"name": name, "content": content, "id": ident})}


def messages(*items: dict) -> list[Message]:
    return [Message(dict(item)) for item in items]


def thresholds(**values) -> tuple:
    merged = {**DEFAULTS, **values}
    if "max_tool_calls" in values and "max_tool_outputs" not in values:
        merged["max_tool_outputs"] = values["max_tool_calls"]
    return tuple(merged[k] for k in KEYS)


def plan(items, strategies=None, **values):
    return prepare_prompt(messages(*items), strategies, thresholds(**values))


def rounds(count: int, size: int) -> list[dict]:
    """``count`` call/output pairs, oldest first, outputs of ``size`` characters."""
    out = []
    for i in range(count):
        out.append(call("t", f"c{i}", q=f"q{i}"))
        out.append(output("t", f"c{i}", chr(ord("a") + i % 26) * size))
    return out
