"""Headless commands for the forgetting questions: `why`, `sweep`, `diff` and `explain --audit`.

inspector/cli.py registers these (``add_parsers``) and hands over a loaded
inspection (``run``); each command module renders one core result. Nothing here
imports Textual or Rich.
"""

from __future__ import annotations

NAMES = ("why", "sweep", "diff")


def add_parsers(sub, common) -> None:
    """Add the subcommands to ``sub``; ``common`` adds the shared CHAT/--set/config options."""
    why = sub.add_parser("why", help="why the model does or does not see a text, and what single change shows it")
    common(why)
    why.add_argument("text", metavar="TEXT", help="the text to trace (plain, or a pattern with --regex)")
    why.add_argument("--regex", action="store_true", help="TEXT is a Python regular expression")
    why.add_argument("-i", "--ignore-case", action="store_true", help="match regardless of case")
    why.add_argument("--format", default="table", choices=("table", "json"))
    sweep = sub.add_parser("sweep", help="re-plan once per value of one threshold and count what is sent")
    common(sweep)
    sweep.add_argument("--vary", required=True, metavar="KEY=START:STOP:STEP",
                       help="the threshold and its values, STOP included (STEP defaults to 1)")
    sweep.add_argument("--format", default="table", choices=("table", "json", "csv"))
    diff = sub.add_parser("diff", help="compare two settings: every message whose tier or visible text differs")
    common(diff)
    diff.add_argument("--a", dest="a", metavar="KEY=VALUE", nargs="*", action="append", default=[],
                      help="setting A, on top of the thresholds in force (none: those thresholds)")
    diff.add_argument("--b", dest="b", metavar="KEY=VALUE", nargs="*", action="append", default=[],
                      help="setting B, on top of the thresholds in force")
    diff.add_argument("--format", default="table", choices=("table", "json"))


def wants(args) -> bool:
    """True when this package handles the parsed command."""
    return args.command in NAMES or (args.command == "explain" and getattr(args, "audit", False))


def run(args, inspection) -> int:
    if args.command == "why":
        from .why import cmd_why

        return cmd_why(args, inspection)
    if args.command == "sweep":
        from .sweep import cmd_sweep

        return cmd_sweep(args, inspection)
    if args.command == "diff":
        from .diff import cmd_diff

        return cmd_diff(args, inspection)
    from .audit import cmd_explain_audit

    return cmd_explain_audit(args, inspection)
