"""Search in the original content: a thread worker finds the rows, n/N walk them (wrapping around).

A mixin of the app, kept apart so app.py stays about wiring.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right

from textual import work
from textual.worker import get_current_worker

from inspector.core.present.search import find_rows

from .messages import SearchDone


class SearchMixin:
    search_query: str
    search_hits: list[int]

    def run_search(self, query: str) -> None:
        self.search_query = query
        if not query:
            self.search_hits = []
            self.view.set_hits(set())
            self._show_status()
            return
        self._search(query)

    @work(thread=True, exclusive=True, group="search", description="search", exit_on_error=False)
    def _search(self, query: str) -> None:
        worker = get_current_worker()
        hits = find_rows(self.rows, query, lambda: worker.is_cancelled)
        if not worker.is_cancelled:
            self.post_message(SearchDone(query, hits))

    def on_search_done(self, event: SearchDone) -> None:  # by name: @on needs Textual's metaclass
        if event.query != self.search_query:
            return
        self.search_hits = event.hits
        self.view.set_hits(set(event.hits))
        if not event.hits:
            self.notify(f"no match for {event.query!r}", severity="warning", markup=False)
            self._show_status()
            return
        self._jump_to_match(1, include_current=True)

    def _jump_to_match(self, step: int, include_current: bool = False) -> None:
        hits, view = self.search_hits, self.view
        current = view.current_row or 0
        shown = (
            (lambda row: True)
            if view.order is None
            else (lambda row: view.position_of(row) < view.count and view.row_at(view.position_of(row)) == row)
        )
        if step > 0:
            candidates = hits[bisect_left(hits, current) if include_current else bisect_right(hits, current) :]
            candidates = candidates + hits  # wrap around
        else:
            candidates = hits[: bisect_left(hits, current)][::-1] + hits[::-1]
        for row in candidates:
            if shown(row):
                view.go_to_row(row)
                self._show_status()
                return
        self.notify("every match is hidden by the filter", severity="warning")

    def action_next_match(self) -> None:
        self._jump_to_match(1)

    def action_prev_match(self) -> None:
        self._jump_to_match(-1)
