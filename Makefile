# The two commands of the README: `make run` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: run test test-fast lint bench clean

$(BIN)/companion: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

## Set up and run the companion on its embedded default (demo mode).
run: $(BIN)/companion
	$(BIN)/companion

## Set up and run the whole test suite: lint, types, tests (slow ones included).
test: $(BIN)/companion lint
	$(BIN)/pytest -n 2 -q

## Skip the slow playouts and dataset runs while developing.
test-fast: $(BIN)/companion lint
	$(BIN)/pytest -n 2 -q -m 'not slow'

lint: $(BIN)/companion
	$(BIN)/ruff check .
	$(BIN)/mypy companion hardware vision web

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
