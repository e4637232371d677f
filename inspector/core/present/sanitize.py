"""Make untrusted chat text safe to show: control characters become visible symbols.

Textual's Content/Text strip only a few control codes and pass ESC and NUL to the
terminal, so a tool output could set the window title, write the clipboard (OSC 52)
or move the cursor. Everything shown goes through here first; export and copy keep
the original text. Markup is a separate concern: the UI never parses data as markup.
"""

from __future__ import annotations

import re

# C0 except tab and newline, DEL, C1, bidi overrides/isolates, Unicode line/paragraph separators, and
# lone surrogates (an invalid byte of the chat file, or an escaped surrogate: a terminal cannot encode them).
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029\ud800-\udfff]")
_ONE_LINE_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029\ud800-\udfff]")

NEWLINE_MARK = "↵"


def _picture(char: str) -> str:
    code = ord(char)
    if code < 0x20:
        return chr(0x2400 + code)  # ␀ ␇ ␛ ␍ ...
    if code == 0x7F:
        return "\u2421"  # ␡
    if code == 0x2028:
        return "\u2424"  # ␤
    if code == 0x2029:
        return "¶"
    return "\ufffd"  # C1 controls and bidi overrides: no picture exists, show a replacement


_PICTURES = {
    chr(c): _picture(chr(c))
    for c in [*range(0x20), *range(0x7F, 0xA0), *range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x2028, 0x2029]
}
_PICTURES.update({chr(c): "\ufffd" for c in range(0xD800, 0xE000)})


def _sub(match: re.Match[str]) -> str:
    return _PICTURES[match.group()]


def display_text(text: str) -> str:
    """Multi-line text for a text view: newlines and tabs kept, every other control made visible."""
    return _UNSAFE.sub(_sub, text)


def display_lines(text: str, tab_size: int = 4) -> list[str]:
    """Lines safe to render one per terminal row (a Strip must never hold a newline)."""
    return [line.expandtabs(tab_size) for line in display_text(text).split("\n")]


def one_line(text: str, limit: int = 400) -> str:
    """A single-line preview: newlines shown as ↵, tabs as spaces, runs of spaces kept short.

    ``limit`` caps the work per row: a 5 MB tool output costs the same as a short one.
    """
    head = text[:limit]
    head = head.replace("\t", " ").replace("\n", NEWLINE_MARK)  # a CR stays visible as ␍
    head = _ONE_LINE_UNSAFE.sub(_sub, head)
    return re.sub(" {3,}", "  ", head)


def terminal_line(text: str, limit: int = 1000) -> str:
    """One line for a terminal message (error, warning, note): every control made visible, cut at ``limit``.

    A role name or a path from a chat may hold an OSC 52 clipboard write or a screen clear, or be
    100,000 characters long; neither reaches the terminal as it stands.
    """
    if len(text) > limit:
        text = f"{text[:limit]}... ({len(text) - limit:,} more characters)"
    return _ONE_LINE_UNSAFE.sub(_sub, text.replace("\t", " ").replace("\n", NEWLINE_MARK))
