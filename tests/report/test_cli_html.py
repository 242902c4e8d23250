"""``tenet report STORE -o FILE`` and ``--report FILE`` on ``sweep``, ``dse`` and
``eval-network``: one self-contained page with the inputs, the tables, the plots and the
dataflows, read back with ``html.parser``; bad input exits 2 with one line."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.conftest import run
from tests.report.page import Page, read_page

GEMM = ["-p", "M=8", "-p", "N=8", "-p", "K=8", "-a", "systolic-2d-8x8", "--workers", "1"]
"""The gemm of the search's example: its best mapping takes 47 cycles (see
:func:`tenet.dse.explore.explore`: ceil(128 / 4) + 16 - 1 through a port of 4 elements per
cycle with a latency of 16)."""


def _page(path: Path) -> Page:
    page = read_page(path.read_text(encoding="utf-8"))
    assert page.links == 0 and page.scripts_from_files == 0
    assert all(ref.startswith("#") for ref in page.references)
    return page


def _column(table: tuple[list[str], list[list[str]]], header: str) -> list[str]:
    names, rows = table
    return [row[names.index(header)] for row in rows]


@pytest.fixture(scope="module")
def gemm_search(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A search of the gemm with its store and its report: (store, report)."""
    folder = tmp_path_factory.mktemp("search")
    store, report = folder / "s.db", folder / "search.html"
    from tenet.cli import main  # run() needs capsys, which a module fixture cannot take

    with pytest.raises(SystemExit) as stop:
        main(["dse", "-w", "gemm", *GEMM, "--store", str(store), "--report", str(report)])
    assert stop.value.code in (0, None)
    return store, report


def test_dse_report_shows_the_best_mapping_and_its_dataflow(
    gemm_search: tuple[Path, Path],
) -> None:
    page = _page(gemm_search[1])
    assert page.headings[0] == "gemm on systolic-2d-8x8"
    inputs = {row[0]: row[1] for row in page.tables[0][1]}
    assert inputs["size parameters"] == "M=8, N=8, K=8" and inputs["objective"] == "latency"
    best, every = page.tables[1], page.tables[2]
    assert "latency cycles" in best[0] and "bandwidth_pe elements/cycle" in best[0]
    # the best leads with its headline (no memory levels: the array's figures); every point
    # has the array's figures, which the search ranks by, under their own names
    assert _column(best, "latency cycles") == _column(best, "latency_array cycles") == ["47"]
    assert _column(best, "fits") == ["True"] and _column(best, "memory_model") == ["array"]
    assert "latency cycles" not in every[0]
    latencies = [int(v) for v in _column(every, "latency_array cycles")]
    assert latencies[0] == 47 and latencies == sorted(latencies)
    assert page.svgs == 1  # the Pareto front of the one exploration
    mapping = page.tables[-1][1][0]
    assert mapping[0] == "gemm on systolic-2d-8x8"
    # the systolic winner: the output stays in PE[i, j] and A, B move one PE per step
    assert mapping[2:] == [
        "{ S[i, j, k] -> PE[i, j] }",
        "{ S[i, j, k] -> T[i + j + k] }",
        "none (untiled)",
    ]


def test_report_command_reads_the_store_back(
    capsys: pytest.CaptureFixture[str], gemm_search: tuple[Path, Path], tmp_path: Path
) -> None:
    out = tmp_path / "again.html"
    code, _, err = run(capsys, "report", str(gemm_search[0]), "-o", str(out))
    assert code == 0 and err.strip() == f"wrote {out}"
    page, searched = _page(out), _page(gemm_search[1])
    assert page.tables[1:] == searched.tables[1:]
    inputs = {row[0]: row[1] for row in page.tables[0][1]}
    assert inputs["results store"] == str(gemm_search[0])


