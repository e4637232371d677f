"""The key bar: the keys the focused widget's bindings show, drawn by one widget on one line.

Textual's Footer mounts one widget per key and rebuilds them all (unmount, mount, restyle, lay out)
at every focus change and every ``refresh_bindings``: in the pilot profile its keys were the widgets
restyled most, more than every other widget together. This bar shows the same keys in the same
compact form and colours (the footer's theme variables), each key clickable and lit under the
mouse as in the Footer, the command palette's key at the right end; a change of keys is one
repaint of one line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from textual import events, on
from textual.content import Content
from textual.screen import Screen
from textual.style import Style
from textual.widget import Widget

if TYPE_CHECKING:
    from typing import Unpack

    from .options import WidgetOptions


class ShownKey(NamedTuple):
    key: str  # the key the binding matched, as the App sees it (what a click simulates)
    display: str  # how the key is written (app.get_key_display)
    description: str
    enabled: bool


def shown_keys(screen: Screen[object]) -> tuple[tuple[ShownKey, ...], ShownKey | None]:
    """What the bar draws for ``screen``: the shown keys (one per action, as the Footer does) and the palette's."""
    app = screen.app
    keys: list[ShownKey] = []
    actions: set[str] = set()
    palette: ShownKey | None = None
    for key, (_node, binding, enabled, _tooltip) in screen.active_bindings.items():
        if key == app.COMMAND_PALETTE_BINDING and app.ENABLE_COMMAND_PALETTE:
            palette = ShownKey(key, app.get_key_display(binding), binding.description, enabled)
        elif binding.show and binding.action not in actions:
            actions.add(binding.action)
            keys.append(ShownKey(key, app.get_key_display(binding), binding.description, enabled))
    return tuple(keys), palette


GIVE_WAY = ("Audit", "Export", "Next cut", "Search", "Help")  # left out first when the bar is too narrow


class KeyBar(Widget, can_focus=False):
    DEFAULT_CSS = """
    KeyBar { dock: bottom; height: 1; color: $footer-foreground; background: $footer-background; }
    KeyBar > .key-bar--key { color: $footer-key-foreground; background: $footer-key-background; text-style: bold; }
    KeyBar > .key-bar--description { color: $footer-description-foreground; background: $footer-description-background; }
    KeyBar > .key-bar--separator { color: $foreground 20%; }
    KeyBar > .key-bar--hover { background: $block-hover-background; }
    """
    COMPONENT_CLASSES = {"key-bar--key", "key-bar--description", "key-bar--separator", "key-bar--hover"}
    ALLOW_SELECT = False

    def __init__(self, **kwargs: Unpack[WidgetOptions]) -> None:
        super().__init__(**kwargs)
        self.shown: tuple[tuple[ShownKey, ...], ShownKey | None] = ((), None)
        self.spans: list[tuple[int, int, ShownKey]] = []  # where each key stands in the last line drawn
        self.hovered: ShownKey | None = None

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self.bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def bindings_changed(self, screen: Screen[object]) -> None:
        if screen is not self.screen:
            return
        shown = shown_keys(screen)
        if shown != self.shown:  # the same keys, states and texts: the line on screen is right
            self.shown = shown
            self.refresh()

    def _key(self, shown: ShownKey, key: Style, description: Style) -> Content:
        extra = (Style(dim=True) if not shown.enabled else Style()) + (
            self.get_visual_style("key-bar--hover") if shown == self.hovered else Style()
        )
        if not shown.description:
            return Content.styled(shown.display, key + extra)
        return Content.assemble((shown.display, key + extra), (" " + shown.description, description + extra))

    def render(self) -> Content:
        keys, palette = self.shown
        styles = self.get_visual_style("key-bar--key"), self.get_visual_style("key-bar--description")
        keys = self._fitting(keys, palette, styles)
        parts: list[Content] = []
        spans: list[tuple[int, int, ShownKey]] = []
        x = 0
        for shown in keys:
            part = self._key(shown, *styles)
            spans.append((x, x + part.cell_length, shown))
            parts += [part, Content(" ")]
            x += part.cell_length + 1
        line = Content.assemble(*parts)
        if palette is not None:
            # the palette's key keeps the right end, as the Footer's docked key did; the others give way
            part = self._key(palette, *styles)
            room = self.size.width - part.cell_length - 2
            if room > 0:
                line = line.truncate(room, pad=True)
                spans = [(start, min(end, room), shown) for start, end, shown in spans if start < room]
                separator = Content.styled("▏", self.get_visual_style("key-bar--separator"))
                line = Content.assemble(line, separator, part, " ")
                spans.append((room + 1, room + 1 + part.cell_length, palette))
        self.spans = spans
        return line

    def _fitting(
        self, keys: tuple[ShownKey, ...], palette: ShownKey | None, styles: tuple[Style, Style]
    ) -> tuple[ShownKey, ...]:
        """On a narrow terminal the keys that give way first (GIVE_WAY) are left out, so the ones a user
        steps and edits with (< > t) stay, rather than whatever comes last being cut."""
        room = self.size.width - (self._key(palette, *styles).cell_length + 2 if palette is not None else 0)
        width = sum(self._key(k, *styles).cell_length + 1 for k in keys)
        if room <= 0 or width <= room:
            return keys
        kept = list(keys)
        for description in GIVE_WAY:
            if width <= room:
                break
            for shown in [k for k in kept if k.description == description]:
                kept.remove(shown)
                width -= self._key(shown, *styles).cell_length + 1
        return tuple(kept)

    def key_at(self, x: int) -> ShownKey | None:
        return next((shown for start, end, shown in self.spans if start <= x < end), None)

    @on(events.Click)
    def _click(self, event: events.Click) -> None:
        shown = self.key_at(event.x)
        if shown is None:
            return
        if shown.enabled:
            self.app.simulate_key(shown.key)
        else:
            self.app.bell()

    @on(events.MouseMove)
    def _moved(self, event: events.MouseMove) -> None:
        self._hover(self.key_at(event.x))

    @on(events.Leave)
    def _left(self, event: events.Leave) -> None:
        self._hover(None)

    def _hover(self, shown: ShownKey | None) -> None:
        if shown != self.hovered:
            self.hovered = shown
            self.refresh()
