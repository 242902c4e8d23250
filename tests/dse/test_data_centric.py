"""A mapping is data-centric (written with spatial and temporal maps) by one rule, whether it
comes from the schedule or from the design space: no skew, and no time-stamp that follows a
loop on the array."""

from __future__ import annotations

import json

import pytest

from tests.conftest import run

SIZES = ("-p", "M=8", "-p", "N=8", "-p", "K=8")


def test_cli_schedule_and_space_rows_agree_on_data_centric(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(
        capsys, "dse", "-w", "gemm", "-a", "multicast-2d-8x8", *SIZES, "--from-schedule",
        "--every-figure", "--top", "30", "--format", "json",
    )  # fmt: skip
    assert code == 0, err
    rows = {(r["source"], r["name"]): r["data_centric"] for r in json.loads(out)}
    # PE[i, j] T[k]: each loop in one place, spatial or temporal
    assert rows[("schedule", "PE[i, j] T[k]")] is True
    assert rows[("space", "PE[i, j] T[k]")] is True
    # T[j, k] and T[k, j] follow the PE column j: a skew, in either order
    assert rows[("schedule", "PE[i, j] T[j, k]")] is False
    assert rows[("space", "PE[i, j] T[k, j]")] is False
