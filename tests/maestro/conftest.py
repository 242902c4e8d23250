"""Paths of the MAESTRO inputs and reference figures the comparison tests read: our own
mappings and hardware files (``tests/data/maestro/``), and MAESTRO's own examples in
``../shared`` (tests marked ``shared`` only)."""

from __future__ import annotations

from tests.conftest import DATA, REFERENCE, SHARED

COMPARISON = DATA / "maestro"
"""The dataflows of ``maestro-tenet-dataflows.csv`` (and a few more), in our own words."""
HW = COMPARISON / "hw"
CSV = REFERENCE / "maestro-tenet-dataflows.csv"
MAESTRO_DATA = SHARED / "maestro-data"
EXAMPLES = MAESTRO_DATA / "examples"
"""MAESTRO's own example mappings (``../shared``)."""
