"""A chat that is already a prepared prompt (the output of `prepare --format chat`, or a copy of what
scout-ai sent): its tool outputs carry scout-ai's own cut markers, and the strategies would cut them again."""

from __future__ import annotations

from inspector.core.lazy_re import lazy
from inspector.core.model import Chat, Finding, Message

# `Truncated (217): <head><...217 - 1a2b3...><tail>` (shorten_string) or 2.x's `[CONTEXT-COMPACTED - ...]`;
# each pattern starts with a literal, so a search stays linear even on hostile text full of near-misses
TRUNCATED = lazy(r"Truncated \(\d+\): ")
MD5_MARKER = lazy(r"<\.\.\.\d+ - [0-9a-f]{5}\.\.\.>")
COMPACTED = "[CONTEXT-COMPACTED - "


def _marked(content: str) -> bool:
    if COMPACTED in content:
        return True
    if "Truncated (" not in content:
        return False
    found = TRUNCATED.search(content)
    return found is not None and MD5_MARKER.search(content, found.end()) is not None


def marked_messages(messages: list[Message]) -> list[int]:
    """The indices of the messages that hold scout-ai's cut markers, ascending."""
    hits: list[int] = []
    for index, message in enumerate(messages):
        content = message.fields.get("content")
        if isinstance(content, str) and _marked(content):
            hits.append(index)
    return hits


def prepared_findings(chat: Chat, hits: list[int] | None = None) -> list[Finding]:
    """One finding when messages hold scout-ai's cut markers: the chat looks like an already-prepared prompt.

    ``hits``: the marked messages when the caller knows them (a cut chat shares the whole chat's first
    messages, so stepping through calls need not walk them again)."""
    if hits is None:
        hits = marked_messages(chat.messages)
    if not hits:
        return []
    first = hits[0]
    from inspector.core.numbering import RowNumbers  # only for a prepared chat's finding

    row = RowNumbers.of(chat).row_of_message(first)  # the `#` column's number
    line = chat.line_of(first)
    count = f"{len(hits)} messages hold" if len(hits) > 1 else "1 message holds"
    return [
        Finding(
            "already_prepared",
            f"this chat looks like an already-prepared prompt: {count} scout-ai's cut markers "
            f"(`Truncated (N): ...<...N - md5...>` or `[CONTEXT-COMPACTED`), the first #{row}; "
            "the strategies cut it again, so open the original chat to see what the model gets",
            line,
            0,
            (first,),  # a cut of the chat keeps the finding when it holds the first marked message
        )
    ]
