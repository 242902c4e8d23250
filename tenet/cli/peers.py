"""``tenet import`` and ``tenet export``: AccelForge, ZigZag and SCALE-Sim specs to tenet specs
and back."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from tenet.cli.app import cli, write_output
from tenet.cli.checks import writable_folder
from tenet.cli.options import (
    TOPOLOGY_ROWS,
    YAML_FILES,
    ProblemOptions,
    problem_options,
    written_file,
)

if TYPE_CHECKING:
    from tenet.mapping import LoopNest
    from tenet.spec import Specs


__all__ = ["import_group", "export_group"]

SPECS_FOLDER = click.option(
    "--output",
    "-o",
    "directory",
    required=True,
    type=click.Path(file_okay=False),
    callback=writable_folder,
    help="Folder of the specs written.",
)
"""The folder option of the commands that write a peer's or tenet's spec files."""


@cli.group("import")
def import_group() -> None:
    """Read a peer's specs (AccelForge, ZigZag, SCALE-Sim) into tenet specs: DIR/workload.yaml,
    DIR/architecture.yaml and DIR/dataflow.yaml (SCALE-Sim: one such folder per layer), which
    ``tenet eval`` reads; or a chain of an ONNX model's nodes: DIR/chain.yaml."""


def _written(directory: str, paths: list[Path]) -> None:
    names = " ".join(str(p) for p in paths)
    click.echo(f"wrote {names}", err=True)
    click.echo(
        f"tenet eval -w {directory}/workload.yaml -a {directory}/architecture.yaml "
        f"-d {directory}/dataflow.yaml"
    )


@import_group.command("accelforge")
@click.argument("spec", type=click.Path())
@SPECS_FOLDER
def import_accelforge(spec: str, directory: str) -> None:
    """Read an AccelForge SPEC file (arch, workload, mapping) into tenet specs in DIRECTORY.
    Several Einsums are read as a chain: DIR/chain.yaml and DIR/fusion.yaml (one fused nest,
    or one per statement), checked to fit the buffer."""
    from tenet.peers import einsum_count, read_accelforge, read_accelforge_chain, write_specs

    if einsum_count(spec) > 1:
        chain = read_accelforge_chain(spec)
        how = "fused" if chain.fused else "unfused, statement by statement"
        header = f"# Read by tenet import from {spec} ({how}).\n"
        paths = write_specs(directory, chain.documents(), header)
        click.echo(f"wrote {' '.join(str(p) for p in paths)}", err=True)
        return
    imported = read_accelforge(spec)
    header = _header(spec, imported.nest)
    _written(directory, write_specs(directory, imported.documents(), header))


@import_group.command("zigzag")
@click.option("--workload", "-w", required=True, type=click.Path(), help="ZigZag workload.")
@click.option("--accelerator", "-a", required=True, type=click.Path(), help="ZigZag hardware.")
@click.option("--mapping", "-m", required=True, type=click.Path(), help="ZigZag mapping.")
@SPECS_FOLDER
def import_zigzag(workload: str, accelerator: str, mapping: str, directory: str) -> None:
    """Read ZigZag's workload, accelerator and mapping files into tenet specs in DIRECTORY
    (loops allocated to memories innermost first, as far as each memory's size allows)."""
    from tenet.peers import read_zigzag, write_specs

    imported = read_zigzag(workload, accelerator, mapping)
    header = _header(f"{workload}, {accelerator}, {mapping}", imported.nest)
    _written(directory, write_specs(directory, imported.documents(), header))


@import_group.command("scalesim")
@click.option("--config", "-c", required=True, type=click.Path(), help="SCALE-Sim config file.")
@click.option("--topology", "-t", required=True, type=click.Path(), help="SCALE-Sim topology CSV.")
@TOPOLOGY_ROWS
@SPECS_FOLDER
def import_scalesim(config: str, topology: str, kind: str, directory: str) -> None:
    """Read a SCALE-Sim config and topology into tenet specs: one folder DIRECTORY/<layer> per
    layer, on the config's array and SRAMs with its schedule (os, ws, is)."""
    from tenet.peers import read_scalesim, write_specs

    header = f"# Read by tenet import from {config}, {topology}.\n"
    for layer in read_scalesim(config, topology, "gemm" if kind == "gemm" else "conv"):
        folder = f"{directory}/{layer.layer.name}"
        _written(folder, write_specs(folder, layer.documents(), header))


@import_group.command("onnx")
@click.argument("model", type=click.Path())
@click.option(
    "--from",
    "first",
    help="The chain's first node (its name or its output's): a Conv, MatMul or Gemm node "
    "(default: the model's first).",
)
@click.option(
    "--to",
    "last",
    help="The chain's last node (its name or its output's; default: the model's last Conv, "
    "MatMul or Gemm node).",
)
@SPECS_FOLDER
def import_onnx(model: str, first: str | None, last: str | None, directory: str) -> None:
    """Read the nodes of an ONNX MODEL from --from to --to as a chain of Einsums into
    DIRECTORY/chain.yaml (docs/fusion.md): Conv, MatMul and Gemm nodes, each reading the result
    of the one before it, through elementwise nodes folded into it (activations, batch
    normalisation, a bias); sizes from shape inference. (A whole network's layers: tenet
    eval-network MODEL.onnx.)"""
    from tenet.peers import write_specs
    from tenet.spec import read_onnx_chain

    chain = read_onnx_chain(model, first, last)
    header = f"# Read by tenet import from {model}.\n" + chain.header()
    paths = write_specs(directory, {"chain": chain.spec.document()}, header)
    click.echo(f"wrote {' '.join(str(p) for p in paths)}", err=True)


def _header(source: str, nest: LoopNest) -> str:
    text = f"# Read by tenet import from {source}.\n"
    if nest.above:
        placed = "; ".join(
            f"{tensor} at {level} under {at} loops"
            for tensor, per in nest.above.items()
            for level, at in per.items()
        )
        text += (
            f"# Storage placed off its level's tiles ({placed}): the dataflow's places,\n"
            "# which tenet eval honours.\n"
        )
    return text


@cli.group("export")
def export_group() -> None:
    """Write a tenet problem in a peer's format, when a per-level loop nest expresses its
    dataflow (skewed or modulo placements are refused, with the reason)."""


def _specs(problem: ProblemOptions) -> Specs:
    from tenet import load_specs

    return load_specs(*problem.names(), problem.params())


def _energy_note(specs: Specs) -> str:
    """A comment saying that the energies written are not pJ, when the architecture's energy
    table is relative to one MAC."""
    if specs.architecture.energy.unit == "pJ":
        return ""
    return (
        "# The energies of this architecture are relative to one MAC (MAC = 1), not pJ: they\n"
        "# are written as they are, where the peer reads pJ.\n"
    )


@export_group.command("accelforge")
@problem_options(YAML_FILES, required=False)
@click.option("--chain", "-c", "chain", help="A chain: YAML file or zoo name (with --fusion).")
@click.option("--fusion", "-f", "fusion", type=click.Path(), help="The chain's nests (YAML).")
@written_file("--output", "-o", help="Write to this file.")
def export_accelforge(
    problem: ProblemOptions, chain: str | None, fusion: str | None, output: str | None
) -> None:
    """Write the problem as one AccelForge spec file (arch, workload, mapping); or a chain
    (``--chain``) with its nests (``--fusion``: one fused nest, or one per statement)."""
    from tenet.peers import ACCELFORGE_UNITS, dump, write_accelforge

    if chain is not None or fusion is not None:
        write_output(
            ACCELFORGE_UNITS + dump(_chain_document(problem, chain, fusion)).rstrip(), output
        )
        return
    missing = [
        n
        for n, v in (
            ("-w", problem.workload),
            ("-a", problem.architecture),
            ("-d", problem.dataflow),
        )
        if v is None
    ]
    if missing:
        raise click.UsageError(f"missing {', '.join(missing)} (or --chain with --fusion)")
    specs = _specs(problem)
    doc = write_accelforge(specs)
    write_output(ACCELFORGE_UNITS + _energy_note(specs) + dump(doc).rstrip(), output)


def _chain_document(problem: ProblemOptions, chain: str | None, fusion: str | None) -> Any:
    """The AccelForge document of a chain and its nests, sizes from ``-p``."""
    from tenet.peers import accelforge_chain_document

    if chain is None or fusion is None:
        raise click.UsageError("--chain and --fusion go together")
    if problem.workload or problem.architecture or problem.dataflow:
        raise click.UsageError("--chain replaces -w, -a and -d")
    return accelforge_chain_document(chain, fusion, problem.params())


@export_group.command("zigzag")
@problem_options(YAML_FILES)
@SPECS_FOLDER
def export_zigzag(problem: ProblemOptions, directory: str) -> None:
    """Write ZigZag's workload.yaml, accelerator.yaml and mapping.yaml into DIRECTORY."""
    from tenet.peers import ZIGZAG_UNITS, write_specs, write_zigzag

    specs = _specs(problem)
    paths = write_specs(directory, write_zigzag(specs), ZIGZAG_UNITS + _energy_note(specs))
    click.echo(f"wrote {' '.join(str(p) for p in paths)}", err=True)


def _writing(text: str) -> Callable[[Path], object]:
    return lambda tmp: tmp.write_text(text)


@export_group.command("scalesim")
@problem_options(YAML_FILES)
@SPECS_FOLDER
def export_scalesim(problem: ProblemOptions, directory: str) -> None:
    """Write SCALE-Sim's scale.cfg, topology.csv and layout.csv into DIRECTORY: the array, an
    SRAM per operand and the schedule (os, ws, is) of a problem on SCALE-Sim's systolic array."""
    from tenet.files import write_atomically
    from tenet.peers import write_scalesim

    inputs = write_scalesim(_specs(problem))
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    paths = [write_atomically(folder / name, _writing(text)) for name, text in inputs.files.items()]
    click.echo(f"wrote {' '.join(str(p) for p in paths)}", err=True)
    click.echo(
        f"python -m scalesim.scale -c {folder}/scale.cfg -t {folder}/topology.csv "
        f"-l {folder}/layout.csv -i {inputs.kind} -p {folder}/results"
    )
