"""The results store keeps integers of any size exactly, and the search runs with sizes far
beyond 64 bits."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tenet.dse.run.store import ResultStore
from tests.test_cli import run


@pytest.mark.parametrize("path", [None, "s.db"])
def test_store_keeps_integers_beyond_64_bits_exactly(tmp_path: Path, path: str | None) -> None:
    store = ResultStore(tmp_path / path if path else None)
    values = [10**30 + 1, -(2**63) - 1, 2**63, 2**63 - 1, 7]
    store.open_run("r", {}, total=len(values))
    store.add("r", [{"idx": k, "name": str(k), "latency_cycles": v} for k, v in enumerate(values)])
    assert list(store.rows("r")["latency_cycles"]) == values
    store.close()


def test_cli_dse_with_a_size_beyond_64_bits(capsys: pytest.CaptureFixture[str]) -> None:
    m = 10**30
    code, out, err = run(
        capsys, "dse", "-w", "gemm", "-a", "systolic-2d-8x8", "-p", f"M={m}", "-p", "N=8",
        "-p", "K=8", "--workers", "1", "--top", "1", "--format", "json",
    )  # fmt: skip
    assert code == 0, err
    [best] = json.loads(out)
    # no design point finishes before every MAC of a PE has run: M*N*K / 64 PEs steps at least
    assert int(best["latency_cycles"]) >= m * 8 * 8 // 64
