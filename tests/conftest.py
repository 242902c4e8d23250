"""Shared fixtures: where ``../shared`` (the original tools' inputs and figures) lives."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import settings

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
TENET_DATA = SHARED / "tenet-data"
REFERENCE = SHARED / "reference"

settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True, max_examples=40)
settings.load_profile("ci")


def need_shared() -> None:
    """Skip when ``../shared`` is not beside the repository."""
    if not TENET_DATA.is_dir():
        pytest.skip("../shared/tenet-data is not beside the repository")
