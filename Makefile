# tankrl: `make train` sets up .venv and runs the main job; `make test` sets up and runs the tests.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.tankrl-installed

.PHONY: setup train test lint bench clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	# the CPU wheel first, so nothing pulls a CUDA build of torch
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

train: setup
	$(BIN)/tankrl train $(ARGS)

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy --strict -p tankrl.shared
	$(BIN)/mypy -p tankrl
	$(BIN)/mypy bench

test: lint
	$(BIN)/python -m pytest $(PYTEST_ARGS)

bench: setup
	for b in bench/*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache
