"""Bad input on the command line: each case exits 2 with one ``error:`` line on stderr naming
the file or option, no traceback, and before any work starts."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tenet.dse.run.store import ResultStore
from tests.test_cli import run

SMALL = ("-p", "M=4", "-p", "N=4", "-p", "K=4")
EVAL = ("eval", "-w", "gemm", "-a", "systolic-2d-8x8", "-d", "gemm-os-systolic", *SMALL)
DSE = ("dse", "-w", "gemm", "-a", "systolic-2d-8x8", *SMALL)
COMPARE = ("compare", "-w", "gemm", "-a", "systolic-2d-8x8", "-d", "gemm-os", *SMALL)
PLOT = ("plot", "latency", "-w", "gemm", "-a", "systolic-2d-8x8", "-d", "gemm-os-systolic")
EMPTY_DOMAIN = """\
name: shifted
params: {M: 4}
domain: "[M] -> {S[i]: 1 <= i < M}"
accesses:
  A: {read: "{S[i] -> A[i]}"}
  C: {write: "{S[i] -> C[i]}"}
"""

TILED = """\
name: tiled
space_stamp: "{{S[i,j,k] -> PE[i % 4, j % 4]}}"
time_stamp: "{{S[i,j,k] -> T[floor(i/4), floor(j/4), k]}}"
tiles:
  {level}: "{{S[i,j,k] -> {tile}}}"
