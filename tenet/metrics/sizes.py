"""The counts of one (workload template, dataflow, array) at many sizes.

Where it is cheaper, the sizes that vary are counted once as symbols
(:func:`tenet.metrics.symbolic.symbolic_metrics`) and the formulas evaluated at each size;
elsewhere each size is counted directly (:func:`tenet.metrics.evaluate`). Both give the same
figures. The rule, from ``benchmarks/bench_sizes.py`` (see ``docs/symbolic.md``): formulas
are built for at least :data:`SIZES_MIN` entries with at most :data:`SYMBOLS_MAX` varying
sizes, and used if they have at most :data:`PIECES_MAX` pieces in all. With three symbols
(GEMM's M, N, K, or a convolution's K, C, OX on a 16×16 array) they have 24–65 pieces, are
built in 0.03–0.1 CPU-s and give a size in 5–6 ms against 22–55 ms counted directly: they
pay off from 2–3 sizes. With four symbols they pay off from 6 sizes, with five from 21, and
with a convolution's six they have thousands of pieces and take longer to build than
counting every layer of a network.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tenet.metrics.evaluate import ARRAY_NAMES, Metrics, evaluate
from tenet.metrics.symbolic import AT_SIZES, symbolic_metrics
from tenet.model.problem import Problem
from tenet.spec.specs import Specs
from tenet.vocab import Neighbourhood

__all__ = ["PIECES_MAX", "SIZES_MIN", "SYMBOLS_MAX", "figures", "figures_at_sizes"]

#: Most sizes that vary for which the formulas are built.
SYMBOLS_MAX = 3

_FIELDS = {shown: field for field, shown in ARRAY_NAMES.items()}
"""The array model's figures as named in :data:`~tenet.metrics.symbolic.AT_SIZES` -> their
fields of :class:`~tenet.metrics.evaluate.Metrics`."""

#: Fewest entries for which the formulas are built.
SIZES_MIN = 3

#: Most pieces, over every formula, for which the formulas are evaluated per size.
PIECES_MAX = 400


def figures(metrics: Metrics) -> dict[str, int]:
    """Return the figures both ways give: the counts of :data:`tenet.metrics.symbolic.SYMBOLIC`
    but the held volumes, and those of :data:`tenet.metrics.symbolic.AT_SIZES` (elements,
    PEs, time-stamps, cycles)."""
    out = {
        "macs": metrics.macs,
        "active_pes": metrics.active_pes,
        "timestamps": metrics.timestamps,
        "occupied_points": metrics.occupied_points,
        **{name: getattr(metrics, _FIELDS.get(name, name)) for name in AT_SIZES},
    }
    for t in metrics.tensors:
        key = f"[{t.tensor}.{t.access}]"
        out |= {
            f"volume_total{key}": t.volume_total,
            f"volume_unique{key}": t.volume_unique,
            f"volume_reuse{key}": t.volume_reuse,
            f"volume_reuse_spatial{key}": t.volume_reuse_spatial,
            f"volume_reuse_temporal{key}": t.volume_reuse_temporal,
        }
    return out


def figures_at_sizes(
    specs: Specs,
    sizes: Sequence[Mapping[str, int]],
    neighbourhood: Neighbourhood = "window",
) -> tuple[list[dict[str, int]], bool]:
    """Return the :func:`figures` of the dataflow of ``specs`` at each of ``sizes`` (given on
    top of its size parameters), and whether they came from formulas.

    The sizes that differ between entries are symbols, the others bound; the formulas are
    used when there are at least :data:`SIZES_MIN` entries, at most :data:`SYMBOLS_MAX` symbols
    and at most :data:`PIECES_MAX` pieces.

    Examples
    --------
    >>> from tenet.spec import load_architecture, load_dataflow, load_workload
    >>> a = load_architecture("systolic-2d-8x8")
    >>> s = Specs(load_workload("gemm"), a, load_dataflow("gemm-os-systolic", a))
    >>> rows, symbolic = figures_at_sizes(s, [{"M": 8, "N": 8, "K": k} for k in (3, 5, 9)])
    >>> symbolic, [row["macs"] for row in rows]
    (True, [192, 320, 576])
    """
    given = [specs.with_params(s) for s in sizes]
    every = [g.bound for g in given]
    names = sorted({n for s in every for n in s})
    varying = [n for n in names if len({s.get(n) for s in every}) > 1]
    bound = {n: every[0][n] for n in names if n not in varying and n in every[0]}
    if len(every) >= SIZES_MIN and len(varying) <= SYMBOLS_MAX:
        formulas = symbolic_metrics(specs.with_params(bound), neighbourhood)
        if sum(len(f.pieces()) for f in formulas.formulas.values()) <= PIECES_MAX:
            rows = []
            for s in every:
                values = formulas.at(**{n: s[n] for n in formulas.symbols})
                rows.append({k: v for k, v in values.items() if "volume_held" not in k})
            return rows, True
    direct = [figures(evaluate(Problem.from_specs(g, neighbourhood=neighbourhood))) for g in given]
    return direct, False
