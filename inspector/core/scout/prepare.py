"""``Chat.prepare_prompt``: run the strategies and keep a decision for every message."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from inspector.core.errors import ScoutError
from inspector.core.model import Message
from inspector.core.policies import decision as d
from inspector.core.policies.planner import Planner, PlannerBase, Sizes
from inspector.core.ruby.json import generator_error
from inspector.core.scout import versions
from inspector.core.scout.roles import is_tool, tool_kind
from inspector.core.scout.settings import DEFAULTS
from inspector.core.scout.strategies import (
    EPOCH,
    INCREMENT,
    StrategyFn,
    is_registered,
    lookup,
    parse_spec,
    plugin_failures,
)
from inspector.core.scout.strategies.shorten_tools import ShortenToolsPlan
from inspector.core.scout.tool_facts import ToolFacts, chars_of

if TYPE_CHECKING:  # the epoch strategies are imported when they run (a plain `prepare` pays for neither)
    from inspector.core.scout.strategies.shorten_tools_epoch import EpochSettings
    from inspector.core.scout.strategies.shorten_tools_epoch_increment import IncrementSettings
    from inspector.core.scout.totals import Totals

DEFAULT_THRESHOLDS = (
    DEFAULTS["full_tool_calls"],
    DEFAULTS["full_tool_outputs"],
    DEFAULTS["max_tool_calls"],
    DEFAULTS["max_tool_outputs"],
    DEFAULTS["max_tool_chars"],
)  # in KEYS order


class ChainPlan(PlannerBase):
    """A chain of strategies and plugins run message list by message list: its result, decided."""

    def __init__(
        self,
        original: list[Message],
        prepared: list[Message],
        origins: list[int],
        decisions: list[d.Decision],
        error: ScoutError | None,
    ) -> None:
        self.original = original
        self._prepared = prepared if error is None else []
        self._origins = origins if error is None else []
        self._decisions = decisions
        self.error = error
        self._position: dict[int, int] | None = None  # original index -> place in the prepared list

    def messages(self) -> list[Message]:
        return list(self._prepared)

    def origins(self) -> list[int]:
        return list(self._origins)

    def decision(self, index: int) -> d.Decision:
        return self._decisions[index]

    def decisions(self) -> list[d.Decision]:
        return list(self._decisions)

    def tier_of(self, index: int) -> d.Tier:
        return self._decisions[index].tier

    def visible_content(self, index: int) -> Any:
        if self._decisions[index].tier in (d.DROPPED, d.ERROR, d.UNDECIDED):
            return None
        if self._position is None:
            self._position = {}
            for k, o in enumerate(self._origins):
                self._position.setdefault(o, k)
        position = self._position.get(index)
        return self._prepared[position].fields.get("content") if position is not None else None

    def tier_counts(self) -> dict[d.Tier, int]:
        counts = {t: 0 for t in (d.FULL, d.TRUNCATED, d.DROPPED, d.ERROR, d.UNDECIDED)}
        for dec in self._decisions:
            counts[dec.tier] = counts.get(dec.tier, 0) + 1
        return counts

    def sizes(self, chars_before: int | None = None) -> Sizes:
        original = self.original
        tool_before = sum(chars_of(m.fields.get("content")) for m in original if is_tool(m))
        if chars_before is None:
            chars_before = sum(chars_of(m.fields.get("content")) for m in original)
        if self.error is not None:
            return chars_before, tool_before, 0, 0, 0
        prepared = self._prepared
        chars_after = sum(chars_of(m.fields.get("content")) for m in prepared)
        tool_after = sum(chars_of(m.fields.get("content")) for m in prepared if is_tool(m))
        return chars_before, tool_before, chars_after, tool_after, len(prepared)


class Prompt:
    """What the model is sent, with one decision per original message: one planner's answer, and what
    2.x's inbox appended after it."""

    def __init__(self, messages: list[Message], strategies: list[str] | StrategyFn, planner: Planner) -> None:
        self.original = messages
        self.strategies = strategies
        self.planner = planner
        self.error: ScoutError | None = planner.error
        self.version = ""  # the scout-ai version whose prompt layer made it (set by prepare_prompt)
        self.appended: list[Message] = []  # what 2.x's inbox appended (rebuilt read-only from inbox_removed/)
        self._send_checked = False  # send_error, once asked
        self._send_error: str | None = None

    @property
    def plan(self) -> ShortenToolsPlan | None:
        """The shorten_tools plan when it alone decides every message (the analyses' closed forms)."""
        planner = self.planner
        return planner if isinstance(planner, ShortenToolsPlan) else None

    def send_error(self) -> str | None:
        """What scout-ai raises writing the prepared prompt to send it (an infinite number such as 1e400,
        an invalid byte in a string): the call fails though the strategies ran. None: it is sent.
        Checked once (explain's report and its exit status both ask)."""
        if not self._send_checked:
            found = None if self.error is not None else generator_error([m.fields for m in self.messages()])
            self._send_checked = True
            self._send_error = None if found is None else f"{found.exception}: {found} (writing the prompt to send it)"
        return self._send_error

    def describe_error(self) -> str:
        """What raises, in words, with the message's line in the chat file (where the chat has lines)."""
        error = self.error
        if error is None:
            return ""
        line = self.original[error.index].line if 0 <= error.index < len(self.original) else None
        return error.describe(line)

    @property
    def strategy_label(self) -> str:
        if callable(self.strategies):
            return getattr(self.strategies, "__name__", "custom")
        return ",".join(self.strategies) if self.strategies else "(empty list)"

    def messages(self) -> list[Message]:
        if self.error is not None:
            return []
        return [*self.planner.messages(), *self.appended] if self.appended else self.planner.messages()

    def origins(self) -> list[int]:
        """For each prepared message, the original index it came from (-1: inserted by a strategy)."""
        if self.error is not None:
            return []
        origins = self.planner.origins()
        return [*origins, *([-1] * len(self.appended))] if self.appended else origins

    def inserted(self) -> list[tuple[int, Message]]:
        """Messages a strategy added (a compaction notice) or the inbox appended, with their place in the
        prepared list."""
        if self.error is not None:
            return []
        found = self.planner.inserted()
        if self.appended:
            sent = len(self.planner.origins())
            found = [*found, *((sent + k, m) for k, m in enumerate(self.appended))]
        return found

    # When scout-ai raises nothing is sent: what the planner had decided before the raise is reported as
    # undecided (d.discarded), so no row claims to be full or sent while the call fails.
    def decision(self, index: int) -> d.Decision:
        found = self.planner.decision(index)
        return found if self.error is None else d.discarded(found, self.error.index)

    def decisions(self) -> list[d.Decision]:
        found = self.planner.decisions()
        if self.error is None:
            return found
        return [d.discarded(x, self.error.index) for x in found]

    def decision_columns(self) -> d.DecisionColumns:
        """``decisions()`` as columns (no object per message when the plan can give them so)."""
        found = self.planner.decision_columns()
        return found if self.error is None else d.discarded_columns(found, self.error.index)

    def tier_of(self, index: int) -> d.Tier:
        tier = self.planner.tier_of(index)
        return tier if self.error is None else d.discarded_tier(tier)

    def visible_content(self, index: int) -> Any:
        return self.planner.visible_content(index) if self.error is None else None

    def tier_counts(self) -> dict[d.Tier, int]:
        found = self.planner.tier_counts()
        return dict(found) if self.error is None else d.discarded_counts(found)

    def changed_from(self, other: Prompt) -> list[int] | None:
        """The original indices whose outcome may differ in ``other`` (None: any may)."""
        return self.planner.changed_from(other.planner)

    def totals(self, chars_before: int | None = None) -> Totals:
        """Messages and characters before and after (all roles; tool characters separately).

        ``chars_before``: every original message's characters, when the caller has them counted
        (explain's columns): a million messages are then not read again to count them.
        """
        from inspector.core.scout.totals import Totals, tier_counts  # the reports' (`prepare` writes none)

        before, tool_before, after, tool_after, visible = self.planner.sizes(chars_before)
        if self.error is not None:
            visible, after, tool_after = 0, 0, 0
        return Totals(
            messages=len(self.original),
            visible_messages=visible,
            tiers=tier_counts(self.tier_counts()),
            chars_before=before,
            chars_after=after,
            tool_chars_before=tool_before,
            tool_chars_after=tool_after,
            error=self.error.describe() if self.error is not None else None,
        )


