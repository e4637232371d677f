"""Command line: the app by default, and headless commands that never import Textual."""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, Protocol, cast

from .output import EXIT_OK, EXIT_SCOUT, PROG, fail, note, warn

if TYPE_CHECKING:
    from inspector.core.model import Finding

    from .output import AddCommon, Subcommands

# each command module has add_parser(sub, common) and run(args, inspection); a command imports only
# its own module (and what that needs), so `prepare` does not pay for the analyses' imports
INSPECTING = ("prepare", "explain", "why", "sweep", "diff")
COMMANDS = ("prepare", "explain", "thresholds", "why", "sweep", "diff", "calls", "corpus")


class Command(Protocol):
    """A command module: ``run`` takes the parsed arguments and what the command needs, returns the exit status."""

    def add_parser(self, sub: Subcommands, common: AddCommon) -> None: ...

    def run(self, args: argparse.Namespace, *rest: Any) -> int: ...


def command_module(name: str) -> Command:
    return cast(Command, importlib.import_module(f"{__package__}.{name}"))


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, no usage dump
        raise _Usage(message)

    def _get_formatter(self) -> argparse.HelpFormatter:
        # argparse's own asks shutil for the width, and every add_argument makes a formatter: importing shutil
        # (and its archive modules) cost each short command ~2 ms. The width is found as shutil finds it.
        make: Any = self.formatter_class  # every HelpFormatter takes a width (typeshed's protocol names prog only)
        formatter: argparse.HelpFormatter = make(prog=self.prog, width=_terminal_columns() - 2)
        return formatter


def _terminal_columns() -> int:
    """``shutil.get_terminal_size().columns``: $COLUMNS, else standard output's terminal, else 80."""
    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        columns = 0
    if columns > 0:
        return columns
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns or 80  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        return 80


class _Usage(Exception):
    pass


def _common(parser: argparse.ArgumentParser, chat: str = "required") -> None:
    if chat == "required":
        parser.add_argument("chat", metavar="CHAT", help="the stored chat file")
    elif chat == "optional":
        parser.add_argument("chat", metavar="CHAT", nargs="?", help="a chat whose own config lines count too")
    parser.add_argument(
        "--set",
        dest="sets",
        metavar="KEY=VALUE",
        action="append",
        default=[],
        help="override a threshold (repeatable), e.g. --set max_tool_chars=50000",
    )
    parser.add_argument(
        "--scout-config",
        metavar="PATH",
        action="append",
        help="read these scout etc/config files instead of scout's lookup path",
    )
    parser.add_argument("--no-scout-config", action="store_true", help="ignore scout config files")
    parser.add_argument("--debug", action="store_true", help="show the traceback of an unexpected error")
    if chat != "none":
        parser.add_argument("--input-format", metavar="FORMAT", help="force the input format instead of detecting it")
    if chat == "required":
        parser.add_argument(
            "--strategies",
            metavar="LIST",
            help="comma-separated strategies (default: the chat's choice, else the version's default)",
        )
    if chat != "none":
        _version_option(parser)
        _policy_option(parser)


def _policy_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--policy",
        metavar="NAME",
        help="another framework's context policy instead of scout-ai's strategies (its settings by --set): "
        "langchain.trim_messages, langchain.clear_tool_uses, openai.tool_output_trimmer, "
        "inspect.compaction_edit, inspect.compaction_trim, anthropic.clear_tool_uses (approximate), "
        "openhands.recent_events, openhands.observation_masking, openhands.amortized_forgetting, "
        "or module:function",
    )


def _version_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--scout-version",
        metavar="VERSION",
        help="the scout-ai version whose prompt layer runs: seed, 1.2.6 or 2.1 "
        "(default: the earliest that has every strategy in use, else seed)",
    )


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """Every command's parser, or with ``only`` just that one (the others' modules stay unimported)."""
    parser = _Parser(prog=PROG, description="Show what a scout-ai agent really sends to its model.")
    sub = cast("Subcommands", parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser))
    for name in COMMANDS:
        if only is None or name == only:
            command_module(name).add_parser(sub, _common)
    return parser


