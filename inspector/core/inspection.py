"""One inspected chat: the loaded messages, the thresholds in force, the strategies, the cached facts."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from inspector.core.io.formats import load_chat
from inspector.core.model import Chat
from inspector.core.scout import versions
from inspector.core.scout.prepare import Prompt, prepare_prompt
from inspector.core.scout.settings import Thresholds, resolve, strategies_setting
from inspector.core.scout.strategies import parse_spec
from inspector.core.scout.strategies.shorten_tools_epoch import EpochSettings
from inspector.core.scout.tool_facts import ToolFacts


@dataclass(slots=True, eq=False, repr=False)
class Inspection:
    chat: Chat
    thresholds: Thresholds
    strategies: object = None  # None: what the chat chose, else the scout-ai default
    facts: ToolFacts | None = field(default=None)
    epoch: EpochSettings | None = None  # shorten_tools_epoch's settings; None: those in self.thresholds
    version: versions.ScoutVersion | None = None  # None: inferred from the strategies in force
    config_strategies: str | None = None  # 2.x: prompt_strategies from scout config or PROMPT_STRATEGY
    version_given: bool = False
    _facts_by_shortener: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.version is None:
            self.version = versions.infer(
                _names(self.strategies if self.strategies is not None else self.chat.strategies)
            )
        else:
            self.version_given = True
        if self.facts is None:
            self.facts = ToolFacts(self.chat.messages, self.version.shortener)
        self._facts_by_shortener[self.facts.shortener] = self.facts

    def version_for(self, spec) -> versions.ScoutVersion:
        """The version given at start, else the earliest that has every strategy of ``spec``."""
        if self.version_given or spec is None:
            return self.version  # type: ignore[return-value]
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
    def strategy_spec(self):
        """The strategies in force: --strategies, else the chat's, else (2.x) scout config / env, else None."""
        if self.strategies is not None:
            return self.strategies
        if self.chat.strategies is not None:
            return self.chat.strategies
        if self.version is not None and self.version.strategies_from_config and self.config_strategies is not None:
            return self.config_strategies
        return None

    def prompt(self, thresholds: Thresholds | None = None, strategies=None) -> Prompt:
        thresholds = thresholds or self.thresholds
        spec = strategies if strategies is not None else self.strategy_spec
        epoch = self.epoch if self.epoch is not None and thresholds is self.thresholds else thresholds.epoch_settings()
        version = self.version_for(spec)
        return prepare_prompt(
            self.chat.messages,
            spec,
            thresholds.as_tuple(),
            self.facts_for(version),
            epoch,
            version,
            thresholds.increment_settings(),
        )


def _names(spec):
    if spec is None or callable(spec):
        return None
    return parse_spec(spec, validate=False)


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
    chat = load_chat(path, input_format)
    return inspect_chat(
        chat,
        overrides=overrides,
        strategies=strategies,
        env=env,
        config_files=config_files,
        scout_version=scout_version,
    )


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
