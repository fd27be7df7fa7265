# Two entry points: `make demo` and `make test`. Both work on a fresh machine from a clean clone.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
GRAFANA_SCHEMAS := $(wildcard tests/deploy/grafana_schema/*/package-lock.json)

.PHONY: demo test lint bench debian-packages clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

# The core install (`pip install ragmon`): the offline gate, replay and calibrate with the lexical judge.
$(VENV)/.runtime: pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e .
	touch $@

# The demo app and the sidecar it feeds (the demo extra brings the serve extra).
$(VENV)/.demo: pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e '.[demo]'
	touch $@ $(VENV)/.runtime

# Everything the tests need: every extra, and the test tools. Installed by uv (from PyPI, into the same
# venv, whose pip the tests still use): pip took ~95 s of CPU resolving and unpacking these ~150 packages,
# a sixth of CI's 10 minutes, and uv takes ~10 s. Copied, not hard-linked from uv's cache: nltk refuses to
# open a file with two links (LlamaIndex's stopwords). What users run, `pip install ragmon[...]`, is what
# the image and core-install tests replay with pip.
$(VENV)/.test: pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q uv
	$(BIN)/uv pip install -q --link-mode copy --python $(BIN)/python -e '.[all,test]'
	touch $@ $(VENV)/.runtime $(VENV)/.demo

# What the tests run for real from Debian: prometheus (promtool, and a server for the end-to-end tests), curl
# (the README's OTLP/JSON example is a curl command, run as written) and, where the machine has no Node.js,
# npm (for the Grafana schema check below).
debian-packages:
	@missing=""; \
	command -v promtool >/dev/null && command -v prometheus >/dev/null || missing="prometheus"; \
	command -v curl >/dev/null || missing="$$missing curl"; \
	command -v npm >/dev/null || missing="$$missing npm"; \
	[ -z "$$missing" ] || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
	    apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	  else echo "need Debian's packages:$$missing (sudo apt-get install$$missing)" >&2; exit 1; fi; }

# Grafana's published dashboard types, one folder per Grafana release, and the TypeScript compiler (native,
# ~1 s a run), from npm at the versions each package-lock.json pins: tests/deploy/test_grafana_schema.py holds
# the dashboard to them.
%/node_modules/.package-lock.json: %/package-lock.json | debian-packages
	npm ci --prefix $* --no-audit --no-fund --loglevel=error

demo: $(VENV)/.demo
	$(BIN)/ragmon demo --all

lint: $(VENV)/.test
	$(BIN)/ruff check ragmon tests benchmarks
	$(BIN)/python -m mypy

# The tests may write bytecode whatever the machine says (PYTHONDONTWRITEBYTECODE=1 here, and in CI): they
# start hundreds of Python processes (`ragmon` commands, sidecars, their workers), each of which compiled
# ragmon and its dependencies from source again (uv installs no bytecode), and each xdist worker rewrote
# every test module's asserts again: the suite took 513-520 s, now ~345 s. Three workers on two cores: a
# third of the suite's time is waiting (sidecars' quiet periods, Prometheus' first scrape, subprocesses),
# so with two the cores sat idle a third of it (8 m 35 s, user + sys 11 m 09 s); with three, 6 m 15 s.
# Files longest first (tests/conftest.py's LONGEST_FILES), not xdist's order by count of tests.
test: $(VENV)/.test debian-packages $(GRAFANA_SCHEMAS:package-lock.json=node_modules/.package-lock.json) lint
	env -u PYTHONDONTWRITEBYTECODE $(BIN)/pytest -n 3 --dist loadfile --no-loadscope-reorder

bench: $(VENV)/.runtime
	$(BIN)/python benchmarks/replay.py

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info $(GRAFANA_SCHEMAS:package-lock.json=node_modules)
