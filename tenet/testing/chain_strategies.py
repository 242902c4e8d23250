"""Hypothesis strategies for fused chains: small random chains of windowed, strided
statements (each row of a tensor made from a window of rows of the one before, a reduction),
with a fused tiling of them."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st

from tenet.spec.chain import ChainSpec
from tenet.vocab import HALOS, Halo

__all__ = ["FusedCase", "fused_cases"]


@dataclass(frozen=True)
class FusedCase:
    """A chain and a fused tiling of it: ranks per statement, tile sizes, halo rule and the
    resident tensors."""

    chain: ChainSpec
    ranks: dict[str, tuple[str, ...]]
    tiles: tuple[int, ...]
    halo: Halo
    resident: frozenset[str]


@st.composite
def fused_cases(draw: st.DrawFn, *, max_statements: int = 3, max_rows: int = 5) -> FusedCase:
    """Draw a chain S0, S1, ... where ``S_k[y, x, r]`` adds ``T_{k-1}[s*y + r, x] * W_k[r]``
    into ``T_k[y, x]`` (``T_{-1}`` is the input ``I``; the last may also read ``T_0[y, x]``),
    and a tiling of its last statement's rows (and columns, or its window: partial sums),
    sometimes of a producer too."""
    n = draw(st.integers(2, max_statements))
    columns = draw(st.integers(1, 3))
    rows = [draw(st.integers(1, max_rows))]
    strides = [draw(st.integers(1, 2)) for _ in range(n)]
    windows = [draw(st.integers(s, 3)) for s in strides]
    for k in range(n - 1, 0, -1):
        rows.insert(0, strides[k] * (rows[0] - 1) + windows[k])
    skip = n > 2 and draw(st.booleans())
    statements = []
    for k in range(n):
        source = "I" if k == 0 else f"T{k - 1}"
        name, s, w = f"S{k}", strides[k], windows[k]
        accesses = {
            source: {"read": f"{{{name}[y, x, r] -> {source}[{s}y + r, x]}}"},
            f"W{k}": {"read": f"{{{name}[y, x, r] -> W{k}[r]}}"},
            f"T{k}": {"write": f"{{{name}[y, x, r] -> T{k}[y, x]}}"},
        }
        if skip and k == n - 1:
            accesses["T0"] = {"read": f"{{{name}[y, x, r] -> T0[y, x]}}"}
        domain = f"{{{name}[y, x, r]: 0 <= y < {rows[k]} and 0 <= x < {columns} and 0 <= r < {w}}}"
        statements.append(
            {"name": name, "domain": domain, "accesses": accesses, "reductions": [f"T{k}"]}
        )
    outputs = [f"T{n - 1}", "T0"] if draw(st.booleans()) else []
    chain = ChainSpec.from_mapping({"name": "random", "statements": statements, "outputs": outputs})
    fused = draw(st.sampled_from([("y",), ("y",), ("y", "x"), ("y", "r"), ("r",)]))
    ranks = {f"S{n - 1}": fused}
    if draw(st.integers(0, 3)) == 0:
        ranks[f"S{draw(st.integers(0, n - 2))}"] = fused
    tiles = tuple(draw(st.integers(1, 2)) for _ in fused)
    inputs = ["I", *(f"W{k}" for k in range(n)), f"T{n - 1}"]
    resident = frozenset(draw(st.sets(st.sampled_from(inputs))))
    return FusedCase(chain, ranks, tiles, draw(st.sampled_from(HALOS)), resident)
