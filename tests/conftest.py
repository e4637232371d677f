import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))  # chatgen


@pytest.fixture
def root() -> Path:
    return ROOT


UI_TESTS = Path(__file__).resolve().parent / "ui"


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    """pyproject's addopts ask for worker processes (`--numprocesses=3`, pytest-xdist, in the `test` extra).

    Where xdist is not installed, or is turned off (`-p no:xdist`), the option is still accepted and the
    suite runs in one process.
    """
    if not pluginmanager.has_plugin("xdist"):
        parser.addoption("--numprocesses", default=None, help="ignored: pytest-xdist is not installed or is off")
        parser.addoption("--dist", default=None, help="ignored: pytest-xdist is not installed or is off")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every pilot test under tests/ui carries the `ui` marker (`-m "not ui"` is the quick run)."""
    for item in items:
        if UI_TESTS in Path(item.fspath).resolve().parents:
            item.add_marker(pytest.mark.ui)
