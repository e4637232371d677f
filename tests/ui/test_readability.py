"""Tiers read on every theme: WCAG AA (4.5:1) for every part of a row, in colour and in grey (NO_COLOR)."""

from __future__ import annotations

import pytest
from textual.color import Color

from inspector.ui.contrast import AA, contrast
from inspector.ui.widgets.dual_view import TEXT_PARTS

from .conftest import row_line, settle, view_lines

TIERS = ("full", "truncated", "dropped", "consumed", "error", "undecided")


@pytest.mark.slow  # every built-in theme in turn: the thorough pass
async def test_every_row_part_reaches_aa_contrast_on_every_builtin_theme(make_app):
    app = make_app()
    async with app.run_test(size=(100, 24)) as pilot:
        await settle(app, pilot)
        themes = sorted(name for name in app.available_themes if not name.startswith("ansi"))
        assert {"textual-dark", "textual-light", "solarized-light", "catppuccin-latte"} <= set(themes)
        failures = []
        seen = set()
        for theme in themes:
            app.theme = theme
            await pilot.pause()  # the view reads its part styles again when the new theme reaches it
            styles = app.chat.view.part_styles()
            background = Color.from_rich_color(app.chat.view.rich_style.bgcolor)
            seen.add((background, Color.from_rich_color(styles["full"].color)))
            colours = {}
            for part in TEXT_PARTS:
                colour = Color.from_rich_color(styles[part].color)
                colours[part] = colour
                for label, fg, bg in (
                    ("colour", colour, background),
                    ("grey", colour.monochrome, background.monochrome),
                ):
                    ratio = contrast(fg, bg)
                    if ratio < AA:
                        failures.append(f"{theme} {part} ({label}): {ratio:.2f}")
            # a tool name must not look like a truncated row, nor a truncated row like a full one
            if colours["tool"] == colours["truncated"] or colours["truncated"] == colours["full"]:
                failures.append(f"{theme}: tool / truncated / full share a colour")
        assert failures == []
        assert len(seen) == len(themes)  # each theme was read, not the first one again


async def test_tiers_read_without_colour_by_their_symbols(make_app, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert app.no_color
        glyphs = {line[0] for line in view_lines(app)}
        assert {"=", "✗"} <= glyphs
        assert any(line.partition("│")[2].startswith("✗ dropped") for line in view_lines(app))
        await pilot.press("g", *"41", "enter")
        await settle(app, pilot)
        left, _, right = row_line(app, 41).partition("│")
        assert left.startswith("✂  41 output") and "✂ Truncated (6435):" in right


@pytest.mark.slow  # every built-in theme in turn, focused and not: the thorough pass
async def test_the_cursor_row_hits_and_pane_separators_reach_aa_on_every_builtin_theme(make_app):
    """The cursor row (list focused or not) and a search hit: every text part on that row's background; the
    panes' separators ($separator: the editor's and the detail pane's borders, the column divider) on the
    backgrounds they are drawn on. In colour and in grey."""
    app = make_app()
    async with app.run_test(size=(100, 24)) as pilot:
        await settle(app, pilot)
        view = app.chat.view
        themes = sorted(name for name in app.available_themes if not name.startswith("ansi"))
        failures = []

        def check(what: str, fg: Color, bg: Color) -> None:
            for label, a, b in (("colour", fg, bg), ("grey", fg.monochrome, bg.monochrome)):
                if contrast(a, b) < AA:
                    failures.append(f"{what} ({label}): {contrast(a, b):.2f}")

        for theme in themes:
            app.theme = theme
            for focused in (True, False):
                if focused:
                    view.focus()
                else:
                    app.screen.set_focus(None)
                await pilot.pause()
                assert view.has_focus == focused
                for ground in ("cursor", "hit"):
                    styles = view.part_styles(ground)
                    fill = Color.from_rich_color(styles[ground].bgcolor)
                    for part in (*TEXT_PARTS, "divider"):
                        check(
                            f"{theme} {part} on {ground} (focused={focused})",
                            Color.from_rich_color(styles[part].color),
                            fill,
                        )
            variables = app.get_css_variables()
            for name in ("background", "surface", "panel"):
                check(f"{theme} separator on {name}", Color.parse(variables["separator"]), Color.parse(variables[name]))
        assert failures == []
        # the cursor is still a visible band on the default theme (toned only as far as the text needs)
        app.theme = "textual-dark"
        view.focus()
        await pilot.pause()
        plain = Color.from_rich_color(view.rich_style.bgcolor)
        assert Color.from_rich_color(view.part_styles("cursor")["cursor"].bgcolor) != plain
