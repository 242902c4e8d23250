"""A killed search leaves nothing behind: after SIGKILL or SIGTERM of ``tenet dse`` or
``tenet sweep``, its pool workers, fork server and resource tracker end within seconds; a
Ctrl-C while the workers start is not lost."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tenet.dse.run.engines import _interrupts_ignored

PROC = Path("/proc")
ARGS = {
    "dse": ("dse", "-w", "gemm", "-a", "systolic-2d-16x16"),
    "sweep": ("sweep", "-w", "gemm", "-a", "systolic-2d-8x8", "-a", "systolic-2d-16x16"),
}


def _processes() -> dict[int, tuple[int, str]]:
    """Every process: id -> (parent id, state letter), from /proc."""
    table = {}
    for entry in PROC.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        state, parent = stat[stat.rindex(")") + 2 :].split()[:2]
        table[int(entry.name)] = (int(parent), state)
    return table


def _descendants(pid: int) -> set[int]:
    table = _processes()
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {p for p, (parent, _) in table.items() if parent in frontier} - found
        found |= frontier
    return found


def _alive(pids: set[int]) -> set[int]:
    table = _processes()
    return {p for p in pids if p in table and table[p][1] != "Z"}


@pytest.mark.slow
@pytest.mark.skipif(not PROC.is_dir(), reason="needs /proc to list processes")
@pytest.mark.parametrize("command", ["dse", "sweep"])
@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGTERM])
def test_killed_search_leaves_no_process_behind(command: str, signum: int) -> None:
    search = subprocess.Popen(
        [sys.executable, "-m", "tenet", *ARGS[command], "--workers", "2"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    started: set[int] = set()
    try:
        # the resource tracker, the fork server and two workers
        for _ in range(600):
            started |= _descendants(search.pid)
            if len(started) >= 4 or search.poll() is not None:
                break
            time.sleep(0.1)
        assert search.poll() is None and len(started) >= 4, started
        search.send_signal(signum)
        search.wait(timeout=30)
        for _ in range(50):
            if not _alive(started):
                break
            time.sleep(0.1)
        assert not _alive(started)
    finally:
        search.kill()
        for pid in _alive(started):
            os.kill(pid, signal.SIGKILL)


def test_an_interrupt_while_workers_start_is_kept() -> None:
    # Ctrl-C while the pool's processes start (they start ignoring it) reaches this process
    # once they have started, rather than being lost
    reached = False
    # as in a terminal (a suite started in the background may inherit Ctrl-C ignored)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            with _interrupts_ignored():
                # to this thread: a signal to the process may go to another thread, which
                # does not block it
                signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGINT)
                time.sleep(0.05)
                reached = True
            time.sleep(1.0)  # the interrupt is raised at the latest here
    finally:
        signal.signal(signal.SIGINT, previous)
    assert reached
