# TideMQ: `make up` runs everything on this machine; `make test` runs every check;
# `make bench` measures it (docs/performance.md); `make sdk` regenerates the API documents
# and the SDKs generated from them (sdk/README.md).
# Each creates ./.venv on first use and re-installs when pyproject.toml changes.
# `make test` and `make sdk` also install the TypeScript SDK's packages (`npm ci` in
# sdk/typescript, from its package-lock.json), so its tests run with no network.
# `make test` also creates ./.venv-checkov: checkov, which tests/terraform/ runs over
# terraform/, depends on a fork of python-hcl2 that installs the same `hcl2` module as
# the python-hcl2 the tests use, so it cannot live in ./.venv.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
VENV_CHECKOV := .venv-checkov
CHECKOV      := checkov>=3.2,<4
TYPESCRIPT_SDK := sdk/typescript
NODE_MODULES   := $(TYPESCRIPT_SDK)/node_modules/.installed

.PHONY: up test bench sdk lint typecheck unit chromium clean

up: $(VENV)/.installed-runtime
	$(BIN)/tidemq up

test: $(VENV)/.installed-test $(VENV_CHECKOV)/.installed $(NODE_MODULES) chromium lint typecheck unit

bench: $(VENV)/.installed-test
	$(BIN)/tidemq bench

lint: $(VENV)/.installed-test
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(VENV)/.installed-test
	$(BIN)/mypy

# One pytest worker per CPU, each taking whole files (a file's module fixtures start once):
# most of the suite's time is spent waiting on the servers it starts. Then the tests marked
# `alone`, with nothing beside them (pyproject.toml says which and why).
unit: $(VENV)/.installed-test $(VENV_CHECKOV)/.installed $(NODE_MODULES) chromium
	$(BIN)/pytest --numprocesses auto --dist loadfile -m "not alone"
	$(BIN)/pytest -m alone

# The documents first: the SDKs are generated from them (sdk/generate.py).
sdk: $(VENV)/.installed-test $(NODE_MODULES)
	$(BIN)/tidemq openapi
	$(BIN)/tidemq asyncapi
	$(BIN)/python sdk/generate.py

# The console's browser tests drive Debian's chromium through Playwright (never a browser
# Playwright downloads itself).
chromium:
	@command -v chromium >/dev/null || { \
	  if [ "$$(id -u)" = 0 ]; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; \
	  else \
	    echo "the console's tests need Debian's chromium: sudo apt-get install chromium"; exit 1; \
	  fi; }

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
	  { echo "TideMQ needs Python 3.11 or newer; run with PYTHON=/path/to/python3.11"; exit 1; }
	@$(PYTHON) -m venv $(VENV) || \
	  { rm -rf $(VENV); echo "could not create a virtualenv: on Debian/Ubuntu, apt install python3-venv"; exit 1; }
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed-runtime: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml sdk/python/pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[test,dev,load,spark,sdk]'
	$(BIN)/pip install --quiet -e ./sdk/python
	touch $@ $(VENV)/.installed-runtime

$(NODE_MODULES): $(TYPESCRIPT_SDK)/package-lock.json
	@command -v npm >/dev/null || \
	  { echo "the TypeScript SDK needs Node.js 20+ and npm: on Debian/Ubuntu, apt install nodejs npm"; exit 1; }
	cd $(TYPESCRIPT_SDK) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

$(VENV_CHECKOV)/.installed: Makefile | $(BIN)/python
	@$(PYTHON) -m venv $(VENV_CHECKOV) || \
	  { rm -rf $(VENV_CHECKOV); echo "could not create a virtualenv: on Debian/Ubuntu, apt install python3-venv"; exit 1; }
	$(VENV_CHECKOV)/bin/python -m pip install --quiet --upgrade pip
	$(VENV_CHECKOV)/bin/pip install --quiet '$(CHECKOV)'
	touch $@

clean:
	rm -rf $(VENV) $(VENV_CHECKOV) .mypy_cache .ruff_cache .pytest_cache .hypothesis
	rm -rf $(TYPESCRIPT_SDK)/node_modules $(TYPESCRIPT_SDK)/dist
