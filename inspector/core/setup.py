"""What to read and how scout-ai is set up for it: two frozen values, passed whole and replaced.

Every way a chat is opened (the CLI's commands, the app, a followed file read again, a chat cut at a
call) takes these two values, so a setting given once (a version, a strategy list, an override)
reaches every plan made of the chat: nothing is copied field by field, and so nothing is forgotten.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from inspector.core import tokens
from inspector.core.errors import UsageError
from inspector.core.scout import versions

if TYPE_CHECKING:
    from inspector.core.peers.registry import PolicySettings


SCOUT_NAMES = ("", "scout", "scout-ai")  # what names scout-ai's own strategies as the policy


def policy_name(name: str | None) -> str | None:
    """The policy a name asks for: None for scout-ai's strategies (no name, "scout", "scout-ai")."""
    return None if name is None or name in SCOUT_NAMES else name


@dataclass(frozen=True, slots=True)
class ChatSource:
    """Which file, read as which format (None: sniffed from the file). ``lean``: read for one prompt
    (``prepare``): a large JSON chat's checked tool contents stay in the file until sent (io.formats.spill)."""

    path: str
    input_format: str | None = None
    lean: bool = False

    @classmethod
    def of(cls, path: str | Path, input_format: str | None = None, lean: bool = False) -> ChatSource:
        return cls(str(path), input_format, lean)


@dataclass(frozen=True, slots=True)
class Setup:
    """How scout-ai is set up for a chat: what its plans depend on besides the chat itself.

    ``overrides``: --set values (the highest source); ``env``: the environment scout-ai reads (None:
    this process's); ``config_files``: scout config files (None: scout's own lookup path, ``()``:
    none); ``strategies``: the list given (None: the chat's choice, else the version's default);
    ``version``: the scout-ai version whose prompt layer runs (None: the earliest that has every
    strategy in force); ``tokenizer``: how tokens are counted wherever they are shown (``core.tokens``:
    o200k, cl100k, estimate); ``policy``: another framework's context policy instead of scout-ai's
    strategies (``core.peers``; None: scout-ai's), whose settings are then the ``overrides``.
    """

    overrides: tuple[tuple[str, str], ...] = ()
    env: tuple[tuple[str, str], ...] | None = None
    config_files: tuple[Path, ...] | None = None
    strategies: str | None = None
    version: str | None = None
    tokenizer: str = tokens.DEFAULT
    policy: str | None = None

    @classmethod
    def of(
        cls,
        *,
        overrides: Mapping[str, str] | None = None,
        env: Mapping[str, str] | None = None,
        config_files: list[Path] | tuple[Path, ...] | None = None,
        strategies: str | None = None,
        version: str | None = None,
        tokenizer: str = tokens.DEFAULT,
        policy: str | None = None,
    ) -> Setup:
        """A setup from the loose values a command line gives; an unknown version, tokenizer, policy or
        policy setting is a usage error here, before any chat is read."""
        versions.get(version)
        policy = policy_name(policy)
        setup = cls(
            tuple((overrides or {}).items()),
            tuple(env.items()) if env is not None else None,
            tuple(config_files) if config_files is not None else None,
            strategies,
            version,
            tokens.check(tokenizer),
            policy,
        )
        if policy is not None:
            setup.policy_settings()
        return setup

    def policy_settings(self) -> PolicySettings | None:
        """The other framework's policy in force with its settings (None: scout-ai's strategies)."""
        if self.policy is None:
            return None
        return _policy_settings(self.policy, self.overrides)

    def with_policy(self, policy: str | None, overrides: Mapping[str, str] | None = None) -> Setup:
        """Under another policy (None: scout-ai's strategies), with its own settings (none: defaults)."""
        policy = policy_name(policy)
        return replace(self, policy=policy, overrides=tuple((overrides or {}).items()))

    def overrides_dict(self) -> dict[str, str]:
        return dict(self.overrides)

    def env_dict(self) -> dict[str, str] | None:
        return dict(self.env) if self.env is not None else None

    def scout_only(self) -> Setup:
        """This setup with only scout-ai's --set keys (with ``--vary policy=...`` they also carry the other
        policies' settings, which scout-ai's thresholds do not take)."""
        from inspector.core.scout.settings import SETTING_KEYS

        return replace(self, overrides=tuple((k, v) for k, v in self.overrides if k in SETTING_KEYS))

    def config_list(self) -> list[Path] | None:
        return list(self.config_files) if self.config_files is not None else None

    def scout_version(self) -> versions.ScoutVersion | None:
        """The version given (None: inferred from the strategies in force)."""
        return versions.get(self.version)

    def reads_few_contents(self) -> bool:
        """Whether one plan under this setup reads few tool contents besides what the tool check keeps of each:
        the seed's shorten_tools (the default) decides by lengths, so a lean read of the chat pays (see
        io.formats.spill); the epoch strategies and other frameworks' policies read every content."""
        return self.policy is None and self.version in (None, "seed") and self.strategies in (None, "shorten_tools")

    def with_version(self, name: str | None) -> Setup:
        if name is not None and versions.get(name) is None:
            raise UsageError(f"unknown scout-ai version {name!r}")
        return replace(self, version=name)

    def with_strategies(self, strategies: str | None) -> Setup:
        return replace(self, strategies=strategies)

    def token_counter(self) -> tokens.Tokenizer:
        """The tokenizer named by ``tokenizer`` (shared by the process: its counts are cached)."""
        return tokens.get(self.tokenizer)


@lru_cache(maxsize=256)
def _policy_settings(policy: str, overrides: tuple[tuple[str, str], ...]) -> PolicySettings:
    """Parsed once per policy and values: every plan asks (``Inspection.policy``), each call of a chat too.
    A refused value raises each time (exceptions are not cached)."""
    from inspector.core.peers.registry import settings_for

    return settings_for(policy, dict(overrides))