def build_app_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=PROG,
        description="Open the inspector app on a stored chat (the demo chat by default). "
        f"Headless commands: {', '.join(COMMANDS)} (see '{PROG} COMMAND --help').",
    )
    parser.add_argument(
        "chat",
        metavar="CHAT",
        nargs="*",
        help="the stored chat file (default: the bundled demo); a directory, a glob or several paths open the "
        "corpus view: a row per chat, scored at every model call",
    )
    parser.add_argument(
        "--set",
        dest="sets",
        metavar="KEY=VALUE",
        action="append",
        default=[],
        help="start with this threshold value, or under --policy that policy's setting (repeatable)",
    )
    parser.add_argument("--strategies", metavar="LIST", help="comma-separated strategies (default: the chat's choice)")
    parser.add_argument("--input-format", metavar="FORMAT", help="force the input format instead of detecting it")
    parser.add_argument(
        "--scout-config",
        metavar="PATH",
        action="append",
        help="read these scout etc/config files instead of scout's lookup path",
    )
    parser.add_argument("--no-scout-config", action="store_true", help="ignore scout config files")
    _version_option(parser)
    _policy_option(parser)
    parser.add_argument(
        "--theme",
        metavar="NAME",
        help="the colour theme for this run (default: the one chosen last, ctrl+p changes it)",
    )
    from .calls import window

    parser.add_argument(
        "--context-window",
        type=window,
        metavar="N",
        help="the model's context window in tokens: the token chart (T) marks the calls over it (w there changes it)",
    )
    parser.add_argument(
        "--follow", action="store_true", help="follow the file while an agent writes it (appends and rewrites)"
    )
    parser.add_argument("--debug", action="store_true", help="show the traceback of an unexpected error")
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        return _main(argv)
    except _Usage as exc:
        return fail(str(exc))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        try:
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 (replaces stdout for the rest of the process)
        except OSError:
            pass
        return EXIT_OK
    except BaseException as exc:  # the guard: never a traceback at the user
        from inspector.core.io.atomic import Interrupted

        if isinstance(exc, Interrupted):
            return 128 + exc.signum  # SIGTERM/SIGHUP during -o: the temporary file is already gone
        if isinstance(exc, SystemExit | GeneratorExit):
            raise
        return _unexpected(exc, argv)


def _help_text() -> str:
    """One usage block: the app's, then the commands listed (each has its own --help)."""
    text = build_app_parser().format_help()
    commands = build_parser().format_help()
    start = commands.index("  COMMAND\n") + len("  COMMAND\n")
    end = commands.find("\noptions:")
    listed = commands[start : end if end >= 0 else None].rstrip("\n")
    return f"{text}\ncommands (headless; '{PROG} COMMAND --help' for each):\n{listed}\n"


def _main(argv: list[str]) -> int:
    if argv and argv[0] in COMMANDS:
        args = build_parser(argv[0]).parse_args(argv)
        return _run_headless(args)
    if (argv and argv[0] in ("-h", "--help")) or argv[:1] == ["help"]:
        print(_help_text(), end="")
        return EXIT_OK
    args = build_app_parser().parse_args(argv)
    if args.version:
        from inspector import version

        print(f"{PROG} {version()}")
        return EXIT_OK
    return _run_app(args)


def _unexpected(exc: BaseException, argv: list[str]) -> int:
    """One line naming the file and the error, and how to see more; ``--debug`` adds the traceback."""
    if "--debug" in argv:
        import traceback

        traceback.print_exception(exc, file=sys.stderr)
    chat = _chat_of(argv)
    where = f"{chat}: " if chat else ""
    if isinstance(exc, MemoryError):  # not a bug: the input is too large for this machine
        return fail(f"{where}ran out of memory")
    if isinstance(exc, RecursionError):
        what = "input nested too deeply"
    else:
        what = f"unexpected error ({type(exc).__name__}: {exc})"
    hint = "" if "--debug" in argv else "; run again with --debug for the traceback"
    return fail(f"{where}{what}; this is a bug in {PROG}, please report it{hint}")


