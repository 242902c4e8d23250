"""Paths of the MAESTRO inputs and reference figures the comparison tests read."""

from __future__ import annotations

import pytest

from tests.conftest import REFERENCE, SHARED

MAESTRO_DATA = SHARED / "maestro-data"
EXAMPLES = MAESTRO_DATA / "examples"
COMPARISON = MAESTRO_DATA / "tenet-comparison"
CSV = REFERENCE / "maestro-tenet-dataflows.csv"


@pytest.fixture(autouse=True)
def _need_maestro_data() -> None:
    if not MAESTRO_DATA.is_dir():
        pytest.skip("../shared/maestro-data is not beside the repository")
