"""The strategy registry: built-in names, ``register_strategy`` and installed plugins.

A plugin strategy is a callable taking and returning a list of message dicts
(``{"role": ..., "content": ..., ...}``), registered by name or through the
``prompt_inspector.strategies`` entry-point group.

An entry point that fails to load (its module raises at import, or it is not callable) is not silently
missing: a one-line warning names it and the error (logging's ``inspector.core.scout.strategies``
logger, or the reporter ``on_plugin_failure`` sets: the CLI's ``warning:`` line), and naming it raises
``PluginLoadFailed``, which says why.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from inspector.core.scout.versions import default_chains

ENTRY_POINT_GROUP = "prompt_inspector.strategies"
# Every name some scout-ai version knows (versions.py says which); the default is the version's.
EPOCH = "shorten_tools_epoch"
INCREMENT = "shorten_tools_epoch_increment"
BUILTIN = ("shorten_tools", "none", EPOCH, INCREMENT, "inbox")
DEFAULT = ("shorten_tools",)

Fields = dict[str, Any]  # a message as a plugin sees it: role, content and any other keys
StrategyFn = Callable[[list[Fields]], list[Fields]]
StrategySpec = str | Sequence[str] | StrategyFn  # what --strategies, a chat or the app asks for
_registered: dict[str, StrategyFn] = {}
_failed: dict[str, str] = {}  # entry point name -> "entry point NAME = VALUE: ErrorType: message"
_entry_points_loaded = False


class UnknownStrategy(Exception):
    def __init__(self, name: str):
        self.name = name
        super().__init__(f"unknown prompt strategy {name!r}; known: {', '.join(known_strategies())}")


class PluginLoadFailed(UnknownStrategy):
    """A strategy named by an installed plugin whose entry point failed to load."""

    def __init__(self, name: str, why: str):
        self.name = name
        self.why = why
        Exception.__init__(self, f"prompt strategy {name!r} is a plugin that failed to load ({why})")


def register_strategy(name: str, fn: StrategyFn) -> None:
    if name in BUILTIN:
        raise ValueError(f"{name!r} is built in and cannot be replaced")
    if not callable(fn):
        raise TypeError("a strategy must be callable")
    _registered[name] = fn


def unregister_strategy(name: str) -> None:
    _registered.pop(name, None)


def _log_warning(message: str) -> None:
    import logging  # only when a plugin failed: importing logging costs ~10 ms

    # unconfigured, logging's last-resort handler prints the message alone, as one line on stderr
    logging.getLogger(__name__).warning("%s", message)


_report: Callable[[str], None] = _log_warning


def on_plugin_failure(report: Callable[[str], None] | None) -> Callable[[str], None]:
    """Where the one-line warning for a plugin that failed to load goes (the CLI passes its ``warn``;
    None: logging's warning again). Returns the reporter it replaces, to be put back."""
    global _report
    previous, _report = _report, report if report is not None else _log_warning
    return previous


def _one_line(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else f"{text[:limit]}..."


def _load_entry_points() -> None:
    global _entry_points_loaded
    if _entry_points_loaded:
        return
    _entry_points_loaded = True
    from importlib.metadata import entry_points

    for point in entry_points(group=ENTRY_POINT_GROUP):
        if point.name in _registered or point.name in BUILTIN:
            continue
        try:
            loaded = point.load()
            if not callable(loaded):
                raise TypeError(f"{type(loaded).__name__} object is not callable")
        except (Exception, SystemExit) as exc:  # a broken plugin must not stop the inspector, nor hide
            why = _one_line(f"entry point {point.name} = {point.value}: {type(exc).__name__}: {exc}")
            _failed[point.name] = why
            _report(f"strategy plugin {point.name!r} failed to load ({why}); it is not available")
            continue
        _registered[point.name] = loaded  # a plugin: trusted to be a StrategyFn


def plugin_failures() -> dict[str, str]:
    """The installed strategy plugins that failed to load: name -> the entry point and the error."""
    _load_entry_points()
    return {name: why for name, why in _failed.items() if name not in _registered}


def known_strategies() -> list[str]:
    _load_entry_points()
    return [*BUILTIN, *sorted(_registered)]


def lookup(name: str) -> StrategyFn:
    if name == "shorten_tools_epoch":
        from inspector.core.scout.strategies.shorten_tools_epoch import shorten_tools_epoch

        epoch: StrategyFn = shorten_tools_epoch
        return epoch
    if name == "shorten_tools_epoch_increment":
        from inspector.core.scout.strategies.windows import shorten_tools_epoch_increment

        increment: StrategyFn = shorten_tools_epoch_increment
        return increment
    _load_entry_points()
    try:
        return _registered[name]
    except KeyError:
        if name in _failed:
            raise PluginLoadFailed(name, _failed[name]) from None
        raise UnknownStrategy(name) from None


def strategy_choices() -> list[str]:
    """What a picker offers: the built-in strategies, the versions' default chains, then the plugins'."""
    return [*BUILTIN, *default_chains(), *(name for name in known_strategies() if name not in BUILTIN)]


def typed_list(text: str) -> str:
    """A strategy list typed in the app (``a, b``): the names without the spaces around them, each one some
    version knows or a plugin registers (UnknownStrategy or PluginLoadFailed names the first that is not),
    as ``--strategies`` takes it."""
    names = [name.strip() for name in text.split(",")]
    while names and names[-1] == "":
        names.pop()
    if not names:
        raise ValueError("no strategy named: type names separated by commas (shorten_tools,inbox)")
    parse_spec(names)
    return ",".join(names)


def is_registered(name: str) -> bool:
    _load_entry_points()
    return name in _registered


def parse_spec(
    spec: StrategySpec | None, default: Sequence[str] = DEFAULT, validate: bool = True
) -> list[str] | StrategyFn:
    """Strategies as scout-ai takes them: None, "a,b", a list of names, or a callable.

    ``validate`` makes a name no version knows and no plugin registers a usage error (for
    names the user typed); names from the chat itself are left for the version to judge.
    """
    if spec is None:
        return list(default)
    if callable(spec):
        return spec
    if isinstance(spec, str):
        parts = spec.split(",")
        while parts and parts[-1] == "":
            parts.pop()  # Ruby's split drops trailing empty fields
        spec = parts
    names = [str(name) for name in spec]
    if validate:
        for name in names:
            if name not in BUILTIN:
                lookup(name)
    return names
