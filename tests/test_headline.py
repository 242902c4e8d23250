"""One headline per design: every command that reports a design leads with its latency, energy,
DRAM traffic and whether it fits, from the memory-aware model when the architecture has levels
inside DRAM (else the array's), says which model they come from, and shows the array model's
latency and energy under their own names (``latency_array``, ``energy_array``); a mapping that
does not fit says so first, and ``legality`` speaks of dependences and placement only.

The design of most tests: GEMM 32 x 32 x 32 output-stationary (``gemm-os-systolic``) on
``systolic-levels-8x8`` (DRAM, a global buffer of 110,592 elements, a register file of 256 per
PE; DRAM reads and writes 4 elements per cycle). By hand: PE[p, q] computes the outputs
C[i, j] with i = p, p + 8, p + 16, p + 24 and j = q, ... (4 x 4 of them); untiled, its register
file holds everything the dataflow gives it: A's rows i (4 x 32 = 128 elements), B's columns j
(128) and its 16 outputs, 272 elements of 256: it does not fit. The buffer takes A and B from
DRAM once and writes C back once: 1,024 + 1,024 reads and 1,024 writes, 3,072 elements of DRAM
traffic, 2,048 / 4 + 1,024 / 4 = 768 cycles of DRAM time, above the 736 cycles of compute (the
array's occupancy, counted): the memory-aware latency is 768 cycles, bottleneck DRAM.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from tenet import assess
from tests.conftest import run
from tests.report.page import read_page

ARCH = "systolic-levels-8x8"
SIZES = ("-p", "M=32", "-p", "N=32", "-p", "K=32")
PROBLEM = ("-w", "gemm", "-a", ARCH, "-d", "gemm-os-systolic", *SIZES)
OVERFLOW = "rf needs 272 of 256 elements"
LATENCY, TRAFFIC = 768, 3 * 1024
SEARCH = ("-w", "gemm", "-a", ARCH, *SIZES, "--workers", "1")


def _ok(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    code, out, err = run(capsys, *args)
    assert code == 0, err
    return out


def _lines(text: str) -> dict[str, list[str]]:
    """Each text line by its first word (the last such line), the rest split."""
    return {line.split()[0]: line.split()[1:] for line in text.splitlines() if line.strip()}


def test_eval_text_leads_with_the_headline_and_says_it_does_not_fit(
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = _ok(capsys, "eval", *PROBLEM)
    head = out.splitlines()[:5]
    assert head[0] == f"fits: no — {OVERFLOW}"
    assert head[1].split() == ["latency", str(LATENCY), "cycles", "(bottleneck:", "dram)"]
    assert head[2].split()[0] == "energy" and head[2].split()[2] == "MAC-relative"
    assert head[3].split() == ["traffic_dram", str(TRAFFIC), "elements"]
    assert head[4].split()[:2] == ["model", "memory-aware,"]
    # the array model's latency and energy under their own names, never the headline's
    lines = _lines(out)
    a = assess("gemm", ARCH, "gemm-os-systolic", params={"M": 32, "N": 32, "K": 32})
    assert lines["latency_array"] == [str(a.metrics.latency), "cycles"]
    assert lines["energy_array"] == [str(a.metrics.energy), "MAC-relative"]
    assert a.metrics.latency != LATENCY
    # legality: dependences and placement only; the overflow, with its witness, below
    (legality,) = [line for line in out.splitlines() if line.startswith("legality")]
    assert legality.split()[1] == "legal"
    assert "capacity: tile [PE[0, 0] -> rf[]] needs 272 elements of rf" in out
    # CSV: each tensor's line carries the headline's fields under the same names
    csv = _ok(capsys, "eval", *PROBLEM, "--format", "csv").splitlines()
    header = csv[0].split(",")
    assert header[header.index("latency_cycles") :][:7] == [
        "latency_cycles",
        "energy",
        "energy_unit",
        "traffic_dram_elements",
        "fits",
        "overflow",
        "memory_model",
    ]
    first = dict(zip(header, csv[1].split(","), strict=False))
    assert (first["latency_cycles"], first["traffic_dram_elements"]) == (str(LATENCY), str(TRAFFIC))
    assert (first["fits"], first["overflow"]) == ("False", OVERFLOW)


def test_eval_json_headline_first_and_capacity_apart_from_legality(
    capsys: pytest.CaptureFixture[str],
) -> None:
    result = json.loads(_ok(capsys, "eval", *PROBLEM, "--format", "json"))
    assert list(result)[0] == "headline"
    assert result["headline"] == {
        "latency_cycles": LATENCY,
        "energy": result["memory"]["energy"],
        "energy_unit": "MAC",
        "traffic_dram_elements": TRAFFIC,
        "fits": False,
        "overflow": OVERFLOW,
        "memory_model": "untiled",
    }
    assert result["legality"] == []
    [capacity] = result["capacity"]
    assert capacity["kind"] == "capacity" and "needs 272 elements of rf" in capacity["message"]
    assert "latency" not in result and "energy" not in result
    assert result["latency_array"] != result["headline"]["latency_cycles"]
    # the mapping row holds the same figures under the same names
    assert {k: result["row"][k] for k in result["headline"]} == result["headline"]


def test_eval_without_memory_levels_heads_with_the_array_model(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # GEMM 8 x 8 x 4 on systolic-2d-8x8 (docs/metrics.md): latency 31 cycles (egress
    # ceil(64 * 16 / 64) + 16 - 1); DRAM sends A and B (32 elements each), takes C (64)
    args = ("-w", "gemm", "-a", "systolic-2d-8x8", "-d", "gemm-os-systolic")
    args += ("-p", "M=8", "-p", "N=8", "-p", "K=4")
    out = _ok(capsys, "eval", *args)
    assert out.splitlines()[:2] == ["fits: yes", f"{'latency':24} 31 cycles"]
    assert _lines(out)["model"][0] == "array"
    result = json.loads(_ok(capsys, "eval", *args, "--format", "json"))
    headline = result["headline"]
    assert headline["memory_model"] == "array" and headline["fits"] is True
    assert headline["latency_cycles"] == result["latency_array"] == 31
    assert headline["energy"] == result["energy_array"]
    assert headline["traffic_dram_elements"] == 32 + 32 + 64


def test_table_leads_with_the_headline_and_the_fits_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = _ok(capsys, "table", *PROBLEM, "-a", "systolic-2d-8x8", "--format", "markdown")
    assert out.splitlines()[0] == f"fits: no — 1 of 2 rows (the first: {OVERFLOW})"
    out = _ok(capsys, "table", *PROBLEM, "-a", "systolic-2d-8x8", "--format", "json")
    levels, array = json.loads(out)
    names = list(levels)
    assert names[4:11] == [
        "latency_cycles",
        "energy",
        "energy_unit",
        "traffic_dram_elements",
        "fits",
        "overflow",
        "memory_model",
    ]
    assert (levels["latency_cycles"], levels["overflow"]) == (LATENCY, OVERFLOW)
    assert levels["traffic_dram_elements"] == TRAFFIC
    # the array model's figures: the same on both arrays (the same PEs and links), named so
    assert levels["latency_array_cycles"] == array["latency_array_cycles"] != LATENCY
    assert array["latency_cycles"] == array["latency_array_cycles"]
    assert array["memory_model"] == "array" and array["fits"] is True


def test_tile_prints_the_headline_first(capsys: pytest.CaptureFixture[str]) -> None:
    problem = ("-w", "gemm", "-a", "simba", "-d", "gemm-os", "-p", "M=8", "-p", "N=8")
    out = _ok(capsys, "tile", *problem, "-p", "K=8")
    row = json.loads(_ok(capsys, "tile", *problem, "-p", "K=8", "--format", "json"))
    assert out.splitlines()[0] == "fits: yes" and row["fits"] is True and row["overflow"] is None
    assert _lines(out)["latency"][:2] == [str(row["latency_cycles"]), "cycles"]
    assert _lines(out)["model"] == ["memory-aware,", "under", "the", "tile", "stamps"]


@pytest.mark.parametrize("command", ["dse", "sweep"])
def test_search_rows_say_first_which_do_not_fit(
    capsys: pytest.CaptureFixture[str], command: str
) -> None:
    out = _ok(capsys, command, *SEARCH, "--top", "2")
    rows = json.loads(_ok(capsys, command, *SEARCH, "--top", "2", "--format", "json"))
    over = [r for r in rows if not r["fits"]]
    assert over and all(r["overflow"].startswith("rf needs ") for r in over)
    notice = f"fits: no — {len(over)} of {len(rows)} rows (the first: {over[0]['overflow']})"
    assert out.splitlines()[0] == notice
    # the rows' latency and energy are the headline's, the array's beside them
    for row in rows:
        assert row["memory_model"] == "untiled"
        assert row["latency_cycles"] != row["latency_array_cycles"]
        assert "energy_array" in row and "edp_array" in row and "edp" not in row


def test_eval_network_layers_lead_with_their_headlines(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    network = tmp_path / "net.yaml"
    layers = [
        {"name": "big", "workload": "gemm", "params": {"M": 32, "N": 32, "K": 32}, "count": 2},
        {"name": "small", "workload": "gemm", "params": {"M": 8, "N": 8, "K": 8}},
    ]
    network.write_text(yaml.safe_dump({"version": 1, "name": "n", "layers": layers}))
    args = ("eval-network", str(network), "-a", ARCH, "-d", "gemm-os-systolic")
    out = _ok(capsys, *args)
    assert out.splitlines()[0] == f"fits: no — 1 of 2 rows (the first: {OVERFLOW})"
    result = json.loads(_ok(capsys, *args, "--format", "json"))
    big, small = result["layers"]
    assert big["headline"]["latency_cycles"] == LATENCY and big["headline"]["fits"] is False
    assert "latency" not in big and big["latency_array"] != LATENCY
    # the small GEMM: every element of A, B and C once each way (3 x 64), fits
    assert small["headline"]["traffic_dram_elements"] == 3 * 64 and small["headline"]["fits"]
    total = result["total"]
    assert total["fits"] is False
    assert total["latency_cycles"] == 2 * LATENCY + small["headline"]["latency_cycles"]
    assert total["traffic_dram_elements"] == 2 * TRAFFIC + 3 * 64
    assert total["latency_array_cycles"] == 2 * big["latency_array"] + small["latency_array"]


def test_compare_says_first_whether_the_mapping_fits(capsys: pytest.CaptureFixture[str]) -> None:
    problem = ("-w", "gemm", "-a", ARCH, "-d", "gemm-os", *SIZES)
    out = _ok(capsys, "compare", *problem)
    assert out.splitlines()[0].startswith(f"fits: no — {OVERFLOW}")
    rows = json.loads(_ok(capsys, "compare", *problem, "--format", "json"))
    quantities = {r["quantity"] for r in rows}
    assert {"latency_array", "energy_array"} <= quantities
    assert not {"latency", "energy"} & quantities


def _best_table(page: str) -> dict[str, list[str]]:
    header, rows = read_page(page).tables[1]
    return {name: [row[k] for row in rows] for k, name in enumerate(header)}


def test_report_prints_the_numbers_of_the_cli_under_the_same_names(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    store, page = tmp_path / "s.db", tmp_path / "r.html"
    args = (*SEARCH, "--store", str(store), "--strategy", "constructive", "--top-k", "2")
    printed = json.loads(_ok(capsys, "sweep", *args, "--top", "1", "--format", "json"))
    _ok(capsys, "report", str(store), "-o", str(page))
    text = page.read_text()
    best = _best_table(text)
    (row,) = printed
    assert best["latency cycles"] == [str(row["latency_cycles"])]
    assert best["traffic_dram elements"] == [str(row["traffic_dram_elements"])]
    assert best["fits"] == ["False"] and best["overflow"] == [row["overflow"]]
    assert best["memory_model"] == ["untiled"]
    assert best["latency_array cycles"] == [str(row["latency_array_cycles"])]
    assert float(best["energy MAC-relative"][0]) == pytest.approx(row["energy"], rel=1e-3)
    # the page says first which best mapping does not fit
    assert f'<p class="note">gemm on {ARCH}: fits: no — {row["overflow"]}</p>' in text
    # the report of the search itself holds the same table
    again = tmp_path / "again.html"
    _ok(capsys, "sweep", *args, "--top", "1", "--report", str(again))
    assert _best_table(again.read_text()) == best


def _energy_best(capsys: pytest.CaptureFixture[str], row: dict[str, Any], path: Path) -> Any:
    """The best tiling by energy of ``row``'s array mapping, searched by ``tenet tile``."""
    spec = {"version": 1, "name": "row", "space_stamp": row["space_stamp"]}
    path.write_text(yaml.safe_dump({**spec, "time_stamp": row["time_stamp"]}))
    problem = ("-w", "gemm", "-a", ARCH, "-p", "M=8", "-p", "N=8", "-p", "K=8", "-d", str(path))
    tile = ("tile", *problem, "-l", "glb", "--strategy", "joint", "--no-bypass")
    return json.loads(_ok(capsys, *tile, "--objective", "energy", "--format", "json"))


