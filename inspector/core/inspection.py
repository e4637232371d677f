"""One inspected chat: the loaded messages under one setup and the thresholds it resolves to.

An ``Inspection`` never changes: another plan (edited thresholds, another strategy list, another
scout-ai version) is a new value made with ``with_setup``/``with_thresholds``/``with_version``. The
new value shares what does not depend on the settings (tool facts per ``shorten_string``, the inbox
record), so a re-plan is one pass over integers and a worker holding the old value plans it unchanged.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from inspector.core.io.formats import load_chat
from inspector.core.model import Chat, Message
from inspector.core.scout import versions
from inspector.core.scout.prepare import Prompt, prepare_prompt
from inspector.core.scout.settings import Thresholds, resolve, strategies_setting
from inspector.core.scout.shorten import Shortener
from inspector.core.scout.strategies import EPOCH, INCREMENT, StrategySpec, parse_spec
from inspector.core.scout.tool_facts import ToolFacts
from inspector.core.setup import ChatSource, Setup

if TYPE_CHECKING:  # the other frameworks' policies are imported where one is used: scout-ai's plans need none
    from inspector.core.peers.registry import Counts, PolicySettings
    from inspector.core.peers.wire import Conversation
    from inspector.core.scout.inbox import InboxReading


class _Shared:
    """What every inspection of one chat shares, whatever its settings: built once, when first asked."""

    __slots__ = ("conversation", "counts", "facts", "inbox")

    def __init__(self) -> None:
        self.facts: dict[Shortener, ToolFacts] = {}
        self.inbox: InboxReading | None = None
        self.conversation: Conversation | None = None  # the chat in the Chat Completions shape (other policies)
        self.counts: Counts | None = None  # the other libraries' counts of its messages


class Inspection:
    __slots__ = ("_shared", "chat", "config_strategies", "setup", "thresholds", "version")

    def __init__(
        self,
        chat: Chat,
        thresholds: Thresholds,
        setup: Setup | None = None,
        *,
        facts: ToolFacts | None = None,
        config_strategies: str | None = None,  # 2.x: prompt_strategies from scout config or PROMPT_STRATEGY
        shared: _Shared | None = None,
    ) -> None:
        self.chat = chat
        self.thresholds = thresholds
        self.setup = setup if setup is not None else Setup()
        self.config_strategies = config_strategies
        given = self.setup.scout_version()
        self.version: versions.ScoutVersion = given if given is not None else self._inferred_version()
        self._shared = shared if shared is not None else _Shared()
        if facts is not None:
            self._shared.facts.setdefault(facts.shortener, facts)

    # -- the settings: read from the setup ----------------------------------------------
    @property
    def strategies(self) -> str | None:
        """The strategy list given (None: the chat's choice, else the version's default)."""
        return self.setup.strategies

    @property
    def version_given(self) -> bool:
        return self.setup.version is not None

    @property
    def strategy_spec(self) -> StrategySpec | None:
        """The strategies in force: --strategies, else the chat's, else (2.x) scout config / env, else None."""
        if self.strategies is not None:
            return self.strategies
        if self.chat.strategies is not None:
            return self.chat.strategies
        if self.version.strategies_from_config and self.config_strategies is not None:
            return self.config_strategies
        return None

    def strategy_names(self) -> list[str] | None:
        """The strategies that run, by name, as this version reads its list (None: a callable plugin)."""
        spec = self.strategy_spec
        names = parse_spec(spec, self.version_for(spec).default, validate=False)
        return None if callable(names) else names

    def _inferred_version(self) -> versions.ScoutVersion:
        """The earliest version that has every strategy in force (the given ones, else the chat's)."""
        return versions.infer(_names(self.strategies if self.strategies is not None else self.chat.strategies))

    def version_for(self, spec: StrategySpec | None) -> versions.ScoutVersion:
        """The version given, else the earliest that has every strategy of ``spec``."""
        if self.version_given or spec is None:
            return self.version
        return versions.infer(_names(spec))

    # -- other plans of the same chat: new values, shared facts ---------------------------
    def with_setup(self, setup: Setup, thresholds: Thresholds | None = None) -> Inspection:
        """The same chat under another setup (another strategy list or version); thresholds as given,
        else these."""
        return Inspection(
            self.chat,
            thresholds if thresholds is not None else self.thresholds,
            setup,
            config_strategies=self.config_strategies,
            shared=self._shared,
        )

    def with_thresholds(self, thresholds: Thresholds) -> Inspection:
        return self if thresholds is self.thresholds else self.with_setup(self.setup, thresholds)

    def with_version(self, name: str | None) -> Inspection:
        """Under scout-ai version ``name`` (None: the one inferred from the strategies in force)."""
        return self.with_setup(self.setup.with_version(name))

    def with_strategies(self, strategies: str | None) -> Inspection:
        return self.with_setup(self.setup.with_strategies(strategies))

    def with_policy(self, policy: str | None, settings: dict[str, str] | None = None) -> Inspection:
        """Under another framework's policy (None: scout-ai's strategies) with these settings, as typed
        (none: its defaults); scout-ai's thresholds are then those the chat resolves to without --set."""
        setup = self.setup.with_policy(policy, settings)
        setup.policy_settings()  # an unknown policy or setting, a value it rejects: a UsageError here
        return self.with_setup(setup, thresholds_for(self.chat, setup))

    # -- what the plans read -----------------------------------------------------------
    @property
    def facts(self) -> ToolFacts:
        """Tool facts built with this version's shorten_string."""
        return self.facts_for(self.version)

    def facts_for(self, version: versions.ScoutVersion) -> ToolFacts:
        """Tool facts built with the version's shorten_string (cached: each version's cut text differs)."""
        cache = self._shared.facts
        found = cache.get(version.shortener)
        if found is None:
            found = cache[version.shortener] = ToolFacts(self.chat.messages, version.shortener)
        return found

    def inbox(self) -> InboxReading:
        """What 2.x's inbox appended, rebuilt read-only from the inbox_removed/ folders beside the chat."""
        if self._shared.inbox is None:
            from inspector.core.scout.inbox import read_inbox  # 2.x's only

            self._shared.inbox = read_inbox(self.chat.path)
        return self._shared.inbox

    def injected_for(self, version: versions.ScoutVersion) -> list[Message] | None:
        return self.inbox().messages if version.passes_save_file else None

    def __repr__(self) -> str:
        return f"Inspection({self.chat!r})"

    # -- another framework's policy ---------------------------------------------------------
    @property
    def policy(self) -> PolicySettings | None:
        """The other framework's policy in force, with its settings (None: scout-ai's strategies)."""
        return self.setup.policy_settings()

    def conversation(self) -> Conversation:
        """The chat in the Chat Completions shape the other libraries take (built once per chat)."""
        if self._shared.conversation is None:
            from inspector.core.peers.wire import conversation_of

            self._shared.conversation = conversation_of(self.chat)
        return self._shared.conversation

    def policy_prompt(self, settings: PolicySettings) -> Prompt:
        """The plan of another framework's policy with these settings (the analyses' trials vary them)."""
        from inspector.core.peers.plan import PeerPlan
        from inspector.core.peers.registry import Counts

        if self._shared.counts is None:
            self._shared.counts = Counts()
        plan = PeerPlan(self.conversation(), settings, self._shared.counts)
        prompt = Prompt(self.chat.messages, [settings.spec.name], plan)
        prompt.version = settings.spec.library
        return prompt

    def prompt(self, thresholds: Thresholds | None = None, strategies: StrategySpec | None = None) -> Prompt:
        """The plan under this inspection's settings; ``thresholds`` and ``strategies`` plan another (the
        analyses' trials) on the same chat, version and facts."""
        policy = self.policy
        if policy is not None and strategies is None:
            return self.policy_prompt(policy)
        return self.scout_prompt(thresholds, strategies)

    def scout_prompt(self, thresholds: Thresholds | None = None, strategies: StrategySpec | None = None) -> Prompt:
        """scout-ai's plan, whatever policy the setup names (the corpus scores both on one chat)."""
        thresholds = thresholds or self.thresholds
        spec = strategies if strategies is not None else self.strategy_spec
        version = self.version_for(spec)
        chain = parse_spec(spec, version.default, validate=False)
        epoch = increment = None  # each epoch strategy's settings, when it runs (its module imported then)
        if not callable(chain) and EPOCH in chain:
            from inspector.core.scout.strategies.shorten_tools_epoch import EpochSettings

            epoch = EpochSettings.of(thresholds)
        if not callable(chain) and INCREMENT in chain:
            from inspector.core.scout.strategies.shorten_tools_epoch_increment import IncrementSettings

            increment = IncrementSettings.of(thresholds)
        return prepare_prompt(
            self.chat.messages,
            spec,
            thresholds.as_tuple(),
            self.facts_for(version),
            epoch,
            version,
            increment,
            self.injected_for(version),
        )


