# tankrl: `make train` sets up .venv and runs the main job; `make test` sets up and runs the tests.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.tankrl-installed

.PHONY: setup train test lint bench soak clean

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

# Every benchmark with its default flags, one at a time; each one's stdout is kept in
# tmp/bench/NAME.txt (git-ignored) and bench/results.md is written from their last lines.
# A benchmark that fails stops it; a target not met does not (results.md says so).
bench: BENCHMARKS := native_env decision bot_turn learner_pass hosted server_ab time_to_skill
bench: SHELL := /bin/bash
bench: .SHELLFLAGS := -o pipefail -ec
bench: setup
	mkdir -p tmp/bench
	for b in $(BENCHMARKS); do \
		echo "== python -m bench.$$b"; \
		$(BIN)/python -u -m bench.$$b | tee tmp/bench/$$b.txt; \
	done
	$(BIN)/python -m bench.results

# The one-hour soak (`tankrl train` watched for growing memory and files); its figures join
# bench/results.md with the others'.
soak: SHELL := /bin/bash
soak: .SHELLFLAGS := -o pipefail -ec
soak: setup
	mkdir -p tmp/bench
	$(BIN)/python -u -m bench.soak $(ARGS) | tee tmp/bench/soak.txt
	$(BIN)/python -m bench.results

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache
