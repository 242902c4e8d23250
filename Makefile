# The two entry points of the README: `make demo` (set up + main job) and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo test test-slow lint install bench

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
	$(BIN)/python -m pytest -q -m slow

lint: install
	$(BIN)/ruff check tenet tests benchmarks
	$(BIN)/ruff format --check tenet tests benchmarks
	$(BIN)/mypy tenet
	$(BIN)/lint-imports

bench: install
	$(BIN)/python benchmarks/bench_tenet_data.py
	$(BIN)/python benchmarks/bench_maestro.py
	$(BIN)/python benchmarks/bench_dse.py --quick
	$(BIN)/python benchmarks/bench_memory.py --quick
	$(BIN)/python benchmarks/bench_constructive.py --quick
