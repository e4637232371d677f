"""The message list's cell fitting: a long preview is measured by its head, with the same cut as measured whole."""

from __future__ import annotations

import random

from rich.cells import cell_len, set_cell_size

from inspector.ui.widgets.dual_view import fit


def _fit_whole(text: str, width: int) -> str:
    if width <= 0:
        return ""
    if cell_len(text) > width:
        return set_cell_size(text, width - 1) + "…"
    return set_cell_size(text, width)


def test_fit_of_long_text_equals_measuring_it_whole():
    rng = random.Random(3)
    alphabet = ["a", "b", " ", "é", "e\u0301", "中", "文", "😀", "👩\u200d💻", "\u200b", "␊", "x\u0301\u0302"]
    for _ in range(400):
        width = rng.choice([1, 2, 3, 5, 8, 20, 37, 80])
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 6 * width + 40)))
        assert fit(text, width) == _fit_whole(text, width), (text, width)
        assert cell_len(fit(text, width)) == width