def test_dse_tile_by_energy_tiles_each_mapping_by_energy(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    args = ("dse", "-w", "gemm", "-a", ARCH, "-p", "M=8", "-p", "N=8", "-p", "K=8")
    args += ("--workers", "1", "--top", "2", "--tile", "glb", "--objective", "energy")
    out = _ok(capsys, *args)
    assert "each with its best tiling of glb (least energy first)" in out
    rows = json.loads(_ok(capsys, *args, "--format", "json"))
    assert [r["energy"] for r in rows] == sorted(r["energy"] for r in rows)
    for k, row in enumerate(rows):
        assert row["bound_energy"] <= row["energy"]
        best = _energy_best(capsys, row, tmp_path / f"{k}.yaml")
        assert row["energy"] == pytest.approx(best["energy"])


def test_layers_plot_by_energy_tiles_each_layer_by_energy(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    net = Path(__file__).parent / "dse" / "tiling" / "tiny-net.yaml"
    args = ("sweep", "-n", str(net), "-a", ARCH, "--strategy", "constructive", "--top-k", "3")
    args += ("--workers", "1", "--format", "json")
    rows = {}
    for objective in ("latency", "energy"):
        plot = str(tmp_path / f"{objective}.png")
        out = _ok(capsys, *args, "--layers-plot", plot, "--objective", objective)
        rows[objective] = json.loads(out)["rows"]
    # the text says which objective picked the mappings and their tilings
    text = _ok(
        capsys, *args[:-2], "--layers-plot", str(tmp_path / "t.png"), "--objective", "energy"
    )
    assert "each layer's best array mapping by energy, its tiling by energy" in text
    for by_latency, by_energy in zip(rows["latency"], rows["energy"], strict=True):
        assert by_energy["bound_energy"] <= by_energy["energy"]
        assert "bound_latency_cycles" not in by_energy
        assert by_latency["bound_latency_cycles"] <= by_latency["latency_cycles"]
        if by_energy["name"] == by_latency["name"]:  # the same array mapping: tiled by energy
            assert by_energy["energy"] <= by_latency["energy"]
