"""The two epoch strategies as planners over facts computed once per chat.

``shorten_tools_epoch`` (1.2.6) and ``shorten_tools_epoch_increment`` (2.x) both give every tool
message a reverse position ``k`` that does not depend on the settings, then keep the newest
``keep_full`` positions, compact up to ``truncate_to`` and drop the rest, except the newest
instance of each repeated call. The parsed JSON, the positions, the repeats and the compacted
text of each message are cached here; a plan is two bisections plus a walk over the compacted
window, so trying another ``epoch_size`` costs milliseconds on a 20,000-message chat.

Where 1.2.6 would raise on something the facts can see up front (a role that is not a String,
a tool content that parses to something other than an object), the plan says so through
``needs_exact_walk`` and prepare.py runs the message-by-message port instead, which names the
exact message Ruby raises on.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import Any

import orjson

from inspector.core.errors import ScoutError
from inspector.core.model import Message
from inspector.core.policies import decision as d
from inspector.core.policies.decision import ToolKind
from inspector.core.policies.planner import PlannerBase, Sizes
from inspector.core.ruby import json as rubyjson
from inspector.core.ruby.inspect import to_s
from inspector.core.scout.roles import tool_kind
from inspector.core.scout.shorten import ENVELOPE, Shortener
from inspector.core.scout.strategies import shorten_tools_epoch as epoch
from inspector.core.scout.strategies import shorten_tools_epoch_increment as increment
from inspector.core.scout.tool_facts import ToolFacts, chars_of
from inspector.core.yielding import pause_if_due

_OTHER, _NOROLE, _CALL, _OUTPUT = 0, 1, 2, 3
_MISSING = object()


class WindowFacts:
    """Setting-independent facts of one message list for one epoch strategy and one shorten_string."""

    def __init__(
        self, messages: list[Message], strategy: str, shortener: Shortener, tool_facts: ToolFacts | None = None
    ):
        self.messages = messages
        self.strategy = strategy
        self.shortener = shortener
        self.increment = strategy == increment.NAME
        self.needs_exact_walk = False  # 1.2.6 raises somewhere the facts can see: use the exact port
        kinds = []
        bad_role = None
        for position, message in enumerate(messages):
            role = message.fields.get("role")
            if type(role) is str:
                kinds.append(
                    _OUTPUT if role == "function_call_output" else _CALL if role == "function_call" else _OTHER
                )
            elif self.increment and (role is None or role is False):
                kinds.append(_NOROLE)
            else:
                kinds.append(_OTHER)
                if bad_role is None:
                    bad_role = position
        self.kinds = kinds
        self.bad_role = bad_role
        if bad_role is not None and not self.increment:
            self.needs_exact_walk = True
        self.total = kinds.count(_OUTPUT)
        # only what the repeats need is kept (ids and call keys), not the parsed objects: a compacted
        # message is parsed again, once, when a plan first puts it in the compacted window
        self.ids: dict[int, object] = {}
        # the only messages whose compaction can raise (every other one is plain JSON that writes back)
        self.may_raise: set[int] = set()
        self.call_keys: dict[int, object] = {}
        positions: list[int] = []
        reverse: list[int] = []
        parseable_outputs = 0
        for position, kind in enumerate(kinds):
            if kind not in (_CALL, _OUTPUT):
                continue
            if not position & 63:
                pause_if_due()  # a thread worker (the app's) lets keys through now and then
            content = messages[position].fields.get("content")
            data = _load(content, kind == _CALL) if content is not None else None
            if data is _FAILED:
                data = None if self.increment else epoch.UNPARSED
            elif not self.increment and (data is None or data is False):
                data = epoch.UNPARSED  # `JSON.parse(json) rescue nil; unless tool_call`
            ok = type(data) is dict
            if not self.increment:
                if data is epoch.UNPARSED or content is None:
                    ok = False
                elif not ok:
                    self.needs_exact_walk = True  # values_at on a non-Hash raises in 1.2.6
                elif kind == _OUTPUT:
                    parseable_outputs += 1
            if type(data) is dict and ok:
                self.ids[position] = epoch.hash_key(data.get("id"))
                if kind == _CALL:
                    arguments = data.get("arguments")
                    self.call_keys[position] = _dedup_key(data.get("name"), arguments)
                    if type(arguments) is not dict and arguments is not None and arguments is not False:
                        self.may_raise.add(position)  # 1.2.6 compacts only a Hash of arguments
                if not _all_finite(data):
                    self.may_raise.add(position)  # JSON.generate refuses it when the message is written back
                positions.append(position)
        # reverse positions: increment counts every output, 1.2.6 only the parseable ones
        if self.increment:
            seen = self.total
            at = 0
            for position, kind in enumerate(kinds):
                if kind == _OUTPUT:
                    here = seen
                    seen -= 1
                elif kind == _CALL:
                    here = seen
                else:
                    continue
                if at < len(positions) and positions[at] == position:
                    reverse.append(here)
                    at += 1
        else:
            seen = parseable_outputs
            for position in positions:
                if kinds[position] == _OUTPUT:
                    reverse.append(seen)
                    seen -= 1
                else:
                    reverse.append(seen)
        self.positions = positions
        self.reverse = reverse
        self.negated = [-k for k in reverse]
        self.originals = [chars_of(m.fields.get("content")) for m in messages]
        self.chars_before = sum(self.originals)
        self._repeats: tuple[set[int], list[int], dict[int, int]] | None = None
        self._compact: dict[int, str | ScoutError | None] = {}
        self._subject_at = {p: i for i, p in enumerate(positions)}

    def repeats(self) -> tuple[set[int], list[int], dict[int, int]]:
        """Protected reverse positions, repeated forward positions (2.x) and, per protected position,
        the index of the first occurrence of the call it repeats."""
        if self._repeats is None:
            pending: dict[Any, object] = {}
            keys: dict[object, list[tuple[int, int]]] = {}
            forward = 0
            for position, kind in enumerate(self.kinds):
                if kind == _OUTPUT and self.increment:
                    forward += 1
                ident = self.ids.get(position, _MISSING)
                if ident is _MISSING:
                    continue
                if kind == _CALL:
                    pending[ident] = self.call_keys[position]
                elif kind == _OUTPUT:
                    if not self.increment:
                        forward += 1
                    key = pending.pop(ident, None)
                    if key is not None:
                        keys.setdefault(key, []).append((forward, position))
            total = self.total
            protected: set[int] = set()
            repeated: set[int] = set()
            first_of: dict[int, int] = {}
            for found in keys.values():
                if len(found) <= 1:
                    continue
                repeated.update(f for f, _ in found[1:])
                reverse = total - max(f for f, _ in found) + 1
                protected.add(reverse)
                first_of[reverse] = found[0][1]
            self._repeats = (protected, sorted(repeated), first_of)
        return self._repeats

    def compacted(self, position: int) -> str | ScoutError | None:
        """The compacted content (str), None when nothing changes, or a ScoutError (cached)."""
        if position not in self._compact:
            self._compact[position] = self._compact_one(position)
        return self._compact[position]

    def _compact_one(self, position: int) -> str | ScoutError | None:
        message = self.messages[position]
        text = str(message.fields.get("content"))  # a String: only parsed Hash contents get here
        data = rubyjson.parse(text)  # exactly (wide integers kept) before writing it back
        output = self.kinds[position] == _OUTPUT
        try:
            if self.increment:
                return _increment_compact(data, output, self.shortener)
            return (
                epoch.compact_output(data, position, self.shortener)
                if output
                else epoch.compact_call(data, position, self.shortener)
            )
        except epoch.Raised as exc:
            e = exc.error
            return ScoutError(position, message.fields.get("role"), e.name, e.id, e.exception, e.why)
        except rubyjson.RubyJSONError as exc:
            return ScoutError(
                position, message.fields.get("role"), data.get("name"), data.get("id"), exc.exception, str(exc)
            )


_FAILED = object()


def _load(content: Any, exact: bool) -> Any:
    """JSON.parse as both strategies rescue it: _FAILED for what raises (not a String, bad JSON, too deep).

    Outputs skip the scan for wide integers (20 MB of it costs seconds): their values matter
    only when compacted, and compaction re-parses the one message exactly.
    """
    if type(content) is not str:
        return _FAILED
    try:
        value = rubyjson.parse(content, exact)
    except rubyjson.RubyJSONError:
        return _FAILED
    if rubyjson.too_deep(content, value):
        return _FAILED
    return value


def _all_finite(container: Any) -> bool:
    """``_finite`` of a parsed object or array, looking only at numbers and containers (a tool message is
    mostly strings: no call per string)."""
    value: Any
    for value in container.values() if type(container) is dict else container:
        kind = type(value)
        if kind is float:
            if value - value != 0.0:  # inf or nan
                return False
        elif (kind is dict or kind is list) and not _all_finite(value):
            return False
    return True


def _finite(value: Any) -> bool:
    kind = type(value)
    if kind is float:
        return value == value and value not in (float("inf"), float("-inf"))
    if kind is dict:
        return all(_finite(v) for v in value.values())
    if kind is list:
        return all(_finite(v) for v in value)
    return True


def _dedup_key(name: Any, arguments: Any) -> object:
    """A key equal exactly where Ruby's ``name + NUL + JSON.generate(sorted arguments)`` is equal.

    orjson with sorted keys is as injective as Ruby's generator on JSON values and much
    faster; non-finite floats (which orjson writes as null) and integers past 64 bits take
    the exact Ruby form.
    """
    if _finite(arguments):
        try:
            return (to_s(name), orjson.dumps(epoch.arguments_or_empty(arguments), option=_SORTED))
        except (TypeError, orjson.JSONEncodeError):
            pass
    return epoch.dedup_key(name, arguments)


_SORTED = orjson.OPT_SORT_KEYS


def _increment_compact(data: dict[str, Any], output: bool, shorten: Shortener) -> str | None:
    if output:
        content = data.get("content")
        new = shorten(to_s(content), increment.OUTPUT_SIZE, data.get("step"))
        if type(content) is str and new == content:
            return None
        data["content"] = new
    else:
        arguments = data.get("arguments")
        if type(arguments) is not dict or not arguments:
            return None  # String arguments are kept: 2.x asks is_a?(Hash) first
        new_arguments = {k: shorten(v, increment.ARGUMENT_SIZE) if type(v) is str else v for k, v in arguments.items()}
        if all(a is b or a == b for a, b in zip(arguments.values(), new_arguments.values())):
            return None
        data["arguments"] = new_arguments
    return rubyjson.dumps(data)


class Window:
    """The windows of one plan: what the strategy computed from its settings."""

    __slots__ = ("keep_full", "note", "schedule", "truncate_to")

    def __init__(self, keep_full: int, truncate_to: int, note: str, schedule: increment.Schedule | None = None):
        self.keep_full = keep_full
        self.truncate_to = truncate_to
        self.note = note  # epoch, pinned total, windows in words
        self.schedule = schedule


def window_for(facts: WindowFacts, settings: Any) -> Window | None:
    """The strategy's windows for ``settings``, or None when it returns the list unchanged."""
    total = facts.total
    if facts.increment:
        s: increment.IncrementSettings = settings
        threshold, full, base = s.clamped()[:3]
        if s.size <= 0 or total <= threshold or (full == 0 and base == 0):
            return None
        _, repeated, _ = facts.repeats()
        sched = increment.schedule(total, repeated, s)
        return Window(sched.keep_full, sched.truncate_to, sched.describe(), sched)
    e: epoch.EpochSettings = settings
    if total <= e.threshold or (e.full == 0 and e.compacted == 0) or e.size <= 0:
        return None
    pinned = e.threshold + ((total - e.threshold) - 1) // e.size * e.size
    keep_full = total - pinned + e.full
    note = f"pinned total {pinned}, full window {keep_full}, compacted window {e.compacted}"
    return Window(keep_full, keep_full + e.compacted, note)


