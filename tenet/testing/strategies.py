"""Hypothesis strategies for small random problems: workloads, PE arrays with random links,
and dataflows that place every instance inside the array.

Sizes are kept small (a few hundred instances at most) so that :mod:`tenet.oracle.metrics` can
enumerate them. Needs the ``hypothesis`` package (the ``test`` extra).
"""

from __future__ import annotations

import islpy as isl
from hypothesis import strategies as st

from tenet.isl_utils import parse_set
from tenet.spec import Specs, load_workload
from tenet.spec.architecture import ArchitectureSpec
from tenet.spec.dataflow import DataflowSpec
from tenet.spec.workload import WorkloadSpec

__all__ = [
    "workloads",
    "arrays",
    "dataflows",
    "problems",
    "tiled_problems",
    "stencils",
]


def _affine(draw: st.DrawFn, names: list[str], coefficients: list[int], offset: bool) -> str:
    terms = []
    for name in names:
        c = draw(st.sampled_from(coefficients))
        if c:
            terms.append(name if c == 1 else f"{c}{name}" if c > 0 else f"-{abs(c)}{name}")
    constant = draw(st.integers(-1, 1)) if offset else 0
    if constant or not terms:
        terms.append(str(constant))
    return " + ".join(terms).replace("+ -", "- ")


@st.composite
def workloads(draw: st.DrawFn, *, max_dims: int = 3, max_extent: int = 4) -> WorkloadSpec:
    """Draw a statement with 1..``max_dims`` loops over a box (sometimes cut by ``i0 <= i1``;
    sometimes the first extent is a size parameter ``N``) and 1..3 tensors, each read or
    written through 1..2 affine maps with coefficients in {-1, 0, 1, 2}."""
    n = draw(st.integers(1, max_dims))
    names = [f"i{k}" for k in range(n)]
    extents = [draw(st.integers(1, max_extent)) for _ in names]
    parametric = draw(st.booleans())
    bounds = [
        f"0 <= {v} < {'N' if parametric and k == 0 else e}"
        for k, (v, e) in enumerate(zip(names, extents, strict=True))
    ]
    if n > 1 and draw(st.booleans()):
        bounds.append("i0 <= i1")
    loops = ", ".join(names)
    prefix = "[N] -> " if parametric else ""
    accesses: dict[str, dict[str, list[str]]] = {}
    n_tensors = draw(st.integers(1, 3))
    for t in range(n_tensors):
        tensor = "ABC"[t]
        kind = "write" if t == n_tensors - 1 and draw(st.booleans()) else "read"
        arity = draw(st.integers(1, 2))
        maps = []
        for _ in range(draw(st.integers(1, 2))):
            index = ", ".join(_affine(draw, names, [-1, 0, 1, 2], True) for _ in range(arity))
            maps.append(f"{{S[{loops}] -> {tensor}[{index}]}}")
        accesses[tensor] = {kind: maps}
    return WorkloadSpec.from_mapping(
        {
            "name": "random",
            "params": {"N": extents[0]} if parametric else {},
            "domain": f"{prefix}{{S[{loops}]: {' and '.join(bounds)}}}",
            "accesses": accesses,
        }
    )


_OFFSETS_1D = [(1,), (-1,), (2,)]
_OFFSETS_2D = [(1, 0), (0, 1), (1, 1), (-1, 0), (1, -1)]


@st.composite
def arrays(draw: st.DrawFn, *, max_side: int = 3) -> ArchitectureSpec:
    """Draw a 1D or 2D array of side 1..``max_side`` with a random subset of nearest-neighbour
    links (each registered or a same-step wire) and, sometimes, a bus from PE 0 to every PE."""
    dims = draw(st.integers(1, 2))
    sides = [draw(st.integers(1, max_side)) for _ in range(dims)]
    names = ["p", "q"][:dims]
    pe = ", ".join(names)
    box = " and ".join(f"0 <= {v} < {s}" for v, s in zip(names, sides, strict=True))
    links = []
    for offset in draw(
        st.lists(
            st.sampled_from(_OFFSETS_1D if dims == 1 else _OFFSETS_2D), unique=True, max_size=3
        )
    ):
        target = ", ".join(
            f"{v} + {o}" if o > 0 else f"{v} - {-o}" if o < 0 else v
            for v, o in zip(names, offset, strict=True)
        )
        delay = draw(st.sampled_from([0, 1]))
        links.append({"link": f"{{PE[{pe}] -> PE[{target}]}}", "delay": delay})
    if draw(st.booleans()):
        zero = ", ".join("0" for _ in names)
        links.append({"link": f"{{PE[{zero}] -> PE[{pe}]: {box}}}", "delay": 0})
    return ArchitectureSpec.from_mapping(
        {
            "name": "random",
            "pe": f"{{PE[{pe}]: {box}}}",
            "interconnect": links,
            "bandwidth": draw(st.sampled_from([16, 32, 64])),
            "latency": draw(st.integers(1, 4)),
        }
    )


