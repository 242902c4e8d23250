"""A tenet problem on SCALE-Sim's array with one of its schedules, written back as SCALE-Sim's
inputs: a config (the array, an SRAM per operand, the schedule, CALC mode), a topology (the
layer) and a layout file, each recognised on relations and checked whole (``docs/peers.md``)."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass

import islpy as isl

from tenet import zoo
from tenet.counting import count
from tenet.errors import SpecError
from tenet.isl_utils import bind_params, parse_map, parse_set, witness
from tenet.peers.scalesim import (
    CONV_HEAD,
    GEMM_HEAD,
    SCHEDULES,
    InputKind,
    ScaleSimDataflow,
    ScaleSimLayer,
    conv_layer,
    sram_kb,
)
from tenet.spec import Specs
from tenet.spec.architecture import ArchitectureSpec

__all__ = ["ScaleSimInputs", "write_scalesim"]


def _equal_on(first: isl.Map, second: isl.Map, domain: isl.Set) -> str | None:
    """Return a witness where two maps differ on ``domain`` (None when they are equal), the
    name of the second's output tuple taken from the first."""
    a, b = first.intersect_domain(domain), second.intersect_domain(domain)
    b = b.set_tuple_name(isl.dim_type.out, a.get_tuple_name(isl.dim_type.out))
    if not a.get_space().is_equal(b.get_space()):
        return "the tuples differ"
    differ = a.subtract(b).union(b.subtract(a))
    return None if differ.is_empty() else witness(differ.domain())


def _roles(specs: Specs) -> tuple[dict[str, str], isl.Set]:
    """Return the workload's tensor playing each of SCALE-Sim's operands and the domain."""
    workload, bound = specs.workload, specs.bound
    domain = bind_params(parse_set(workload.domain, source=workload.source), bound)
    source = workload.source
    written = [t for t, a in workload.accesses.items() if a.write]
    read = [t for t, a in workload.accesses.items() if a.read and t not in written]
    if len(written) != 1 or len(read) != 2 or domain.dim(isl.dim_type.set) != 3:
        raise SpecError(
            "SCALE-Sim runs a GEMM or a convolution: one statement over three loops (m, n, k), "
            "two tensors read and one written",
            source=source,
        )
    statement = domain.get_tuple_name()
    ofmap = written[0]

    def plain(tensor: str, subscripts: str) -> bool:
        text = workload.accesses[tensor].read or workload.accesses[tensor].write
        if len(text) != 1:
            return False
        mine = bind_params(parse_map(text[0], source=source), bound)
        want = parse_map(f"{{{statement}[m, n, k] -> {tensor}[{subscripts}]}}")
        return _equal_on(mine, want, domain) is None

    if not plain(ofmap, "m, n"):
        raise SpecError(
            f"the output {ofmap} must be written at [m, n] (SCALE-Sim's M x N ofmap)",
            source=source,
        )
    filters = [t for t in read if plain(t, "k, n")]
    if not filters:
        raise SpecError("no tensor read at [k, n] (SCALE-Sim's K x N filter matrix)", source=source)
    ifmap = next(t for t in read if t != filters[0])
    return {"ifmap": ifmap, "filter": filters[0], "ofmap": ofmap}, domain


def _extents(points: isl.Set, what: str, source: str | None) -> tuple[int, ...]:
    """Return the extents of a box of points from the origin; a SpecError if it is not one."""
    n = points.dim(isl.dim_type.set)
    lows = [points.dim_min_val(k) for k in range(n)]
    highs = [points.dim_max_val(k) for k in range(n)]
    if not all(v.is_int() for v in (*lows, *highs)) or any(v.to_python() for v in lows):
        raise SpecError(f"{what} is not a box of whole numbers from 0", source=source)
    extents = tuple(int(v.to_python()) + 1 for v in highs)
    if count(points) != math.prod(extents):
        raise SpecError(f"{what} is not a box (a hole or a slanted side)", source=source)
    return extents


def _coordinate(relation: isl.Map, k: int) -> int:
    """Return the largest value of output ``k`` of ``relation`` (0 when empty)."""
    values = relation.range()
    return 0 if values.is_empty() else int(values.dim_max_val(k).to_python())


def _at(relation: isl.Map, **fixed: int) -> isl.Map:
    """Return ``relation`` at the instances whose m, n, k take the ``fixed`` values."""
    at = isl.Set.universe(relation.get_space().domain())
    for k, name in enumerate("mnk"):
        if name in fixed:
            at = at.fix_val(isl.dim_type.set, k, isl.Val(fixed[name]))
    return relation.intersect_domain(at)


