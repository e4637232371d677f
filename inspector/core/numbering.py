"""Row numbers: the `#` column of `explain`, the app's rows, `why`, the audit and `diff`.

One row per original message; a message consumed before the strategies ran (a `clear`, an option,
an import...) keeps a row where it stood in the file: before the message it preceded, after the
consumed ones before it. Every view numbers rows through this, so "row 12" is the same row everywhere.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass

from inspector.core.model import Chat


@dataclass(frozen=True, slots=True)
class RowNumbers:
    refs: list[int]  # per row: >= 0 a message index; < 0: -(k + 1) for chat.consumed[k]
    consumed_order: list[int]  # indices into chat.consumed, in row order
    befores: list[int]  # their `before`, ascending

    @classmethod
    def of(cls, chat: Chat) -> RowNumbers:
        consumed = chat.consumed
        order = sorted(range(len(consumed)), key=lambda k: consumed[k].before)  # stable: file order within
        befores = [consumed[k].before for k in order]
        refs: list[int] = []
        pending = 0
        for index in range(len(chat.messages)):
            while pending < len(order) and befores[pending] <= index:
                refs.append(-(order[pending] + 1))
                pending += 1
            refs.append(index)
        refs.extend(-(k + 1) for k in order[pending:])
        return cls(refs, order, befores)

    @staticmethod
    def message_row(chat: Chat, index: int) -> int:
        """``of(chat).row_of_message(index)`` without numbering every row (a search asks for one row)."""
        return index + bisect_right(sorted(c.before for c in chat.consumed), index)

    def row_of_message(self, index: int) -> int:
        return index + bisect_right(self.befores, index)

    def row_of_consumed(self, rank: int) -> int:
        """The row of the ``rank``-th consumed item in row order (``consumed_order[rank]``)."""
        return self.befores[rank] + rank