class WindowPlan(PlannerBase):
    """One plan of an epoch strategy: the prepared messages and a decision per message, lazily."""

    def __init__(self, facts: WindowFacts, settings: Any):
        self.facts = facts
        self.settings = settings
        self.error: ScoutError | None = None
        self.compacted: dict[int, str] = {}
        self.dropped: list[int] = []
        self.protected_kept: set[int] = set()
        self.reached_from = 0
        self.failed_at = -1
        self._messages: list[Message] | None = None
        self._origins: list[int] | None = None
        if facts.increment and facts.bad_role is not None and settings.size > 0:
            p = facts.bad_role
            role = facts.messages[p].fields.get("role")
            self._fail(
                ScoutError(p, role, None, None, "NoMethodError", f"undefined method `to_sym' for {_class(role)}")
            )
            self.window = None
            return
        self.window = window = window_for(facts, settings)
        if window is None:
            return
        protected, _, _ = facts.repeats()
        positions, reverse, negated = facts.positions, facts.reverse, facts.negated
        full_from = bisect_left(negated, -window.keep_full)
        compact_from = bisect_left(negated, -window.truncate_to, 0, full_from)
        for at in range(full_from - 1, compact_from - 1, -1):  # newest first: the first error met is raised
            if not at & 63:
                pause_if_due()  # compacting a large window takes a while the first time
            p = positions[at]
            if reverse[at] in protected:
                self.protected_kept.add(p)
                continue
            new = facts.compacted(p)
            if isinstance(new, ScoutError):
                self._fail(new)
                return
            if new is not None:
                self.compacted[p] = new
        dropped = self.dropped
        for at in range(compact_from):
            if reverse[at] in protected:
                self.protected_kept.add(positions[at])
            else:
                dropped.append(positions[at])

    def _fail(self, error: ScoutError) -> None:
        self.error = error
        self.failed_at = error.index
        self.compacted, self.dropped = {}, []

    # -- the prepared list ---------------------------------------------------------------
    def _build(self) -> None:
        facts = self.facts
        messages = facts.messages
        if self.error is not None:
            self._messages, self._origins = [], []
            return
        if self.window is None:
            self._messages, self._origins = list(messages), list(range(len(messages)))
            return
        dropped = set(self.dropped)
        compacted = self.compacted
        flag = facts.increment
        out: list[Message] = []
        origins: list[int] = []
        for p, message in enumerate(messages):
            if p in dropped:
                continue
            new = compacted.get(p)
            if new is None:
                out.append(message)
            else:
                fields = {**message.fields, "content": new}
                if flag:
                    fields["compacted"] = True  # msg.dup plus :compacted => true (not sent to the model)
                out.append(Message(fields, message.line, message.end_line, message.source))
            origins.append(p)
        if compacted or dropped:
            kinds = facts.kinds
            at = next((i + 1 for i, p in enumerate(origins) if kinds[p] in (_CALL, _OUTPUT)), len(out))
            out.insert(at, Message({"role": "user", "content": self.notice_text()}))
            origins.insert(at, -1)
        self._messages, self._origins = out, origins

    def notice_text(self) -> str:
        if self.facts.increment:
            return increment.COMPACTION_TEXT.format(compacted=len(self.compacted), dropped=len(self.dropped))
        return epoch.COMPACTION_TEXT.format(truncated=len(self.compacted), dropped=len(self.dropped))

    def messages(self) -> list[Message]:
        if self._messages is None:
            self._build()
        return self._messages  # type: ignore[return-value]

    def origins(self) -> list[int]:
        if self._origins is None:
            self._build()
        return self._origins  # type: ignore[return-value]

    # -- per message ---------------------------------------------------------------------
    def tier_of(self, index: int) -> d.Tier:
        if self.error is not None:
            if index == self.failed_at:
                return d.ERROR
            return d.UNDECIDED if index < self.failed_at else d.FULL
        if index in self.compacted:
            return d.TRUNCATED
        if self.window is not None and index in self._dropped_set():
            return d.DROPPED
        return d.FULL

    def _dropped_set(self) -> set[int]:
        found = getattr(self, "_dropped", None)
        if found is None:
            found = self._dropped = set(self.dropped)
        return found

    def visible_content(self, index: int) -> Any:
        tier = self.tier_of(index)
        if tier == d.TRUNCATED:
            return self.compacted[index]
        if tier == d.FULL and self.error is None:
            return self.facts.messages[index].fields.get("content")
        return None

    def decision(self, index: int) -> d.Decision:
        facts = self.facts
        kind_code = facts.kinds[index]
        kind = ToolKind.CALL if kind_code == _CALL else ToolKind.OUTPUT if kind_code == _OUTPUT else ToolKind.NONE
        original = facts.originals[index]
        at = facts._subject_at.get(index)
        k = facts.reverse[at] if at is not None else None
        if self.error is not None:
            if index == self.failed_at:
                return d.Decision(
                    index,
                    d.ERROR,
                    d.SCOUT_ERROR,
                    k,
                    None,
                    original,
                    0,
                    kind,
                    f"{self.error.exception}: {self.error.why}",
                )
            if index < self.failed_at:
                return d.Decision(index, d.UNDECIDED, d.NOT_REACHED, k, None, original, 0, kind)
        if not kind:
            return d.Decision(index, d.FULL, d.NOT_TOOL, None, None, original, original, kind)
        window = self.window
        if window is None:
            return d.Decision(index, d.FULL, d.EPOCH_UNDER, k, None, original, original, kind)
        if at is None:
            content = facts.messages[index].fields.get("content")
            reason = d.NO_CONTENT if content is None else d.EPOCH_UNPARSED
            return d.Decision(index, d.FULL, reason, None, None, original, original, kind)
        assert k is not None
        where = f"position {k} from the newest; {window.note}"
        if index in self.compacted:
            new = self.compacted[index]
            return d.Decision(index, d.TRUNCATED, d.EPOCH_COMPACTED, k, None, original, len(new), kind, where)
        if index in self.protected_kept:
            first = facts.repeats()[2].get(k)
            why = f"repeats message {first}; {where}" if first is not None else where
            return d.Decision(index, d.FULL, d.EPOCH_PROTECTED, k, None, original, original, kind, why)
        if k <= window.keep_full:
            return d.Decision(index, d.FULL, d.EPOCH_FULL, k, None, original, original, kind, where)
        if k <= window.truncate_to:
            return d.Decision(index, d.FULL, d.EPOCH_NOTHING, k, None, original, original, kind, where)
        return d.Decision(index, d.DROPPED, d.EPOCH_DROPPED, k, None, original, 0, kind, where)

    def decisions(self) -> list[d.Decision]:
        return [self.decision(i) for i in range(len(self.facts.messages))]

    def tier_counts(self) -> dict[d.Tier, int]:
        n = len(self.facts.messages)
        counts = {d.FULL: n, d.TRUNCATED: 0, d.DROPPED: 0, d.ERROR: 0, d.UNDECIDED: 0}
        if self.error is not None:
            counts[d.ERROR] = 1
            counts[d.UNDECIDED] = self.failed_at
            counts[d.FULL] = n - 1 - self.failed_at
            return counts
        counts[d.TRUNCATED] = len(self.compacted)
        counts[d.DROPPED] = len(self.dropped)
        counts[d.FULL] = n - counts[d.TRUNCATED] - counts[d.DROPPED]
        return counts

    def sizes(self, chars_before: int | None = None) -> Sizes:
        """Characters before, tool characters before, characters after, tool characters after, messages sent."""
        facts = self.facts
        tool_before = sum(n for n, k in zip(facts.originals, facts.kinds) if k in (_CALL, _OUTPUT))
        if self.error is not None:
            return facts.chars_before, tool_before, 0, 0, 0
        after = self.chars_after()
        notice = len(self.notice_text()) if self.compacted or self.dropped else 0
        tool_after = after - (facts.chars_before - tool_before) - notice
        sent = len(facts.messages) - len(self.dropped) + (1 if notice else 0)
        return facts.chars_before, tool_before, after, tool_after, sent

    def chars_after(self) -> int:
        if self.error is not None:
            return 0
        originals = self.facts.originals
        total = self.facts.chars_before - sum(originals[p] for p in self.dropped)
        total += sum(len(text) - originals[p] for p, text in self.compacted.items())
        if self.compacted or self.dropped:
            total += len(self.notice_text())
        return total


