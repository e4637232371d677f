"""Command line: the app by default, and headless commands that never import Textual."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

PROG = "prompt-inspector"
COMMANDS = ("prepare", "explain", "thresholds", "why", "sweep", "diff")
EXIT_OK, EXIT_USAGE, EXIT_SCOUT = 0, 2, 3


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, no usage dump
        raise _Usage(message)


class _Usage(Exception):
    pass


def _common(parser: argparse.ArgumentParser, chat: str = "required") -> None:
    if chat == "required":
        parser.add_argument("chat", metavar="CHAT", help="the stored chat file")
    elif chat == "optional":
        parser.add_argument("chat", metavar="CHAT", nargs="?", help="a chat whose own config lines count too")
    parser.add_argument("--set", dest="sets", metavar="KEY=VALUE", action="append", default=[],
                        help="override a threshold (repeatable), e.g. --set max_tool_chars=50000")
    parser.add_argument("--scout-config", metavar="PATH", action="append",
                        help="read these scout etc/config files instead of scout's lookup path")
    parser.add_argument("--no-scout-config", action="store_true", help="ignore scout config files")
    if chat != "none":
        parser.add_argument("--input-format", metavar="FORMAT", help="force the input format instead of detecting it")
    if chat == "required":
        parser.add_argument("--strategies", metavar="LIST",
                            help="comma-separated strategies (default: the chat's choice, else shorten_tools)")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROG, description="Show what a scout-ai agent really sends to its model.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    prepare = sub.add_parser("prepare", help="print the messages the model sees")
    _common(prepare)
    prepare.add_argument("--format", default="json", help="json (default), jsonl, chat (scout chat text) or responses (OpenAI Responses input items)")
    prepare.add_argument("-o", "--output", metavar="FILE", help="write to FILE (atomically) instead of stdout")
    explain = sub.add_parser("explain", help="one row per message: tier, rule, sizes")
    _common(explain)
    explain.add_argument("--format", default="table", choices=("table", "json", "markdown"))
    explain.add_argument("-o", "--output", metavar="FILE", help="write to FILE (atomically) instead of stdout")
    explain.add_argument("--audit", action="store_true", help="add the forgetting audit: findings of likely damage")
    thresholds = sub.add_parser("thresholds", help="the threshold values in force and where each comes from")
    _common(thresholds, chat="optional")
    thresholds.add_argument("--format", default="table", choices=("table", "json"))
    from inspector.commands import add_parsers

    add_parsers(sub, _common)  # why, sweep, diff
    return parser


def build_app_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROG, description="Open the inspector app on a stored chat (the demo chat by default). "
                     f"Headless commands: {', '.join(COMMANDS)} (see '{PROG} COMMAND --help').")
    parser.add_argument("chat", metavar="CHAT", nargs="?", help="the stored chat file (default: the bundled demo)")
    parser.add_argument("--set", dest="sets", metavar="KEY=VALUE", action="append", default=[],
                        help="start with this threshold value (repeatable)")
    parser.add_argument("--strategies", metavar="LIST", help="comma-separated strategies (default: the chat's choice)")
    parser.add_argument("--input-format", metavar="FORMAT", help="force the input format instead of detecting it")
    parser.add_argument("--scout-config", metavar="PATH", action="append",
                        help="read these scout etc/config files instead of scout's lookup path")
    parser.add_argument("--no-scout-config", action="store_true", help="ignore scout config files")
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        if argv and argv[0] in COMMANDS:
            args = build_parser().parse_args(argv)
            return _run_headless(args)
        if argv and argv[0] in ("-h", "--help") or argv[:1] == ["help"]:
            build_app_parser().print_help()
            print()
            build_parser().print_help()
            return EXIT_OK
        args = build_app_parser().parse_args(argv)
        if args.version:
            from inspector import __version__

            print(f"{PROG} {__version__}")
            return EXIT_OK
        return _run_app(args)
    except _Usage as exc:
        return _fail(str(exc))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return EXIT_OK


def _fail(message: str, code: int = EXIT_USAGE) -> int:
    print(f"{PROG}: error: {message}", file=sys.stderr)
    return code


def _config_files(args) -> list[Path] | None:
    if args.no_scout_config:
        return []
    if args.scout_config:
        return [Path(p) for p in args.scout_config]
    return None


def _run_headless(args) -> int:
    from inspector.core.errors import InputError, UsageError
    from inspector.core.strategies import UnknownStrategy
    from inspector.core.thresholds import parse_assignments

    try:
        overrides = parse_assignments(args.sets)
        if args.command == "thresholds":
            return _cmd_thresholds(args, overrides)
        from inspector.core.session import open_inspection

        inspection = open_inspection(args.chat, input_format=args.input_format, overrides=overrides,
                                     strategies=args.strategies, config_files=_config_files(args))
        for warning in inspection.thresholds.warnings:
            print(f"{PROG}: warning: {warning}", file=sys.stderr)
        shown_in_output = args.command == "explain" and args.format in ("table", "markdown")
        for finding in () if shown_in_output else inspection.chat.findings:
            where = f"{args.chat}:{finding.line}" if finding.line else args.chat
            print(f"{PROG}: note: {where}: {finding.message}", file=sys.stderr)
        from inspector import commands

        if commands.wants(args):
            return commands.run(args, inspection)
        if args.command == "prepare":
            return _cmd_prepare(args, inspection)
        return _cmd_explain(args, inspection)
    except (InputError, UsageError) as exc:
        return _fail(str(exc))
    except UnknownStrategy as exc:
        if args.command != "thresholds" and getattr(args, "strategies", None) is None:
            # the chat itself asked for it: scout-ai would raise too
            return _fail(f"{args.chat}: {exc}", EXIT_SCOUT)
        return _fail(str(exc))


def _emit(args, text: str | bytes, protect: list) -> None:
    data = text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass")
    if getattr(args, "output", None):
        from inspector.core.atomic import write_atomic

        write_atomic(args.output, data, protect)
    else:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()


def _scout_error(args, prompt) -> int:
    print(f"{PROG}: error: {args.chat}: {prompt.error.describe()}", file=sys.stderr)
    return EXIT_SCOUT


def _cmd_prepare(args, inspection) -> int:
    from inspector.core.errors import UsageError
    from inspector.core.printers import PRINTERS, render

    if args.format not in PRINTERS:
        raise UsageError(f"unknown --format {args.format!r}; known: {', '.join(PRINTERS)}")
    prompt = inspection.prompt()
    if prompt.error is not None:
        return _scout_error(args, prompt)
    _emit(args, render(args.format, prompt.messages()), [args.chat])
    return EXIT_OK


def _cmd_explain(args, inspection) -> int:
    from inspector.core import report

    prompt = inspection.prompt()
    rows = report.explain_rows(inspection, prompt)
    info = report.summary(rows, prompt)
    if args.format == "json":
        import orjson

        text = orjson.dumps(rows, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS, default=str).decode() + "\n"
    elif args.format == "markdown":
        text = report.render_markdown(rows, info, inspection.chat.findings)
    else:
        text = report.render_table(rows, info, findings=inspection.chat.findings)
    _emit(args, text, [args.chat])
    if prompt.error is not None:
        return _scout_error(args, prompt)
    return EXIT_OK


def _cmd_thresholds(args, overrides) -> int:
    from inspector.core.thresholds import KEYS, resolve

    chat_config, chat_path = {}, None
    if args.chat:
        from inspector.core.formats import load_chat

        chat = load_chat(args.chat, args.input_format)
        chat_config, chat_path = chat.config, args.chat
    values = resolve(overrides, chat_config=chat_config, config_files=_config_files(args), chat_path=chat_path)
    for warning in values.warnings:
        print(f"{PROG}: warning: {warning}", file=sys.stderr)
    if args.format == "json":
        import orjson

        data = {key: values.values[key].as_dict() for key in KEYS}
        sys.stdout.write(orjson.dumps(data, option=orjson.OPT_INDENT_2).decode() + "\n")
        return EXIT_OK
    width = max(len(k) for k in KEYS)
    lines = []
    for key in KEYS:
        v = values.values[key]
        lines.append(f"{key.ljust(width)}  {v.value:>9,}  {v.describe_source()}")
    if values.warnings:
        lines.append("")
        lines.extend(f"warning: {w}" for w in values.warnings)
    sys.stdout.write("\n".join(lines) + "\n")
    return EXIT_OK


def _run_app(args) -> int:
    from inspector.core.errors import UsageError
    from inspector.core.thresholds import parse_assignments

    try:
        overrides = parse_assignments(args.sets)
    except UsageError as exc:
        return _fail(str(exc))
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        # the app would wait forever for keys that never come (a pipe, a cron job, CI)
        return _fail("the app needs a terminal; for text output use "
                     f"'{PROG} explain CHAT' or '{PROG} prepare CHAT'")
    try:
        from inspector.ui.app import run_app
    except ImportError:
        # the app arrives with its own issue; until then the demo is explained headlessly
        chat = args.chat or str(demo_chat_path())
        return main(["explain", chat, *sum((["--set", s] for s in args.sets), [])])
    return run_app(args, overrides, _config_files(args))


def demo_chat_path() -> Path:
    return Path(__file__).parent / "demo" / "demo.chat"


def entry() -> None:
    """The console script: after a headless command, exit without tearing down every object.

    A large chat is hundreds of MB of Python objects; freeing them one by one at exit
    costs more than the output took to write, and nothing is left to clean up.
    """
    argv = sys.argv[1:]
    code = main(argv)
    if argv and argv[0] in COMMANDS:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except (BrokenPipeError, OSError):
            pass
        os._exit(code)
    raise SystemExit(code)


if __name__ == "__main__":
    entry()
