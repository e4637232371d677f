"""`prompt-inspector thresholds [CHAT]`: the settings in force, where each comes from, and how to give them back.

The settings listed are those the strategies in force read (``--strategies``, else the chat's own,
else the scout-ai version's default): shorten_tools' five thresholds, the epoch strategies' four
epoch keys and the increment's six more. ``--format env`` and ``--format scout-config`` print them
as scout-ai reads them back (``KEY=VALUE`` environment lines, ``key value prompt`` etc/config lines).
"""

from __future__ import annotations

from argparse import Namespace
from typing import TYPE_CHECKING

from inspector.core.present.sanitize import terminal_line
from inspector.core.present.settings_lines import as_env, as_scout_config, strategy_to_write, value_text
from inspector.core.scout import versions
from inspector.core.scout.settings import keys_for, resolve, strategies_setting
from inspector.core.scout.strategies import parse_spec

from .output import EXIT_OK, emit, short_int, to_json, warn

if TYPE_CHECKING:
    from pathlib import Path

    from .output import AddCommon, Subcommands

FORMATS = ("table", "json", "env", "scout-config")


def add_parser(sub: Subcommands, common: AddCommon) -> None:
    thresholds = sub.add_parser(
        "thresholds", help="the settings in force and where each comes from (or as env / etc/config lines)"
    )
    common(thresholds, chat="optional")
    thresholds.add_argument(
        "--strategies", metavar="LIST", help="list the settings of these strategies (default: those in force)"
    )
    thresholds.add_argument(
        "--format",
        default="table",
        choices=FORMATS,
        help="table (default), json, env (KEY=VALUE lines) or scout-config (etc/config lines: key value prompt)",
    )


def run(args: Namespace, overrides: dict[str, str], config_files: list[Path] | None) -> int:
    chat_config: dict[str, tuple[str, int | None]] = {}
    chat_path: str | None = None
    chat_strategies: str | None = None
    if args.chat:
        from inspector.core.io.formats import load_chat

        chat = load_chat(args.chat, args.input_format)
        chat_config, chat_path, chat_strategies = chat.config, args.chat, chat.strategies
    version = versions.get(args.scout_version)
    spec = args.strategies if args.strategies is not None else chat_strategies
    if args.strategies is not None:
        parse_spec(args.strategies)  # a name nothing knows is a usage error
    if version is None:
        found = parse_spec(spec, validate=False) if spec is not None else None
        version = versions.infer(None if found is None or callable(found) else found)
    if spec is None and version.strategies_from_config:
        spec = strategies_setting(config_files=config_files)
    names = parse_spec(spec, version.default, validate=False)
    names = [] if callable(names) else names
    values = resolve(overrides, chat_config=chat_config, config_files=config_files, chat_path=chat_path)
    keys = keys_for(names)
    for warning in values.warnings:
        warn(warning)
    if args.format == "json":
        emit(args, to_json({key: values.values[key].as_dict() for key in keys}))
        return EXIT_OK
    written = strategy_to_write(args.strategies, version)  # a list given that the version's default is not
    if args.format == "env":
        emit(args, as_env(values, keys, written))
        return EXIT_OK
    if args.format == "scout-config":
        emit(args, as_scout_config(values, keys, written))
        return EXIT_OK
    lines = [f"strategies {','.join(names) or '(none)'} (scout-ai {version.name})"]
    if not keys:
        lines.append("(these strategies read no settings)")
    width = max((len(k) for k in keys), default=0)
    for key in keys:
        v = values.values[key]
        shown = value_text(v.value) if isinstance(v.value, float) else short_int(int(v.value))
        lines.append(f"{key.ljust(width)}  {shown:>9}  {terminal_line(v.describe_source(), 400)}")
    # the warnings went to stderr above (sanitised and cut there), once: not repeated under the table
    emit(args, "\n".join(lines) + "\n")
    return EXIT_OK
