"""`prompt-inspector thresholds [CHAT]`: the values in force and where each comes from."""

from __future__ import annotations

from inspector.core.present.sanitize import terminal_line
from inspector.core.scout.settings import KEYS, resolve

from .output import EXIT_OK, emit, short_int, to_json, warn


def add_parser(sub, common) -> None:
    thresholds = sub.add_parser("thresholds", help="the threshold values in force and where each comes from")
    common(thresholds, chat="optional")
    thresholds.add_argument("--format", default="table", choices=("table", "json"))


def run(args, overrides, config_files) -> int:
    chat_config, chat_path = {}, None
    if args.chat:
        from inspector.core.io.formats import load_chat

        chat = load_chat(args.chat, args.input_format)
        chat_config, chat_path = chat.config, args.chat
    values = resolve(overrides, chat_config=chat_config, config_files=config_files, chat_path=chat_path)
    for warning in values.warnings:
        warn(warning)
    if args.format == "json":
        emit(args, to_json({key: values.values[key].as_dict() for key in KEYS}))
        return EXIT_OK
    width = max(len(k) for k in KEYS)
    lines = []
    for key in KEYS:
        v = values.values[key]
        lines.append(f"{key.ljust(width)}  {short_int(int(v.value)):>9}  {terminal_line(v.describe_source(), 400)}")
    if values.warnings:
        lines.append("")
        lines.extend(f"warning: {w}" for w in values.warnings)
    emit(args, "\n".join(lines) + "\n")
    return EXIT_OK
