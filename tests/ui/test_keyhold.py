"""The key holder on its own: which keys wait for a focus move, and the order they are replayed in."""

from __future__ import annotations

from collections.abc import Callable

from textual import events

from inspector.ui.keyhold import KEY_LOST, KeyHolder


class Host:
    """A stand-in App: records what the holder posts, runs refresh callbacks and timers when told."""

    def __init__(self) -> None:
        self.posted: list[str] = []
        self.after_refresh: list[Callable[[], object]] = []
        self.timers: list[tuple[float, Callable[[], object]]] = []

    def post_message(self, message: events.Key) -> bool:
        self.posted.append(message.key)
        return True

    def call_after_refresh(self, callback: Callable[[], object]) -> bool:
        self.after_refresh.append(callback)
        return True

    def set_timer(self, delay: float, callback: Callable[[], object]) -> object:
        self.timers.append((delay, callback))
        return None

    def refresh(self) -> None:
        pending, self.after_refresh = self.after_refresh, []
        for callback in pending:
            callback()


class Key(events.Key):
    """A key whose coming back unhandled from a widget (Textual's ``is_forwarded``) the test sets."""

    back = False

    @property
    def is_forwarded(self) -> bool:
        return self.back


def key(name: str, forwarded: bool = False) -> Key:
    k = Key(name, name if len(name) == 1 else None)
    k.back = forwarded
    return k


def holder() -> tuple[KeyHolder, Host, list[str]]:
    host = Host()
    dispatched: list[str] = []

    async def dispatch(k: events.Key) -> None:
        dispatched.append(k.key)

    return KeyHolder(host, dispatch), host, dispatched


async def test_keys_typed_while_a_field_opens_are_replayed_in_order_once_it_has_the_focus():
    keys, host, _ = holder()
    keys.hold()  # `t` opened the editor
    for name in "150":
        assert await keys.take(key(name), ready=True)
    assert host.posted == []
    keys.landed()
    assert host.posted == ["1", "5", "0"] and keys.held is None


async def test_keys_back_from_the_old_widget_come_before_keys_held_as_they_arrived():
    keys, host, _ = holder()
    keys.hold()
    assert await keys.take(key("a"), ready=True)  # arrived after the move began
    assert await keys.take(key("b", forwarded=True), ready=True)  # typed before, came back unhandled
    keys.landed()
    assert host.posted == ["b", "a"]


async def test_a_tab_holds_the_keys_after_it_until_its_binding_has_run():
    keys, host, dispatched = holder()
    tab = key("tab")
    assert not await keys.take(tab, ready=True)  # it goes on to the focused field
    assert await keys.take(key("7"), ready=True)  # typed after the Tab: waits
    assert host.timers and host.timers[0][0] == KEY_LOST
    assert await keys.take(_forwarded(tab), ready=True)  # back from the field: its binding runs now
    assert dispatched == ["tab"] and host.posted == []
    host.refresh()
    assert host.posted == ["7"]


async def test_a_tab_before_the_chat_is_shown_holds_nothing():
    keys, host, _ = holder()
    assert not await keys.take(key("tab"), ready=False)
    assert not await keys.take(key("x"), ready=False)
    assert host.posted == [] and keys.held is None


async def test_a_tab_a_widget_keeps_for_itself_stops_holding_after_a_while():
    keys, host, _ = holder()
    tab = key("tab")
    await keys.take(tab, ready=True)
    await keys.take(key("j"), ready=True)
    _delay, lost = host.timers[0]
    lost()  # the Tab never came back
    assert host.posted == ["j"] and keys.pending is None


async def test_two_moves_at_once_release_only_when_both_have_landed():
    keys, host, _ = holder()
    keys.hold()
    keys.hold()
    await keys.take(key("x"), ready=True)
    keys.landed()
    assert host.posted == []
    keys.landed()
    assert host.posted == ["x"]


def _forwarded(k: Key) -> Key:
    k.back = True
    return k