"""
TILE = ("tile", "-w", "gemm", "-a", "simba", "-p", "M=8", "-p", "N=8", "-p", "K=8")
LAYOUT = (
    "layout",
    "-w",
    "gemm",
    "-a",
    "systolic-2d:rows=2,cols=2",
    "-d",
    "gemm-os-systolic:rows=2,cols=2",
    *SMALL,
)
REPO = Path(__file__).resolve().parents[1]
PEERS = REPO / "examples" / "peers"
ZIGZAG = (
    "-a",
    str(PEERS / "zigzag-accelerator.yaml"),
    "-m",
    str(PEERS / "zigzag-gemm-mapping.yaml"),
    "-o",
    "imported",
)


@pytest.fixture(scope="module")
def store_bytes(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """The bytes of a results store of 500 rows."""
    path = tmp_path_factory.mktemp("store") / "whole.db"
    store = ResultStore(path)
    store.open_run("r", {}, total=1)
    store.add("r", [{"idx": k, "name": f"p{k}", "status": "ok"} for k in range(500)])
    store.close()
    return path.read_bytes()


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, store_bytes: bytes) -> Path:
    """A working folder with a directory, binary files, a non-SQLite file, another
    application's SQLite file, a damaged store and small workloads with errors."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "adir").mkdir()
    (tmp_path / "bin.yaml").write_bytes(b"\x7fELF\x02\x01\x01\x00\xd0\xff" * 30)
    (tmp_path / "bin.m").write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1" * 30)
    (tmp_path / "notes.db").write_text("not a database\n" * 100)
    other = sqlite3.connect(tmp_path / "other.db")
    with other:
        other.execute("CREATE TABLE results (id INTEGER, x TEXT)")
        other.execute("INSERT INTO results VALUES (1, 'a')")
    other.close()
    (tmp_path / "cut.db").write_bytes(store_bytes[: len(store_bytes) // 2])
    (tmp_path / "empty.yaml").write_text(EMPTY_DOMAIN)
    (tmp_path / "g.m").write_text(
        "Network G { Layer L { Type: GEMM Dimensions { M: 8, N: 8, K: 8 }\n"
        "  Dataflow { SpatialMap(1,1) M; TemporalMap(1,1) N; TemporalMap(1,1) K; } } }\n"
    )
    (tmp_path / "badisl.yaml").write_text(EMPTY_DOMAIN.replace("1 <= i < M", "1 <= i < Q"))
    (tmp_path / "typo.yaml").write_text(EMPTY_DOMAIN + "reduction: [C]\n")
    (tmp_path / "twotiles.yaml").write_text(TILED.format(level="glb", tile="glb[a]: 0 <= a <= 1"))
    (tmp_path / "nolevel.yaml").write_text(TILED.format(level="l9", tile="l9[floor(i/4)]"))
    (tmp_path / "void.yaml").write_text("")
    return tmp_path


CASES: list[tuple[tuple[str, ...], str]] = [
    # output paths
    ((*EVAL, "-o", "nodir/out.txt"), "error: --output: cannot write 'nodir/out.txt': no folder"),
    ((*EVAL, "-o", "/proc/x"), "error: --output: cannot write '/proc/x'"),
    ((*EVAL, "-o", "adir"), "'adir' is a directory"),
    ((*COMPARE, "--plot", "nodir/x.png"), "error: --plot: cannot write 'nodir/x.png'"),
    ((*COMPARE, "--plot", "x.txt"), "--plot: expected a .png, .svg or .pdf file"),
    ((*DSE, "--plot", "x.txt"), "--plot: expected a .png, .svg or .pdf file"),
    ((*DSE, "--plot", "nodir/x.png"), "error: --plot: cannot write 'nodir/x.png'"),
    ((*PLOT, "-o", "x.txt"), "--output: expected a .png, .svg or .pdf file"),
    ((*PLOT, "--size", "1000", "1000", "--dpi", "1000", "-o", "x.png"), "--size/--dpi"),
    ((*PLOT, "--dpi", "100000", "-o", "x.png"), "--size/--dpi"),
    ((*PLOT, "--size", "0", "3", "-o", "x.png"), "expected a positive size"),
    (("table", *EVAL[1:], "-o", "t.png"), "error: t.png: cannot tell the table format"),
    # binary files and directories
    (("maestro", "g.m", "--hw", "bin.m"), "error: bin.m: not UTF-8 text"),
    (("maestro", "bin.m", "--hw", "bin.m"), "error: bin.m: not UTF-8 text (byte 0xd0"),
    (("compare", "bin.m", "--hw", "bin.m"), "error: bin.m: not UTF-8 text"),
    (("eval", "-w", "bin.yaml", "-a", "systolic-2d-8x8", "-d", "gemm-os"), "bin.yaml: a binary"),
    (("eval", "-w", "adir", "-a", "systolic-2d-8x8", "-d", "gemm-os"), "adir: is a directory"),
    (("dse", "-w", "gemm", "-a", "adir"), "error: adir: is a directory, not a spec file"),
    # stores
    ((*DSE, "--store", "nodir/s.db"), "error: --store: cannot write 'nodir/s.db'"),
    ((*DSE, "--store", "adir"), "'adir' is a directory"),
    ((*DSE, "--store", "notes.db"), "error: notes.db: not a tenet results store (not an SQLite"),
    (
        (*DSE, "--store", "other.db"),
        "error: other.db: an SQLite database of another application, not a tenet results store "
        "(tables: results)",
    ),
    ((*DSE, "--store", "cut.db"), "error: cut.db: a damaged results store"),
    # options checked before the search
    ((*DSE, "-c", "foo<<3"), "error: --constraint: constraint 'foo<<3' names"),
    ((*DSE, "-c", "latency"), "error: constraint 'latency' is not 'NAME OP VALUE'"),
    ((*DSE, "--pareto", "foo,bar", "--plot", "x.png"), "error: --pareto: unknown objective 'foo'"),
    ((*DSE, "--pareto", "latency,energy"), "error: --pareto without --plot: the front"),
    ((*DSE, "--address", "tcp://127.0.0.1:1"), "error: --address needs --engine dask"),
    (
        (*DSE, "--time-budget", "-1"),
        "Invalid value for '--time-budget': -1.0 is not in the range x>=0",
    ),
    (
        (*DSE, "--cpu-budget", "-1"),
        "Invalid value for '--cpu-budget': -1.0 is not in the range x>=0",
    ),
    # sizes
    ((*EVAL, "-p", "M=0"), "error: --param: size M=0: sizes must be at least 1"),
    ((*EVAL, "-p", "M=-5"), "error: --param: size M=-5: sizes must be at least 1"),
    ((*DSE, "-p", "M=0"), "error: --param: size M=0: sizes must be at least 1"),
    ((*COMPARE, "-p", "M=0"), "error: --param: size M=0: sizes must be at least 1"),
    ((*PLOT, "-p", "M=-5", "-o", "x.png"), "error: --param: size M=-5: sizes must be at least 1"),
    (("table", *EVAL[1:], "-p", "M=0"), "error: --param: size M=0: sizes must be at least 1"),
    (
        ("check", "-w", "gemm", "-a", "systolic-2d-8x8", "-d", "gemm-os-systolic", "-p", "K=0"),
        "error: --param: size K=0: sizes must be at least 1",
    ),
    ((*EVAL, "-p", "m=64"), "has no size 'm' (sizes: K, M, N); did you mean 'M'?"),
    ((*DSE, "-p", "m=64"), "gemm has no size 'm' (sizes: K, M, N); did you mean 'M'?"),
    ((*COMPARE, "-p", "m=64"), "has no size 'm' (sizes: K, M, N); did you mean 'M'?"),
    (
        ("eval", "-w", "empty.yaml", "-a", "systolic-2d-8x8", "-d", "gemm-os", "-p", "M=1"),
        "error: empty.yaml: domain (line 3): the iteration domain is empty with these sizes",
    ),
    (
        ("dse", "-w", "empty.yaml", "-a", "systolic-2d-8x8", "-p", "M=1"),
        "error: empty.yaml: domain (line 3): the iteration domain is empty with these sizes",
    ),
    # spec files
    (
        ("eval", "-w", "badisl.yaml", "-a", "systolic-2d-8x8", "-d", "gemm-os"),
        "error: badisl.yaml: domain (line 3): malformed isl text '[M] -> {S[i]: 1 <= i < Q}' "
        "(unknown identifier, got ident 'Q' at column 24, after '[M] -> {S[i]: 1 <= i < ')",
    ),
    (
        ("eval", "-w", "typo.yaml", "-a", "systolic-2d-8x8", "-d", "gemm-os"),
        "error: typo.yaml: invalid workload spec: line 7: reduction: unknown key; "
        "did you mean 'reductions'?",
    ),
    # tenet tile: sizes, the dataflow's own tile stamps, levels
    (
        ("tile", "-w", "gemm", "-a", "simba", "-d", "gemm-os-systolic", "-p", f"M={10**30}"),
        f"error: --param: loop 'i' runs {10**30} iterations; tile sizes are searched for loops "
        "of at most 65536",
    ),
    (
        (*TILE, "-d", "twotiles.yaml"),
        "error: twotiles.yaml: tiles.glb: an instance of tile glb[1] also lies in glb[0]",
    ),
    (
        (*TILE, "-d", "nolevel.yaml"),
        "error: nolevel.yaml: tiles.l9: the architecture has no memory level 'l9' "
        "(levels: dram, glb, pe_buffer)",
    ),
    (
        ("tile", "-w", "gemm", "-a", "systolic-2d-8x8", "-d", "gemm-os-systolic", *SMALL),
        "error: systolic-2d-8x8: no memory level inside the outermost to tile (levels: dram)",
    ),
    (
        ("dse", "-w", "gemm", "-a", "simba", *SMALL, "--tile", "l9"),
        "error: --tile: simba has no memory level 'l9' to tile (levels inside the outermost: "
        "glb, pe_buffer)",
    ),
    # sizes of the commands without an evaluation
    (("schedule", "-w", "gemm", "-p", "N=-1"), "error: --param: size N=-1: sizes must be at"),
    (("deps", "-w", "gemm", "-p", "Q=3"), "error: --param: gemm has no size 'Q' (sizes: K, M, N)"),
    (
        ("schedule", "-w", "gemm", "-p", "Q=3"),
        "error: --param: gemm has no size 'Q' (sizes: K, M, N)",
    ),
    ((*EVAL[:7], "--symbolic", "-p", "Q=3"), "has no size 'Q' (sizes: K, M, N)"),
    (
        ("export", "accelforge", "-w", "gemm", "-a", "simba", "-d", "gemm-os", "-p", "Q=3"),
        "error: gemm on simba with gemm-os:rows=4,cols=4 has no size 'Q' (sizes: K, M, N)",
    ),
    # output files of the layout command
    ((*LAYOUT, "--save", "nodir/x.yaml"), "error: --save: cannot write 'nodir/x.yaml': no folder"),
    ((*LAYOUT, "--save", "/proc/x.yaml"), "error: --save: cannot write '/proc/x.yaml'"),
    ((*LAYOUT, "--plot", "nodir/x.png"), "error: --plot: cannot write 'nodir/x.png': no folder"),
    ((*LAYOUT, "--plot", "x.txt"), "--plot: expected a .png, .svg or .pdf file"),
    # peers' files
    (
        ("import", "accelforge", str(REPO / "workloads" / "gemm.yaml"), "-o", "imported"),
        "not an AccelForge spec: expected the keys arch, workload and mapping, found version, "
        "name, params, domain, accesses, reductions (a tenet spec: tenet eval reads it)",
    ),
    (
        ("import", "zigzag", "-w", "void.yaml", *ZIGZAG),
        "error: void.yaml: the file is empty (no YAML document)",
    ),
    (("import", "zigzag", "-w", "bin.yaml", *ZIGZAG), "error: bin.yaml: a binary file"),
    (("import", "accelforge", "bin.m", "-o", "imported"), "error: bin.m: not UTF-8 text"),
    # options that exclude each other
    (
        (*EVAL, "--symbolic", "--latex", "--format", "json"),
        "error: --latex with --format csv/json: the",
    ),
    ((*EVAL, "--latex"), "error: --latex without --symbolic: LaTeX"),
    # the other commands added with the peers, layouts, networks and schedules
    (
        ("layout-rank", "-w", "gemm", "-a", "systolic-2d:rows=2,cols=2", "-p", "m=2"),
        "gemm has no size 'm' (sizes: K, M, N); did you mean 'M'?",
    ),
    (
        ("layout-rank", "-w", "gemm", "-a", "systolic-2d-8x8", "--objective", "foo"),
        "error: --objective: unknown objective 'foo' (known: latency, energy, edp",
    ),
    (
        ("layout-rank", "-w", "gemm", "-a", "systolic-2d-8x8", "-o", "nodir/x"),
        "error: --output: cannot write 'nodir/x': no folder 'nodir'",
    ),
    (
        ("eval-network", "nosuchnet", "-a", "systolic-2d-8x8", "-d", "gemm-os"),
        "error: no network named 'nosuchnet' in the zoo (see 'tenet zoo networks')",
    ),
    (
        ("sweep", "-n", "nosuchnet", "-a", "systolic-2d-8x8"),
        "error: no network named 'nosuchnet' in the zoo",
    ),
    (
        ("sweep", "-n", "alexnet", "-a", "systolic-2d-8x8", "--layers-plot", "nodir/x.png"),
        "error: --layers-plot: cannot write 'nodir/x.png': no folder 'nodir'",
    ),
    (
        ("sweep", "-w", "gemm", "-a", "systolic-2d-8x8", "--layers-plot", "x.png"),
        "error: --layers-plot without --network: it draws a network's layers",
    ),
    (
        ("export", "zigzag", "-w", "gemm", "-a", "simba", "-d", "gemm-os", "-o", "/proc/x"),
        "error: --output: cannot write into '/proc/x'",
    ),
    (
        ("export", "accelforge", "-w", "gemm", "-a", "simba", "-d", "gemm-os", "-o", "nodir/x"),
        "error: --output: cannot write 'nodir/x': no folder 'nodir'",
    ),
    (
        ("import", "accelforge", str(PEERS / "accelforge-gemm.yaml"), "-o", "/proc/imported"),
        "error: --output: cannot write into '/proc/imported'",
    ),
    (("import", "accelforge", "nofile.yaml", "-o", "imported"), "error: nofile.yaml: file not"),
    (("deps", "-w", "gemm", "-p", "M=abc"), "--param: expected NAME=INTEGER, got 'M=abc'"),
    # zoo names
    (("eval", "-w", "gemn", "-a", "systolic-2d-8x8", "-d", "gemm-os"), "did you mean 'gemm'?"),
    (("dse", "-w", "gemm", "-a", "systolic-2d-8x9"), "did you mean 'systolic-2d-8x8'"),
]


@pytest.mark.parametrize(("args", "expected"), CASES, ids=[" ".join(c[0]) for c in CASES])
def test_cli_bad_input_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], folder: Path, args: tuple[str, ...], expected: str
) -> None:
    code, out, err = run(capsys, *args)
    assert code == 2, err
    assert out == ""
    assert err.startswith("error: ") and len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err
    assert expected in err
    assert not list(folder.glob("nodir*")) and not list(folder.glob("*.png"))
    assert not (folder / "imported").exists()


