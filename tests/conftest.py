import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))  # chatgen


@pytest.fixture
def root() -> Path:
    return ROOT


UI_TESTS = Path(__file__).resolve().parent / "ui"


def pytest_addoption(parser: pytest.Parser) -> None:
    """pyproject's addopts pass `-n 2` (pytest-xdist, in the `test` extra); without xdist they run in one process."""
    try:
        import xdist  # noqa: F401
    except ImportError:
        # the short lowercase name is reserved to plugins; `_addoption` is how xdist itself declares it
        group = parser.getgroup("xdist")
        group._addoption("-n", dest="numprocesses", default=None, help="ignored: pytest-xdist is not installed")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every pilot test under tests/ui carries the `ui` marker (`-m "not ui"` is the quick run)."""
    for item in items:
        if UI_TESTS in Path(item.fspath).resolve().parents:
            item.add_marker(pytest.mark.ui)