def prepare_prompt(
    messages: list[Message],
    strategies: Any = None,
    thresholds: tuple[int, int, int, int, int] | None = None,
    facts: ToolFacts | None = None,
    epoch: EpochSettings | None = None,
    version: versions.ScoutVersion | None = None,
    increment_settings: IncrementSettings | None = None,
    injected: list[Message] | None = None,
) -> Prompt:
    """Apply the strategies as scout-ai does (see _prepare); the prompt names the version that ran.

    ``injected``: the messages 2.x's inbox appended (inbox.read_inbox), added when ``inbox`` runs.
    """
    if version is None:
        found = None if strategies is None or callable(strategies) else parse_spec(strategies, validate=False)
        version = versions.infer(None if found is None or callable(found) else found)
    prompt = _prepare(messages, strategies, thresholds, facts, epoch, version, increment_settings)
    prompt.version = version.name
    if injected and prompt.error is None and version.passes_save_file:
        names = parse_spec(strategies, version.default, validate=False)
        if not callable(names) and "inbox" in names:
            prompt.appended = list(injected)  # Chat.setup(messages + additions): at the end
    return prompt


def _prepare(
    messages: list[Message],
    strategies: Any,
    thresholds: tuple[int, int, int, int, int] | None,
    facts: ToolFacts | None,
    epoch: EpochSettings | None,
    version: versions.ScoutVersion,
    increment_settings: IncrementSettings | None,
) -> Prompt:
    """Apply the strategies as scout-ai does. ``thresholds`` is the five values in KEYS order.

    ``epoch`` is shorten_tools_epoch's four settings; None reads them (config files, environment,
    defaults) when that strategy runs. ``version`` is the scout-ai version whose prompt layer runs
    (prepare_prompt infers it when not given).
    """
    if thresholds is None:
        thresholds = DEFAULT_THRESHOLDS
    spec = parse_spec(strategies, version.default, validate=False)
    if facts is None or facts.messages is not messages or facts.shortener is not version.shortener:
        facts = None
    if callable(spec):
        return _run_chain(messages, spec, [spec], thresholds, facts, epoch, version, increment_settings)
    if spec == ["shorten_tools"]:
        facts = facts if facts is not None else ToolFacts(messages, version.shortener)
        return Prompt(messages, spec, ShortenToolsPlan(facts, thresholds))
    if all(name in version.builtin for name in spec):
        # inbox only appends (read-only here) and none changes nothing: one planner decides every message
        core = [name for name in spec if name not in ("none", "inbox")]
        if not core:
            from inspector.core.scout.strategies.windows import Unchanged

            return Prompt(messages, spec, Unchanged(messages, facts))
        if len(core) == 1 and core[0] in (EPOCH, INCREMENT):
            stage = _window_plan(messages, core[0], facts, version, epoch, increment_settings)
            if stage is not None:
                return Prompt(messages, spec, stage)
    return _run_chain(messages, spec, spec, thresholds, facts, epoch, version, increment_settings)