def _chat_of(argv: list[str]) -> str | None:
    """The chat path the command line names (argv parsed again: an option's value is never taken for it)."""
    try:
        parser = build_parser(argv[0]) if argv and argv[0] in COMMANDS else build_app_parser()
        args, _ = parser.parse_known_args(argv)
    except BaseException:  # a usage error, --help: no chat to name
        return None
    chat = getattr(args, "chat", None)
    if isinstance(chat, list):  # the app's paths
        chat = chat[0] if len(chat) == 1 else None
    return chat if isinstance(chat, str) else None


def config_files(args: argparse.Namespace) -> list[Path] | None:
    """The scout config files the user named (``[]``: none), or ``None`` for scout's own lookup path."""
    if args.no_scout_config:
        return []
    if args.scout_config:
        return [Path(p) for p in args.scout_config]
    return None


def _check_arguments(args: argparse.Namespace) -> None:
    """The command's own arguments, checked before the chat is read: a typo is one error line at once,
    not a wait for a large chat to load and its notes first."""
    from inspector.core.setup import policy_name

    if args.command == "sweep":
        from inspector.core.analysis.sweep import parse_policy_range, parse_range

        policy = policy_name(getattr(args, "policy", None))
        if policy is not None:
            parse_policy_range(args.vary, policy)
        else:
            parse_range(args.vary)
    elif args.command == "why":
        from inspector.core.analysis.trace import compile_pattern

        compile_pattern(args.text, args.regex, args.ignore_case)
    elif args.command == "diff":
        from .diff import _pairs, assignments

        policy = getattr(args, "policy", None)
        if policy_name(policy) is None and not any(
            k == "policy" for k, _ in [*_pairs(args.a, "--a"), *_pairs(args.b, "--b")]
        ):
            assignments(args.a, "--a")
            assignments(args.b, "--b")


def _run_headless(args: argparse.Namespace) -> int:
    from inspector.core.scout.strategies import on_plugin_failure

    # a strategy plugin that fails to load: one `warning:` line, when first looked up (put back after, for
    # a caller running main in its own process)
    previous_report = on_plugin_failure(warn)
    try:
        return _run_command(args)
    finally:
        on_plugin_failure(previous_report)


def _run_command(args: argparse.Namespace) -> int:
    from inspector.core.errors import InputError, ScoutRaises, UsageError
    from inspector.core.ruby.json import RubyJSONError
    from inspector.core.scout.settings import parse_assignments, parse_pairs
    from inspector.core.scout.strategies import UnknownStrategy
    from inspector.core.setup import policy_name

    try:
        policy = getattr(args, "policy", None)
        peer = policy_name(policy) is not None
        varies_policy = any(str(v).startswith("policy=") for v in getattr(args, "vary", None) or [])
        overrides = parse_pairs(args.sets) if peer or varies_policy else parse_assignments(args.sets)
        _check_arguments(args)
        if args.command in ("thresholds", "corpus"):
            _collector_on()
            return command_module(args.command).run(args, overrides, config_files(args))
        from dataclasses import replace

        from inspector.core.inspection import open_inspection
        from inspector.core.setup import ChatSource, Setup
        from inspector.core.tokens import DEFAULT as DEFAULT_TOKENIZER

        source = ChatSource.of(args.chat, args.input_format)
        setup = Setup.of(
            overrides=overrides,
            config_files=config_files(args),
            strategies=args.strategies,
            version=args.scout_version,
            tokenizer=getattr(args, "tokenizer", None) or DEFAULT_TOKENIZER,
            policy=policy,
        )
        args.history = None
        # a history for the calls: stepping to one, a timeline, the audit's repeated calls judged at their call
        if (
            args.command == "calls"
            or getattr(args, "at", None) is not None
            or getattr(args, "timeline", False)
            or getattr(args, "audit", False)
        ):
            from inspector.core.calls.history import ChatHistory

            history = args.history = ChatHistory(source, setup)
            _collector_on()
            if _KEPT_TO_EXIT is not None:
                _KEPT_TO_EXIT.append(history)
            args.included = history.whole.chat.read_files  # -o never replaces them
            if args.command == "calls":
                for warning in history.whole.thresholds.warnings:
                    warn(warning)
                for finding in [*history.whole.chat.findings, *history.findings]:
                    _note_finding(args, finding)
                return command_module("calls").run(args, history)
            inspection = history.at(history.number(args.at)) if args.at is not None else history.whole
        else:
            # prepare writes one prompt, which sends few tool contents: the others stay in the file
            lean = args.command == "prepare" and setup.reads_few_contents()
            inspection = open_inspection(replace(source, lean=lean), setup)
            _collector_on()
        args.included = [*getattr(args, "included", ()), *inspection.chat.read_files]  # -o never replaces them
        if _KEPT_TO_EXIT is not None:
            _KEPT_TO_EXIT.append(inspection)
        for warning in inspection.thresholds.warnings:
            warn(warning)
        command = command_module(args.command)
        # explain lists the loader's findings in its output, in every format; the others note them here
        for finding in () if args.command == "explain" else inspection.chat.findings:
            _note_finding(args, finding)
        if inspection.version_for(inspection.strategy_spec).passes_save_file:
            for text in inspection.inbox().notes:  # the inbox record beside the chat (2.x), read-only
                note(text)
        return command.run(args, inspection)
    except ScoutRaises as exc:
        return fail(str(exc), EXIT_SCOUT)
    except RubyJSONError as exc:
        # e.g. an infinite number (1e400) in the messages: JSON.generate refuses it and scout-ai sends nothing
        return fail(f"{args.chat}: scout-ai would raise {exc.exception}: {exc}", EXIT_SCOUT)
    except (InputError, UsageError) as exc:
        return fail(str(exc))
    except UnknownStrategy as exc:
        if args.command != "thresholds" and getattr(args, "strategies", None) is None:
            # the chat itself asked for it: scout-ai would raise too
            return fail(f"{args.chat}: {exc}", EXIT_SCOUT)
        return fail(str(exc))