def test_sweep_report_of_network_layers_names_them_and_draws_them(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    network = tmp_path / "net.yaml"
    layers = [
        {"name": "wide", "workload": "gemm", "params": {"M": 8, "N": 8, "K": 8}},
        {"name": "short", "workload": "gemm", "params": {"M": 8, "N": 8, "K": 2}},
    ]
    network.write_text(yaml.safe_dump({"version": 1, "name": "tiny", "layers": layers}))
    store, out = tmp_path / "s.db", tmp_path / "net.html"
    args = ["-a", "systolic-2d-8x8", "--workers", "1", "--strategy", "constructive"]
    code, _, _ = run(capsys, "sweep", "-n", str(network), *args, "--store", str(store))
    assert code == 0
    code, _, _ = run(capsys, "report", str(store), "-o", str(out))
    assert code == 0
    page = _page(out)
    assert _column(page.tables[1], "workload") == ["tiny/wide", "tiny/short"]
    assert "Best mapping per workload by the array's latency: tiny on systolic-2d-8x8" in (
        page.headings
    )
    assert page.svgs == 1
    assert [row[0] for row in page.tables[-1][1]] == [
        "tiny/wide on systolic-2d-8x8",
        "tiny/short on systolic-2d-8x8",
    ]


def test_sweep_report_of_one_workload_on_two_arrays_counts_them_right(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "two.html"
    arrays = ["-a", "systolic-2d-8x8", "-a", "mesh4-8x8", "--workers", "1"]
    sizes = ["-p", "M=4", "-p", "N=4", "-p", "K=4"]
    code, _, _ = run(capsys, "sweep", "-w", "gemm", *arrays, *sizes, "--report", str(out))
    assert code == 0
    page = _page(out)
    assert page.headings[0] == "gemm on 2 architectures"
    assert "Best mapping per workload by the array's latency: gemm on mesh4-8x8" in page.headings
    # the zoo's energies are relative to one MAC, and say so
    assert "energy MAC-relative" in page.tables[1][0]
    assert "energy, MAC-relative" in out.read_text() and "one MAC = 1" not in out.read_text()


def test_eval_network_report_has_each_layer_the_total_and_the_dataflow(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    network = tmp_path / "mlp.yaml"
    layers = [
        {"name": "fc1", "workload": "gemm", "params": {"M": 8, "N": 16, "K": 8}, "count": 2},
        {"name": "fc2", "workload": "gemm", "params": {"M": 8, "N": 8, "K": 4}},
    ]
    network.write_text(yaml.safe_dump({"version": 1, "name": "mlp", "layers": layers}))
    out = tmp_path / "mlp.html"
    args = ["-a", "systolic-2d-8x8", "-d", "gemm-os-systolic", "--report", str(out)]
    code, _, err = run(capsys, "eval-network", str(network), *args)
    assert code == 0 and f"wrote {out}" in err
    page = _page(out)
    assert page.headings[0] == "mlp on systolic-2d-8x8"
    table = page.tables[1]
    assert _column(table, "layer") == ["fc1", "fc2", "total"]
    # MACs M*N*K: 8*16*8 = 1024 per fc1, 8*8*4 = 256 for fc2; total 2*1024 + 256
    assert _column(table, "macs MACs") == ["1024", "256", "2304"]
    assert page.svgs == 1
    label, name, space_stamp, time_stamp, _ = page.tables[-1][1][0]
    assert label == "2 layer(s): fc1, fc2" and name == "gemm-os-systolic"
    assert "PE[" in space_stamp and "T[" in time_stamp


def test_report_command_refuses_a_missing_store(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = run(capsys, "report", str(tmp_path / "none.db"), "-o", str(tmp_path / "r.html"))
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "none.db: no such results store" in err
    assert not (tmp_path / "none.db").exists()


def test_report_command_refuses_a_store_without_a_search(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from tenet.dse.run.store import ResultStore

    ResultStore(tmp_path / "empty.db").close()
    code, _, err = run(capsys, "report", str(tmp_path / "empty.db"), "-o", str(tmp_path / "r.html"))
    assert code == 2 and "holds no design-space run" in err
    assert not (tmp_path / "r.html").exists()
