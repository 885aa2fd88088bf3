"""Shared fixtures: where the real evaluation data lives, and skips when it (or an oracle) is absent."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("PAIREDFRAME_DATA", REPO_ROOT.parent / "shared" / "data"))


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """Root of the real public evaluation data (env PAIREDFRAME_DATA, default ../shared/data)."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"real evaluation data not found at {SHARED_DATA} (set PAIREDFRAME_DATA)")
    return SHARED_DATA
