"""One placement check: ``load_problem`` raises the first failure, ``tenet check`` lists them
all, in the same words."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tenet.api import load_problem
from tenet.errors import (
    DataflowError,
    DomainNotCoveredError,
    NotAFunctionError,
    OutsideArrayError,
)
from tests.conftest import run

WORKLOAD = {
    "name": "copy",
    "domain": "{S[i, j]: 0 <= i < 4 and 0 <= j < 4}",
    "accesses": {"A": {"read": "{S[i, j] -> A[i, j]}"}, "B": {"write": "{S[i, j] -> B[i, j]}"}},
}
ARRAY = {"name": "line", "pe": "{PE[p]: 0 <= p < 4}"}


def _files(tmp_path: Path, space: str, time: str) -> list[Path]:
    flow = {"name": "flow", "space_stamp": space, "time_stamp": time}
    paths = []
    for name, body in (("workload", WORKLOAD), ("arch", ARRAY), ("dataflow", flow)):
        path = tmp_path / f"{name}.yaml"
        path.write_text(yaml.safe_dump(body))
        paths.append(path)
    return paths


@pytest.mark.parametrize(
    ("space", "time", "error", "words"),
    [
        # j = 3 gets no space-stamp: the smallest such instance is S[0, 3]
        (
            "{S[i, j] -> PE[i]: j < 3}",
            "{S[i, j] -> T[j]}",
            DomainNotCoveredError,
            "instance S[0, 3] has no space-stamp",
        ),
        # every instance gets T[j] and T[j + 1]; the smallest pair is T[0], T[1] for S[0, 0]
        (
            "{S[i, j] -> PE[i]}",
            "{S[i, j] -> T[t]: j <= t <= j + 1}",
            NotAFunctionError,
            "instance S[0, 0] gets two time-stamps, T[0] and T[1]",
        ),
        # PE[i + j] leaves the 4 PEs first at i + j = 4, smallest instance S[1, 3]
        (
            "{S[i, j] -> PE[i + j]}",
            "{S[i, j] -> T[i, j]}",
            OutsideArrayError,
            "instance S[1, 3] runs on PE[4], outside the PE set",
        ),
    ],
)
def test_check_and_load_problem_say_the_same(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    space: str,
    time: str,
    error: type[DataflowError],
    words: str,
) -> None:
    workload, arch, dataflow = _files(tmp_path, space, time)
    with pytest.raises(error, match=r"^" + str(dataflow).replace("\\", "\\\\")) as raised:
        load_problem(workload, arch, dataflow)
    assert raised.value.reason.startswith(words)
    assert raised.value.source == str(dataflow)
    assert raised.value.witness is not None and raised.value.witness in words
    code, out, _ = run(capsys, "check", "-w", str(workload), "-a", str(arch), "-d", str(dataflow))
    assert code == 2
    assert f"  {error.kind}: {raised.value.reason}\n" in out
