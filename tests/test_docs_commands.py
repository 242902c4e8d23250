"""Every command documented in README.md and docs/*.md runs as written.

The convention: each line of a ```sh block of README.md or docs/*.md that starts with
``tenet `` or ``python `` is run as written (a trailing ``  # comment`` dropped) from the root
of a temporary copy of the repository's example files (``examples/``, ``workloads/``,
``arch_zoo/``), and must exit 0. The commands of one document share that copy and run in
the order written, so a command may read what an earlier one of the same document wrote.
So a documented command names only zoo names and files of the repository, and takes a few
seconds of CPU (small ``-p`` sizes, or an option such as ``--time-budget`` that the docs
show); the design-space searches run in the slow tests. Output, and commands not meant to be
run, go in ```text blocks. ```python blocks run too.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tenet.cli import main
from tests.conftest import ROOT

DOCS = [ROOT / "README.md", ROOT / "examples" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
COPIED = ("examples", "workloads", "arch_zoo")
LONG = ("tenet dse", "tenet sweep")
"""Searches over a design space: tens of seconds each, run with ``-m slow``."""


def _blocks(kind: str) -> list[tuple[str, str]]:
    """(document name, body) of every fenced block of ``kind``."""
    return [
        (doc.name, body)
        for doc in DOCS
        for body in re.findall(rf"^```{kind}\n(.*?)^```", doc.read_text(), flags=re.S | re.M)
    ]


def _commands() -> list[tuple[str, str]]:
    found = []
    for doc, body in _blocks("sh"):
        for raw in body.splitlines():
            line = raw.split("  #")[0].strip()
            if line.startswith(("tenet ", "python ")):
                found.append((doc, line))
    return found


COMMANDS = _commands()


def _copy(folder: Path) -> Path:
    for name in COPIED:
        shutil.copytree(ROOT / name, folder / name)
    return folder


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A temporary copy of the files documented commands may name, as the working folder."""
    monkeypatch.chdir(_copy(tmp_path))
    return tmp_path


@pytest.fixture(scope="module")
def doc_folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One temporary copy per document, made when its first command runs."""
    return {}


def test_docs_have_commands() -> None:
    docs = {doc for doc, _ in COMMANDS}
    assert {"README.md", "dse.md", "maestro.md", "reports.md"} <= docs


@pytest.mark.parametrize(
    ("doc", "command"),
    [
        pytest.param(doc, line, marks=[pytest.mark.slow] if line.startswith(LONG) else [], id=line)
        for doc, line in COMMANDS
    ],
)
def test_docs_command_runs(
    doc: str,
    command: str,
    doc_folders: dict[str, Path],
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    if doc not in doc_folders:
        doc_folders[doc] = _copy(tmp_path_factory.mktemp(doc.replace(".", "_")))
    workdir = doc_folders[doc]
    monkeypatch.chdir(workdir)
    argv = shlex.split(command)
    before = {p for p in workdir.rglob("*")}
    if argv[0] == "python":
        done = subprocess.run([sys.executable, *argv[1:]], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        out = done.stdout
    else:
        with pytest.raises(SystemExit) as stop:
            main(argv[1:])
        out, err = capsys.readouterr()
        assert stop.value.code in (0, None), err
    assert out or set(workdir.rglob("*")) - before, "the command printed and wrote nothing"
    assert "(no design point)" not in out, "a documented search finds nothing"


@pytest.mark.parametrize("code", [pytest.param(body, id=doc) for doc, body in _blocks("python")])
def test_docs_python_runs(code: str, workdir: Path) -> None:
    namespace: dict[str, object] = {}
    exec(compile(code, "docs", "exec"), namespace)
    assert set(namespace) - {"__builtins__"}, "the block defined nothing"
