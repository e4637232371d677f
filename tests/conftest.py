import gc
import os
import sys
from pathlib import Path

import pytest
from hypothesis import settings

# Bytecode is cached for the checkout even where PYTHONDONTWRITEBYTECODE is set (as on this project's
# machines): without it, each worker process compiles the package and pytest rewrites every test module
# from source at every run, and every CLI subprocess compiles what it imports. (__pycache__ is ignored by git.)
sys.dont_write_bytecode = False

# Every run tries the same examples, so the suite takes the same time and a failure comes back on the next
# run; HYPOTHESIS_PROFILE=explore draws new ones (and keeps what fails in .hypothesis/).
settings.register_profile("repeatable", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))  # chatgen


@pytest.fixture
def root() -> Path:
    return ROOT


UI_TESTS = Path(__file__).resolve().parent / "ui"
UI_TEST_PATHS = (UI_TESTS, Path(__file__).parent / "ui")  # pytest's item paths are not resolved


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    """pyproject's addopts ask for worker processes (`--numprocesses=4`, pytest-xdist, in the `test` extra).

    Where xdist is not installed, or is turned off (`-p no:xdist`), the option is still accepted and the
    suite runs in one process.
    """
    if not pluginmanager.has_plugin("xdist"):
        parser.addoption("--numprocesses", default=None, help="ignored: pytest-xdist is not installed or is off")
        parser.addoption("--dist", default=None, help="ignored: pytest-xdist is not installed or is off")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every pilot test under tests/ui carries the `ui` marker (`-m "not ui"` is the quick run)."""
    for item in items:
        if any(item.path.is_relative_to(path) for path in UI_TEST_PATHS):
            item.add_marker(pytest.mark.ui)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Make the cyclic garbage collector cheap for the rest of the run.

    A pilot test makes hundreds of thousands of short-lived objects (Textual's strips and style caches), and
    with Python's default thresholds the collector ran thousands of times per worker, each pass walking the
    imported modules too: a quarter of the suite's CPU. What is loaded by now (Textual, hypothesis, the
    package, the test modules) is frozen out of every later pass, and a pass waits for 50,000 new objects.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 50, 100)