def _sides(array: ArchitectureSpec) -> list[int]:
    pe_set = parse_set(array.pe)
    return [int(pe_set.dim_max_val(k).to_python()) + 1 for k in range(pe_set.dim(isl.dim_type.set))]


@st.composite
def dataflows(draw: st.DrawFn, workload: WorkloadSpec, array: ArchitectureSpec) -> DataflowSpec:
    """Draw a dataflow of ``workload`` on ``array`` (a box of PEs from 0): each PE index is
    an affine combination of the loops (coefficients {0, 1}) modulo the side, so every
    instance lands inside the array; 1..2 time dims, each ``floor(affine / q)`` with
    coefficients in {-1, 0, 1} and q in {1, 2}. Several instances may share a (PE, time-stamp).
    """
    names = [str(name) for name in parse_set(workload.domain).get_var_names(isl.dim_type.set)]
    loops = ", ".join(names)
    space = ", ".join(f"({_affine(draw, names, [0, 1], False)}) % {s}" for s in _sides(array))
    time = []
    for _ in range(draw(st.integers(1, 2))):
        q = draw(st.sampled_from([1, 2]))
        expr = _affine(draw, names, [-1, 0, 1], False)
        time.append(expr if q == 1 else f"floor(({expr}) / {q})")
    return DataflowSpec.from_mapping(
        {
            "name": "random",
            "space_stamp": f"{{S[{loops}] -> PE[{space}]}}",
            "time_stamp": f"{{S[{loops}] -> T[{', '.join(time)}]}}",
        }
    )


@st.composite
def problems(draw: st.DrawFn) -> Specs:
    """Draw a workload, an array and a dataflow of one onto the other (no size given: the
    workload's defaults)."""
    workload = draw(workloads())
    array = draw(arrays())
    return Specs(workload, array, draw(dataflows(workload, array)))


@st.composite
def stencils(draw: st.DrawFn, *, max_dims: int = 3, max_offset: int = 2) -> WorkloadSpec:
    """Draw a statement over a parametric box of 2..``max_dims`` loops (extents ``N``, and 2 for
    the last loops when there are three) that reads one tensor at 1..3 constant offsets and
    writes it at one (in place or shifted): a stencil with flow, anti and output dependences."""
    n = draw(st.integers(2, max_dims))
    names = [f"i{k}" for k in range(n)]
    loops = ", ".join(names)
    bounds = " and ".join(f"0 <= {v} < {'N' if k < 2 else 2}" for k, v in enumerate(names))
    offset = st.integers(-max_offset, max_offset)

    def access(shift: tuple[int, ...]) -> str:
        index = ", ".join(
            f"{v} + {d}" if d >= 0 else f"{v} - {-d}" for v, d in zip(names, shift, strict=True)
        )
        return f"{{S[{loops}] -> A[{index}]}}"

    shifts = draw(st.lists(st.tuples(*[offset] * n), min_size=1, max_size=3, unique=True))
    written = draw(st.tuples(*[st.integers(0, 1)] * n))
    return WorkloadSpec.from_mapping(
        {
            "name": "stencil",
            "params": {"N": 3},
            "domain": f"[N] -> {{S[{loops}]: {bounds}}}",
            "accesses": {"A": {"read": [access(d) for d in shifts], "write": access(written)}},
        }
    )


def _tile_stamp(draw: st.DrawFn, names: list[str], level: str) -> str:
    chosen = draw(st.permutations(names))[: draw(st.integers(1, len(names)))]
    terms = [f"floor({v}/{draw(st.integers(1, 4))})" for v in chosen]
    return f"{{S[{', '.join(names)}] -> {level}[{', '.join(terms)}]}}"


