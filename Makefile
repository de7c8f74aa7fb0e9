# The README's two commands are `make run` and `make test`; everything else is for developers.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# Raspberry Pi OS Bookworm ships these from apt (python3-opencv, python3-numpy, python3-pil):
# the vision and hardware code is tested against them too, in a second environment.
PI_VENV ?= .venv-pi
PI_PINS := numpy==1.24.4 opencv-python-headless==4.6.0.66 Pillow==9.4.0 threadpoolctl==3.1.0

.PHONY: run test test-fast test-pi-versions lint bench clean

$(BIN)/companion: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

$(PI_VENV)/bin/pytest: pyproject.toml Makefile
	$(PYTHON) -m venv $(PI_VENV)
	$(PI_VENV)/bin/pip install --quiet $(PI_PINS) onnxruntime segno gpiozero luma.oled pytest \
		pytest-xdist hypothesis
	$(PI_VENV)/bin/pip install --quiet --no-deps -e .
	touch $@

## Set up and run the companion on its embedded default (demo mode).
run: $(BIN)/companion
	$(BIN)/companion

## Set up and run the whole test suite: lint, types, tests (slow ones included), Pi versions.
test: lint $(PI_VENV)/bin/pytest
	$(BIN)/pytest -n 2
	$(MAKE) test-pi-versions

## The quick loop while developing: slow playouts and dataset runs skipped.
test-fast: lint
	$(BIN)/pytest -n 2 -m 'not slow'

## The vision and hardware tests on Raspberry Pi OS's OpenCV 4.6, NumPy 1.24 and Pillow 9.4.
test-pi-versions: $(PI_VENV)/bin/pytest
	$(PI_VENV)/bin/python -m pytest -n 2 -p no:cacheprovider tests/vision tests/hardware

lint: $(BIN)/companion
	$(BIN)/ruff check .
	$(BIN)/mypy companion hardware vision web

bench: $(BIN)/companion
	$(BIN)/python bench/rules_bench.py
	$(BIN)/python bench/vision_bench.py

clean:
	rm -rf $(VENV) $(PI_VENV) .mypy_cache .pytest_cache .ruff_cache
