"""The blocks in which the tiles of a level shared by the PEs must take each loop
(:func:`tenet.mapping.array_blocks`): on random placements of loop digits ``floor(d / s) % n``
over the PE axes, each block equals the period of the PE coordinates along the loop found by
evaluating the digits in Python, and a tile size cuts the array exactly when some time-stamp of
the loop nest's spatial loops would be split between two tiles."""

from __future__ import annotations

import islpy as isl
from hypothesis import given, settings
from hypothesis import strategies as st

from tenet.mapping import array_blocks, cuts_array

DIMS = ("i", "j", "k")

digit = st.tuples(
    st.sampled_from(DIMS), st.sampled_from([1, 2, 3, 4, 8]), st.sampled_from([None, 2, 3, 4])
)


def _text(d: str, s: int, n: int | None) -> str:
    base = d if s == 1 else f"floor({d} / {s})"
    return base if n is None else f"({base}) % {n}"


def _value(x: int, s: int, n: int | None) -> int:
    return x // s if n is None else (x // s) % n


@settings(max_examples=60, deadline=None)
@given(
    axes=st.lists(st.lists(digit, min_size=1, max_size=2), min_size=1, max_size=2),
    extents=st.tuples(*(st.integers(1, 24) for _ in DIMS)),
)
def test_blocks_are_the_periods_of_the_pe_coordinates(
    axes: list[list[tuple[str, int, int | None]]], extents: tuple[int, ...]
) -> None:
    coords = ", ".join(" + ".join(_text(*d) for d in axis) for axis in axes)
    bounds = " and ".join(f"0 <= {d} < {e}" for d, e in zip(DIMS, extents, strict=True))
    domain = isl.Set(f"{{S[i, j, k]: {bounds}}}")
    blocks = array_blocks(isl.Map(f"{{S[i, j, k] -> PE[{coords}]}}"), domain)
    for d, extent in zip(DIMS, extents, strict=True):
        # the PE coordinates along d, the other loops at 0, evaluated here
        row = [
            tuple(sum(_value(x, s, n) for dd, s, n in axis if dd == d) for axis in axes)
            for x in range(extent)
        ]
        period = next(
            (p for p in range(1, extent) if all(row[x] == row[x + p] for x in range(extent - p))),
            extent,
        )
        assert blocks[d] == period
        for size in range(1, extent + 1):
            # tiles of `size` split the PEs' values: some block of `period` consecutive loop
            # values (one step of the spatial loops) starts in one tile and ends in another
            split = any(
                x // size != min(x + period - 1, extent - 1) // size
                for x in range(0, extent, period)
            )
            assert cuts_array(blocks[d], size, extent) == split


def test_a_loop_off_the_array_is_never_cut() -> None:
    domain = isl.Set("{S[i, j, k]: 0 <= i < 8 and 0 <= j < 8 and 0 <= k < 8}")
    blocks = array_blocks(isl.Map("{S[i, j, k] -> PE[i % 4, j % 2]}"), domain)
    assert blocks == {"i": 4, "j": 2, "k": 1}
    assert not any(cuts_array(blocks["k"], size, 8) for size in (1, 2, 4, 8))
    assert [size for size in (1, 2, 4, 8) if cuts_array(blocks["i"], size, 8)] == [1, 2]