LINKS = {
    "systolic": ("{PE[p] -> PE[p + 1]}", 1),
    "both ways": ("{PE[p] -> PE[q]: q = p + 1 or q = p - 1}", 1),
    "bus": ("{PE[p] -> PE[q]: q != p}", 0),
    "backward wire": ("{PE[p] -> PE[p - 1]}", 0),
}
"""Link families of the linked problems: isl text on a 1D array and the delay (time-stamps)."""


@st.composite
def tiled_problems(draw: st.DrawFn, linked: bool = False, places: bool = False) -> Specs:
    """Draw a small GEMM or a convolution (stride and dilation 1..2) on a 1D array, with a
    hierarchy of two or three levels (the innermost sometimes per PE) and random tile stamps
    (orders and sizes 1..4, dividing or not), with its size parameters. With ``places``, some
    tensors also get a random tile stamp of their own at some levels (the dataflow's
    ``places``, nested in the others or not).

    With ``linked``: two or three levels, the innermost per PE, joined by one or two link
    families of :data:`LINKS` (energy 0..3 per element moved) and fed by a network that
    multicasts and reduces or not."""
    if draw(st.booleans()):
        names, tensors = ["i", "j", "k"], ["A", "B", "C"]
        params = {p: draw(st.integers(1, 5)) for p in ("M", "N", "K")}
        workload_text = "gemm"
    else:
        names, tensors = ["k", "c", "ox", "oy", "rx", "ry"], ["I", "W", "O"]
        params = {
            "K": draw(st.integers(1, 2)),
            "C": draw(st.integers(1, 2)),
            "OX": draw(st.integers(1, 4)),
            "OY": draw(st.integers(1, 2)),
            "RX": draw(st.integers(1, 3)),
            "RY": draw(st.integers(1, 2)),
        }
        workload_text = (
            f"conv2d:stride={draw(st.integers(1, 2))},dilation={draw(st.integers(1, 2))}"
        )
    workload = load_workload(workload_text)
    pes = draw(st.integers(2 if linked else 1, 3))
    three = linked or draw(st.booleans())
    levels: list[dict[str, object]] = [{"name": "dram"}, {"name": "glb", "capacity": 10_000}]
    if linked and draw(st.booleans()):
        levels.pop()  # two levels: DRAM feeds the register files
    if three:
        levels.append({"name": "rf", "per_pe": linked or draw(st.booleans())})
    links: list[dict[str, object]] = []
    if linked:
        network = {"multicast": draw(st.booleans()), "reduction": draw(st.booleans())}
        levels[-1]["network"] = network
        families = draw(st.lists(st.sampled_from(sorted(LINKS)), min_size=1, max_size=2))
        links = [
            {"link": LINKS[f][0], "delay": LINKS[f][1], "energy": draw(st.integers(0, 3))}
            for f in families
        ]
    architecture = ArchitectureSpec.from_mapping(
        {
            "name": "tiled",
            "pe": f"{{PE[p]: 0 <= p < {pes}}}",
            "levels": levels,
            "interconnect": links,
        }
    )
    spread = draw(st.sampled_from(names))
    tiles = {
        str(level["name"]): _tile_stamp(draw, names, str(level["name"]).upper())
        for level in levels[1:]
        if draw(st.integers(0, 4))
    }
    loops = ", ".join(names)
    time = f"{{S[{loops}] -> T[{loops}]}}"
    if linked and draw(st.booleans()):
        # the PEs run one block of the spread loop in a step; the register file holds a step
        others = ", ".join(n for n in names if n != spread)
        time = f"{{S[{loops}] -> T[floor({spread} / {pes}), {others}]}}"
        tiles["rf"] = time
    placed: dict[str, dict[str, str]] = {}
    for level in levels[1:] if places else ():
        name = str(level["name"])
        for tensor in tensors:
            if draw(st.booleans()):
                placed.setdefault(name, {})[tensor] = _tile_stamp(draw, names, name.upper())
    dataflow = DataflowSpec.from_mapping(
        {
            "name": "tiled",
            "space_stamp": f"{{S[{loops}] -> PE[{spread} % {pes}]}}",
            "time_stamp": time,
            "tiles": tiles,
            "places": placed,
            "tensors": tensors,
        }
    )
    return Specs(workload, architecture, dataflow, params)
