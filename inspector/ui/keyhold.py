"""Keys typed while the focus moves: held, then replayed in the order typed where the focus lands.

A key reaches the focused widget's queue at once, so the keys typed after one that moves the focus
(Tab, Esc, a key that opens the editor, the prompt bar or a dialog) are already queued for the old
widget when the move takes effect: `t 150000`, `/needle`, `5 Tab 7`, `e out.json` typed fast would
land in the wrong place. The holder keeps them and replays them, in order, once the focus is there.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Protocol

from textual import events

# keys whose binding moves the focus (to the next field; out of the editor, the bar, a dialog)
FOCUS_KEYS = ("tab", "shift+tab", "escape")
KEY_LOST = 0.5  # seconds after which such a key that no binding took stops holding the keys typed after it


class KeyHost(Protocol):
    """What the holder asks of the App (a protocol, so the holder is tested without one)."""

    def post_message(self, message: events.Key) -> bool: ...

    def call_after_refresh(self, callback: Callable[[], object]) -> bool: ...

    def set_timer(self, delay: float, callback: Callable[[], object]) -> object: ...


class KeyHolder:
    def __init__(self, host: KeyHost, dispatch: Callable[[events.Key], Awaitable[None]]) -> None:
        self.host = host
        self.dispatch = dispatch  # the App's own handling of a key (its bindings, the focused widget)
        # keys typed while the focus moves; those typed before it that reached the widget losing the focus and
        # came back unhandled; the moves under way; a Tab or Esc not yet handled
        self.held: list[events.Key] | None = None
        self.returned: list[events.Key] = []
        self.landing = 0
        self.pending: events.Key | None = None

    async def take(self, key: events.Key, ready: bool) -> bool:
        """Whether ``key`` waits for the focus to move (kept to be replayed in order), or was handled here.

        A key that comes back unhandled (``is_forwarded``) while a move is under way was typed before the
        move; a fresh one, after. Tab and Esc are held for too: their binding runs only when they come back
        from the field they leave, and the keys behind them must reach where the focus goes. ``ready``:
        the chat is on screen (before that no Tab or Esc moves anything).
        """
        if key.is_forwarded:
            if key is self.pending:
                self.pending = None
                if not self.landing:
                    await self.dispatch(key)  # the focus moves now
                    # what the keys before it posted (a choice's Changed) is handled before those after it
                    self.host.call_after_refresh(self._release_if_done)
                    return True
            if self.landing:
                self.returned.append(key)
                return True
            return False
        if self.held is not None:
            self.held.append(key)
            return True
        if key.key in FOCUS_KEYS and ready:
            self.held, self.pending = [], key
            self.host.set_timer(KEY_LOST, lambda: self._key_lost(key))
        return False

    def _key_lost(self, key: events.Key) -> None:
        """A Tab or Esc some widget took for itself never comes back: stop waiting for it."""
        if self.pending is key:
            self.pending = None
            self._release_if_done()

    def hold(self) -> None:
        """A move starts: keys from now on wait for ``landed``."""
        self.landing += 1
        if self.held is None:  # already holding (a dialog opening, a Tab): keep what it holds
            self.held = []

    def landed(self) -> None:
        self.landing -= 1
        self._release_if_done()

    def _release_if_done(self) -> None:
        if not self.landing and self.pending is None:
            self.release()

    def release(self) -> None:
        """Replay what was held, in the order typed: the keys that came back from the old widget were all
        typed before the ones held as they arrived."""
        held = [*self.returned, *(self.held or [])]
        self.returned, self.held = [], None
        for key in held:
            self.host.post_message(events.Key(key.key, key.character))
