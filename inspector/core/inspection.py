"""One inspected chat: the loaded messages, the thresholds in force, the strategies, the cached facts."""

from __future__ import annotations

from pathlib import Path

from inspector.core.io.formats import load_chat
from inspector.core.model import Chat
from inspector.core.scout.prepare import Prompt, prepare_prompt
from inspector.core.scout.settings import Thresholds, resolve
from inspector.core.scout.strategies import StrategySpec, parse_spec
from inspector.core.scout.strategies.shorten_tools_epoch import EpochSettings
from inspector.core.scout.tool_facts import ToolFacts


class Inspection:
    __slots__ = ("chat", "epoch", "facts", "strategies", "thresholds")

    def __init__(
        self,
        chat: Chat,
        thresholds: Thresholds,
        strategies: StrategySpec | None = None,  # None: what the chat chose, else the scout-ai default
        facts: ToolFacts | None = None,
        epoch: EpochSettings | None = None,  # shorten_tools_epoch's settings; None reads them when it runs
    ) -> None:
        self.chat = chat
        self.thresholds = thresholds
        self.strategies = strategies
        self.facts = facts if facts is not None else ToolFacts(chat.messages)
        self.epoch = epoch

    def __repr__(self) -> str:
        return f"Inspection({self.chat!r})"

    @property
    def strategy_spec(self) -> StrategySpec | None:
        if self.strategies is not None:
            return self.strategies
        return self.chat.strategies

    def prompt(self, thresholds: Thresholds | None = None, strategies: StrategySpec | None = None) -> Prompt:
        thresholds = thresholds or self.thresholds
        spec = strategies if strategies is not None else self.strategy_spec
        return prepare_prompt(self.chat.messages, spec, thresholds.as_tuple(), self.facts, self.epoch)


def open_inspection(
    path: str | Path,
    *,
    input_format: str | None = None,
    overrides: dict[str, str] | None = None,
    strategies: str | None = None,
    env: dict[str, str] | None = None,
    config_files: list[Path] | None = None,
) -> Inspection:
    chat = load_chat(path, input_format)
    return inspect_chat(chat, overrides=overrides, strategies=strategies, env=env, config_files=config_files)


def inspect_chat(
    chat: Chat,
    *,
    overrides: dict[str, str] | None = None,
    strategies: str | None = None,
    env: dict[str, str] | None = None,
    config_files: list[Path] | None = None,
    facts: ToolFacts | None = None,
) -> Inspection:
    """A loaded chat under the settings in force: overrides, its own config lines, config files, environment."""
    thresholds = resolve(overrides, chat_config=chat.config, env=env, config_files=config_files, chat_path=chat.path)
    if strategies is not None:
        parse_spec(strategies)  # unknown names fail here, before any work
    # read with the same config files and environment as the thresholds (scout-ai reads both alike)
    epoch = EpochSettings.resolve(env=env, config_files=config_files)
    return Inspection(chat, thresholds, strategies, facts=facts, epoch=epoch)
