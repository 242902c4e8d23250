"""The estimator reproduces real MAESTRO's figures on the TENET-comparison dataflows
(``tests/data/reference/maestro-tenet-dataflows.csv``, MAESTRO commit 4eb08d1), each dataflow
written in our own words in ``tests/data/maestro/``."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from tenet.maestro.estimate import estimate
from tenet.maestro.reader import load_hardware, load_mapping
from tests.maestro.conftest import COMPARISON, CSV, HW

ROWS = list(csv.DictReader(CSV.read_text().splitlines()))

DEFECTS: dict[str, str] = {}
"""Rows where MAESTRO's own arithmetic is defective, with the reason. None of the 40 rows is:
every dataflow of the file tiles its dimensions exactly (no partial edge windows), none makes
MAESTRO divide by zero, and each MAC count equals the loop-bound product."""

CHECKED = [
    "num_macs",
    "runtime",
    "input_l2_buffer_read",
    "input_l2_buffer_write",
    "filter_l2_buffer_read",
    "filter_l2_buffer_write",
    "output_l2_buffer_read",
    "output_l2_buffer_write",
    "total_energy_consumption",
]
EXACT = [
    "num_macs",
    "runtime",
    "average_number_of_utilized_pes",
    "input_l2_buffer_read",
    "input_l2_buffer_write",
    "input_l1_buffer_read",
    "input_l1_buffer_write",
    "filter_l2_buffer_read",
    "filter_l2_buffer_write",
    "filter_l1_buffer_read",
    "filter_l1_buffer_write",
    "output_l2_buffer_read",
    "output_l2_buffer_write",
    "output_l1_buffer_read",
    "output_l1_buffer_write",
    "peak_bandwidth_requirement",
    "input_l2_size_requirement",
    "filter_l2_size_requirement",
    "output_l2_size_requirement",
    "input_l1_size_requirement",
    "filter_l1_size_requirement",
    "output_l1_size_requirement",
    "ingress_delay_avg",
    "egress_delay_avg",
    "computation_delay_avg",
]
PRINTED = [  # MAESTRO prints 6 significant digits
    "throughput",
    "input_data_reuse_factor",
    "filter_data_reuse_factor",
    "output_data_reuse_factor",
    "overall_reuse_factor",
    "avg_bandwidth_requirement",
]


def _estimate(row: dict[str, str]):  # type: ignore[no-untyped-def]
    # the row names MAESTRO's input files; ours have the same file names
    layer = load_mapping(COMPARISON / Path(row["mapping"]).name).layers[0]
    return estimate(layer, load_hardware(HW / Path(row["hw"]).name)).to_dict()


@pytest.mark.parametrize("row", ROWS, ids=[r["id"] for r in ROWS])
def test_maestro_reference_within_one_percent(row: dict[str, str]) -> None:
    if row["id"] in DEFECTS:
        pytest.skip(DEFECTS[row["id"]])
    got = _estimate(row)
    for column in CHECKED:
        want = float(row[column])
        assert got[column] == pytest.approx(want, rel=0.01), column
    assert got["total_energy_consumption"] == pytest.approx(
        float(row["energy_xmac_recomputed"]), rel=1e-9
    )


@pytest.mark.parametrize("row", ROWS, ids=[r["id"] for r in ROWS])
def test_maestro_reference_integer_counts_equal(row: dict[str, str]) -> None:
    got = _estimate(row)
    for column in EXACT:
        assert got[column] == float(row[column]), column
    assert got["offchip_bandwidth_requirement"] == float(row["csv_offchip_bw_req"])
    for column in PRINTED:
        assert got[column] == pytest.approx(float(row[column]), rel=1e-5), column


def test_maestro_reference_covers_the_file() -> None:
    assert len(ROWS) == 40
