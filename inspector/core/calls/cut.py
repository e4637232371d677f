"""A chat cut at a call: the chat as it stood just before the call's response.

A JSON-like chat is its message list cut. A scout chat is the file cut at the line where the response
starts; its parse is replayed from the whole file's parser snapshot (``Marked``) where it can be, and
a *plain* one (no role in ``NOT_PLAIN``) is then built from the whole chat's lists without running
pre-processing again. Anything else is really re-loaded from the cut bytes.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from operator import is_
from typing import TYPE_CHECKING

from inspector.core.calls.find import Call
from inspector.core.io.formats import load_data, scout_chat
from inspector.core.model import Chat, Finding, Message
from inspector.core.scout.parser import Parsed
from inspector.core.scout.prepared import prepared_findings
from inspector.core.scout.preprocess import WORKFLOW_ROLES, previous_response_findings
from inspector.core.scout.roles import unknown_role_findings

if TYPE_CHECKING:
    from inspector.core.calls.history import ChatHistory

# Roles whose pre-processing depends on other messages (or reads files): a chat with any of them has
# each cut chat pre-processed again. Without them pre-processing only drops meta, previous_response_id
# and empty messages, one by one, so a cut chat's prompt messages are the whole chat's first ones.
NOT_PLAIN = frozenset(
    {
        "import",
        "continue",
        "last",
        "clear",
        "clear_tools",
        "clear_role",
        "clean_role",
        "config",
        "file",
        "directory",
        "pdf",
        "image",
        "allow_path",
        "allow_read_path",
        "endpoint",
        "model",
        "backend",
        "agent",
        "persist",
        "format",
        "option",
        "sticky_option",
        *WORKFLOW_ROLES,
    }
)


def is_plain(messages: list[Message]) -> bool:
    """None of ``messages`` has a role whose pre-processing depends on other messages (see NOT_PLAIN)."""
    return not any(isinstance(r := m.fields.get("role"), str) and r in NOT_PLAIN for m in messages)


def cut_chat(history: ChatHistory, call: Call) -> Chat:
    """The chat of ``history`` as it stood just before ``call``."""
    whole = history.whole.chat
    if whole.format != scout_chat.NAME or call.line is None:
        return cut_list(whole, call.start)
    if history.marked is not None and call.line is not None:
        parsed = history.marked.cut(call.line)
        if parsed is not None and history.plain:
            chat = plain_cut(history, call, parsed)
            if chat is not None:
                return chat
        if parsed is not None:
            chat = scout_chat.load_parsed(parsed, history.path)
            chat.format = scout_chat.NAME
            chat.findings.extend(unknown_role_findings(chat.messages, True))
            return chat
    history.reloads += 1
    return load_data(history.cut_bytes(call.number), history.path, history.input_format or scout_chat.NAME)


def plain_count(history: ChatHistory, call: Call, parsed: Parsed) -> int | None:
    """How many of the whole chat's first messages the plain chat cut before ``call`` holds (None: not
    a prefix, pre-process the cut file)."""
    start = call.start
    if len(parsed.messages) != start:
        return None  # the cut parse ends differently (an empty message the whole file does not have)
    last = parsed.messages[-1] if start else None
    source = history.source
    if last is not None and last is not source[start - 1] and last.fields != source[start - 1].fields:
        return None
    return history.response_index(call.number)


def plain_tail_count(history: ChatHistory, call: Call, count: int, last: Message | None) -> int | None:
    """``plain_count`` from the cut parse's message count and last message (``Marked.cut_tail``)."""
    start = call.start
    if count != start:
        return None
    source = history.source
    if last is not None and last is not source[start - 1] and last.fields != source[start - 1].fields:
        return None
    return history.response_index(call.number)


def plain_cut(history: ChatHistory, call: Call, parsed: Parsed) -> Chat | None:
    count = plain_count(history, call, parsed)
    if count is None:
        return None
    history.prefix_counts[call.number] = count
    return plain_cut_chat(history, parsed, call.start, count)


def plain_cut_chat(history: ChatHistory, parsed: Parsed, start: int, count: int) -> Chat:
    """The cut chat of a plain scout chat, from the whole chat's lists (``count`` prompt messages)."""
    whole, source = history.whole.chat, history.source
    messages = whole.messages[:count]
    # consumed items are sorted by their place in the file, so those before the response come first
    consumed = whole.consumed[: bisect_right(history.consumed_befores, count)]
    chat = Chat(messages, path=whole.path, format=whole.format, findings=list(parsed.findings), consumed=consumed)
    ids = history.response_ids[: bisect_left(history.response_ids, start)]
    chat.findings.extend(previous_response_findings([source[i] for i in ids], whole.path))
    if history.unknown_roles:
        chat.findings.extend(unknown_role_findings(messages, True))
    chat.findings.extend(prepared_findings(chat, history.marked_before(count)))
    return chat


def cut_list(whole: Chat, count: int) -> Chat:
    """A JSON-like chat cut to its first ``count`` messages."""
    findings = [f for f in whole.findings if _before(f, count)]
    consumed = [c for c in whole.consumed if c.before < count]
    chat = Chat(
        whole.messages[:count],
        path=whole.path,
        format=whole.format,
        findings=findings,
        consumed=consumed,
        config=dict(whole.config),
        strategies=whole.strategies,
        strategies_line=whole.strategies_line,
        options=dict(whole.options),
        locator=whole.locator,
        wire=whole.wire,
    )
    return chat


def _before(finding: Finding, count: int) -> bool:
    return not finding.indices or max(finding.indices) < count


def is_prefix(messages: list[Message], whole: list[Message]) -> bool:
    """``messages`` are the first messages of ``whole`` (the same objects, or equal fields)."""
    if len(messages) > len(whole):
        return False
    # the same objects, compared in C (a timeline asks at thousands of calls of a long chat); else by fields
    return all(map(is_, messages, whole)) or all(a is b or a.fields == b.fields for a, b in zip(messages, whole))
