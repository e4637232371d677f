"""Pilot helpers: an isolated app (no scout config, no environment, config dir in tmp_path), settled."""

from __future__ import annotations

import asyncio
import html
import json
import re
from pathlib import Path

import pytest
from textual.app import App
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget
from textual.worker import WorkerCancelled

from inspector.core.setup import ChatSource, Setup
from inspector.ui.app import InspectorApp
from inspector.ui.widgets.dual_view import DualColumnView

# The session as a JSON array (the bundled demo is the same session in scout format;
# test_launch opens that one too): exact numbers below refer to this file.
DEMO = Path(__file__).resolve().parents[2] / "sample_chats" / "debug_session.json"

HOSTILE = [
    {"role": "system", "content": "[bold]not bold[/bold] and [/ and list[int] and [@click=app.quit]clickme[/]"},
    {"role": "user", "content": "title\x1b]0;PWNED\x07 red\x1b[31mRED nul\x00 bell\x07 cr\rX"},
    {"role": "function_call", "content": json.dumps({"name": "[red]tool[/red]", "arguments": {"q": "[/"}, "id": "c1"})},
    {
        "role": "function_call_output",
        "content": json.dumps({"name": "[red]tool[/red]", "content": "\x1b[2J[@click=app.quit]x[/]", "id": "c1"}),
    },
]


@pytest.fixture(autouse=True)
def isolated_config(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.chdir(tmp_path)


@pytest.fixture(autouse=True)
def frames_go_nowhere(request, monkeypatch):
    """A headless pilot composes frames that no terminal shows: draw them blank (drawing was about 40% of
    a pilot test's CPU). Only public names are touched: ``Widget.render_lines`` (the Line API's entry,
    which every widget's drawing goes through) and ``App.export_screenshot``. Nothing a test reads
    changes: the screen is read from ``export_screenshot``, which draws every widget for real (a line
    not drawn since it changed is still marked dirty), and rows from the widgets' ``render_line``. What a
    widget learns while drawing (the key bar's spans) is learnt at that read instead. Tests marked
    ``frames`` keep Textual's frames: the mouse on the key bar, the layouts, untrusted text."""
    if request.node.get_closest_marker("frames"):
        return
    draw, screenshot = Widget.render_lines, App.export_screenshot
    reading = 0

    def render_lines(self: Widget, crop: Region) -> list[Strip]:
        if reading:
            return draw(self, crop)
        return [Strip.blank(crop.width)] * crop.height

    def export_screenshot(self: App, *args, **kwargs) -> str:
        nonlocal reading
        reading += 1
        try:
            return screenshot(self, *args, **kwargs)
        finally:
            reading -= 1

    monkeypatch.setattr(Widget, "render_lines", render_lines)
    monkeypatch.setattr(App, "export_screenshot", export_screenshot)


@pytest.fixture
def make_app():
    def factory(path=DEMO, **kwargs) -> InspectorApp:
        kwargs.setdefault("config_files", [])
        kwargs.setdefault("env", {})
        source = ChatSource.of(path, kwargs.pop("input_format", None)) if path is not None else None
        label, follow = kwargs.pop("label", None), kwargs.pop("follow", False)
        if "scout_version" in kwargs:
            kwargs["version"] = kwargs.pop("scout_version")
        app = InspectorApp(source, Setup.of(**kwargs), label=label, follow=follow)
        app.animation_level = "none"
        app.detail_delay = 0  # the detail pane follows the cursor at once in tests
        app.debounce = 0.01  # the coalescing is the same at any delay; tests need not sleep through it
        return app

    return factory


@pytest.fixture
def write_chat(tmp_path):
    def write(messages, name="chat.json") -> Path:
        path = tmp_path / name
        path.write_text(json.dumps(messages), encoding="utf-8")
        return path

    return write


async def workers_done(app) -> None:
    """Wait for every worker of the app; one cancelled meanwhile (an exclusive worker giving way to a
    newer one) is waited past, not raised."""
    while True:
        try:
            await app.workers.wait_for_complete()
            return
        except WorkerCancelled:
            await asyncio.sleep(0.01)


async def settle(app, pilot, wait: float = 0.0) -> None:
    """Let timers fire (debounce), then wait for every worker and the messages they post."""
    await pilot.pause(wait)
    await workers_done(app)
    await pilot.pause()
    await workers_done(app)
    await pilot.pause()


async def until(app, pilot, predicate, timeout: float = 20.0) -> None:
    """Settle until ``predicate()`` holds: keys queued from a thread can still be arriving on a loaded
    machine after one settle. A hang guard, not a timing: the caller asserts the state afterwards."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    await settle(app, pilot)
    while not predicate() and loop.time() < deadline:
        await pilot.pause(0.05)
        await settle(app, pilot)


async def edit(app, pilot, key: str, text: str) -> None:
    """Type a new value into one threshold field (the editor opens if needed) and let it re-plan."""
    if not app.chat.editor.has_class("-open"):
        await pilot.press("t")
        await pilot.pause()
    field = app.chat.editor.query_one(f"#th-{key}")
    field.focus()
    await pilot.pause()
    field.value = ""
    await pilot.press(*list(text))
    await settle(app, pilot, app.debounce + 0.05)


def view_lines(app) -> list[str]:
    view = app.query_one(DualColumnView)
    return [view.render_line(y).text for y in range(view.scrollable_content_region.height)]


def row_line(app, row: int) -> str:
    """The rendered text of the row showing original message ``row`` (it must be on screen)."""
    view = app.query_one(DualColumnView)
    y = view.position_of(row) - view.scroll_offset.y
    assert 0 <= y < view.scrollable_content_region.height, f"row {row} is not on screen"
    return view.render_line(y).text


SVG_TEXT = re.compile(r'<text [^>]*?x="([\d.]+)"[^>]*?clip-path="url\(#[^)]*-line-(\d+)\)"[^>]*>([^<]*)</text>')
CHAR_WIDTH = 0.61 * 20  # rich's export_svg: font size 20, aspect 0.61


def screen_text(app) -> str:
    """The screen as the user sees it, read from Textual's public SVG screenshot (no private attributes)."""
    width, height = app.size
    grid = [[" "] * width for _ in range(height)]
    for x, line, text in SVG_TEXT.findall(app.export_screenshot()):
        column, row = round(float(x) / CHAR_WIDTH), int(line)
        for offset, char in enumerate(html.unescape(text).replace("\xa0", " ")):
            if row < height and column + offset < width:
                grid[row][column + offset] = char
    return "\n".join("".join(row).rstrip() for row in grid)


def split(line: str) -> tuple[str, str]:
    left, _, right = line.partition("│")
    return left, right
