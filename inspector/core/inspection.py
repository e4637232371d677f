"""One inspected chat: the loaded messages, the thresholds in force, the strategies, the cached facts."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from inspector.core.io.formats import load_chat
from inspector.core.model import Chat, Message
from inspector.core.scout import versions
from inspector.core.scout.inbox import InboxReading, read_inbox
from inspector.core.scout.prepare import Prompt, prepare_prompt
from inspector.core.scout.settings import Thresholds, resolve, strategies_setting
from inspector.core.scout.shorten import Shortener
from inspector.core.scout.strategies import StrategySpec, parse_spec
from inspector.core.scout.strategies.shorten_tools_epoch import EpochSettings
from inspector.core.scout.strategies.shorten_tools_epoch_increment import IncrementSettings
from inspector.core.scout.tool_facts import ToolFacts


class Inspection:
    __slots__ = (
        "_facts_by_shortener",
        "_inbox",
        "chat",
        "config_strategies",
        "epoch",
        "facts",
        "strategies",
        "thresholds",
        "version",
        "version_given",
    )

    def __init__(
        self,
        chat: Chat,
        thresholds: Thresholds,
        strategies: StrategySpec | None = None,  # None: what the chat chose, else the version's default
        facts: ToolFacts | None = None,
        epoch: EpochSettings | None = None,  # shorten_tools_epoch's settings; None: those in the thresholds
        version: versions.ScoutVersion | None = None,  # None: inferred from the strategies in force
        config_strategies: str | None = None,  # 2.x: prompt_strategies from scout config or PROMPT_STRATEGY
    ) -> None:
        self.chat = chat
        self.thresholds = thresholds
        self.strategies = strategies
        self.epoch = epoch
        self.config_strategies = config_strategies
        self.version_given = version is not None
        self.version: versions.ScoutVersion = version if version is not None else self._inferred_version()
        self.facts = facts if facts is not None else ToolFacts(chat.messages, self.version.shortener)
        self._facts_by_shortener: dict[Shortener, ToolFacts] = {self.facts.shortener: self.facts}
        self._inbox: InboxReading | None = None

    def inbox(self) -> InboxReading:
        """What 2.x's inbox appended, rebuilt read-only from the inbox_removed/ folders beside the chat."""
        if self._inbox is None:
            self._inbox = read_inbox(self.chat.path)
        return self._inbox

    def injected_for(self, version: versions.ScoutVersion) -> list[Message] | None:
        return self.inbox().messages if version.passes_save_file else None

    def restore_version(self, name: str | None) -> None:
        """Back to the version the inspection started with: ``name`` when one was given, else (None) the
        one inferred from the strategies in force, as at load (the app's reset)."""
        if name is not None:
            self.set_version(name)
            return
        self.version = self._inferred_version()
        self.version_given = False

    def _inferred_version(self) -> versions.ScoutVersion:
        """The earliest version that has every strategy in force (the given ones, else the chat's)."""
        return versions.infer(_names(self.strategies if self.strategies is not None else self.chat.strategies))

    def set_version(self, name: str) -> None:
        """Run this scout-ai version's prompt layer from now on (the app's version switch)."""
        self.version = versions.get(name) or self.version
        self.version_given = True

    def version_for(self, spec: StrategySpec | None) -> versions.ScoutVersion:
        """The version given at start, else the earliest that has every strategy of ``spec``."""
        if self.version_given or spec is None:
            return self.version
        return versions.infer(_names(spec))

    def facts_for(self, version: versions.ScoutVersion) -> ToolFacts:
        """Tool facts built with the version's shorten_string (cached: each version's cut text differs)."""
        found = self._facts_by_shortener.get(version.shortener)
        if found is None:
            found = self._facts_by_shortener[version.shortener] = ToolFacts(self.chat.messages, version.shortener)
        return found

    def __repr__(self) -> str:
        return f"Inspection({self.chat!r})"

    @property
    def strategy_spec(self) -> StrategySpec | None:
        """The strategies in force: --strategies, else the chat's, else (2.x) scout config / env, else None."""
        if self.strategies is not None:
            return self.strategies
        if self.chat.strategies is not None:
            return self.chat.strategies
        if self.version is not None and self.version.strategies_from_config and self.config_strategies is not None:
            return self.config_strategies
        return None

    def prompt(self, thresholds: Thresholds | None = None, strategies: StrategySpec | None = None) -> Prompt:
        thresholds = thresholds or self.thresholds
        spec = strategies if strategies is not None else self.strategy_spec
        epoch = self.epoch if self.epoch is not None and thresholds is self.thresholds else EpochSettings.of(thresholds)
        version = self.version_for(spec)
        return prepare_prompt(
            self.chat.messages,
            spec,
            thresholds.as_tuple(),
            self.facts_for(version),
            epoch,
            version,
            IncrementSettings.of(thresholds),
            self.injected_for(version),
        )


def _names(spec: StrategySpec | None) -> list[str] | None:
    if spec is None or callable(spec):
        return None
    names = parse_spec(spec, validate=False)
    return None if callable(names) else names


def open_inspection(
    path: str | Path,
    *,
    input_format: str | None = None,
    overrides: dict[str, str] | None = None,
    strategies: str | None = None,
    env: dict[str, str] | None = None,
    config_files: list[Path] | None = None,
    scout_version: str | None = None,
) -> Inspection:
    versions.get(scout_version)  # an unknown name is a usage error, before the chat is read
    with collector_paused():
        chat = load_chat(path, input_format)
        return inspect_chat(
            chat,
            overrides=overrides,
            strategies=strategies,
            env=env,
            config_files=config_files,
            scout_version=scout_version,
        )


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


def inspect_chat(
    chat: Chat,
    *,
    overrides: dict[str, str] | None = None,
    strategies: str | None = None,
    env: dict[str, str] | None = None,
    config_files: list[Path] | None = None,
    facts: ToolFacts | None = None,
    scout_version: str | None = None,
) -> Inspection:
    """A loaded chat under the settings in force: overrides, its own config lines, config files, environment."""
    version = versions.get(scout_version)
    thresholds = resolve(overrides, chat_config=chat.config, env=env, config_files=config_files, chat_path=chat.path)
    if strategies is not None:
        parse_spec(strategies)  # unknown names fail here, before any work
    config_strategies = strategies_setting(env=env, config_files=config_files)
    return Inspection(chat, thresholds, strategies, facts=facts, version=version, config_strategies=config_strategies)
