"""The count cache of design points: a sweep over a network with repeated layers gives the rows
of an uncached sweep and counts each distinct layer's design points once."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from tenet.cli import cli
from tenet.dse.explore import sweep
from tenet.dse.run.engines import InProcessEngine
from tenet.dse.run.execution import ExecutionOptions
from tenet.dse.run.row_cache import _CACHES, RowCache, row_key, worker_cache
from tenet.dse.run.worker import Context, evaluate_tasks
from tenet.spec import Specs, load_architecture, load_network, load_workload

NETWORK = Path(__file__).parents[2] / "data" / "networks" / "repeated.yaml"
ARRAY = "systolic-2d:rows=2,cols=2"


def _figures(result: Any) -> list[list[object]]:
    table = result.results.drop(columns=["workload"])
    return table.astype(object).where(table.notna(), None).values.tolist()


def test_sweep_with_cache_equals_uncached_and_counts_each_layer_once(tmp_path: Path):
    spec = load_network(NETWORK)
    layers: list[Any] = [(layer.name, layer.workload, dict(layer.params)) for layer in spec.layers]
    # the repeated layer once more, under another workload name: other explorations, the
    # same relations
    renamed = load_workload("gemm").model_copy(update={"name": "matmul"})
    layers.append(("renamed", renamed, dict(spec.layers[0].params)))
    plain = sweep(layers, [ARRAY], execution=ExecutionOptions(workers=1))
    folder = tmp_path / "counts"
    cached = sweep(
        layers, [ARRAY], execution=ExecutionOptions(engine=InProcessEngine(), cache=folder)
    )
    assert _figures(cached) == _figures(plain)
    first, again, other, named = cached.explorations
    assert _figures(first) == _figures(again) == _figures(named)
    # every design point of the distinct layers counted once (complete or illegal: a file
    # each), none of the repeated or renamed layer's
    distinct = len(first.results) + len(other.results)
    assert worker_cache(str(folder.resolve())).misses == distinct
    assert len(list(folder.glob("*.json"))) == distinct
    # a later run (another process: a fresh cache) reads the folder and counts nothing
    _CACHES.clear()
    later = sweep(
        layers,
        [ARRAY],
        best=("latency", 1),
        execution=ExecutionOptions(engine=InProcessEngine(), cache=folder),
    )
    assert later.best("latency").values.tolist() == plain.best("latency").values.tolist()
    assert worker_cache(str(folder.resolve())).misses == 0


def test_worker_counts_a_repeated_point_once():
    workload, array = load_workload("gemm"), load_architecture(ARRAY)
    tasks = [(0, "os", "{S[i,j,k] -> PE[i, j]}", "{S[i,j,k] -> T[i + j + k]}")]
    # two contexts with the same bound relations (the second names its sizes in another order)
    a = Context.make(Specs(workload, array, None, {"M": 2, "N": 2, "K": 3}), ("C",)).text
    b = Context.make(Specs(workload, array, None, {"K": 3, "N": 2, "M": 2}), ("C",)).text
    cache = worker_cache(None)
    misses = cache.misses
    [first] = evaluate_tasks(a, tasks)
    [second] = evaluate_tasks(b, [(5, "renamed", *tasks[0][2:])])
    assert cache.misses == misses + 1
    assert {**second, "index": 0, "name": "os"} == first
    # 2x2 output-stationary, skewed: time-stamps i + j + k in 0..1+1+2 (hand count: 5)
    assert first["timestamps"] == 5


def test_rows_on_disk_are_read_back(tmp_path: Path):
    from tenet.api import load_problem

    problem = load_problem("gemm", ARRAY, "gemm-os-systolic", {"M": 2, "N": 2, "K": 2})
    key = row_key(problem, ())
    row = {"status": "ok", "reason": "", "energy": 0.1, "latency_cycles": 2**70}
    RowCache(tmp_path).get(key, lambda: row)
    later = RowCache(tmp_path)
    assert later.get(key, dict) == row
    assert (later.hits, later.misses) == (1, 0)
    assert json.loads((tmp_path / f"{key}.json").read_text()) == row


def test_pruned_rows_hold_only_under_a_bound_as_tight(tmp_path: Path):
    pruned = {"status": "pruned", "reason": "latency at least 9, above 5"}
    RowCache(tmp_path).get("k", lambda: pruned, ("latency", 5))
    later = RowCache(tmp_path)
    # without a bound, under another objective or a looser bound: counted again
    assert later.get("k", lambda: {"status": "x"}) == {"status": "x"}
    other = RowCache(tmp_path)
    assert other.get("k", lambda: {"status": "x"}, ("energy", 1))["status"] == "x"
    assert other.get("k", lambda: {"status": "x"}, ("latency", 6))["status"] == "x"
    assert other.misses == 2
    # under a bound as tight or tighter: the point's latency (>= 9) is above it too
    assert other.get("k", dict, ("latency", 5)) == pruned
    assert other.get("k", dict, ("latency", 2.5)) == pruned
    assert (other.hits, other.misses) == (2, 2)


def test_pruned_search_with_cache_ranks_as_without(tmp_path: Path):
    spec = load_network(NETWORK)
    layers = [(layer.name, layer.workload, dict(layer.params)) for layer in spec.layers]
    plain = sweep(layers, [ARRAY], best=("latency", 2), execution=ExecutionOptions(workers=1))
    folder = tmp_path / "counts"
    for top in (2, 1, 2, 3):
        _CACHES.clear()
        cached = sweep(
            layers,
            [ARRAY],
            best=("latency", top),
            execution=ExecutionOptions(engine=InProcessEngine(), cache=folder),
        )
        for ours, theirs in zip(cached.explorations, plain.explorations, strict=True):
            columns = ["name", "latency_cycles"]
            expected = theirs.ranked("latency", min(top, 2))[columns].values.tolist()
            assert ours.ranked("latency", min(top, 2))[columns].values.tolist() == expected
    # the same search again: every point known (complete, illegal or pruned as tightly)
    _CACHES.clear()
    sweep(
        layers,
        [ARRAY],
        best=("latency", 2),
        execution=ExecutionOptions(engine=InProcessEngine(), cache=folder),
    )
    assert worker_cache(str(folder.resolve())).misses == 0


def test_cli_sweep_with_cache(tmp_path: Path):
    folder = tmp_path / "counts"
    args = ["sweep", "-n", str(NETWORK), "-a", ARRAY, "--top", "1", "--format", "csv"]
    plain = CliRunner().invoke(cli, args)
    cached = CliRunner().invoke(cli, [*args, "--cache", str(folder)])
    assert plain.exit_code == 0, plain.output
    assert cached.exit_code == 0, cached.output
    assert cached.stdout == plain.stdout
    assert list(folder.glob("*.json"))