def _names(spec: StrategySpec | None) -> list[str] | None:
    if spec is None or callable(spec):
        return None
    names = parse_spec(spec, validate=False)
    return None if callable(names) else names


def open_inspection(source: ChatSource | str | Path, setup: Setup | None = None) -> Inspection:
    """The one door for a chat read whole: the file under the setup (see calls.open_history for a chat
    stepped through its calls)."""
    setup = setup if setup is not None else Setup()
    if not isinstance(source, ChatSource):
        source = ChatSource.of(source)
    setup.scout_version()  # an unknown name is a usage error, before the chat is read
    with collector_paused():
        chat = load_chat(source.path, source.input_format, source.lean)
        return inspect_chat(chat, setup)


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cycle collector off while a chat is read and its tool facts built: that allocates
    hundreds of thousands of objects and no cycles, and each collection walks them all again
    (measured: 3% of a whole `prepare` at 20,000 messages)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def thresholds_for(chat: Chat, setup: Setup) -> Thresholds:
    """The thresholds in force for a chat under a setup: overrides, its own config lines, config files,
    environment, defaults (each value with its source). Under another framework's policy the overrides
    are that policy's settings, not scout-ai's."""
    return resolve(
        setup.overrides_dict() if setup.policy is None else {},
        chat_config=chat.config,
        env=setup.env_dict(),
        config_files=setup.config_list(),
        chat_path=chat.path,
    )


def inspect_chat(chat: Chat, setup: Setup | None = None, *, facts: ToolFacts | None = None) -> Inspection:
    """A loaded chat under the setup: overrides, its own config lines, config files, environment."""
    setup = setup if setup is not None else Setup()
    thresholds = thresholds_for(chat, setup)
    if setup.strategies is not None:
        parse_spec(setup.strategies)  # unknown names fail here, before any work
    config_strategies = strategies_setting(env=setup.env_dict(), config_files=setup.config_list())
    inspection = Inspection(chat, thresholds, setup, facts=facts, config_strategies=config_strategies)
    if facts is None:
        inspection.facts  # noqa: B018 - built here, in the loader's thread, with the collector paused
    return inspection
