"""``tenet map``: the best mapping of a layer or of every layer entry of a network over every
array mapping, with its certificate; its dataflow file reproduced by ``tenet eval``; the same
figures for the same mapping as ``tenet tile --strategy joint``, ``tenet dse --tile`` and
``tenet sweep``; a network's entries with their counts and the weighted total; resumed from
its store; Ctrl-C; bad inputs."""

from __future__ import annotations

import csv
import json
import sqlite3
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from tenet.dse import ExecutionOptions, Interrupted, LayerEntry, Mapped, gap_words, map_layers
from tenet.dse.run.engines import LocalEngine
from tests.conftest import DATA, run

ARCH = "systolic-levels-8x8"
GEMM = ("-w", "gemm", "-a", ARCH, "-p", "M=8", "-p", "N=8", "-p", "K=8")
COUNTED = str(DATA / "networks" / "counted.yaml")
"""first and again: GEMM M=4, N=4, K=2 (counts 3 and 2); other: M=2, N=4, K=2 (count 1)."""

FIELDS = {
    "latency_cycles",
    "energy",
    "energy_unit",
    "objective",
    "value",
    "bound",
    "gap",
    "complete",
    "space_stamp",
    "time_stamp",
    "tiles",
    "kept",
    "places",
    "evaluated",
    "cpu_seconds",
    "cpu_to_best",
    "count",
    "certificate",
    "ties_open",
    "traffic_dram_elements",
}


