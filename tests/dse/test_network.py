"""A network's search lists every layer entry (repeated ones under their own names) with its
count and the network's total, each layer weighted by its count, in ``tenet sweep -n`` and in
the report of its store, as ``tenet eval-network`` does."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from tenet.dse.network import network_totals
from tests.conftest import run
from tests.report.page import read_page

NETWORK = """name: rep
layers:
  - {name: first, workload: gemm, params: {M: 4, N: 4, K: 2}, count: 2}
  - {name: again, workload: gemm, params: {M: 4, N: 4, K: 2}}
  - {name: other, workload: gemm, params: {M: 2, N: 4, K: 2}, count: 3}
"""
"""Three entries, the first two the same layer under two names."""

SEARCH = ("-a", "systolic-2d:rows=2,cols=2", "--top", "1", "--workers", "1")


@pytest.fixture
def network(tmp_path: Path) -> str:
    path = tmp_path / "rep.yaml"
    path.write_text(NETWORK)
    return str(path)


def test_sweep_lists_each_entry_with_its_count_and_the_weighted_total(
    capsys: pytest.CaptureFixture[str], network: str
) -> None:
    code, out, err = run(capsys, "sweep", "-n", network, *SEARCH, "--format", "json")
    assert code == 0, err
    printed = json.loads(out)
    layers = printed["network"]
    assert [(r["layer"], r["count"]) for r in layers] == [
        ("rep/first", 2),
        ("rep/again", 1),
        ("rep/other", 3),
        ("total", 6),
    ]
    *entries, total = layers
    # each entry's figures are those of its exploration's best row
    best = {r["workload"]: r for r in printed["rows"]}
    for entry in entries:
        assert entry["latency_cycles"] == best[entry["layer"]]["latency_cycles"]
    # the repeated layer is the same layer: the same best figures under each name
    assert entries[0]["latency_cycles"] == entries[1]["latency_cycles"]
    for figure in ("latency_cycles", "energy", "traffic_dram_elements"):
        assert total[figure] == pytest.approx(sum(e[figure] * e["count"] for e in entries))
    code, out, _ = run(capsys, "sweep", "-n", network, *SEARCH)
    assert code == 0
    assert "rep: each layer entry's best mapping by latency" in out
    assert out.splitlines()[-1].split()[:3] == ["systolic-2d:rows=2,cols=2", "total", "6"]


def test_report_of_a_stored_network_search_lists_every_entry(
    capsys: pytest.CaptureFixture[str], network: str, tmp_path: Path
) -> None:
    store, page = tmp_path / "s.db", tmp_path / "rep.html"
    code, out, _ = run(
        capsys, "sweep", "-n", network, *SEARCH, "--store", str(store), "--format", "json"
    )
    assert code == 0
    printed = json.loads(out)["network"]
    code, _, _ = run(capsys, "report", str(store), "-o", str(page))
    assert code == 0
    report = read_page(page.read_text())
    (table,) = [
        t for h, t in zip(report.headings[2:], report.tables[1:], strict=False) if "Network" in h
    ]
    header, rows = table
    column = {name: header.index(name) for name in ("layer", "count", "latency cycles")}
    listed = [(r[column["layer"]], int(r[column["count"]])) for r in rows]
    assert listed == [(r["layer"], r["count"]) for r in printed]
    latencies = [int(r[column["latency cycles"]]) for r in rows]
    assert latencies == [r["latency_cycles"] for r in printed]


def test_network_total_is_missing_when_a_layer_is() -> None:
    best = pd.DataFrame(
        {"workload": ["n/a"], "architecture": ["x"], "name": ["m"], "latency_cycles": [10]}
    )
    totals = network_totals(best, [("n/a", 2), ("n/b", 1)])
    assert totals["layer"].tolist() == ["n/a", "n/b", "total"]
    assert totals["latency_cycles"].tolist() == [10, None, None]
    assert totals["count"].tolist() == [2, 1, 3]