def _note_finding(args: argparse.Namespace, finding: Finding) -> None:
    note(f"{args.chat}:{finding.line}: {finding.message}" if finding.line else f"{args.chat}: {finding.message}")


def _run_app(args: argparse.Namespace) -> int:
    from inspector.core.errors import UsageError
    from inspector.core.scout.settings import parse_assignments, parse_pairs
    from inspector.core.setup import Setup, policy_name

    try:
        policy = getattr(args, "policy", None)
        peer = policy_name(policy) is not None
        overrides = parse_pairs(args.sets) if peer else parse_assignments(args.sets)
        if peer:
            Setup.of(overrides=overrides, policy=policy)  # an unknown policy or setting: one line, before the app
    except UsageError as exc:
        return fail(str(exc))
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        # the app would wait forever for keys that never come (a pipe, a cron job, CI)
        return fail(f"the app needs a terminal; for text output use '{PROG} explain CHAT' or '{PROG} prepare CHAT'")
    from inspector.ui.app import run_app

    code, error = run_app(args, overrides, config_files(args))
    return fail(error, code) if error else code


# The chat a headless command read, held until os._exit (entry): freed as the command returned, a large
# chat's objects cost tens of milliseconds to free one by one. None: main called in a process that goes on.
_KEPT_TO_EXIT: list[object] | None = None


def _collector_on() -> None:
    """A headless command's imports and chat are read with the cycle collector off (entry): they allocate
    hundreds of thousands of objects and no garbage cycles, and each collection would walk them all again.
    Once read, they are frozen (held to exit, never walked) and the collector runs for the command's work
    (measured: about 3% of a `prepare`'s instructions at 20,000 messages)."""
    if _KEPT_TO_EXIT is not None and not gc.isenabled():
        gc.freeze()
        gc.enable()


def entry() -> None:
    """The console script: after a headless command, exit without tearing down every object.

    A large chat is hundreds of MB of Python objects; freeing them one by one at exit
    costs more than the output took to write, and nothing is left to clean up.
    """
    global _KEPT_TO_EXIT
    argv = sys.argv[1:]
    headless = bool(argv) and argv[0] in COMMANDS
    if headless:
        _KEPT_TO_EXIT = []
        gc.disable()  # until the chat is read (_collector_on)
    code = main(argv)
    if headless:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except (BrokenPipeError, OSError):
            pass
        os._exit(code)
    raise SystemExit(code)


if __name__ == "__main__":
    entry()
