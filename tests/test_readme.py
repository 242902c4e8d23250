"""The README's examples run: every ``tenet`` command of its shell blocks (except those naming
the reader's own files) and every Python block."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from tenet.cli import main
from tests.conftest import ROOT

README = (ROOT / "README.md").read_text()
BLOCKS = re.findall(r"```(sh|python)\n(.*?)```", README, flags=re.S)
PLACEHOLDERS = ("my.", "path/to", "mapping.m", "r50.db")
LONG = ("tenet dse", "tenet sweep", "tenet eval-network")
COMMANDS = [
    pytest.param(line, marks=[pytest.mark.slow] if line.startswith(LONG) else [])
    for kind, body in BLOCKS
    if kind == "sh"
    for line in (raw.split("  #")[0].strip() for raw in body.splitlines())
    if line.startswith("tenet ") and not any(p in line for p in PLACEHOLDERS)
]


@pytest.mark.parametrize("command", COMMANDS)
def test_readme_command_runs(
    command: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as stop:
        main(shlex.split(command)[1:])
    out, err = capsys.readouterr()
    assert stop.value.code == 0, err
    assert out or any(tmp_path.iterdir())


@pytest.mark.parametrize("code", [body for kind, body in BLOCKS if kind == "python"])
def test_readme_python_runs(code: str) -> None:
    namespace: dict[str, object] = {}
    exec(compile(code, "README.md", "exec"), namespace)
    assert "tenet" in namespace
