"""The key bar: Textual's Footer, rebuilt only when the keys it shows change.

Textual's Footer recomposes (unmounts and mounts one widget per key) at every focus change and every
``refresh_bindings``. Moving between the list, the detail pane and the threshold fields almost never
changes the keys it shows, and each rebuild cost more than the key that caused it (about a third of
the CPU of a key that moves the focus).
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer


def shown_keys(screen: Screen) -> tuple:
    """What the footer would draw for ``screen``: each shown key with its text, state and tooltip."""
    return tuple(
        (key, binding.action, binding.description, binding.group, enabled, tooltip)
        for key, (_, binding, enabled, tooltip) in screen.active_bindings.items()
        if binding.show or key == screen.app.COMMAND_PALETTE_BINDING
    )


class KeyFooter(Footer):
    ready = False  # Footer draws nothing until its screen first publishes its bindings
    drawn: tuple | None = None  # what the last compose drew

    def compose(self) -> ComposeResult:
        if self.ready:
            self.drawn = shown_keys(self.screen)
        return super().compose()

    def bindings_changed(self, screen: Screen) -> None:
        if self.drawn is not None and screen is self.screen and shown_keys(screen) == self.drawn:
            return  # the same keys, states and texts: the bar on screen is right
        self.ready = True
        super().bindings_changed(screen)
