"""The keyword options every Textual widget takes, for the widgets here that pass them on to their base."""

from __future__ import annotations

from typing import TypedDict


class WidgetOptions(TypedDict, total=False):
    """``Widget.__init__``'s keywords (a subclass's ``**kwargs: Unpack[WidgetOptions]``)."""

    name: str | None
    id: str | None
    classes: str | None
    disabled: bool