def _class(value: Any) -> str:
    from inspector.core.scout.tool_facts import ruby_class

    return ruby_class(value)


class Unchanged(PlannerBase):
    """``none`` (and a chain of nothing else): every message is sent as it is."""

    error: ScoutError | None = None

    def __init__(self, messages: list[Message], tool_facts: ToolFacts | None = None):
        self.messages_in = messages
        self.tool_facts = tool_facts if tool_facts is not None and tool_facts.messages is messages else None

    def messages(self) -> list[Message]:
        return list(self.messages_in)

    def origins(self) -> list[int]:
        return list(range(len(self.messages_in)))

    def tier_of(self, index: int) -> d.Tier:
        return d.FULL

    def visible_content(self, index: int) -> Any:
        return self.messages_in[index].fields.get("content")

    def decision(self, index: int) -> d.Decision:
        message = self.messages_in[index]
        role = message.fields.get("role")
        kind = tool_kind(role)
        n = chars_of(message.fields.get("content"))
        return d.Decision(index, d.FULL, d.NO_STRATEGY if kind else d.NOT_TOOL, None, None, n, n, kind)

    def decisions(self) -> list[d.Decision]:
        return [self.decision(i) for i in range(len(self.messages_in))]

    def tier_counts(self) -> dict[d.Tier, int]:
        return {d.FULL: len(self.messages_in), d.TRUNCATED: 0, d.DROPPED: 0, d.ERROR: 0, d.UNDECIDED: 0}

    def sizes(self, chars_before: int | None = None) -> Sizes:
        facts = self.tool_facts
        if facts is not None:
            tool, total = facts.tool_chars(), facts.tool_chars() + facts.nontool_chars()
        else:
            total = sum(chars_of(m.fields.get("content")) for m in self.messages_in)
            tool = sum(
                chars_of(m.fields.get("content"))
                for m in self.messages_in
                if m.fields.get("role") in ("function_call", "function_call_output")
            )
        return total, tool, total, tool, len(self.messages_in)


