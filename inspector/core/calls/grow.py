"""A chat history grown by bytes appended to its file, re-reading only the new part.

The parse resumes at the last response header (``Marked.extend``); a *plain* chat (see
``calls.cut.NOT_PLAIN``) pre-processes only its new messages, the rest is the old chat's; tool facts
are extended when the old messages are the new chat's first ones. Tests compare every grown history
with a real re-load of the file.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from inspector.core.calls.cut import is_plain, is_prefix
from inspector.core.inspection import Inspection, inspect_chat
from inspector.core.io.formats import scout_chat
from inspector.core.model import Chat
from inspector.core.scout.parser import Marked
from inspector.core.scout.prepared import prepared_findings
from inspector.core.scout.preprocess import preprocess, previous_response_findings
from inspector.core.scout.roles import unknown_role_findings

if TYPE_CHECKING:
    from inspector.core.calls.history import ChatHistory


class Growth(NamedTuple):
    """What an append made of a history: the parser snapshot and the whole chat's inspection after it;
    ``kept``/``same`` (a plain chat): the old prompt and source messages that are unchanged (their
    indexes are extended, not rebuilt), else None/0."""

    marked: Marked
    whole: Inspection
    kept: int | None
    same: int


def grow(history: ChatHistory, appended: bytes) -> Growth | None:
    """The chat of ``history`` after ``appended`` was appended to its file. None when that is not exact
    (not a scout chat, an XML tag now closes, invalid UTF-8): load the file again."""
    if history.marked is None or history.size is None:
        return None
    try:
        added = appended.decode("utf-8")  # the old bytes were valid UTF-8 as a whole
    except UnicodeDecodeError:
        return None
    marked = history.marked.extend(added)
    if marked is None:
        return None
    grown = _grown_plain(history, marked) if history.plain else None
    kept: int | None = None
    same = 0
    if grown is None:
        chat = scout_chat.load_parsed(marked.parsed, history.path)
        chat.format = scout_chat.NAME
        chat.findings.extend(unknown_role_findings(chat.messages, True))
        prefix = is_prefix(history.whole.chat.messages, chat.messages)
    else:
        chat, kept, same = grown
        old_messages = history.whole.chat.messages
        prefix = is_prefix(old_messages[kept:], chat.messages[kept:])  # the first `kept` are the same objects
    old = history.whole
    facts = None
    if old.facts is not None and prefix:
        facts = old.facts.extended_facts(chat.messages)
    if chat.config == old.chat.config:
        whole = Inspection(chat, old.thresholds, history.setup, facts=facts, config_strategies=old.config_strategies)
    else:
        whole = inspect_chat(chat, history.setup, facts=facts)
    return Growth(marked, whole, kept, same)


def _grown_plain(history: ChatHistory, marked: Marked) -> tuple[Chat, int, int] | None:
    """A plain chat's pre-processing after an append: only the new messages are pre-processed (each
    message is kept or dropped on its own), the rest is the old chat's (None: not plain any more)."""
    old_source, source = history.source, marked.parsed.messages
    same = 0
    for a, b in zip(old_source, source):
        if a is not b:
            break
        same += 1
    tail = source[same:]
    if same == 0 or not is_plain(tail):
        return None
    old = history.whole.chat
    final = history.final_index
    kept = next((final[id(m)] for m in old_source[same:] if id(m) in final), len(old))
    part = Chat(list(tail), path=history.path, format=scout_chat.NAME)
    preprocess(part)
    if part.options or part.config or part.strategies is not None:
        return None
    redone = {id(m) for m in old_source[same:]}  # read again: their consumed records are replaced
    consumed = list(old.consumed)
    while consumed and id(consumed[-1].message) in redone:
        consumed.pop()  # sorted by place in the file, so they are the last ones
    for record in part.consumed:
        record.before += kept
        consumed.append(record)
    messages = old.messages[:kept] + part.messages
    chat = Chat(messages, path=history.path, format=scout_chat.NAME, findings=list(marked.parsed.findings))
    chat.consumed = consumed
    last = next((m for m in reversed(source) if m.fields.get("role") == "previous_response_id"), None)
    if last is not None:  # the finding names the last one
        chat.findings.extend(previous_response_findings([last], history.path))
    if history.unknown_roles or unknown_role_findings(part.messages, True):
        chat.findings.extend(unknown_role_findings(messages, True))
    chat.findings.extend(prepared_findings(chat))
    return chat, kept, same
