"""Tiers read on every theme: WCAG AA (4.5:1) for every part of a row, in colour and in grey (NO_COLOR)."""

from __future__ import annotations

from textual.color import Color

from inspector.ui.contrast import AA, contrast
from inspector.ui.widgets.dual_view import TEXT_PARTS

from .conftest import row_line, settle, view_lines

TIERS = ("full", "truncated", "dropped", "consumed", "error", "undecided")


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
