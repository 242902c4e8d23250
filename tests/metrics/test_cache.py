"""The count cache: the same metrics as evaluate, once per distinct problem, across runs."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tenet.api import load_problem
from tenet.cli import main
from tenet.metrics import evaluate
from tenet.metrics.cache import CountCache, problem_key
from tenet.networks import evaluate_network
from tenet.spec import NetworkSpec

SIZES = {"M": 8, "N": 8, "K": 8}


def _problem(**sizes: int):
    return load_problem("gemm", "systolic-2d-8x8", "gemm-os-systolic", {**SIZES, **sizes})


def test_key_follows_the_relations_not_the_objects():
    assert problem_key(_problem()) == problem_key(_problem())
    assert problem_key(_problem()) != problem_key(_problem(K=9))
    links = load_problem(
        "gemm", "systolic-2d-8x8", "gemm-os-systolic", SIZES, neighbourhood="links"
    )
    assert problem_key(_problem()) != problem_key(links)


def test_cache_on_disk_gives_the_evaluation_in_a_later_run(tmp_path: Path):
    first = CountCache(tmp_path)
    assert first.evaluate(_problem()) == evaluate(_problem())
    later = CountCache(tmp_path)
    assert later.evaluate(_problem(), name="renamed") == evaluate(_problem(), name="renamed")
    assert (later.hits, later.misses) == (1, 0)
    assert len(list(tmp_path.glob("*.pickle"))) == 1


MLP = {
    "name": "mlp",
    "layers": [
        {"name": "fc1", "workload": "gemm", "params": SIZES},
        {"name": "fc2", "workload": "gemm", "params": {**SIZES, "N": 4}, "count": 3},
    ],
}


def test_network_with_cache_equals_network_without(tmp_path: Path):
    net = NetworkSpec.from_mapping(MLP)
    plain = evaluate_network(net, "systolic-2d-8x8", ["gemm-os-systolic"])
    cache = CountCache(tmp_path)
    evaluate_network(net, "systolic-2d-8x8", ["gemm-os-systolic"], cache=cache)
    cached = evaluate_network(net, "systolic-2d-8x8", ["gemm-os-systolic"], cache=cache)
    assert cached == plain
    assert (cache.hits, cache.misses) == (2, 2)


def test_cli_eval_network_with_cache(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    network = tmp_path / "mlp.yaml"
    network.write_text(yaml.safe_dump(MLP))
    args = ["eval-network", str(network), "-a", "systolic-2d-8x8", "-d", "gemm-os-systolic"]
    outputs = []
    for _ in range(2):
        with pytest.raises(SystemExit) as stop:
            main([*args, "--cache", str(tmp_path / "counts"), "--format", "csv"])
        assert stop.value.code in (0, None)
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1]
    assert any((tmp_path / "counts").iterdir())
