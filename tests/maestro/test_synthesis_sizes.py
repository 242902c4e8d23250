"""Synthesising directives reads a bounded number of loop values: the cost does not grow with
the sizes, and the directives found for huge sizes are those found for small ones."""

from __future__ import annotations

import json

import pytest

from tenet.api import load_problem
from tenet.maestro import synthesize
from tenet.maestro.synthesis import SAMPLE
from tenet.spec import ArchitectureSpec, DataflowSpec
from tests.test_cli import run


@pytest.mark.parametrize("m", [SAMPLE - 1, SAMPLE, SAMPLE + 1, 10**7, 10**30])
def test_synthesis_of_huge_sizes_matches_small_ones(m: int) -> None:
    small = synthesize(load_problem("gemm", "systolic-2d-8x8", "gemm-os", {"M": 64}))
    huge = synthesize(load_problem("gemm", "systolic-2d-8x8", "gemm-os", {"M": m}))
    assert [d.text() for d in huge.layer.directives] == [d.text() for d in small.layer.directives]
    # M is the only size changed: the layer's dimensions are the sizes given
    assert huge.layer.dims == {**small.layer.dims, "M": m}
    assert huge.hardware == small.hardware


def test_synthesis_wrap_beyond_the_sample_is_checked_exactly() -> None:
    # PE[i mod 5000]: the wrap lies beyond the first SAMPLE values, which look like
    # floor(i / 1); the array's 5000 PEs fold the spatial map, and the exact check of the
    # directives (lowered again, same placement and order) accepts them
    array = ArchitectureSpec.from_mapping({"name": "line", "pe": "{PE[p]: 0 <= p < 5000}"})
    dataflow = DataflowSpec.from_mapping(
        {
            "name": "wrap",
            "space_stamp": "{S[i, j, k] -> PE[i % 5000]}",
            "time_stamp": "{S[i, j, k] -> T[floor(i / 5000), j, k]}",
        }
    )
    problem = load_problem("gemm", array, dataflow, {"M": 10000, "N": 2, "K": 2})
    found = synthesize(problem)
    assert found.hardware.num_pes == 5000
    assert found.layer.directives[0].text() == "SpatialMap(1,1) M"


def test_cli_compare_with_ten_million_rows_runs(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        capsys, "compare", "-w", "gemm", "-a", "systolic-2d-8x8", "-d", "gemm-os",
        "-p", "M=10000000", "--format", "json",
    )  # fmt: skip
    assert code == 0, err
    rows = {r["quantity"]: r for r in json.loads(out)}
    # M*N*K MACs: 10**7 * 64 * 64 (gemm's defaults N = K = 64)
    assert rows["macs"]["exact"] == 10**7 * 64 * 64
