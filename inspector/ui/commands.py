"""Command palette entries: one per action in the key table, plus "go to message N"."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from typing import Protocol, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider

from .keymap import APP_ACTIONS, VIEW_ACTIONS

PALETTE_ACTIONS = (*APP_ACTIONS, *VIEW_ACTIONS)


class PaletteHost(Protocol):
    """What the palette asks of the App (the App is not imported here: it imports this module)."""

    async def palette_run(self, action: str) -> None: ...
    def go_to_row(self, row: int) -> None: ...


class InspectorCommands(Provider):
    @property
    def host(self) -> PaletteHost:
        return cast(PaletteHost, self.app)

    def _commands(self) -> Iterator[tuple[str, str, str]]:
        for a in PALETTE_ACTIONS:
            keys = a.shown_keys or a.keys
            yield f"{a.title} ({keys})", a.help, a.action

    async def discover(self) -> Hits:
        for title, help_text, action in self._commands():
            yield DiscoveryHit(title, partial(self.host.palette_run, action), help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        text = query.strip().lstrip("#")
        if text.isdigit():
            yield Hit(
                1.0,
                f"Go to message #{text}",
                partial(self.host.go_to_row, int(text)),
                help="jump to this row of the list",
            )
        for title, help_text, action in self._commands():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), partial(self.host.palette_run, action), help=help_text)
