"""Symbolic metrics: every count as a piecewise quasi-polynomial in the size parameters.

The problem is built with the workload's size parameters left as isl parameters (the
dataflow's and the given ones bound), and each count of :func:`tenet.metrics.evaluate` is
barvinok's parametric ``card``: a :class:`Formula` of pieces, each a condition on the sizes and
a quasi-polynomial (a polynomial in the sizes and in floors of affine expressions of them),
exact for every size. Maxima are not counts: the compute latency and the instances per
(PE, time-stamp) are evaluated exactly at given sizes by :meth:`SymbolicMetrics.at` (by the
direct count), and so are the quantities derived from them (latency, bandwidths).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import islpy as isl

from tenet.errors import CountingError
from tenet.isl_utils import parameters_of, parse_map
from tenet.metrics.latency import occupancy, transfer_latency
from tenet.metrics.volume import reused
from tenet.model.architecture import Architecture
from tenet.model.dataflow import Dataflow
from tenet.model.problem import Problem
from tenet.model.tiles import check_place_tensors
from tenet.model.workload import parametric_workload
from tenet.spec import Specs, load_architecture, load_dataflow, load_workload
from tenet.vocab import Neighbourhood

__all__ = ["Formula", "SymbolicMetrics", "symbolic_metrics", "SYMBOLIC", "AT_SIZES"]

SYMBOLIC = (
    "macs",
    "active_pes",
    "timestamps",
    "occupied_points",
    "volume_total",
    "volume_held",
    "volume_unique",
    "volume_reuse",
    "volume_reuse_spatial",
    "volume_reuse_temporal",
)
"""The quantities given as formulas (the ``volume_*`` ones per tensor access)."""

AT_SIZES = (
    "latency_compute",
    "instances_per_step_max",
    "latency_ingress",
    "latency_egress",
    "latency_array",
)
"""The quantities :meth:`SymbolicMetrics.at` adds by direct counting at given sizes (maxima),
or from the formulas' values (the transfer latencies, with a ceiling, and the array model's
latency, their maximum)."""


def _inside(text: str) -> str:
    """Return what is between the outer braces of isl text, stripped."""
    return text[text.index("{") + 1 : text.rindex("}")].strip()


_FLOOR = re.compile(r"floor\(\(([^()]*)\)/(\d+)\)")


def _latex(text: str) -> str:
    """Turn isl's text of an expression or condition into LaTeX."""
    text = _FLOOR.sub(r"\\left\\lfloor \\frac{\1}{\2} \\right\\rfloor", text)
    for old, new in ((">=", r"\geq"), ("<=", r"\leq"), (" and ", r" \wedge "), ("*", r"\cdot")):
        text = text.replace(old, new)
    return re.sub(r"\^(\d+)", r"^{\1}", text)


@dataclass(frozen=True)
class Formula:
    """One quantity as a piecewise quasi-polynomial in the size parameters ``symbols``."""

    name: str
    polynomial: isl.PwQPolynomial

    @property
    def symbols(self) -> list[str]:
        """The size parameters, in isl's order."""
        return parameters_of(self.polynomial.domain())

    def pieces(self) -> list[tuple[str, str]]:
        """Return (condition on the sizes, value) of each piece, as isl writes them."""
        found = []
        for domain, polynomial in self.polynomial.get_pieces():
            condition = _inside(str(domain)).lstrip(":").strip() or "always"
            found.append((condition, _inside(str(polynomial))))
        return found

    def at(self, sizes: Mapping[str, int]) -> int:
        """Return the exact value at ``sizes`` (every symbol needs a value; 0 outside every
        piece).

        Raises
        ------
        CountingError
            A symbol without a value, or a value that is not an integer.
        """
        missing = [s for s in self.symbols if s not in sizes]
        if missing:
            raise CountingError(f"{self.name}: no value for size(s) {', '.join(missing)}")
        space = self.polynomial.get_domain_space()
        point = isl.Point.zero(space)
        for k, symbol in enumerate(self.symbols):
            value = isl.Val(str(int(sizes[symbol])), space.get_ctx())
            point = point.set_coordinate_val(isl.dim_type.param, k, value)
        value = self.polynomial.eval(point)
        if not value.is_int():
            raise CountingError(f"{self.name} is not an integer at {dict(sizes)}: {value}")
        return int(value.to_python())

    def __str__(self) -> str:
        lines = [f"{self.name} ="]
        lines += [f"  {value}    if {condition}" for condition, value in self.pieces()]
        return "\n".join(lines) if self.pieces() else f"{self.name} = 0"

    def latex(self) -> str:
        """Return the formula as a LaTeX ``cases`` environment."""
        rows = [f"{_latex(v)} & \\text{{if }} {_latex(c)}" for c, v in self.pieces()]
        body = " \\\\\n  ".join(rows) or "0"
        name = self.name.replace("_", r"\_")
        return f"\\mathrm{{{name}}} = \\begin{{cases}}\n  {body}\n\\end{{cases}}"

    def to_dict(self) -> dict[str, Any]:
        """Return the pieces as JSON-ready data."""
        return {
            "name": self.name,
            "pieces": [{"condition": c, "value": v} for c, v in self.pieces()],
        }


