"""An Input whose editing keys act in the order they were typed.

Textual inserts a printable key in the focused Input at once, but runs Backspace, Delete,
ctrl+u and the arrows as bindings, after the key has bubbled up to the App. In a burst (a fast
typist, a paste, keys sent by a script) a later digit can land before an earlier
Backspace: `123456`, six Backspaces and `150000` did not leave `150000`. Here the
editing keys act in the Input's own key handler, so every key takes effect in order.
"""

from __future__ import annotations

from textual import events, on
from textual.binding import Binding
from textual.widgets import Input

# Every editing key Input binds (Backspace, ctrl+u, ctrl+w, the arrows...), taken from Input itself so a
# key Textual adds is ordered too. Enter stays a binding: the keys before it are in by then, and the
# App's handling of a submitted bar expects the keys after it to come back to it.
EDITING = {
    key.strip(): binding.action
    for binding in Input.BINDINGS
    if isinstance(binding, Binding) and binding.action != "submit"
    for key in binding.key.split(",")
}


class BurstInput(Input):
    @on(events.Key)
    async def _editing_key(self, event: events.Key) -> None:
        action = EDITING.get(event.key)
        if action is not None:
            event.stop()
            event.prevent_default()
            await self.run_action(action)