def _window_plan(
    messages: list[Message],
    name: str,
    facts: ToolFacts | None,
    version: versions.ScoutVersion,
    epoch: EpochSettings | None,
    increment_settings: IncrementSettings | None,
) -> Planner | None:
    """An epoch strategy planned over facts cached with the chat's ToolFacts (None: take the exact walk)."""
    from inspector.core.scout.strategies.windows import WindowFacts, WindowPlan

    found = facts.windows.get(name) if facts is not None else None
    if found is None:
        found = WindowFacts(messages, name, version.shortener, facts)
        if facts is not None:
            facts.windows[name] = found
    if found.needs_exact_walk:
        return None
    settings: EpochSettings | IncrementSettings
    if name == EPOCH:
        from inspector.core.scout.strategies.shorten_tools_epoch import EpochSettings

        settings = epoch if epoch is not None else EpochSettings.resolve()
    else:
        from inspector.core.scout.strategies.shorten_tools_epoch_increment import IncrementSettings

        settings = increment_settings or IncrementSettings()
    return WindowPlan(found, settings)


def _unknown(stage: str, version: versions.ScoutVersion) -> ScoutError:
    """What the version does with a name its dispatcher lacks: it raises, before touching a message."""
    exception, why = version.unknown_error(stage)
    having = versions.having(stage)
    hint = (
        f"; {stage!r} is a strategy of scout-ai {', '.join(having)} (try --scout-version {having[-1]})"
        if having
        else ""
    )
    failed = plugin_failures().get(stage)
    if failed is not None:
        hint += f"; the strategy plugin {stage!r} failed to load ({failed})"
    return ScoutError(-1, None, None, None, exception, f"{why} (strategy {stage!r} in scout-ai {version.name}){hint}")


