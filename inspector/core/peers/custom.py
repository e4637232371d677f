"""A policy the user writes: a Python callable from Chat Completions messages to messages.

Pydantic AI's ``history_processors`` and smolagents' step callbacks are such functions. Registered
like a strategy plugin (the ``prompt_inspector.policies`` entry point group) or named on the command
line as ``module:function``. What happened to each original message is found by aligning the output
with the input: an output message equal to an input one is that message kept; one with the same role
and call ids (or, failing that, the same role in order) is that message changed; inputs left over
were removed, outputs left over inserted.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from importlib import metadata
from typing import Any

from inspector.core.errors import UsageError
from inspector.core.peers.outcome import Outcome, PolicyRaises
from inspector.core.peers.spec import PolicySpec
from inspector.core.peers.wire import Item, WireCall, as_openai, openai_call

GROUP = "prompt_inspector.policies"


def load(name: str) -> PolicySpec | None:
    """The spec of a user's policy, or None when ``name`` names none."""
    fn = _entry_point(name)
    if fn is None and ":" in name:
        module, _, attr = name.partition(":")
        try:
            fn = getattr(importlib.import_module(module), attr)
        except (ImportError, AttributeError) as exc:
            raise UsageError(f"policy {name!r}: cannot import {attr!r} from {module!r} ({exc})") from None
    if fn is None:
        return None
    if not callable(fn):
        raise UsageError(f"policy {name!r} is not callable")
    return PolicySpec(name, f"your function {name}", True, (), lambda items, s, cache: run(fn, items))


def _entry_point(name: str) -> Callable[..., Any] | None:
    for ep in metadata.entry_points(group=GROUP):
        if ep.name == name:
            try:
                loaded: Callable[..., Any] = ep.load()
            except Exception as exc:  # a plugin that fails to import says so in one line
                raise UsageError(
                    f"policy {name!r} ({ep.value}) failed to import: {type(exc).__name__}: {exc}"
                ) from None
            return loaded
    return None


def run(fn: Callable[..., Any], items: list[Item]) -> Outcome:
    given = [as_openai(i) for i in items]
    try:
        result = fn([dict(m) for m in given])
    except Exception as exc:  # the user's function raising ends the run as it would in their agent
        raise PolicyRaises(type(exc).__name__, str(exc)) from None
    if not isinstance(result, list) or not all(isinstance(m, dict) for m in result):
        raise PolicyRaises("TypeError", f"the policy returned {type(result).__name__}, not a list of message dicts")
    return align(items, given, result)


def align(items: list[Item], given: list[dict[str, Any]], result: list[dict[str, Any]]) -> Outcome:
    used: set[int] = set()
    out: list[Item] = []
    notes: dict[int, str] = {}
    cursor = 0
    for message in result:
        match = _find(given, message, used, cursor, exact=True)
        if match is not None:
            used.add(match)
            cursor = match + 1
            out.append(items[match])
            continue
        match = _find(given, message, used, cursor, exact=False)
        if match is None:
            out.append(_item(message, -1, inserted=True))
            continue
        used.add(match)
        cursor = match + 1
        out.append(_changed(items[match], message))
        notes[match] = "changed by your policy"
    for k in range(len(items)):
        if k not in used:
            notes[k] = "removed by your policy"
    return Outcome(
        out, f"{len(items) - len(used)} removed, {sum(1 for i in out if i.inserted)} inserted", "kept", notes
    )


def _key(message: dict[str, Any]) -> tuple[Any, ...]:
    calls = tuple(c.get("id") for c in message.get("tool_calls") or [] if isinstance(c, dict))
    return message.get("role"), message.get("tool_call_id"), calls


def _find(given: list[dict[str, Any]], message: dict[str, Any], used: set[int], start: int, exact: bool) -> int | None:
    order: list[int] = [*range(start, len(given)), *range(start)]
    for k in order:
        if k in used:
            continue
        if exact and given[k] == message:
            return k
    if exact:
        return None
    key = _key(message)
    for k in order:  # same role and ids: the message, changed
        if k not in used and _key(given[k]) == key and (key[1] is not None or key[2]):
            return k
    for k in range(start, len(given)):  # else the next unused message of the same role
        if k not in used and given[k].get("role") == message.get("role"):
            return k
    return None


def _changed(original: Item, message: dict[str, Any]) -> Item:
    changed = _item(message, original.origin, inserted=False)
    calls = []
    by_id = {c.id: c for c in original.calls}
    for call in changed.calls:
        old = by_id.get(call.id)
        if old is not None and old.arguments == call.arguments and old.name == call.name:
            calls.append(old)
        else:
            calls.append(WireCall(call.id, call.name, call.arguments, old.origin if old else -1, call.raw))
    return Item(changed.role, changed.content, original.origin, tuple(calls), changed.call_id, changed.name)


def _item(message: dict[str, Any], origin: int, inserted: bool) -> Item:
    calls = tuple(WireCall(*openai_call(c)) for c in message.get("tool_calls") or [] if isinstance(c, dict))
    return Item(
        str(message.get("role")),
        message.get("content"),
        origin,
        calls,
        message.get("tool_call_id"),
        message.get("name"),
        inserted=inserted,
    )
