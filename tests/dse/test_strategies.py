"""One registry of strategies: the names the command line offers (``tenet.vocab``) are those of
:data:`tenet.dse.strategies.STRATEGIES`, and every tiling strategy answers with a
certificate."""

from __future__ import annotations

from typing import get_args

import pytest

from tenet.dse.ranking.certificate import Certificate
from tenet.dse.strategies import STRATEGIES, run_tiling, strategy_names
from tenet.dse.tiling.sizes import TilingSpace
from tenet.vocab import SPACE_STRATEGIES, TILING_STRATEGIES, SpaceStrategy, TilingStrategy


def test_vocabulary_names_the_registry() -> None:
    assert get_args(SpaceStrategy) == SPACE_STRATEGIES == strategy_names("mappings")
    assert get_args(TilingStrategy) == TILING_STRATEGIES == strategy_names("tilings")
    assert set(STRATEGIES) == set(TILING_STRATEGIES) | set(SPACE_STRATEGIES)


@pytest.mark.parametrize("strategy", strategy_names("tilings"))
def test_every_tiling_strategy_answers_with_a_certificate(strategy: str) -> None:
    # GEMM 4x4x4, the global buffer's K loop: the divisors 1, 2, 4 of K (hand count)
    space = None if strategy == "constructive" else TilingSpace(["glb"], dims=["k"])
    found = run_tiling(
        "gemm", "simba", "gemm-os-systolic", {"M": 4, "N": 4, "K": 4}, space, strategy=strategy
    )
    assert isinstance(found, Certificate)
    assert found.bound is None or found.bound <= found.best.value
    assert found.evaluated >= 1