def test_cli_input_larger_than_the_limit_is_refused_unread(
    capsys: pytest.CaptureFixture[str], folder: Path
) -> None:
    from tenet.spec.io import MAX_INPUT_BYTES

    big = folder / "big.yaml"
    with big.open("w") as stream:
        stream.write("name: big\naccesses:\n")
        stream.write("  T: {read: '{S[i] -> T[i]}'}\n" * (MAX_INPUT_BYTES // 30 + 1))
    code, out, err = run(capsys, "eval", "-w", "big.yaml", "-a", "systolic-2d-8x8", "-d", "x")
    assert code == 2 and out == ""
    assert err == "error: big.yaml: file larger than 4 MB; input files this large are not read\n"


def test_cli_yaml_aliases_expanding_beyond_the_limit_are_refused(
    capsys: pytest.CaptureFixture[str], folder: Path
) -> None:
    # each level repeats the one above ten times: 10**7 values once the aliases are expanded
    levels = ["a0: &a0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]"]
    levels += [f"a{k}: &a{k} [{', '.join([f'*a{k - 1}'] * 10)}]" for k in range(1, 7)]
    (folder / "laughs.yaml").write_text("name: laughs\n" + "\n".join(levels) + "\n")
    code, _, err = run(capsys, "eval", "-w", "laughs.yaml", "-a", "systolic-2d-8x8", "-d", "x")
    assert code == 2
    assert err.startswith("error: laughs.yaml: more than 1000000 YAML values")
    assert len(err.splitlines()) == 1


def test_cli_unreachable_dask_scheduler_fails_fast(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("distributed")
    monkeypatch.setattr("tenet.dse.run.engines.CONNECT_TIMEOUT", "1s")
    code, out, err = run(capsys, *DSE, "--engine", "dask", "--address", "tcp://127.0.0.1:1")
    assert code == 2 and out == ""
    assert err.startswith("error: --address: cannot reach the Dask scheduler at ")
    assert len(err.splitlines()) == 1 and "Traceback" not in err


def test_cli_foreign_store_is_left_as_it_was(
    capsys: pytest.CaptureFixture[str], folder: Path
) -> None:
    before = {name: (folder / name).read_bytes() for name in ("other.db", "notes.db", "cut.db")}
    for name in before:
        code, _, err = run(capsys, *DSE, "--store", name)
        assert code == 2 and err.startswith(f"error: {name}: ")
    assert {name: (folder / name).read_bytes() for name in before} == before


@pytest.mark.parametrize(
    ("args", "started"),
    [
        (("dse", "-w", "gemm", "-a", "simba", *SMALL, "--tile", "l9"), "tenet.dse.explore.sweep"),
        ((*TILE, "-d", "twotiles.yaml"), "tenet.dse.tiling.exhaustive.exhaustive_tiling"),
        (
            (*TILE, "-d", "gemm-os-systolic", "-p", "M=100000"),
            "tenet.dse.tiling.exhaustive.size_choices",
        ),
    ],
)
def test_cli_bad_tiling_input_is_refused_before_the_search(
    capsys: pytest.CaptureFixture[str],
    folder: Path,
    monkeypatch: pytest.MonkeyPatch,
    args: tuple[str, ...],
    started: str,
) -> None:
    def never(*_: object, **__: object) -> None:
        raise AssertionError("the search started")

    monkeypatch.setattr(started, never)
    code, _, err = run(capsys, *args)
    assert code == 2 and err.startswith("error: ") and len(err.splitlines()) == 1, err