def _run_chain(
    messages: Any,
    label: Any,
    stages: Any,
    thresholds: Any,
    facts: Any,
    epoch: Any = None,
    version: versions.ScoutVersion = versions.SEED,
    increment_settings: Any = None,
) -> Prompt:
    originals = [chars_of(m.fields.get("content")) for m in messages]
    decisions = [
        d.Decision(
            i, d.FULL, d.NO_STRATEGY if is_tool(m) else d.NOT_TOOL, None, None, n, n, tool_kind(m.fields.get("role"))
        )
        for i, (m, n) in enumerate(zip(messages, originals))
    ]
    current = list(messages)
    origin = list(range(len(messages)))
    error = None
    for stage in stages:
        if stage == "none":
            continue
        if stage == "shorten_tools":
            stage_facts = (
                facts
                if facts is not None and facts.messages is messages and current == messages
                else ToolFacts(current, version.shortener)
            )
            plan = ShortenToolsPlan(stage_facts, thresholds)
            for j in range(len(current)):
                dec = plan.decision(j)
                source = origin[j]
                if source < 0:
                    continue
                if dec.tier != d.FULL or decisions[source].reason in (d.NO_STRATEGY, d.NOT_TOOL):
                    decisions[source] = dec._replace(index=source, original_chars=originals[source])
            if plan.error is not None:
                e = plan.error
                error = replace(e, index=origin[e.index]) if origin[e.index] >= 0 else e
                break
            keep = plan.origins()
            current = plan.messages()
            origin = [origin[j] for j in keep]
            continue
        if not callable(stage) and stage not in version.builtin and not is_registered(stage):
            error = _unknown(stage, version)
            break
        if stage == EPOCH:
            from inspector.core.scout.strategies.shorten_tools_epoch import EpochSettings
            from inspector.core.scout.strategies.shorten_tools_epoch import run as run_epoch

            if epoch is None:
                epoch = EpochSettings.resolve()
            result = run_epoch([m.fields for m in current], epoch, version.shortener)
            current, origin, error = _run_epoch(current, origin, decisions, originals, result)
            if error is not None:
                break
            continue
        if stage == INCREMENT:
            from inspector.core.scout.strategies.shorten_tools_epoch_increment import IncrementSettings
            from inspector.core.scout.strategies.windows import WindowFacts, WindowPlan, as_result

            settings = increment_settings or IncrementSettings()
            stage_plan = WindowPlan(WindowFacts(current, INCREMENT, version.shortener), settings)
            current, origin, error = _run_epoch(current, origin, decisions, originals, as_result(stage_plan))
            if error is not None:
                break
            continue
        if stage == "inbox":
            continue  # read-only: the messages it appended are rows of their own (see inbox.py)
        fn = stage if callable(stage) else lookup(stage)
        current, origin = _run_custom(fn, current, origin, decisions, originals)
    if error is None:
        _settle(messages, current, origin, decisions)
    return Prompt(messages, label, ChainPlan(messages, current, origin, decisions, error))


