"""The scout-ai chat text format (``.chat``): ``Chat.parse`` (core/scout/parser), then scout-ai's
pre-processing (core/scout/preprocess)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from inspector.core.lazy_re import lazy
from inspector.core.model import Chat

if TYPE_CHECKING:
    from inspector.core.scout.parser import Parsed

NAME = "scout"
EXTENSIONS = (".chat",)
ACCEPTS_INVALID_UTF8 = True  # scout-ai's Misc.fixutf8 repairs such files instead of refusing them
HEADER_LINE = lazy(r"^[a-z0-9_]+:", re.ASCII | re.M)


def sniff(text: str) -> bool:
    """Scout text is the fallback (sniffed last): any line that is a role header at column 0."""
    return HEADER_LINE.search(text) is not None


def load(text: str, path: str | None) -> Chat:
    from inspector.core.scout.parser import parse  # here: a JSON chat need not import the text grammar

    return load_parsed(parse(text), path)


def load_parsed(parsed: Parsed, path: str | None) -> Chat:
    """The chat scout-ai compiles from one parse (the parse's own lists are not changed)."""
    from inspector.core.scout.prepared import prepared_findings
    from inspector.core.scout.preprocess import preprocess

    chat = Chat(list(parsed.messages), path=path, format=NAME, findings=list(parsed.findings))
    preprocess(chat, parsed.synthetic_first)
    chat.findings.extend(prepared_findings(chat))
    return chat
