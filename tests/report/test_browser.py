"""The HTML report in headless Chromium (``make browser`` installs it): the page loads without
a console message, and its inline script sorts a table when a header is clicked. Skipped when
no Chromium is found."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from tenet.report.axes import new_axes
from tenet.report.html import MappingRecord, Report, render_report

pytestmark = pytest.mark.browser

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "chrome")

PROBE = """
<script>
window.addEventListener("load", function () {
  var header = document.querySelectorAll("table.sortable")[0].querySelectorAll("th")[1];
  header.click();
  var first = document.querySelector("table.sortable tbody tr td:nth-child(2)").textContent;
  header.click();
  var last = document.querySelector("table.sortable tbody tr td:nth-child(2)").textContent;
  var out = document.createElement("pre");
  out.id = "probe";
  out.textContent = first + "|" + last + "|" + header.getAttribute("aria-sort");
  document.body.appendChild(out);
});
</script>
"""
"""Clicks the latency header twice and writes the first latency after each click."""


def _browser() -> str:
    found = next((path for name in BROWSERS if (path := shutil.which(name))), None)
    if found is None:
        pytest.skip("no Chromium found (make browser installs it)")
    return found


def _load(browser: str, page: Path) -> tuple[str, list[str]]:
    """Return the page's DOM after load and the console messages Chromium logged."""
    done = subprocess.run(
        [
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--enable-logging=stderr",
            "--v=0",
            "--virtual-time-budget=5000",
            "--dump-dom",
            page.resolve().as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    console = [line for line in done.stderr.splitlines() if ":CONSOLE" in line]
    return done.stdout, console


def _page(tmp_path: Path, probe: str = "") -> Path:
    table = pd.DataFrame({"name": ["a", "b", "c"], "latency_cycles": [47, 9, 143]})
    ax = new_axes((3, 2))
    ax.bar([0, 1, 2], [47, 9, 143])
    mapping = MappingRecord("gemm", "a", "{ S[i] -> PE[i] }", "{ S[i] -> T[0] }")
    report = Report(
        "probe", {"objective": "latency"}, [("best", table)], [("plot", ax.figure)], [mapping]
    )
    path = tmp_path / "report.html"
    path.write_text(render_report(report).replace("</body>", f"{probe}</body>"))
    return path


def test_browser_loads_the_report_without_console_messages(tmp_path: Path) -> None:
    dom, console = _load(_browser(), _page(tmp_path, PROBE))
    assert console == []
    probe = re.search(r'<pre id="probe">([^<]*)</pre>', dom)
    assert probe is not None
    # ascending first (9 cycles on top), then descending (143 on top)
    assert probe.group(1) == "9|143|descending"
    assert dom.count("<svg") == 1


def test_browser_console_check_sees_a_failing_script(tmp_path: Path) -> None:
    broken = "<script>notDefined();</script>"
    _, console = _load(_browser(), _page(tmp_path, broken))
    assert len(console) == 1 and "notDefined" in console[0]


@pytest.mark.slow
def test_browser_loads_the_report_of_a_resnet50_sweep(tmp_path: Path) -> None:
    from tenet.cli import main

    browser = _browser()
    page = tmp_path / "resnet50.html"
    args = ["-n", "resnet50", "-a", "systolic-2d-8x8", "--strategy", "constructive"]
    with pytest.raises(SystemExit) as stop:
        main(["sweep", *args, "--top-k", "1", "--workers", "1", "--report", str(page)])
    assert stop.value.code in (0, None)
    dom, console = _load(browser, page)
    assert console == []
    assert "<h1>resnet50 on systolic-2d-8x8</h1>" in dom
    assert dom.count("resnet50/conv1 on systolic-2d-8x8") == 1  # its dataflow, listed once
    assert dom.count("<svg") == 1  # the per-layer plot


def test_browser_loads_the_report_of_a_mapping_that_does_not_fit(tmp_path: Path) -> None:
    from tenet.cli import main

    browser = _browser()
    # GEMM 32^3 on systolic-levels-8x8: each PE's register file would hold 272 of 256
    # elements (tests/test_headline.py), which the page says under its title
    page = tmp_path / "overflow.html"
    args = ["-w", "gemm", "-a", "systolic-levels-8x8", *("-p", "M=32", "-p", "N=32", "-p", "K=32")]
    with pytest.raises(SystemExit) as stop:
        main(["dse", *args, "--workers", "1", "--top", "1", "--report", str(page)])
    assert stop.value.code in (0, None)
    dom, console = _load(browser, page)
    assert console == []
    assert "fits: no — rf needs 272 of 256 elements" in dom
    assert dom.count("<svg") == 1  # the Pareto front of the one exploration


def test_browser_loads_the_report_of_a_network_mapped(tmp_path: Path) -> None:
    from tenet.cli import main
    from tests.conftest import DATA

    browser = _browser()
    page = tmp_path / "mapped.html"
    network = str(DATA / "networks" / "counted.yaml")
    with pytest.raises(SystemExit) as stop:
        main(["map", "-n", network, "-a", "systolic-levels-8x8", "--report", str(page)])
    assert stop.value.code in (0, None)
    dom, console = _load(browser, page)
    assert console == []
    assert "proven optimal" in dom and "total" in dom