def as_result(plan: WindowPlan) -> epoch.EpochResult:
    """The plan in the message-by-message form a chain of strategies composes (dicts, outcomes)."""
    size = len(plan.facts.messages)
    outcomes = []
    for index in range(size):
        decision = plan.decision(index)
        outcomes.append(epoch.Outcome(decision.tier, decision.reason, decision.outputs_counted))
    error = None
    if plan.error is not None:
        e = plan.error
        error = epoch.EpochError(e.index, e.exception, e.why, e.name, e.id)
        return epoch.EpochResult([], [], outcomes, error)
    messages = [m.fields for m in plan.messages()]
    return epoch.EpochResult(messages, plan.origins(), outcomes, None, len(plan.compacted), len(plan.dropped))


def shorten_tools_epoch_increment(
    messages: list[dict[str, Any]], settings: increment.IncrementSettings | None = None
) -> list[dict[str, Any]]:
    """The plain strategy form (list in, list out); raises ValueError where scout-ai would raise."""
    plan = WindowPlan(
        WindowFacts([Message(m) for m in messages], increment.NAME, ENVELOPE), settings or increment.IncrementSettings()
    )
    if plan.error is not None:
        raise ValueError(f"scout-ai would raise {plan.error.exception}: {plan.error.why}")
    return [m.fields for m in plan.messages()]
