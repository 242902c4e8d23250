"""What ``tenet layout`` and ``tenet layout-rank`` print: use distances as decimals, the
README's greedy search lowering the latency, and why the two latencies of a ranked point
differ."""

from __future__ import annotations

import re

import pytest

from tenet.cli.layout import LAYOUT_NOTE
from tests.conftest import run

ARRAY = ("-a", "systolic-2d:rows=2,cols=2", "--banks", "4")
SIZES = ("-p", "M=4", "-p", "N=4", "-p", "K=4")


def test_cli_layout_greedy_example_lowers_the_latency(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "layout", "-w", "gemm", *ARRAY, "-d", "gemm-os:rows=2,cols=2", *SIZES,
        "--search", "greedy",
    )  # fmt: skip
    assert code == 0
    (line,) = [x for x in out.splitlines() if x.startswith("greedy search")]
    before, after = map(int, re.findall(r"(\d+) -> (\d+) cycles", line)[0])
    assert after < before
    header, *rows = out.split("\n\n")[0].splitlines()
    assert header.split()[-1] == "distance_use_mean"
    means = [row.split()[-1] for row in rows]
    assert all(re.fullmatch(r"\d+\.\d{3}", m) for m in means), means


def test_cli_layout_rank_says_why_its_latencies_differ(
    capsys: pytest.CaptureFixture[str],
) -> None:
    small = ("-p", "M=2", "-p", "N=2", "-p", "K=2")
    code, out, _ = run(capsys, "layout-rank", "-w", "gemm", *ARRAY, *small, "--top", "3")
    assert code == 0
    assert out.rstrip("\n").endswith(LAYOUT_NOTE)