def _map(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    code, out, err = run(capsys, "map", *args, "--format", "json")
    assert code == 0, err
    return dict(json.loads(out))


def _same(stamp: str, other: str) -> bool:
    return stamp.replace(" ", "") == other.replace(" ", "")


def _figures(row: dict[str, Any]) -> tuple[int, float, int]:
    return row["latency_cycles"], row["energy"], row["traffic_dram_elements"]


def _evaluated(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, float, int]:
    """Latency, energy and DRAM traffic of ``tenet eval ARGS`` (its memory-aware figures)."""
    code, out, err = run(capsys, "eval", *args, "--format", "json")
    assert code == 0, err
    memory = json.loads(out)["memory"]
    (dram,) = [lv for lv in memory["levels"] if lv["level"] == "dram"]
    return memory["latency"], memory["energy"], dram["accesses_read"] + dram["accesses_write"]


def test_map_json_row_has_the_fields_and_the_certificate(
    capsys: pytest.CaptureFixture[str],
) -> None:
    printed = _map(capsys, *GEMM)
    assert printed["architecture"] == ARCH and printed["complete"] is True
    (row,) = printed["layers"]
    assert FIELDS <= set(row)
    # GEMM 8³ on 8x8 PEs: DRAM moves A, B and C once (3 * 64 elements) at 4 a cycle, 48
    # cycles, above the 8 cycles of compute: no mapping does better
    assert row["traffic_dram_elements"] == 3 * 64
    assert row["latency_cycles"] == row["value"] == row["bound"] == 3 * 64 // 4
    assert row["gap"] == 0 and row["certificate"] == "proven optimal"
    assert row["complete"] is True and row["objective"] == "latency"
    assert row["kept"]["dram"] == ["A", "B", "C"] and set(row["tiles"]) == {"glb", "rf"}
    assert row["evaluated"] >= 1 and row["cpu_to_best"] <= row["cpu_seconds"] + 1e-3


def test_map_gap_in_words() -> None:
    assert gap_words(Fraction(100), Fraction(100)) == "proven optimal"
    # 100 against a bound of 97: at most 3/97 = 3.09...% above the optimum, said as 3.1 %
    assert gap_words(Fraction(100), Fraction(97)) == "at most 3.1 % above the best possible"
    assert gap_words(Fraction(100), None) == "no bound proven"


def test_map_saved_dataflow_is_evaluated_to_the_row(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    saved = tmp_path / "best.yaml"
    for objective in ("latency", "energy"):
        args = ("-w", "gemm", "-a", ARCH, "-p", "M=4", "-p", "N=4", "-p", "K=4")
        printed = _map(capsys, *args, "--objective", objective, "--save-dataflow", str(saved))
        (row,) = printed["layers"]
        assert f"-d {saved} -p M=4 -p N=4 -p K=4" in saved.read_text()
        assert _evaluated(capsys, *args, "-d", str(saved)) == _figures(row)


def test_map_agrees_with_tile_dse_and_sweep_on_its_mapping(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (row,) = _map(capsys, *GEMM)["layers"]
    mapping = tmp_path / "array.yaml"  # the array mapping alone: tile searches its tiling
    mapping.write_text(
        f"name: best\nspace_stamp: '{row['space_stamp']}'\ntime_stamp: '{row['time_stamp']}'\n"
    )
    code, out, err = run(
        capsys, "tile", *GEMM, "-d", str(mapping), "--strategy", "joint", "--format", "json"
    )
    assert code == 0, err
    assert _figures(json.loads(out)) == _figures(row)
    search = ("--format", "json", "--top", "100", "--workers", "1")
    for command in (("dse", "--tile", "glb", "--tile", "rf"), ("sweep",)):
        code, out, err = run(capsys, command[0], *GEMM, *search, *command[1:])
        assert code == 0, err
        (same,) = [
            r
            for r in json.loads(out)
            if _same(r["space_stamp"], row["space_stamp"])
            and _same(r["time_stamp"], row["time_stamp"])
        ]
        # their tilings keep the architecture's tensors, a part of map's space: the same
        # latency, and no less energy (of the mappings of the best latency, map returns one
        # of least energy)
        latency, energy, _ = _figures(same)
        assert latency == row["latency_cycles"] and energy >= row["energy"], command[0]


def test_map_network_lists_every_entry_with_its_count_and_the_total(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    folder = tmp_path / "flows"
    printed = _map(capsys, "-n", COUNTED, "-a", ARCH, "--save-dataflow", str(folder))
    rows = printed["layers"]
    assert [(r["layer"], r["count"]) for r in rows] == [
        ("counted/first", 3),
        ("counted/again", 2),
        ("counted/other", 1),
    ]
    # each layer's DRAM traffic is A, B and C once, at 4 elements a cycle: M=4, N=4, K=2
    # moves 8 + 8 + 16 = 32 elements in 8 cycles; M=2, N=4, K=2 moves 4 + 8 + 8 = 20 in 5
    assert [r["traffic_dram_elements"] for r in rows] == [32, 32, 20]
    assert [r["latency_cycles"] for r in rows] == [8, 8, 5]
    assert _figures(rows[0]) == _figures(rows[1])  # searched once, listed twice
    total = printed["total"]
    assert total["count"] == 3 + 2 + 1
    assert total["latency_cycles"] == 3 * 8 + 2 * 8 + 1 * 5
    assert total["traffic_dram_elements"] == 3 * 32 + 2 * 32 + 1 * 20
    assert total["energy"] == sum(r["count"] * r["energy"] for r in rows)
    for row in rows:  # one dataflow file per entry, evaluated to its row
        path = folder / f"{row['layer'].split('/')[-1]}.yaml"
        sizes = [w for k, v in row["params"].items() for w in ("-p", f"{k}={v}")]
        assert _evaluated(capsys, "-w", "gemm", "-a", ARCH, "-d", str(path), *sizes) == (
            _figures(row)
        )


def test_map_network_table_csv_and_report(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    report = tmp_path / "map.html"
    code, out, err = run(capsys, "map", "-n", COUNTED, "-a", ARCH, "--report", str(report))
    assert code == 0, err
    lines = out.splitlines()
    assert "proven optimal" in lines[2] and lines[5].split()[:3] == ["total", "6", "45"]
    assert "layers: 2/2 searched" in err
    assert "counted/again" in report.read_text()
    code, out, err = run(capsys, "map", "-n", COUNTED, "-a", ARCH, "--format", "csv")
    assert code == 0, err
    *_, total = csv.DictReader(out.splitlines())
    assert (total["layer"], total["count"], total["latency_cycles"]) == ("total", "6", "45")


def test_map_resumes_from_its_store(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    store = tmp_path / "map.db"
    # by energy, GEMM 4³ leaves subtrees to search after its seeds: they are stored
    sizes = ("-p", "M=4", "-p", "N=4", "-p", "K=4", "--objective", "energy")
    args = ("-w", "gemm", "-a", ARCH, *sizes, "--store", str(store))
    first = _map(capsys, *args)
    with sqlite3.connect(store) as db:
        (stored,) = db.execute("SELECT COUNT(*) FROM results").fetchone()
    again = _map(capsys, *args)
    with sqlite3.connect(store) as db:
        (after,) = db.execute("SELECT COUNT(*) FROM results").fetchone()
    assert stored > 0 and after == stored  # every part read back, none searched again

    def figures(printed: dict[str, Any]) -> list[tuple[Any, ...]]:
        return [(*_figures(r), r["bound"], r["tiles"]) for r in printed["layers"]]

    assert figures(again) == figures(first)


def test_map_interrupted_keeps_the_entries_done(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import tenet.dse.mapper as mapper
    from tenet.dse.joint.tree import joint_search

    searched: list[object] = []

    def interrupted(*args: Any, **kwargs: Any) -> Any:
        if searched:
            raise KeyboardInterrupt
        searched.append(args)
        return joint_search(*args, **kwargs)

    monkeypatch.setattr(mapper, "joint_search", interrupted)
    entries = [LayerEntry("a", "gemm", {"M": 2, "N": 2, "K": 2}), LayerEntry("b", "gemm")]
    with pytest.raises(Interrupted) as stop:
        map_layers(entries, ARCH)
    partial = stop.value.partial
    assert isinstance(partial, Mapped) and not partial.complete
    assert [m.entry.label for m in partial.layers] == ["a"]
    searched.clear()
    code, out, err = run(capsys, "map", "-n", COUNTED, "-a", ARCH, "--format", "json")
    assert code == 130
    printed = json.loads(out)
    assert printed["complete"] is False
    assert [r["layer"] for r in printed["layers"]] == ["counted/first", "counted/again"]
    assert "interrupted: the best so far is written" in err


@pytest.mark.parametrize("budget", ["--time-budget", "--cpu-budget"])
def test_map_budget_keeps_bound_and_gap(capsys: pytest.CaptureFixture[str], budget: str) -> None:
    (row,) = _map(capsys, *GEMM, "--objective", "energy", budget, "0.5")["layers"]
    assert row["bound"] <= row["value"]
    assert row["gap"] == pytest.approx((row["value"] - row["bound"]) / row["value"])
    assert (row["certificate"] == "proven optimal") == (row["bound"] == row["value"])


def test_map_gap_proves_within_the_tolerance(capsys: pytest.CaptureFixture[str]) -> None:
    # a tolerance of 1/2: the best is at most half above the bound, and the search ends whole
    args = ("-w", "conv2d", "-a", ARCH, "-p", "K=4", "-p", "C=4", "-p", "OX=4", "-p", "OY=4")
    args += ("-p", "RX=3", "-p", "RY=1", "--objective", "energy")
    (exact,) = _map(capsys, *args)["layers"]
    (loose,) = _map(capsys, *args, "--gap", "0.5")["layers"]
    assert loose["complete"] is True and exact["complete"] is True
    assert loose["bound"] <= exact["value"] <= loose["value"] <= 1.5 * loose["bound"]
    assert loose["evaluated"] <= exact["evaluated"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((*GEMM, "--objective", "speed"), "Invalid value for '--objective'"),
        (("-n", "no-such-net", "-a", ARCH), "no-such-net"),
        ((*GEMM, "--time-budget", "-1"), "Invalid value for '--time-budget'"),
        ((*GEMM, "--cpu-budget", "-1"), "Invalid value for '--cpu-budget'"),
        ((*GEMM, "--gap", "-0.1"), "Invalid value for '--gap'"),
        ((*GEMM, "-n", COUNTED), "--workload with --network"),
        (("-n", COUNTED, "-a", ARCH, "-p", "M=4"), "--param with --network"),
        (("-a", ARCH), "give --workload or --network"),
        ((*GEMM, "-d", "conv2d-os"), "none of the dataflows conv2d-os is made for workload"),
        ((*GEMM, "--save-dataflow", "/no/such/folder/x.yaml"), "--save-dataflow"),
    ],
)
def test_map_bad_inputs_end_in_one_line(
    capsys: pytest.CaptureFixture[str], args: tuple[str, ...], message: str
) -> None:
    code, out, err = run(capsys, "map", *args)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and message in err


def test_map_on_dask_finds_what_the_local_search_finds() -> None:
    pytest.importorskip("distributed")
    entries = [
        LayerEntry("a", "gemm", {"M": 4, "N": 4, "K": 2}),
        LayerEntry("b", "gemm", {"M": 2, "N": 4, "K": 2}),
    ]

    def figures(mapped: Mapped) -> list[tuple[Any, ...]]:
        return [(*_figures(r), r["bound"], r["space_stamp"]) for r in mapped.rows()]

    local = map_layers(entries, ARCH)
    on_dask = map_layers(entries, ARCH, execution=ExecutionOptions(engine="dask", workers=2))
    assert figures(on_dask) == figures(local)


def test_a_layers_cpu_time_counts_its_workers() -> None:
    # the workers report the CPU time of each task with its result; a layer's row counts
    # this process's time and theirs (by energy no first search: the subtrees are tasks)
    entry = LayerEntry("gemm", "gemm", {"M": 8, "N": 8, "K": 8})
    with LocalEngine(2) as engine:
        execution = ExecutionOptions(engine=engine)
        mapped = map_layers([entry], ARCH, objective="energy", execution=execution)
    [layer] = mapped.layers
    assert engine.worker_seconds > 0  # tasks ran in the workers
    assert layer.cpu_seconds >= engine.worker_seconds


def test_map_honours_mapping_constraints(capsys: pytest.CaptureFixture[str]) -> None:
    # the zoo's constraints: glb bypasses A, its tiles span 4 or 8 of k with k outermost; each
    # PE's rf holds one (i, j) with k innermost, and keeps C
    path = Path(__file__).parents[2] / "workloads" / "constraints" / "gemm-levels.yaml"
    printed = _map(capsys, *GEMM, "-d", "gemm-os-systolic", "--constraints", str(path))
    (row,) = printed["layers"]
    assert "A" not in row["kept"]["glb"] and "C" in row["kept"]["rf"]
    glb, rf = (
        dict(loop.split(":") for loop in level.split()[1:]) for level in row["tiling"].split("; ")
    )
    # k outermost, or its glb tiles span all 8 of k: one trip, whose place changes nothing
    assert glb["k"] == "8" or (glb["k"] == "4" and list(glb)[0] == "k")
    assert rf["i"] == rf["j"] == "1" and list(rf) == ["i", "j", "k"]


def test_map_rows_say_the_tie_nodes_left(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """With no budget of ties, the search leaves tie nodes open on a GEMM whose tilings run
    at the array's compute latency with several energies (tests/dse/joint/test_ties.py): the
    rows carry the certificate's ``ties_open`` in JSON and CSV, the table says it in words."""
    import yaml

    import tenet.dse.mapper as mapper
    from tenet.dse.joint.tree import joint_search
    from tests.dse.joint.test_ties import ARCH as FAST
    from tests.dse.joint.test_ties import MAPPINGS, SIZES

    found: list[Any] = []

    def without_ties(*args: Any, **kwargs: Any) -> Any:
        found.append(joint_search(*args, **kwargs, ties=0))
        return found[-1]

    monkeypatch.setattr(mapper, "joint_search", without_ties)
    arch = tmp_path / "fast.yaml"
    arch.write_text(yaml.safe_dump(FAST.document()))
    dataflows = []
    for spec in MAPPINGS:
        path = tmp_path / f"{spec.name}.yaml"
        path.write_text(yaml.safe_dump(spec.document()))
        dataflows += ["-d", str(path)]
    sizes = [a for n, v in zip("MNK", SIZES, strict=True) for a in ("-p", f"{n}={v}")]
    args = ("-w", "gemm", "-a", str(arch), *dataflows, *sizes)
    (row,) = _map(capsys, *args)["layers"]
    ties = found[-1].ties_open
    assert ties > 0 and row["ties_open"] == ties
    code, out, err = run(capsys, "map", *args, "--format", "csv")
    assert code == 0, err
    (printed,) = csv.DictReader(out.splitlines())
    assert int(printed["ties_open"]) == ties
    code, out, err = run(capsys, "map", *args)
    assert code == 0, err
    nodes = "tie node" if ties == 1 else "tie nodes"
    words = f"{ties} {nodes} left: another mapping with the same value may use less energy"
    assert f"ties:\ngemm: {words}\n" in out
