"""The command line: one module per command, the shared output helpers in ``output``.

Nothing here imports Textual or Rich at module level; only the app launch does, lazily.
"""

from inspector.cli.main import entry, main

__all__ = ["entry", "main"]