def _layer_of(specs: Specs, roles: Mapping[str, str], domain: isl.Set) -> ScaleSimLayer:
    """Return the SCALE-Sim layer of the workload: a GEMM when the ifmap is read at [m, k],
    else a convolution whose geometry is read off the ifmap's access and checked whole."""
    workload, bound, source = specs.workload, specs.bound, specs.workload.source
    M, N, K = _extents(domain, "the domain", source)
    name = re.sub(r"[^A-Za-z0-9_.+-]", "_", workload.name.split(":")[0]) or "layer"
    texts = workload.accesses[roles["ifmap"]].read
    statement = domain.get_tuple_name()
    problem = (
        f"the ifmap {roles['ifmap']} is read neither at [m, k] (a GEMM) nor at a convolution's "
        "window as SCALE-Sim addresses it (zoo workload scalesim-conv)"
    )
    if len(texts) != 1:
        raise SpecError(problem, source=source)
    access = bind_params(parse_map(texts[0], source=source), bound).intersect_domain(domain)
    gemm = parse_map(f"{{{statement}[m, n, k] -> {roles['ifmap']}[m, k]}}")
    if _equal_on(access, gemm, domain) is None:
        return ScaleSimLayer(name, "gemm", M, N, K)
    if access.dim(isl.dim_type.out) != 3:
        raise SpecError(problem, source=source)
    # The geometry from the first window, the first pixels and the pixels read; then the
    # whole map checked against SCALE-Sim's (the ifmap's unread last rows or columns, when
    # the stride skips them, are tried in turn).
    channels = 1 + _coordinate(access, 2)
    fw = 1 + _coordinate(_at(access, m=0), 1)
    ow = next((m for m in range(1, M) if _coordinate(_at(access, m=m, k=0), 1) == 0), M)
    stride = max(1, _coordinate(_at(access, m=1, k=0), 1 if ow > 1 else 0)) if M > 1 else 1
    if K % (fw * channels):
        raise SpecError(problem, source=source)
    fh = K // (fw * channels)
    height, width = 1 + _coordinate(access, 0), 1 + _coordinate(access, 1)
    for rows in range(height, height + stride):
        for cols in range(width, width + stride):
            layer = conv_layer(name, rows, cols, fh, fw, channels, N, stride)
            want = layer.workload().accesses["ifmap"].read[0]
            expected = parse_map(want).set_tuple_name(isl.dim_type.in_, statement)
            if layer.M == M and _equal_on(access, expected, domain) is None:
                return layer
    raise SpecError(problem, source=source)


def _array(architecture: ArchitectureSpec, bound: Mapping[str, int]) -> tuple[int, int]:
    """Return the rows and columns of a systolic array as SCALE-Sim's: a 2D box of PEs, each
    linked to the next row and the next column one step later."""
    source = architecture.source
    pes = bind_params(parse_set(architecture.pe, source=source, location="pe"), bound)
    problem = (
        "SCALE-Sim's array is a 2D box of PEs, each passing data to the next row and column "
        "one step later (links {PE[i, j] -> PE[i + 1, j]} and {PE[i, j] -> PE[i, j + 1]})"
    )
    if pes.dim(isl.dim_type.set) != 2:
        raise SpecError(problem, source=source, location="pe")
    extents = _extents(pes, "the PE set", source)
    name = pes.get_tuple_name()
    want = parse_map(f"{{{name}[i, j] -> {name}[i + 1, j]; {name}[i, j] -> {name}[i, j + 1]}}")
    links = isl.Map.empty(want.get_space())
    for link in architecture.interconnect:
        if link.delay != 1:
            raise SpecError(problem, source=source, location="interconnect")
        links = links.union(bind_params(parse_map(link.link, source=source), bound))
    within = want.intersect_domain(pes).intersect_range(pes)
    if not links.intersect_domain(pes).intersect_range(pes).is_equal(within):
        raise SpecError(problem, source=source, location="interconnect")
    return extents[0], extents[1]


def _renamed(text: str, statement: str) -> isl.Map:
    return parse_map(text).set_tuple_name(isl.dim_type.in_, statement)


def _schedule(specs: Specs, domain: isl.Set, rows: int, cols: int) -> ScaleSimDataflow:
    """Return which of SCALE-Sim's schedules the dataflow is (equal stamps on the domain)."""
    dataflow = specs.dataflow
    assert dataflow is not None
    bound, source = specs.bound, dataflow.source
    space = bind_params(parse_map(dataflow.space_stamp, source=source), bound)
    time = bind_params(parse_map(dataflow.time_stamp, source=source), bound)
    statement = domain.get_tuple_name()
    reasons = []
    for schedule in SCHEDULES:
        want = zoo.dataflow(f"scalesim-{schedule}", rows=rows, cols=cols)
        differ = _equal_on(space, _renamed(want.space_stamp, statement), domain) or _equal_on(
            time, _renamed(want.time_stamp, statement), domain
        )
        if differ is None:
            return schedule
        reasons.append(f"{schedule} at {differ}")
    raise SpecError(
        f"the dataflow is none of SCALE-Sim's schedules on a {rows} x {cols} array (zoo "
        f"scalesim-os, -ws, -is); it differs from {'; '.join(reasons)}",
        source=source,
    )


