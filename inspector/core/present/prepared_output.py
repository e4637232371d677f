"""The prepared prompt as the bytes `prepare` prints and the app's export writes (present.export joins them).

Its own module, apart from the reports: a short `prepare` imports neither the reports nor, under scout-ai's
strategies, the other frameworks' modules.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING

from inspector.core.errors import UsageError
from inspector.core.io.printers import PRINTERS, print_openai_items, render_chunks

if TYPE_CHECKING:
    from inspector.core.scout.prepare import Prompt


def prepared_chunks(prompt: Prompt, fmt: str) -> Iterator[bytes]:
    """The prepared prompt in ``fmt`` as pieces (a large JSON prompt is never held whole); the
    refusals come up front, before any piece."""
    if fmt not in PRINTERS:
        raise UsageError(f"unknown format {fmt!r}; known: {', '.join(PRINTERS)}")
    if prompt.error is not None:
        raise UsageError(f"{prompt.error.raiser} would raise, nothing is sent: {prompt.describe_error()}")
    peers = sys.modules.get("inspector.core.peers.plan")  # a plan of theirs needs it loaded: none else does
    if fmt == "openai" and peers is not None and isinstance(prompt.planner, peers.PeerPlan):
        # another framework's policy: its own output as the library holds it (content parts kept as parts)
        from inspector.core.peers.wire import as_openai

        items = [as_openai(i) for i in prompt.planner.wire_items()]
        return iter((print_openai_items(items).encode("utf-8", "surrogatepass"),))
    return render_chunks(fmt, prompt.messages())