@dataclass(frozen=True)
class SymbolicMetrics:
    """The formulas of one dataflow, and the bound problem's specs for what is not symbolic."""

    name: str
    symbols: tuple[str, ...]
    formulas: dict[str, Formula]
    specs: Specs
    neighbourhood: Neighbourhood

    def __getitem__(self, name: str) -> Formula:
        return self.formulas[name]

    def at(self, **sizes: int) -> dict[str, int]:
        """Return every formula's value at ``sizes``, and the quantities of :data:`AT_SIZES`
        (counted directly at these sizes), exactly.

        Examples
        --------
        >>> m = symbolic_metrics(_gemm_example())
        >>> m.at(M=5, N=3, K=7)["volume_unique[A.read]"]
        70

        Each A[i, k] enters the array once per tile of columns (j < 2, then j = 2) and moves
        right within it: 5 * 7 elements, twice.
        """
        values = {name: f.at(sizes) for name, f in self.formulas.items()}
        problem = Problem.from_specs(
            self.specs.with_params(sizes), neighbourhood=self.neighbourhood
        )
        timing = occupancy(problem)
        arch = problem.architecture

        def moved(kind: str) -> int:
            volume = sum(
                v for k, v in values.items() if k.startswith("volume_unique[") and kind in k
            )
            return transfer_latency(volume, arch.bits_per_element, arch.bandwidth, arch.latency)

        values["latency_compute"] = timing.latency_compute
        values["instances_per_step_max"] = timing.instances_per_step_max
        values["latency_ingress"] = moved(".read]")
        values["latency_egress"] = moved(".write]")
        values["latency_array"] = max(
            values["latency_compute"], values["latency_ingress"], values["latency_egress"]
        )
        return values

    def __str__(self) -> str:
        head = f"{self.name}: formulas in {', '.join(self.symbols) or 'no size'}"
        return "\n".join([head, *(str(f) for f in self.formulas.values())])

    def to_dict(self) -> dict[str, Any]:
        """Return JSON-ready data: the symbols and every formula's pieces."""
        return {
            "name": self.name,
            "symbols": list(self.symbols),
            "neighbourhood": self.neighbourhood,
            "formulas": [f.to_dict() for f in self.formulas.values()],
            "at_sizes_only": list(AT_SIZES),
        }

    def to_json(self) -> str:
        """Return :meth:`to_dict` as JSON text."""
        return json.dumps(self.to_dict(), indent=2)

    def to_latex(self) -> str:
        """Return every formula as LaTeX, one display per formula."""
        return "\n\n".join(f"\\[\n{f.latex()}\n\\]" for f in self.formulas.values())


def _card(obj: isl.Set | isl.Map) -> isl.PwQPolynomial:
    return (obj.wrap() if isinstance(obj, isl.Map) else obj).card()


def symbolic_metrics(specs: Specs, neighbourhood: Neighbourhood = "window") -> SymbolicMetrics:
    """Count every quantity of :data:`SYMBOLIC` as a formula in the workload's size
    parameters; those that the specs' dataflow or size parameters give
    (not :attr:`Specs.defaulted <tenet.spec.Specs.defaulted>`) are bound instead. The
    formulas hold at the sizes where the dataflow keeps every instance inside the array
    (elsewhere they are 0, and :meth:`SymbolicMetrics.at` raises the placement error of those
    sizes).

    Examples
    --------
    >>> m = symbolic_metrics(_gemm_example())
    >>> m.symbols
    ('M', 'N', 'K')
    >>> print(m["macs"])
    macs =
      M * N * K    if M > 0 and N > 0 and K > 0
    """
    dataflow = specs.require_dataflow()
    check_place_tensors(
        [(level, tensor) for level, per in dataflow.places.items() for tensor in per],
        list(specs.workload.accesses),
        dataflow.source,
    )
    every = specs.bound
    w = parametric_workload(
        specs.workload, {n: v for n, v in every.items() if n not in specs.defaulted}
    )
    symbols = tuple(parameters_of(w.domain))
    arch = Architecture.from_spec(specs.architecture, every)
    flow = Dataflow(
        dataflow.name,
        parse_map(dataflow.space_stamp, every),
        parse_map(dataflow.time_stamp, every),
    )
    # the sizes at which the dataflow keeps every instance inside the array
    outside = flow.space_stamp.intersect_domain(w.domain).subtract_range(arch.pe_set)
    fitting = outside.domain().params().complement()
    w = replace(
        w,
        domain=w.domain.intersect_params(fitting),
        reads={t: m.intersect_params(fitting) for t, m in w.reads.items()},
        writes={t: m.intersect_params(fitting) for t, m in w.writes.items()},
    )
    problem = Problem(w, arch, flow, neighbourhood=neighbourhood)
    polynomials: dict[str, isl.PwQPolynomial] = {
        "macs": _card(problem.workload.domain),
        "active_pes": _card(problem.active_pes),
        "timestamps": _card(problem.timestamps),
        "occupied_points": _card(problem.occupied),
    }
    for access in problem.accesses:
        assignment = problem.assignment(access)
        total, held = _card(access.relation), _card(assignment)
        unique = held.sub(_card(reused(assignment, problem.neighbours.reuse)))
        temporal = _card(reused(assignment, problem.neighbours.temporal))
        key = f"[{access.tensor}.{access.access}]"
        polynomials |= {
            f"volume_total{key}": total,
            f"volume_held{key}": held,
            f"volume_unique{key}": unique,
            f"volume_reuse{key}": total.sub(unique),
            f"volume_reuse_spatial{key}": _card(reused(assignment, problem.neighbours.spatial)),
            f"volume_reuse_temporal{key}": total.sub(held.sub(temporal)),
        }
    formulas = {name: Formula(name, p.coalesce()) for name, p in polynomials.items()}
    return SymbolicMetrics(
        dataflow.name,
        symbols,
        formulas,
        specs,
        neighbourhood,
    )


def _gemm_example() -> Specs:
    """GEMM with sizes M, N, K on a 2x2 systolic array, output-stationary and skewed."""
    array = load_architecture("systolic-2d", rows=2, cols=2)
    return Specs(load_workload("gemm"), array, load_dataflow("gemm-os-systolic", array))