def _sram(architecture: ArchitectureSpec, tensor: str, role: str) -> int:
    """Return the kB of the SRAM of ``role``: the innermost shared level inside DRAM that
    holds ``tensor``, its capacity the words SCALE-Sim keeps for reuse."""
    for level in reversed(architecture.levels[1:]):
        if level.per_pe or (level.tensors is not None and tensor not in level.tensors):
            continue
        bits = level.bits_per_element or architecture.bits_per_element
        words = level.capacity
        if level.capacity_bytes is not None:
            words = level.capacity_bytes * 8 // bits
        if words is None:
            break
        return sram_kb(words)
    raise SpecError(
        f"no shared level inside DRAM with a capacity holds {tensor}: SCALE-Sim's {role} SRAM "
        "needs a size (levels ifmap_sram, filter_sram, ofmap_sram as tenet import writes them)",
        source=architecture.source,
        location="levels",
    )


@dataclass(frozen=True)
class ScaleSimInputs:
    """SCALE-Sim's input files by name (``scale.cfg``, ``topology.csv``, ``layout.csv``) and
    the topology's input type (SCALE-Sim's ``-i``)."""

    files: Mapping[str, str]
    kind: InputKind


def write_scalesim(specs: Specs) -> ScaleSimInputs:
    """Return SCALE-Sim's inputs for a tenet problem: ``scale.cfg`` (the array, each operand's
    SRAM, the schedule, CALC mode), ``topology.csv`` (the layer) and ``layout.csv`` (a header:
    SCALE-Sim's default layouts).

    Raises
    ------
    SpecError
        A workload other than a GEMM or SCALE-Sim's convolution, an array other than a
        systolic 2D box, a dataflow other than SCALE-Sim's schedules on it, or an operand
        without a sized SRAM.
    """
    if specs.dataflow is None:
        raise SpecError("SCALE-Sim runs a given schedule: give a dataflow")
    roles, domain = _roles(specs)
    layer = _layer_of(specs, roles, domain)
    rows, cols = _array(specs.architecture, specs.bound)
    schedule = _schedule(specs, domain, rows, cols)
    sizes = [_sram(specs.architecture, roles[r], r) for r in ("ifmap", "filter", "ofmap")]
    config = "\n".join(
        [
            "# Written by tenet export scalesim: one-byte words; each SRAM is the least size (kB)",
            "# whose active half keeps the level's capacity for reuse in SCALE-Sim's CALC mode.",
            "[general]",
            f"run_name = {layer.name}",
            "",
            "[architecture_presets]",
            f"ArrayHeight : {rows}",
            f"ArrayWidth : {cols}",
            f"IfmapSramSzkB : {sizes[0]}",
            f"FilterSramSzkB : {sizes[1]}",
            f"OfmapSramSzkB : {sizes[2]}",
            "IfmapOffset : 0",
            "FilterOffset : 10000000",
            "OfmapOffset : 20000000",
            f"Dataflow : {schedule}",
            "Bandwidth : 10",
            "ReadRequestBuffer : 32",
            "WriteRequestBuffer : 32",
            "",
            "[layout]",
            "IfmapCustomLayout : False",
            "IfmapSRAMBankBandwidth : 10",
            "IfmapSRAMBankNum : 10",
            "IfmapSRAMBankPort : 2",
            "FilterCustomLayout : False",
            "FilterSRAMBankBandwidth : 10",
            "FilterSRAMBankNum : 10",
            "FilterSRAMBankPort : 2",
            "",
            "[sparsity]",
            "SparsitySupport : false",
            "SparseRep : ellpack_block",
            "OptimizedMapping : false",
            "BlockSize : 8",
            "RandomNumberGeneratorSeed : 40",
            "",
            "[run_presets]",
            "InterfaceBandwidth : CALC",
            "UseRamulatorTrace : False",
            "",
        ]
    )
    head = GEMM_HEAD if layer.kind == "gemm" else CONV_HEAD
    files = {
        "scale.cfg": config,
        "topology.csv": f"{head}\n{layer.row()}\n",
        "layout.csv": f"{CONV_HEAD}\n",
    }
    return ScaleSimInputs(files, layer.kind)
