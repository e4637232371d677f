"""An Input whose editing keys act in the order they were typed.

Textual inserts a printable key in the focused Input at once, but runs Backspace, Delete
and the arrows as bindings, after the key has bubbled up to the App. In a burst (a fast
typist, a paste, keys sent by a script) a later digit can land before an earlier
Backspace: `123456`, six Backspaces and `150000` did not leave `150000`. Here the
editing keys act in the Input's own key handler, so every key takes effect in order.
"""

from __future__ import annotations

from textual import events, on
from textual.widgets import Input

EDITING = {
    "backspace": "delete_left",
    "delete": "delete_right",
    "left": "cursor_left",
    "right": "cursor_right",
    "home": "home",
    "end": "end",
}


class BurstInput(Input):
    @on(events.Key)
    async def _editing_key(self, event: events.Key) -> None:
        action = EDITING.get(event.key)
        if action is not None:
            event.stop()
            event.prevent_default()
            await self.run_action(action)