def _run_epoch(current: Any, origin: Any, decisions: Any, originals: Any, result: Any) -> Any:
    """One epoch stage's result; its per-message outcomes become decisions with epoch reasons."""
    for j, outcome in enumerate(result.outcomes):
        source = origin[j]
        if source < 0:
            continue
        earlier = decisions[source]
        # a later stage keeping a message whole does not hide what an earlier stage did to it
        if outcome.tier != d.FULL or earlier.reason in (d.NO_STRATEGY, d.NOT_TOOL):
            visible = 0 if outcome.tier == d.DROPPED else earlier.visible_chars  # _settle updates the rest
            decisions[source] = d.Decision(
                source, outcome.tier, outcome.reason, outcome.counted, None, originals[source], visible, earlier.kind
            )
    if result.error is not None:
        e = result.error
        message = current[e.position]
        source = origin[e.position]
        error = ScoutError(source, message.fields.get("role"), e.name, e.id, e.exception, e.why)
        if source >= 0:
            decisions[source] = decisions[source]._replace(detail=f"{e.exception}: {e.why}")
        return [], [], error
    new_current, new_origin = [], []
    for j, fields in zip(result.origins, result.messages):
        if j < 0:
            new_current.append(Message(dict(fields)))  # the compaction notice scout-ai inserts
            new_origin.append(-1)
            continue
        base = current[j]
        same = fields is base.fields
        new_current.append(base if same else Message(dict(fields), base.line, base.end_line, base.source))
        new_origin.append(origin[j])
    return new_current, new_origin, None


def _run_custom(fn: Any, current: Any, origin: Any, decisions: Any, originals: Any) -> Any:
    given = [dict(m.fields) for m in current]
    result = fn(given)
    if not isinstance(result, list):
        raise TypeError(f"strategy {getattr(fn, '__name__', fn)!r} returned {type(result).__name__}, not a list")
    by_id = {id(f): j for j, f in enumerate(given)}
    returned = {id(item) for item in result}
    new_current, new_origin, cursor = [], [], 0
    for item in result:
        if not isinstance(item, dict):
            raise TypeError(f"strategy {getattr(fn, '__name__', fn)!r} returned a non-dict message")
        j = by_id.get(id(item))
        if j is None:
            j = next((k for k in range(cursor, len(given)) if given[k] == item), None)
        if (
            j is None
            and cursor < len(given)
            and given[cursor].get("role") == item.get("role")
            and id(given[cursor]) not in returned
        ):
            j = cursor  # a rewritten copy of the next message (as shorten_tools' msg.dup does)
        if j is None:
            new_current.append(Message(dict(item)))
            new_origin.append(-1)
            continue
        cursor = j + 1
        base = current[j]
        new_current.append(Message(dict(item), base.line, base.end_line, base.source))
        new_origin.append(origin[j])
    kept = set(new_origin)
    for source in origin:
        if source >= 0 and source not in kept:
            decisions[source] = d.Decision(
                source, d.DROPPED, d.CUSTOM, None, None, originals[source], 0, decisions[source].kind
            )
    return new_current, new_origin


def _settle(messages: Any, current: Any, origin: Any, decisions: Any) -> None:
    """Make each decision's tier agree with what the chain finally sends."""
    final = {source: m for source, m in zip(origin, current) if source >= 0}
    for index, message in enumerate(messages):
        dec = decisions[index]
        sent = final.get(index)
        if sent is None:
            if dec.tier != d.DROPPED:
                decisions[index] = dec._replace(tier=d.DROPPED, reason=d.CUSTOM, visible_chars=0)
            continue
        visible = chars_of(sent.fields.get("content"))
        changed = sent.fields.get("content") != message.fields.get("content")
        if changed and dec.tier != d.TRUNCATED:
            decisions[index] = dec._replace(tier=d.TRUNCATED, reason=d.CUSTOM, visible_chars=visible)
        elif not changed and dec.tier != d.FULL:
            decisions[index] = dec._replace(tier=d.FULL, visible_chars=visible)
        elif dec.visible_chars != visible:
            decisions[index] = dec._replace(visible_chars=visible)
