# The two entry points of the README: `make demo` (set up + main job) and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo test test-slow test-shared test-browser browser lint install bench

$(BIN)/tenet: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(BIN)/tenet

install: $(BIN)/tenet

demo: install
	$(BIN)/tenet eval --workload gemm --arch systolic-2d-8x8 --dataflow gemm-os-systolic

test: install
	$(BIN)/python -m pytest -q

test-slow: install
	$(BIN)/python -m pytest -q -m 'slow and not shared'

# Comparisons with the original tools' own files: needs ../shared beside the repository.
test-shared: install
	$(BIN)/python -m pytest -q -m shared

# Headless Chromium for the tests marked browser (Debian's package; needs root).
browser:
	apt-get update
	apt-get install -y chromium

test-browser: install
	$(BIN)/python -m pytest -q -m browser

lint: install
	$(BIN)/ruff check tenet tests benchmarks
	$(BIN)/ruff format --check tenet tests benchmarks
	$(BIN)/mypy tenet
	$(BIN)/lint-imports

bench: install
	$(BIN)/python benchmarks/bench_tenet_data.py
	$(BIN)/python benchmarks/bench_maestro.py
	$(BIN)/python benchmarks/bench_dse.py --quick
	$(BIN)/python benchmarks/bench_layout.py --quick
	$(BIN)/python benchmarks/bench_schedule.py --quick
	$(BIN)/python benchmarks/bench_memory.py --quick
	$(BIN)/python benchmarks/bench_legality.py
	$(BIN)/python benchmarks/bench_startup.py --quick
	$(BIN)/python benchmarks/bench_dse_cpu.py --quick
	$(BIN)/python benchmarks/bench_network.py --quick
	$(BIN)/python benchmarks/bench_constructive.py --quick
	$(BIN)/python benchmarks/bench_sources.py
