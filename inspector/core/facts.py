"""Threshold-independent facts about a message list, computed once per chat.

A plan after a threshold change reads only these integers; the shortened text of
a tool message is computed the first time a plan puts it in the middle band.
"""

from __future__ import annotations

from bisect import bisect_left
from itertools import accumulate

from . import rubyjson
from .errors import ScoutError
from .model import Message
from .shorten import shorten_string

CALL, OUTPUT, FAIL = 0, 1, 2
NOTHING_TO_SHORTEN = -1


def chars_of(content) -> int:
    """Characters of a message's content as scout-ai counts them (0 when not a string)."""
    return len(content) if type(content) is str else 0


class ToolFacts:
    """Tool messages of one list, newest first, with their lengths and parsed JSON."""

    def __init__(self, messages: list[Message]):
        self.messages = messages
        self.count = len(messages)
        order: list[int] = []  # message indices, newest first
        kinds: list[int] = []
        raw: list[int] = []
        parsed: list = []
        self.failures: dict[int, ScoutError] = {}  # position -> error scout-ai raises on reaching it
        for index in range(self.count - 1, -1, -1):
            message = messages[index]
            fields = message.fields
            role = fields.get("role")
            if type(role) is not str:
                self._fail(order, kinds, raw, parsed, index, message, None,
                           "NoMethodError", f"undefined method `to_sym' for {_ruby_class(role)} (the message has no usable role)")
                continue
            if role == "function_call":
                kind = CALL
            elif role == "function_call_output":
                kind = OUTPUT
            else:
                continue
            content = fields.get("content")
            if content is None or content is False:
                continue  # `next msg unless json`: passed through, not counted
            if type(content) is not str:
                self._fail(order, kinds, raw, parsed, index, message, None, "TypeError",
                           f"no implicit conversion of {_ruby_class(content)} into String (content is not JSON text)")
                continue
            try:
                data = rubyjson.parse(content)
            except rubyjson.RubyJSONError as exc:
                self._fail(order, kinds, raw, parsed, index, message, None, exc.exception,
                           f"content is not valid JSON ({exc})")
                continue
            if type(data) is not dict:
                self._fail(order, kinds, raw, parsed, index, message, data, "NoMethodError",
                           f"undefined method `values_at' for {_ruby_class(data)} (content JSON is not an object)")
                continue
            order.append(index)
            kinds.append(kind)
            raw.append(len(content))
            parsed.append(data)
        self.order = order
        self.kinds = kinds
        self.raw = raw
        self.parsed = parsed
        # outputs counted at each position (an output counts itself; a call sees the outputs after it)
        outs, counted = [], 0
        for kind in kinds:
            if kind == OUTPUT:
                counted += 1
            outs.append(counted)
        self.outs = outs
        self.prefix = [0, *accumulate(raw)]  # tool chars before each position if all were kept
        self.first_failure = min(self.failures) if self.failures else len(order)
        self.short: list[int | None] = [None] * len(order)  # visible length when truncated, lazily
        self.short_text: dict[int, str] = {}
        self.band_errors: dict[int, ScoutError] = {}
        self.position = {index: p for p, index in enumerate(order)}
        self._nontool_chars: int | None = None

    def _fail(self, order, kinds, raw, parsed, index, message, data, exception, why):
        position = len(order)
        order.append(index)
        kinds.append(FAIL)
        content = message.fields.get("content")
        raw.append(len(content) if type(content) is str else 0)
        parsed.append(data)
        name = data.get("name") if type(data) is dict else None
        ident = data.get("id") if type(data) is dict else None
        self.failures[position] = ScoutError(index, message.fields.get("role"), name, ident, exception, why)

    # -- the middle band --------------------------------------------------------------
    def shortened(self, position: int) -> int:
        """Visible length of the message at ``position`` once shortened, or NOTHING_TO_SHORTEN.

        Records a band error instead when scout-ai would raise while shortening it.
        """
        known = self.short[position]
        if known is not None:
            return known
        index = self.order[position]
        data = self.parsed[position]
        try:
            text = self._shorten(data, self.kinds[position])
        except _BandError as exc:
            message = self.messages[index]
            self.band_errors[position] = ScoutError(
                index, message.fields.get("role"), data.get("name"), data.get("id"), exc.exception, exc.why)
            self.short[position] = NOTHING_TO_SHORTEN
            return NOTHING_TO_SHORTEN
        if text is None:
            self.short[position] = NOTHING_TO_SHORTEN
        else:
            self.short_text[position] = text
            self.short[position] = len(text)
        return self.short[position]

    @staticmethod
    def _shorten(data: dict, kind: int) -> str | None:
        if kind == CALL:
            arguments = data.get("arguments")
            if type(arguments) is not dict:
                method = "values" if arguments is None or arguments is False else "each"
                raise _BandError("NoMethodError",
                                 f"undefined method `{method}' for {_ruby_class(arguments)} "
                                 "(arguments must be a JSON object to be shortened)")
            changed = False
            new_arguments = {}
            for key, value in arguments.items():
                if type(value) is str:
                    short = shorten_string(value)
                    changed = changed or short != value
                    new_arguments[key] = short
                else:
                    new_arguments[key] = value
            if not changed:
                return None
            new = dict(data)
            new["arguments"] = new_arguments
        else:
            content = data.get("content")
            if type(content) is str:
                short = shorten_string(content)
                if short == content:
                    return None
            elif type(content) in (list, dict):
                if len(content) <= 200:
                    return None  # Array/Hash#length is small: returned as is, so unchanged
                raise _BandError("TypeError", f"no implicit conversion of {_ruby_class(content)} into String "
                                 f"(MD5 of a {_ruby_class(content)} with {len(content)} elements)")
            else:
                raise _BandError("NoMethodError", f"undefined method `length' for {_ruby_class(content)} "
                                 "(output content must be a string to be shortened)")
            new = dict(data)
            new["content"] = short
        try:
            return rubyjson.dumps(new)
        except rubyjson.RubyJSONError as exc:
            raise _BandError(exc.exception, str(exc)) from None

    def shortened_text(self, position: int) -> str | None:
        self.shortened(position)
        return self.short_text.get(position)

    # -- sizes --------------------------------------------------------------------------
    def nontool_chars(self) -> int:
        """Characters of every message outside ``order`` (fixed whatever the thresholds)."""
        if self._nontool_chars is None:
            total = sum(chars_of(m.fields.get("content")) for m in self.messages)
            self._nontool_chars = total - sum(self.raw[p] for p in range(len(self.order)) if self.kinds[p] != FAIL)
        return self._nontool_chars

    def keep_prefix_end(self, budget: int, stop: int) -> int:
        """First position whose tool chars before it (all newer kept) reach ``budget``."""
        return min(bisect_left(self.prefix, budget, 0, stop + 1), stop)


class _BandError(Exception):
    def __init__(self, exception: str, why: str):
        super().__init__(why)
        self.exception = exception
        self.why = why


def _ruby_class(value) -> str:
    if value is None:
        return "nil"
    if value is True:
        return "true"
    if value is False:
        return "false"
    return {str: "String", int: "Integer", float: "Float", list: "Array", dict: "Hash"}.get(type(value), type(value).__name__)
