# Targets install what they need first; `make` is the main job, `make test` the test suite.
PY      ?= python3
VENV    := .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.installed
LITCORPUS := $(BIN)/litcorpus

.DEFAULT_GOAL := all
.PHONY: all help install check stats test golden lint clean

all: stats ## Install, validate the corpus, write stats/

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F ':.*## ' '{printf "  %-10s %s\n", $$1, $$2}'

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP) ## Create .venv and install the toolkit with its dev extras (quick when done)

check: install ## Validate taxonomy, papers, exclusions and claims (warnings fail too)
	$(LITCORPUS) check --strict
	$(LITCORPUS) claims > /dev/null || $(LITCORPUS) claims

stats: check ## Validate, then write stats/ (tables, figures, stats.json, README.md)
	$(LITCORPUS) stats

test: install ## Run the test suite
	$(BIN)/pytest

golden: install ## Regenerate the golden files under tests/golden (review the diff)
	LITCORPUS_GOLDEN=update $(BIN)/pytest -q -k golden

lint: install ## Run ruff and mypy
	$(BIN)/ruff check scripts tests
	$(BIN)/ruff format --check scripts tests
	$(BIN)/mypy

clean: ## Remove the virtual environment and caches
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
