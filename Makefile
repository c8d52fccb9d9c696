# Targets install what they need first; `make` is the main job, `make test` the test suite.
PY      ?= python3
VENV    := .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.installed
LITCORPUS := $(BIN)/litcorpus

.DEFAULT_GOAL := all
NODE_STAMP := tests/awesome/node_modules/.installed
SITE_NODE := node_modules/.installed
CFF_SCHEMA := .cache/cff-schema-1.2.0.json

.PHONY: all help install install-dev check stats readme site serve sysdeps test golden lint bench clean

all: install $(SITE_NODE) ## Install, check, then write stats/, the README list and site/ from one analysis
	$(LITCORPUS) build

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F ':.*## ' '{printf "  %-10s %s\n", $$1, $$2}'

# The three packages, editable: the corpus's site documents the trace schema (litcorpus[traces]).
PACKAGES := packages/surewrite packages/orchtrace packages/litcorpus
PYPROJECTS := pyproject.toml $(addsuffix /pyproject.toml,$(PACKAGES))
$(STAMP): $(PYPROJECTS)
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e packages/surewrite -e packages/orchtrace -e 'packages/litcorpus[traces]'
	touch $(STAMP)

# What the tests, lint and bench add: the dev tools and orchtrace's extras (Ray among them).
DEV_STAMP := $(VENV)/.dev
$(DEV_STAMP): $(STAMP)
	$(BIN)/pip install --quiet -e packages/surewrite -e 'packages/orchtrace[otlp,runs,ray]' -e 'packages/litcorpus[traces]' --group dev
	touch $(DEV_STAMP)

install: $(STAMP) ## Create .venv and install the toolkit, what the main job needs (quick when done)

install-dev: $(DEV_STAMP) ## Add the test and lint tools and orchtrace's extras (Ray among them) to .venv

check: install ## Validate taxonomy, papers, exclusions and claims (warnings fail too)
	$(LITCORPUS) check --strict
	$(LITCORPUS) claims > /dev/null || $(LITCORPUS) claims

stats: check ## Validate, then write stats/ (tables, figures, stats.json, README.md)
	$(LITCORPUS) stats

readme: check ## Regenerate the awesome list between the markers in README.md
	$(LITCORPUS) readme

site: stats readme $(SITE_NODE) ## Build the static site into site/ (open site/index.html)
	$(LITCORPUS) site

serve: site ## Serve site/ on http://127.0.0.1:8000
	$(BIN)/python -m http.server 8000 --bind 127.0.0.1 --directory site

sysdeps: ## Install the system packages the tests run (as root, with apt-get), or name them
	@tests/sysdeps.sh

# What the site ships from npm (MiniSearch), pinned by package-lock.json; copied into site/.
$(SITE_NODE): package.json package-lock.json
	@tests/sysdeps.sh node npm
	npm ci --no-audit --no-fund --loglevel=error
	touch $(SITE_NODE)

$(NODE_STAMP): tests/awesome/package.json tests/awesome/package-lock.json | sysdeps
	cd tests/awesome && npm ci --no-audit --no-fund --loglevel=error
	touch $(NODE_STAMP)

# The Citation File Format 1.2.0 schema, as shipped inside cffconvert's wheel on PyPI.
$(CFF_SCHEMA): | $(STAMP)
	mkdir -p .cache/cffconvert
	$(BIN)/pip download --quiet --no-deps --dest .cache/cffconvert cffconvert==2.0.0
	$(BIN)/python -c "import sys, zipfile, glob; z = zipfile.ZipFile(glob.glob('.cache/cffconvert/*.whl')[0]); open(sys.argv[1], 'wb').write(z.read('cffconvert/schemas/1.2.0/schema.json'))" $(CFF_SCHEMA)

# TRL, for the tests that call its own reward path, on torch's CPU build: pinned, because pip
# takes 2.13.0 from the machine's wheel folder, while a newer release is a CUDA build of GBs.
TRAINERS_STAMP := $(VENV)/.trainers
$(TRAINERS_STAMP): $(DEV_STAMP)
	$(BIN)/pip install --quiet 'torch==2.13.0'
	$(BIN)/pip install --quiet --group trainers
	touch $(TRAINERS_STAMP)

# verl, for the test that runs its own reward manager on compute_score, in an environment of its
# own: it pins a transformers release that TRL's cannot import beside.
VERL_VENV := .venv-verl
VERL_STAMP := $(VERL_VENV)/.installed
$(VERL_STAMP):
	$(PY) -m venv $(VERL_VENV)
	$(VERL_VENV)/bin/python -m pip install --quiet 'torch==2.13.0'
	$(VERL_VENV)/bin/python -m pip install --quiet 'verl>=0.9,<0.10' 'msgspec>=0.18,<1' 'orjson>=3.9,<4'
	touch $(VERL_STAMP)

# The wheels the packages' install tests put into fresh environments (tests/test_packages.py):
# the three packages' dependencies with the otlp and runs extras, and what builds them.
WHEELHOUSE := .cache/wheelhouse/.done
$(WHEELHOUSE): $(PYPROJECTS) | $(STAMP)
	$(BIN)/pip download --quiet --dest .cache/wheelhouse 'setuptools>=77' wheel \
		./packages/surewrite './packages/orchtrace[otlp,runs]' ./packages/litcorpus
	touch $(WHEELHOUSE)

# What the tests need, made side by side: only the chain venv, dev tools, trainers writes into
# .venv, while verl's environment, the npm packages and the wheels are made beside it. The
# packages' bytecode is written once, for the hundreds of commands the tests run (where
# PYTHONDONTWRITEBYTECODE is set, each would compile them again). Then one worker per core and
# one more, since the tests partly wait on Chromium, commands and local servers (on two cores:
# 453 s with two workers, 399 s with three, 418 s with four); a test file stays in one worker,
# so its fixtures are built once.
TEST_NEEDS := $(DEV_STAMP) $(TRAINERS_STAMP) $(VERL_STAMP) $(NODE_STAMP) $(SITE_NODE) $(CFF_SCHEMA) $(WHEELHOUSE)
WORKERS := $(shell echo $$(( $$(nproc 2>/dev/null || echo 2) + 1 )))
test: sysdeps ## Run the test suite (browser tests use /usr/bin/chromium)
	@$(MAKE) --no-print-directory -j 4 $(TEST_NEEDS)
	@$(BIN)/python -m compileall -q packages/surewrite/src packages/orchtrace/src packages/litcorpus/src
	$(BIN)/pytest -n $(WORKERS) --dist loadfile --durations=10

golden: $(DEV_STAMP) $(SITE_NODE) ## Regenerate the golden files under tests/golden (review the diff)
	LITCORPUS_GOLDEN=update $(BIN)/pytest -q -k golden

lint: $(DEV_STAMP) ## Run ruff, mypy, the import contracts (import-linter) and actionlint on the workflows
	$(BIN)/ruff check packages tests conftest.py
	$(BIN)/ruff format --check packages tests conftest.py
	$(BIN)/mypy -p surewrite
	$(BIN)/mypy -p orchtrace
	$(BIN)/mypy -p litcorpus
	$(BIN)/lint-imports
	$(BIN)/actionlint .github/workflows/*.yml

bench: $(DEV_STAMP) $(SITE_NODE) ## Time check/stats/site at 84 to 100,000 entries, orchtrace on 1M events and run tables of 100,000 rollouts
	$(BIN)/python tests/bench/run.py

clean: ## Remove the virtual environment and caches
	rm -rf $(VENV) $(VERL_VENV) .pytest_cache .mypy_cache .ruff_cache
