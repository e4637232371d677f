"""The refetch rule: a model call that repeats a tool call whose result its prompt no longer held in full.

One rule, used by ``explain --audit`` (its repeated-call finding) and by ``corpus`` (the refetch metric):

    a call's response contains a tool call with the same name and the same arguments (equal as parsed
    JSON: key order does not matter) as a tool call made earlier in the chat that has an output before
    this call, and none of those earlier outputs is sent in full in this call's prompt. One per such
    repeated tool call. (A call on whose prompt scout-ai raises sends nothing: an error, not a refetch.)

"Equal as parsed JSON" compares the ``name`` and ``arguments`` values of the parsed ``function_call``
content structurally: objects by their members whatever the order, arrays element by element, numbers by
value (``1`` and ``1.0`` are one number), ``true``/``false``/``null`` and strings as themselves. A missing
``arguments`` is not ``null``, ``{}`` or ``false`` (scout-ai's own dedup for its epoch windows treats
those alike; this metric does not). A string of arguments is compared as the string it is (the loaders of
the OpenAI formats already parse JSON-string arguments).

The candidates (which tool calls repeat which, and the outputs before them) do not depend on the
thresholds: they are found once per chat (``repeats``), and each plan only says which outputs it sends
in full (``refetched``). ``corpus`` reads the same rule off plain shorten_tools' stretches at each call
as a few comparisons (``corpus.score``); its tests hold it to the plans.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

from inspector.core.scout.tool_facts import CALL, OUTPUT, ToolFacts, tool_identity

MISSING: Hashable = ("missing",)  # a call without an "arguments" member


def json_key(value: Any) -> Hashable:
    """A hashable key equal for two parsed JSON values exactly when they are equal as JSON."""
    kind = type(value)
    # what a JSON parser builds, by exact type first: a corpus keys every call's arguments
    if kind is str:
        return ("s", value)
    if kind is dict:
        return ("o", frozenset([(k if type(k) is str else str(k), json_key(v)) for k, v in value.items()]))
    if kind is int or kind is float:
        return ("#", value)  # 1 == 1.0, and their hashes agree
    if kind is list:
        return ("a", tuple([json_key(v) for v in value]))
    if isinstance(value, bool):
        return ("b", value)  # before int: True is not the number 1
    if value is None:
        return ("n",)
    if isinstance(value, int | float):
        return ("#", value)
    if isinstance(value, str):
        return ("s", value)
    if isinstance(value, dict):
        return ("o", frozenset((str(k), json_key(v)) for k, v in value.items()))
    if isinstance(value, list | tuple):
        return ("a", tuple(json_key(v) for v in value))
    return ("?", repr(value))


@dataclass(frozen=True, slots=True)
class ToolPairs:
    """A chat's tool calls and outputs (message indices, oldest first), each call's key and its output."""

    calls: tuple[int, ...]
    outputs: tuple[int, ...]
    identity: dict[int, tuple[object, object]]  # message -> (name, id) as stored
    keys: dict[int, Hashable]  # call -> the (name, arguments) key, equal as parsed JSON
    output_of: dict[int, int]  # call -> the output answering it
    call_of: dict[int, int]  # output -> its call


def tool_pairs(facts: ToolFacts) -> ToolPairs:
    """The calls and outputs of the chat ``facts`` were built from, paired by id (an output without an id
    answers the call just before it)."""
    calls: list[int] = []
    outputs: list[int] = []
    identity: dict[int, tuple[object, object]] = {}
    keys: dict[int, Hashable] = {}
    output_of: dict[int, int] = {}
    call_of: dict[int, int] = {}
    waiting: dict[Hashable, list[int]] = {}
    last_call = None
    order, kinds, idents, parsed = facts.order, facts.kinds, facts.idents, facts.parsed
    for p in range(len(order) - 1, -1, -1):  # oldest first
        index, kind = order[p], kinds[p]
        if kind == OUTPUT:
            outputs.append(index)
            name, raw_id = idents[p]
            # the first reading's name and id where it reads them as a parse does, so that an output (most of
            # a chat's characters) is not parsed again; a number is (a wide integer reads otherwise)
            if not ((name is None or type(name) is str) and (raw_id is None or type(raw_id) is str)):
                name, raw_id = tool_identity(parsed[p])
            identity[index] = name, raw_id
            ident = None if raw_id is None else json_key(raw_id)  # an id can be any JSON value
            queue = waiting.get(ident) if ident is not None else None
            if queue:
                call = queue.pop(0)
            elif ident is None and last_call is not None and last_call not in output_of:
                call = last_call  # no ids: an output answers the call just before it
            else:
                continue
            output_of[call] = index
            call_of[index] = call
        elif kind == CALL:
            calls.append(index)
            data = parsed[p]
            identity[index] = name, raw_id = tool_identity(data)
            arguments = data.get("arguments", MISSING) if isinstance(data, dict) else MISSING
            keys[index] = (json_key(name), arguments if arguments is MISSING else json_key(arguments))
            waiting.setdefault(None if raw_id is None else json_key(raw_id), []).append(index)
            last_call = index
    return ToolPairs(tuple(calls), tuple(outputs), identity, keys, output_of, call_of)


@dataclass(frozen=True, slots=True)
class Repeat:
    """A tool call (``call``) equal to earlier ones whose outputs were written before it.

    ``earlier``: those earlier calls, oldest first; ``outputs``: their outputs, in the same order. Only
    response messages stand between a call's response start and the call itself, so "an output before
    this call" is an output whose index is below ``call``.
    """

    call: int
    earlier: tuple[int, ...]
    outputs: tuple[int, ...]

    @property
    def newest(self) -> tuple[int, int]:
        """The newest earlier call and its output (what a finding names)."""
        return self.earlier[-1], self.outputs[-1]


def repeats(pairs: ToolPairs) -> list[Repeat]:
    """Every tool call that repeats an earlier one with an output before it, oldest first."""
    return _repeated([(call, pairs.keys[call]) for call in pairs.calls], pairs.output_of)


def chat_repeats(facts: ToolFacts) -> list[Repeat]:
    """``repeats(tool_pairs(facts))``, reading only what the repeats need: which call each output answers and
    the calls' keys (no identity or call_of maps, no key for an id that is a plain string). A corpus finds them
    in every chat; a test holds the two equal on odd chats."""
    order, kinds, idents, parsed = facts.order, facts.kinds, facts.idents, facts.parsed
    output_of: dict[int, int] = {}
    waiting: dict[object, list[int]] = {}  # a string id as itself, any other as its json_key (a tuple)
    calls: list[tuple[int, Hashable]] = []
    last_call: int | None = None
    for p in range(len(order) - 1, -1, -1):  # oldest first
        kind = kinds[p]
        if kind == OUTPUT:
            name, raw_id = idents[p]
            # as tool_pairs reads an output: the first reading's id unless a name or id is not a plain string
            if not ((name is None or type(name) is str) and (raw_id is None or type(raw_id) is str)):
                raw_id = tool_identity(parsed[p])[1]
            if raw_id is None:
                if last_call is not None and last_call not in output_of:
                    output_of[last_call] = order[p]  # no ids: an output answers the call just before it
                continue
            queue = waiting.get(raw_id if type(raw_id) is str else json_key(raw_id))
            if queue:
                output_of[queue.pop(0)] = order[p]
        elif kind == CALL:
            index = order[p]
            data = parsed[p]
            name, raw_id = tool_identity(data)
            arguments = data.get("arguments", MISSING) if isinstance(data, dict) else MISSING
            key = arguments if arguments is MISSING else json_key(arguments)
            calls.append((index, (name if type(name) is str else json_key(name), key)))
            if raw_id is not None:  # a call without an id is answered only by the next output without one
                waiting.setdefault(raw_id if type(raw_id) is str else json_key(raw_id), []).append(index)
            last_call = index
    return _repeated(calls, output_of)


def _repeated(calls: list[tuple[int, Hashable]], output_of: dict[int, int]) -> list[Repeat]:
    """The calls (oldest first, with their keys) that repeat an earlier one answered before them."""
    seen: dict[Hashable, list[int]] = {}
    out: list[Repeat] = []
    for call, key in calls:
        before = seen.setdefault(key, [])
        earlier = [e for e in before if (o := output_of.get(e)) is not None and o < call]
        if earlier:
            out.append(Repeat(call, tuple(earlier), tuple(output_of[e] for e in earlier)))
        before.append(call)
    return out


def refetched(repeat: Repeat, sent_full: Callable[[int], bool]) -> bool:
    """The rule: none of the earlier outputs is sent in full in the prompt of the call holding the repeat.

    ``sent_full(index)``: whether that prompt sends message ``index`` whole. A call on whose prompt scout-ai
    raises is not asked about: nothing is sent and no call is made, which counts as an error, not a
    refetch. The newest output is asked first: it is the one most often kept.
    """
    return not any(sent_full(o) for o in reversed(repeat.outputs))
