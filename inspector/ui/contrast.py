"""WCAG contrast: every tier's text colour must read at 4.5:1 (AA) on the row's backgrounds, on every theme.

The theme gives each tier its colour; where that colour is too faint on a theme's
background (orange on light grey, a muted secondary on dark), it is blended toward the
strongest text colour (white or black) until it reads, in colour and in grey (NO_COLOR shows luminance only).
"""

from __future__ import annotations

from textual.color import Color

AA = 4.5  # WCAG 2 level AA for normal text


def luminance(color: Color) -> float:
    def channel(value: int) -> float:
        v = value / 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(color.r) + 0.7152 * channel(color.g) + 0.0722 * channel(color.b)


def contrast(a: Color, b: Color) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def readable(color: Color, backgrounds: list[Color], text: Color, minimum: float = AA) -> Color:
    """``color``, or the least blend of it toward ``text`` (white or black) that reads at ``minimum`` on every background."""

    def reads(candidate: Color) -> bool:
        return all(
            contrast(candidate, bg) >= minimum and contrast(candidate.monochrome, bg.monochrome) >= minimum
            for bg in backgrounds
        )

    for step in range(21):
        candidate = color.blend(text, step / 20)
        if reads(candidate):
            return candidate
    return text


def separator(variables: dict[str, str]) -> str:
    """A pane separator's colour for a theme's CSS variables: the theme's ``panel-lighten-2``, made to read
    at AA on the backgrounds the separators are drawn on (1.0:1 on solarized-light as the theme gives it).
    An ANSI theme's colours are the terminal's: kept as they are."""
    given = variables["panel-lighten-2"]
    try:
        colour = Color.parse(given)
        grounds = [Color.parse(variables[name]) for name in ("background", "surface", "panel")]
    except Exception:  # an ANSI theme names terminal colours, which have no value here
        return given
    if colour.ansi is not None or any(g.ansi is not None for g in grounds):
        return given
    return readable(colour, grounds, grounds[0].get_contrast_text(1.0)).hex
