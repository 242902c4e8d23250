"""TENET's experiments as TENET text files, written from zoo names.

TENET's data (``statement/*.s``, ``mapping/*.m``, ``pe_array/*.p``, ``*/experiment/experiment_N``)
is not part of this repository. Its 52 experiments are zoo names with sizes
(``tests/zoo/tenet_experiments.yaml``; the comparison tests check the names against the
original files), so the tests write the text files from the zoo, at the original's relative
paths (``tests/data/reference/tenet-timing.csv``), and read them back as a user's files.
"""

from __future__ import annotations

import csv
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import islpy as isl
import yaml

import tenet
from tenet.isl_utils import bind_params, parse_map, parse_set

__all__ = [
    "EXPERIMENTS",
    "EXTRA_MAPPINGS",
    "FILES",
    "MAPPINGS",
    "PE_ARRAYS",
    "mapping_text",
    "pe_array_text",
    "statement_text",
    "write_tenet_data",
]

HERE = Path(__file__).resolve().parent
EXPERIMENTS: dict[str, list[Any]] = yaml.safe_load(
    (HERE / "zoo" / "tenet_experiments.yaml").read_text()
)
"""``folder/experiment_N`` -> [workload, sizes, architecture, dataflow] (zoo names)."""

with (HERE / "data" / "reference" / "tenet-timing.csv").open() as _f:
    FILES: dict[str, tuple[str, str, str]] = {
        f"{r['experiment_dir']}/{r['experiment']}": (
            r["statement_file"],
            r["mapping_file"],
            r["pe_array_file"],
        )
        for r in csv.DictReader(_f)
    }
"""``folder/experiment_N`` -> its statement, mapping and PE-array paths in TENET's data."""

PE_ARRAYS = {
    "systolic-2d-8x8": "pe_array/systolic.p",
    "systolic-2d-8x8-reversed": "pe_array/pe_8_8.p",
    "systolic-2d-16x64": "pe_array/pe_16_64.p",
    "systolic-2d-up-8x8": "pe_array/1d_systolic1.p",
    "systolic-2d-down-8x8": "pe_array/1d_systolic2.p",
    "systolic-2d-left-8x8": "pe_array/1d_systolic3.p",
    "systolic-2d-right-8x8": "pe_array/1d_systolic4.p",
    "systolic-1d-64": "pe_array/lineral.p",
    "switch-2d-8x8": "pe_array/switch.p",
    "eyeriss-12x14": "pe_array/pe_12_14.p",
    "maeri-3x3x7": "maeri/maeri.p",
    "systolic-1d-16": "runtime/pe_array/16pes/1d_sys.p",
    "systolic-1d-256": "runtime/pe_array/256pes/1d_sys.p",
    "systolic-2d-up-4x4": "runtime/pe_array/16pes/2d_sys.p",
    "systolic-2d-up-16x16": "runtime/pe_array/256pes/2d_sys.p",
    "switch-2d-4x4": "runtime/pe_array/16pes/mesh.p",
    "switch-2d-16x16": "runtime/pe_array/256pes/mesh.p",
}
"""Zoo architecture -> the PE-array file of TENET's data it equals."""

MAPPINGS: dict[str, tuple[str, dict[str, int]]] = {
    "mapping/1d_pointwise_1.m": ("pointwise-kp-1d", {}),
    "mapping/1d_pointwise_2.m": ("pointwise-nlr", {}),
    "mapping/2d_depthwise.m": ("depthwise-os", {}),
    "mapping/2d_pointwise_1.m": ("pointwise-yxp", {}),
    "mapping/2d_pointwise_2.m": ("pointwise-os", {}),
    "mapping/2d_pointwise_3.m": ("pointwise-ws", {}),
    "mapping/conv2d_eyeriss1d.m": ("conv2d-rs-1d", {}),
    "mapping/conv2d_eyeriss2d.m": ("conv2d-rs", {}),
    "mapping/conv2d_kp.m": ("conv2d-kp-1d", {}),
    "mapping/conv2d_nlr.m": ("conv2d-nlr", {}),
    "mapping/conv2d_os.m": ("conv2d-os", {}),
    "mapping/conv2d_os_yxp.m": ("conv2d-yxp", {}),
    "mapping/conv2d_ws.m": ("conv2d-ws", {}),
    "mapping/conv2d_ws_kcp.m": ("conv2d-kcp", {}),
    "mapping/jacobi_lineral_os.m": ("jacobi-os-1d", {}),
    "mapping/jacobi_os_yxp.m": ("jacobi-os", {}),
    "mapping/matmul_systolic_os.m": ("gemm-os-systolic", {}),
    "mapping/matmul_systolic_ws.m": ("gemm-ws-systolic", {}),
    "mapping/mttkrp_systolic1.m": ("mttkrp-ij-systolic", {}),
    "mapping/mttkrp_systolic2.m": ("mttkrp-kj-systolic", {}),
    "mapping/mttkrp_systolic3.m": ("mttkrp-kl-systolic", {}),
    "mapping/ncf_nmk.m": ("gemm-nmk", {}),
    "mapping/ncf_rs.m": ("gemm-rs-1d", {}),
    "mapping/ncf_yxp_os.m": ("gemm-os-1d", {}),
    "maeri/maeri.m": ("conv2d-maeri", {}),
    "mobilenet/mapping/2d_depthwise.m": ("depthwise-yxp", {}),
    "runtime/mapping/1d/conv2d.m": ("conv2d-os-1d", {"pes": 256}),
    "runtime/mapping/1d/gemm.m": ("gemm-os-1d", {"pes": 256}),
    "runtime/mapping/1d/jacobi.m": ("jacobi-os-1d", {"pes": 256}),
    "runtime/mapping/1d/mttkrp.m": ("mttkrp-os-1d", {"pes": 256}),
    "runtime/mapping/2d/conv2d.m": ("conv2d-os", {"rows": 16, "cols": 16}),
    "runtime/mapping/2d/gemm.m": ("gemm-os-systolic", {"rows": 16, "cols": 16}),
    "runtime/mapping/2d/jacobi.m": ("jacobi-os", {"rows": 16, "cols": 16}),
    "runtime/mapping/2d/mttkrp.m": ("mttkrp-ij-systolic", {"rows": 16, "cols": 16}),
}
"""Mapping file of TENET's data -> the zoo dataflow (and template arguments) it equals."""

