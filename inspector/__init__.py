"""prompt-inspector: what an LLM agent really sends to its model."""

from __future__ import annotations

DISTRIBUTION = "prompt-inspector"


def version() -> str:
    """The installed version: pyproject.toml is the one place it is written."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed_version

    try:
        return installed_version(DISTRIBUTION)
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "0+unknown"


def __getattr__(name: str) -> str:  # `inspector.__version__`, read only when asked for
    if name == "__version__":
        return version()
    raise AttributeError(f"module 'inspector' has no attribute {name!r}")
