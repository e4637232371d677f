"""The other frameworks' policies by name, their settings (the library's own names and defaults), and
the values a command line gives them (``--set NAME=VALUE``), checked as the library checks them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from inspector.core.errors import UsageError
from inspector.core.peers import inspect_ai, langchain, openai_agents, openhands
from inspector.core.peers.outcome import Outcome
from inspector.core.peers.spec import Kind, Param, PolicySpec, Runner
from inspector.core.peers.wire import Item

__all__ = ["SCOUT", "Counts", "Kind", "Param", "PolicySettings", "PolicySpec", "Runner", "get", "names"]

SCOUT = "scout"  # scout-ai's own prompt strategies (the default)


TYPE_NAMES = ("system", "human", "ai", "tool")


class Counts:
    """Each library's counts of one chat's messages, kept across re-plans (a message is counted once)."""

    def __init__(self) -> None:
        self.langchain: langchain.Cache = {}
        self._inspect: inspect_ai.InspectCounter | None = None
        self._facts: dict[tuple[type, int], tuple[list[Item], Any]] = {}  # a policy's facts of one item list

    def get(self, items: list[Item], kind: type) -> Any:
        """What a policy kept (facts of type ``kind``) of this list of items, matched by its first and last
        items: a plan's list is a new object, but its items are the chat's."""
        found = self._facts.get((kind, id(items[0]))) if items else None
        if found is None or len(found[0]) != len(items) or found[0][0] is not items[0] or found[0][-1] is not items[-1]:
            return None
        return found[1]

    def put(self, items: list[Item], facts: Any) -> None:
        if items:
            self._facts[(type(facts), id(items[0]))] = (items, facts)

    @property
    def inspect(self) -> inspect_ai.InspectCounter:
        if self._inspect is None:
            self._inspect = inspect_ai.InspectCounter()
        return self._inspect


def _lc_trim(items: list[Item], s: dict[str, Any], cache: Counts | None) -> Outcome:
    return langchain.trim_messages(items, s, cache.langchain if cache else None)


def _lc_clear(items: list[Item], s: dict[str, Any], cache: Counts | None) -> Outcome:
    return langchain.clear_tool_uses(items, s, cache.langchain if cache else None, facts_cache=cache)


def _anthropic(items: list[Item], s: dict[str, Any], cache: Counts | None) -> Outcome:
    settings = {**s, "placeholder": "[cleared]"}
    return langchain.clear_tool_uses(
        items, settings, cache.langchain if cache else None, who="approximate", facts_cache=cache
    )


def _inspect(kind: str) -> Runner:
    def run(items: list[Item], s: dict[str, Any], cache: Counts | None) -> Outcome:
        return inspect_ai.replay(kind, items, s, cache.inspect if cache else inspect_ai.InspectCounter())

    return run


CLEAR_PARAMS = (
    Param(
        "trigger",
        Kind.INT,
        100_000,
        "tokens (LangChain's count of the messages, system prompt apart) above which it clears",
        minimum=0,
        numeric=True,
    ),
    Param("keep", Kind.INT, 3, "the newest tool results never cleared", minimum=0, numeric=True),
    Param(
        "clear_at_least",
        Kind.INT,
        0,
        "tokens to reclaim before it stops (0: clear every candidate)",
        minimum=0,
        numeric=True,
    ),
    Param("clear_tool_inputs", Kind.BOOL, False, "also replace the cleared calls' arguments by {}"),
    Param("exclude_tools", Kind.LIST, (), "tools whose results are never cleared"),
)
INSPECT_COMMON = (
    Param(
        "threshold",
        Kind.THRESHOLD,
        0.9,
        "tokens above which the handler compacts (a fraction <= 1 of context_window; always: the strategy alone)",
        numeric=True,
    ),
    Param(
        "context_window",
        Kind.INT,
        inspect_ai.DEFAULT_CONTEXT_WINDOW,
        "the model's window a fractional threshold applies to (Inspect assumes 128,000 for a model it does not know)",
        minimum=1,
    ),
    Param("memory", Kind.BOOL, True, "clear the memory tool's file_text/insert_text/new_str arguments"),
)

POLICIES: dict[str, PolicySpec] = {
    spec.name: spec
    for spec in (
        PolicySpec(
            "langchain.trim_messages",
            "langchain-core 1.8.3 trim_messages",
            True,
            (
                Param("max_tokens", Kind.INT, None, "the budget (required)", required=True, minimum=0, numeric=True),
                Param("strategy", Kind.CHOICE, "last", "keep the last or the first messages", ("last", "first")),
                Param(
                    "token_counter",
                    Kind.CHOICE,
                    "approximate",
                    "count_tokens_approximately, or len (messages)",
                    ("approximate", "len"),
                ),
                Param("allow_partial", Kind.BOOL, False, "keep part of the message at the edge (whole lines)"),
                Param("include_system", Kind.BOOL, False, "always keep a leading system message (strategy last)"),
                Param(
                    "start_on",
                    Kind.TYPES,
                    (),
                    "drop leading messages until one of these types (strategy last)",
                    TYPE_NAMES,
                ),
                Param("end_on", Kind.TYPES, (), "drop trailing messages until one of these types", TYPE_NAMES),
            ),
            _lc_trim,
            empty_content="",
            who="LangChain",
        ),
        PolicySpec(
            "langchain.clear_tool_uses",
            "langchain 1.5.2 ContextEditingMiddleware + ClearToolUsesEdit",
            True,
            (*CLEAR_PARAMS, Param("placeholder", Kind.TEXT, "[cleared]", "the text a cleared result becomes")),
            _lc_clear,
            empty_content="",
            who="LangChain",
        ),
        PolicySpec(
            "openai.tool_output_trimmer",
            "openai-agents 0.24.0 ToolOutputTrimmer",
            True,
            (
                Param("recent_turns", Kind.INT, 2, "user turns, newest first, never trimmed", minimum=1, numeric=True),
                Param(
                    "max_output_chars", Kind.INT, 500, "outputs longer than this are trimmed", minimum=1, numeric=True
                ),
                Param("preview_chars", Kind.INT, 200, "characters of a trimmed output kept", minimum=0, numeric=True),
                Param("trimmable_tools", Kind.LIST, (), "only these tools' outputs are trimmed (empty: all)"),
            ),
            openai_agents.tool_output_trimmer,
            counts="characters",
            who="the OpenAI Agents SDK",
        ),
        PolicySpec(
            "inspect.compaction_edit",
            "inspect-ai 0.3.285 CompactionEdit under compaction()",
            True,
            (
                *INSPECT_COMMON,
                Param("keep_tool_uses", Kind.INT, 3, "the newest tool uses kept", numeric=True),
                Param("keep_tool_inputs", Kind.BOOL, True, "false: remove the call with its result, leaving a note"),
                Param(
                    "keep_thinking_turns",
                    Kind.INT,
                    1,
                    "assistant turns whose reasoning is kept (no chat here holds reasoning)",
                ),
                Param("exclude_tools", Kind.LIST, (), "tools never cleared"),
            ),
            _inspect("edit"),
            stateful=True,
            empty_content="",
            who="Inspect",
        ),
        PolicySpec(
            "inspect.compaction_trim",
            "inspect-ai 0.3.285 CompactionTrim under compaction()",
            True,
            (*INSPECT_COMMON, Param("preserve", Kind.FLOAT, 0.8, "the share of the conversation kept", minimum=0)),
            _inspect("trim"),
            stateful=True,
            empty_content="",
            who="Inspect",
        ),
        PolicySpec(
            "anthropic.clear_tool_uses",
            "Anthropic context editing clear_tool_uses_20250919 (server side)",
            False,
            CLEAR_PARAMS,
            _anthropic,
            note="approximate: Anthropic does not publish its tokenizer, placeholder or stopping rule; simulated with LangChain's mirror (ClearToolUsesEdit)",
            who="LangChain's mirror of Anthropic",
        ),
        PolicySpec(
            "openhands.recent_events",
            "openhands-ai 0.62 RecentEventsCondenser",
            True,
            (
                Param("keep_first", Kind.INT, 1, "events kept from the start", minimum=0, numeric=True),
                Param("max_events", Kind.INT, 10, "events kept in all", minimum=0, numeric=True),
            ),
            openhands.recent_events,
            counts="events",
            who="OpenHands",
        ),
        PolicySpec(
            "openhands.observation_masking",
            "openhands-ai 0.62 ObservationMaskingCondenser",
            True,
            (Param("attention_window", Kind.INT, 5, "the newest events never masked", numeric=True),),
            openhands.observation_masking,
            counts="events",
            who="OpenHands",
        ),
        PolicySpec(
            "openhands.amortized_forgetting",
            "openhands-ai 0.62 AmortizedForgettingCondenser",
            True,
            (
                Param("max_size", Kind.INT, 100, "events in the view before it forgets", minimum=1, numeric=True),
                Param("keep_first", Kind.INT, 0, "events kept from the start", minimum=0, numeric=True),
            ),
            openhands.amortized_forgetting,
            stateful=True,
            counts="events",
            who="OpenHands",
        ),
    )
}


def names() -> list[str]:
    return [SCOUT, *POLICIES]


def get(name: str) -> PolicySpec:
    found = POLICIES.get(name)
    if found is None:
        from inspector.core.peers import custom

        spec: PolicySpec | None = custom.load(name)
        if spec is not None:
            return spec
        raise UsageError(f"unknown policy {name!r}; known: {', '.join(names())}, or module:function")
    return found


@dataclass(frozen=True, slots=True)
class PolicySettings:
    """A policy and every one of its settings, each with where it came from (``--set`` or default)."""

    spec: PolicySpec
    values: tuple[tuple[str, Any], ...]
    given: frozenset[str]

    def as_dict(self) -> dict[str, Any]:
        return dict(self.values)

    def source(self, name: str) -> str:
        return "--set" if name in self.given else "default"

    def with_value(self, name: str, value: Any) -> PolicySettings:
        values = tuple((k, value if k == name else v) for k, v in self.values)
        return PolicySettings(self.spec, values, self.given | {name})

    def shown(self) -> list[tuple[str, str, str]]:
        """(name, value as typed, source) for every setting."""
        return [(p.name, p.show(dict(self.values)[p.name]), self.source(p.name)) for p in self.spec.params]

    def label(self) -> str:
        given = [f"{k}={self.spec.param(k).show(v)}" for k, v in self.values if k in self.given and self.spec.param(k)]  # type: ignore[union-attr]
        return self.spec.name + (f" ({', '.join(given)})" if given else "")


def settings_for(name: str, overrides: Mapping[str, str]) -> PolicySettings:
    """The policy's settings: ``overrides`` (the --set values) over its defaults, each checked."""
    spec = get(name)
    values: dict[str, Any] = {p.name: p.default for p in spec.params}
    for key, text in overrides.items():
        param = spec.param(key)
        if param is None:
            known = ", ".join(p.name for p in spec.params) or "(none)"
            raise UsageError(f"{spec.name} has no setting {key!r}; its settings: {known}")
        values[key] = param.parse(text, spec.name)
    for param in spec.params:
        if param.required and values[param.name] is None:
            raise UsageError(f"{spec.name} needs --set {param.name}=N ({param.help})")
    _check(spec, values)
    return PolicySettings(spec, tuple(values.items()), frozenset(overrides))


def _check(spec: PolicySpec, values: dict[str, Any]) -> None:
    """What the library rejects when it is built (before any chat)."""
    if spec.name == "openhands.amortized_forgetting" and values["keep_first"] >= values["max_size"] // 2:
        raise UsageError(
            f"{spec.name}: keep_first ({values['keep_first']}) must be less than half of max_size ({values['max_size']})"
        )
    if spec.name == "langchain.trim_messages" and values["strategy"] == "first":
        for key in ("start_on", "include_system"):
            if values[key]:
                raise UsageError(f"{spec.name}: {key} parameter is only valid with strategy='last'")
    if spec.name == "inspect.compaction_trim" and not 0 <= values["preserve"] <= 1:
        raise UsageError(f"{spec.name}: preserve must be in range [0,1], got {values['preserve']}")
    if spec.name.startswith("inspect.") and isinstance(values["threshold"], float) and values["threshold"] <= 0:
        raise UsageError(f"{spec.name}: threshold must be positive")
