# The two entry points of the README: `make demo` (set up + main job) and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo test test-slow test-shared test-browser browser peers scalesim test-peers lint install bench

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
	$(BIN)/python -m pytest -q -m 'slow and not shared and not peers'

# Comparisons with the original tools' own files: needs ../shared beside the repository.
test-shared: install
	$(BIN)/python -m pytest -q -m shared

# Headless Chromium for the tests marked browser (Debian's package; needs root).
browser:
	apt-get update
	apt-get install -y chromium

test-browser: install
	$(BIN)/python -m pytest -q -m browser

# The peers (AccelForge, ZigZag) in their own environment .peers/: AccelForge needs Python 3.12
# or later. PEERS_PYTHON names the interpreter; else the first of python3.12, python3.13 and
# pyenv's 3.12/3.13 installs that runs and is recent enough.
PEERS := .peers
PEERS_PYTHON ?=
PEER_PACKAGES := accelforge==1.0.467 zigzag-dse==3.9.1 six

$(PEERS)/bin/python:
	@set -e; root=$$(pyenv root 2>/dev/null || true); found=; \
	for c in $(or $(PEERS_PYTHON),python3.12 python3.13 $$root/versions/3.12*/bin/python3 \
	         $$root/versions/3.13*/bin/python3); do \
	  if "$$c" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; then \
	    found=$$c; break; fi; \
	done; \
	if [ -z "$$found" ]; then \
	  echo "make peers: no Python 3.12 or later found (AccelForge needs one): install it, or" \
	       "give its path as PEERS_PYTHON=/path/to/python3.12" >&2; exit 2; fi; \
	echo "make peers: $$found -m venv $(PEERS)"; \
	"$$found" -m venv $(PEERS)
	$(PEERS)/bin/python -m pip install --quiet --upgrade pip
	$(PEERS)/bin/python -m pip install --quiet $(PEER_PACKAGES) || { rm -rf $(PEERS); exit 1; }

# SCALE-Sim in an environment of its own, .scalesim/: scalesim 3.0.0 fails with numpy 2.4 or
# later, which AccelForge's environment may hold.
SCALESIM := .scalesim
SCALESIM_PACKAGES := scalesim==3.0.0 'numpy<2.4'

$(SCALESIM)/bin/python:
	$(PYTHON) -m venv $(SCALESIM)
	$(SCALESIM)/bin/python -m pip install --quiet --upgrade pip
	$(SCALESIM)/bin/python -m pip install --quiet $(SCALESIM_PACKAGES) || { rm -rf $(SCALESIM); exit 1; }

scalesim: $(SCALESIM)/bin/python

peers: $(PEERS)/bin/python $(SCALESIM)/bin/python

# Round trips through the peers: the tests marked peers, with the environments make peers makes.
test-peers: install peers
	TENET_PEERS_PYTHON=$(CURDIR)/$(PEERS)/bin/python \
	TENET_SCALESIM_PYTHON=$(CURDIR)/$(SCALESIM)/bin/python $(BIN)/python -m pytest -q -m peers

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
