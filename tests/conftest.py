import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))  # chatgen


@pytest.fixture
def root() -> Path:
    return ROOT
