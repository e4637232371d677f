"""The UI-free core: loading, planning, explaining, exporting.

Nothing under this package may import textual or rich (a subprocess test keeps it so).
"""