EXTRA_MAPPINGS = {
    "mapping/1d_pointwise_1.m": ("systolic-1d-64", "statement/conv_pointwise.s"),
    "mapping/1d_pointwise_2.m": ("systolic-1d-64", "statement/conv_pointwise.s"),
    "mapping/2d_pointwise_1.m": ("systolic-2d-8x8-reversed", "statement/conv_pointwise.s"),
    "mapping/2d_pointwise_3.m": ("systolic-2d-8x8-reversed", "statement/conv_pointwise.s"),
    "mapping/conv2d_eyeriss1d.m": ("systolic-1d-64", "statement/conv2d.s"),
    "mapping/conv2d_os_yxp.m": ("systolic-2d-8x8-reversed", "statement/conv2d.s"),
    "mapping/conv2d_ws_kcp.m": ("systolic-2d-16x64", "statement/conv2d.s"),
}
"""Mappings no experiment uses -> the architecture and statement they are written for."""


def _bound(text: str, params: Mapping[str, int], kind: str) -> str:
    """Return ``text`` with its size parameters fixed to ``params`` (unchanged without any)."""
    parsed = parse_set(text) if kind == "set" else parse_map(text)
    if parsed.dim(isl.dim_type.param) == 0:
        return text
    return str(bind_params(parsed, params))


def _union_line(maps: tuple[str, ...], params: Mapping[str, int]) -> str:
    """One line holding the union of ``maps`` (TENET writes several maps of a tensor so)."""
    pieces = [_bound(m, params, "map").strip().removeprefix("{").removesuffix("}") for m in maps]
    return "{" + "; ".join(p.strip() for p in pieces) + "}"


def statement_text(workload: str, params: Mapping[str, int]) -> str:
    """The ``.s`` text of a zoo workload at ``params``: ``R W``, the domain, the maps."""
    spec = tenet.workload(workload)
    bound = {**spec.params, **params}
    reads = [_union_line(a.read, bound) for a in spec.accesses.values() if a.read]
    writes = [_union_line(a.write, bound) for a in spec.accesses.values() if a.write]
    lines = [f"{len(reads)} {len(writes)}", _bound(spec.domain, bound, "set"), *reads, *writes]
    return "\n".join(lines) + "\n"


def mapping_text(dataflow: str, architecture: str | None, params: Mapping[str, int]) -> str:
    """The ``.m`` text of a zoo dataflow: the space-stamp, then the time-stamp."""
    spec = tenet.dataflow(dataflow, architecture)
    bound = {**spec.params, **params}
    return "\n".join(_bound(s, bound, "map") for s in (spec.space_stamp, spec.time_stamp)) + "\n"


def pe_array_text(architecture: str) -> str:
    """The ``.p`` text of a zoo architecture: PE set, links as receiver -> sender, numbers."""
    spec = tenet.architecture(architecture)
    links = [str(parse_map(link.link).reverse()) for link in spec.interconnect]
    union = "{" + "; ".join(x.strip().removeprefix("{").removesuffix("}").strip() for x in links)
    numbers = f"{spec.l1_size} {spec.l2_size} {spec.bandwidth} {spec.latency}"
    return "\n".join([spec.pe, union + "}", numbers]) + "\n"


def _put(root: Path, relative: str, text: str) -> None:
    path = root / relative
    if path.exists():
        assert path.read_text() == text, f"two different texts for {relative}"
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def write_tenet_data(root: Path) -> Path:
    """Write every experiment, statement, mapping and PE array under ``root``; return it."""
    for key, (workload, params, architecture, dataflow) in EXPERIMENTS.items():
        statement, mapping, pe_array = FILES[key]
        folder, name = key.split("/")
        _put(root, statement, statement_text(workload, params))
        _put(root, mapping, mapping_text(dataflow, architecture, params))
        _put(root, pe_array, pe_array_text(architecture))
        _put(root, f"{folder}/experiment/{name}", f"{mapping}\n{pe_array}\n{statement}\n")
    for architecture, pe_array in PE_ARRAYS.items():
        _put(root, pe_array, pe_array_text(architecture))
    for mapping, (architecture, _) in EXTRA_MAPPINGS.items():
        _put(root, mapping, mapping_text(MAPPINGS[mapping][0], architecture, {}))
    return root
