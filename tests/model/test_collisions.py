"""The collision check finds the largest number of instances per (PE, time-stamp) without
walking points where the count is constant or quasi-affine, and agrees with the brute-force
enumeration of :mod:`tenet.oracle.metrics` on random problems."""

from __future__ import annotations

import re
from collections import Counter

import islpy as isl
import pytest
from hypothesis import given

from tenet.api import check
from tenet.errors import CountingError
from tenet.model import legality
from tenet.model.legality import _crowded_point
from tenet.oracle.metrics import enumerate_problem
from tenet.spec import Specs
from tenet.testing.strategies import problems


def _pieces(text: str) -> list[tuple[isl.Set, isl.QPolynomial]]:
    return isl.PwQPolynomial(text).get_pieces()  # type: ignore[no-any-return]


def test_quasi_affine_count_is_maximised_over_the_piece():
    # 1 + i + floor(j / 2) on 0 <= i <= 5, 0 <= j <= 3: largest at i = 5, j in {2, 3}: 1+5+1
    [(piece, count)] = _pieces("{[i, j] -> 1 + i + floor(j / 2) : 0 <= i <= 5 and 0 <= j <= 3}")
    assert count.isa_aff()
    point, value = _crowded_point(piece, count, 1) or (None, 0)
    assert value == 7
    assert point is not None and int(count.eval(point).to_python()) == 7
    assert _crowded_point(piece, count, 7) is None


def test_polynomial_count_is_walked_on_the_dimensions_it_involves():
    # i * i + floor(j / 2) does not involve k: only the 6 x 4 (i, j) values are walked, the
    # largest at i = 5, j in {2, 3}: 25 + 1
    [(piece, count)] = _pieces(
        "{[i, j, k] -> i * i + floor(j / 2) : 0 <= i <= 5 and 0 <= j <= 3 and 0 <= k < 10^7}"
    )
    point, value = _crowded_point(piece, count, 1) or (None, 0)
    assert value == 26
    assert point is not None and int(count.eval(point).to_python()) == 26


def test_polynomial_count_below_the_step_is_not_walked():
    # i * j <= 2 * 3 = 6 on the box: barvinok's bound settles it
    [(piece, count)] = _pieces("{[i, j] -> i * j : 0 <= i <= 2 and 0 <= j <= 3}")
    assert _crowded_point(piece, count, 6) is None


def test_polynomial_count_over_too_many_points_is_an_error(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(legality, "WALK_LIMIT", 10)
    [(piece, count)] = _pieces("{[i, j] -> i * j : 0 <= i <= 5 and 0 <= j <= 3}")
    with pytest.raises(CountingError, match="not quasi-affine and varies over more than 10"):
        _crowded_point(piece, count, 1)


@given(problems())
def test_collision_count_agrees_with_enumeration(drawn: Specs) -> None:
    w, a, d = drawn.workload, drawn.architecture, drawn.dataflow
    listed = enumerate_problem(w, a, d)
    per_point = Counter((listed.space[x], listed.time[x]) for x in listed.instances)
    most = max(per_point.values(), default=0)
    for per_step in (1, 2):
        result = check(w, a, d, reductions=list(w.accesses), instances_per_step=per_step)
        found = [v.message for v in result.violations if v.kind == "collision"]
        if most <= per_step:
            assert not found
            continue
        [message] = found
        number = re.search(r"up to (\d+) instances|runs (\d+) instances", message)
        assert number is not None
        assert int(number.group(1) or number.group(2)) == most
