"""scout-ai versions whose prompt layer the inspector reproduces, named by what they contain.

- ``seed``: the listing in prompt-strategies-analysis.md (commit 5e9550e): ``shorten_tools`` only,
  ``shorten_string`` ignores its size (always 200).
- ``1.2.6``: commit 733fc62 (its VERSION file): ``shorten_string`` honours its size (outputs 400,
  arguments 200); default ``shorten_tools_epoch``.
- ``2.1``: commit de79709 with ``shorten_tools_epoch_increment`` from 2bf609e: every cut becomes a
  ``[CONTEXT-COMPACTED ...]`` envelope; default ``shorten_tools_epoch_increment,inbox``; the list may
  come from the scout config key ``prompt_strategies`` (tokens chat, scout_ai) or ``PROMPT_STRATEGY``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from inspector.core.errors import UsageError
from inspector.core.scout.shorten import ENVELOPE, LISTING, SIZED, Shortener


@dataclass(frozen=True, slots=True)
class ScoutVersion:
    name: str
    commit: str
    builtin: tuple[str, ...]  # the names its dispatcher knows
    default: tuple[str, ...]  # DEFAULT_CONTEXT_STRATEGY
    shortener: Shortener
    strategies_from_config: bool  # Scout::Config.get(:prompt_strategies, :chat, :scout_ai, env: PROMPT_STRATEGY)
    passes_save_file: bool  # prepare_prompt(save_file:) reaches inbox

    def unknown_error(self, name: str) -> tuple[str, str]:
        """What this version raises for a strategy name it does not know and no plugin registers."""
        if self.name == "2.1":
            # `Chat.send(strategy.to_sym, prompt)`: an existing Chat method with another arity
            # raises ArgumentError; anything else NoMethodError.
            return "NoMethodError", f"undefined method `{name}' for Chat:Module"
        return "NoMethodError", "undefined method `call' for nil:NilClass"


SEED = ScoutVersion("seed", "5e9550e", ("shorten_tools", "none"), ("shorten_tools",), LISTING, False, False)
V126 = ScoutVersion(
    "1.2.6",
    "733fc62",
    ("shorten_tools", "shorten_tools_epoch", "none"),
    ("shorten_tools_epoch",),
    SIZED,
    False,
    False,
)
V21 = ScoutVersion(
    "2.1",
    "de79709",
    ("shorten_tools", "shorten_tools_epoch", "shorten_tools_epoch_increment", "inbox", "none"),
    ("shorten_tools_epoch_increment", "inbox"),
    ENVELOPE,
    True,
    True,
)
VERSIONS: dict[str, ScoutVersion] = {v.name: v for v in (SEED, V126, V21)}
ORDER = (SEED, V126, V21)  # earliest first


def get(name: str | None) -> ScoutVersion | None:
    if name is None:
        return None
    try:
        return VERSIONS[name]
    except KeyError:
        raise UsageError(f"unknown scout-ai version {name!r}; known: {', '.join(VERSIONS)}") from None


def default_chains() -> list[str]:
    """The strategy lists a version runs by default that chain more than one strategy, as `--strategies`
    takes them (``shorten_tools_epoch_increment,inbox``): the picker offers them beside single names."""
    return list(dict.fromkeys(",".join(v.default) for v in ORDER if len(v.default) > 1))


def all_builtin() -> set[str]:
    return {name for version in ORDER for name in version.builtin}


def infer(names: Sequence[str] | None) -> ScoutVersion:
    """The earliest version that has every built-in strategy in ``names``; ``seed`` otherwise."""
    if names is None:
        return SEED
    wanted = {n for n in names if n in all_builtin()}
    for version in ORDER:
        if wanted <= set(version.builtin):
            return version
    return SEED


def having(name: str) -> list[str]:
    """The versions whose dispatcher knows ``name``."""
    return [v.name for v in ORDER if name in v.builtin]
