# Every target does its own set-up from a fresh clone: a virtual environment, the CPU build of
# torch 2.13 (installed first, so no CUDA build is pulled), then the project with its test extras.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

# The floor: the oldest supported Python, torch and lightning (.ci/floor.txt) in their own
# environment. torch from the package index is the CUDA build (about 5 GB installed); it runs on the CPU.
FLOOR_VENV ?= .venv-floor
FLOOR_PY := $(FLOOR_VENV)/bin/python
FLOOR_STAMP := $(FLOOR_VENV)/.installed
# What CI runs on the floor: the version-sensitive part of the suite (the Lightning integration,
# DDP and resume, the distributed core, TorchScript, autograd and collection parity, the examples,
# half-precision image filters), within CI's time budget; `make test-floor FLOOR_TESTS=` runs it all.
FLOOR_TESTS ?= tests/integration tests/examples tests/test_distributed.py tests/reliability/test_distributed_faults.py \
	tests/test_versions.py tests/test_scripting.py tests/test_parity_behaviour.py tests/test_collection_parity.py \
	tests/test_metric.py tests/test_collection.py tests/image/test_functional_parity.py
FLOOR_PYTHON ?= $(or $(lastword $(sort $(wildcard $(HOME)/.pyenv/versions/3.10.*/bin/python3))),$(shell command -v python3.10))

# `make test-quick`: the core and the Lightning integration, about a third of `make test`'s time
QUICK_TESTS ?= tests/integration tests/test_metric.py tests/test_collection.py tests/test_plotting.py \
	tests/test_plot_figures.py tests/test_public_api.py

.PHONY: install test test-quick floor-python install-floor test-floor demo bench clean
.DEFAULT_GOAL := install

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet torch==2.13.0
	$(PY) -m pip install --quiet -e ".[test]"
	touch $(STAMP)

install: $(STAMP)
	@echo "The environment is $(VENV): \`source $(VENV)/bin/activate\` to use it, or start commands with $(VENV)/bin/ ($(VENV)/bin/python, $(VENV)/bin/tensorboard)."

test: $(STAMP)
	@echo "make test: the whole suite with 2 workers, about 12 minutes on 2 cores (make test-quick: the core and the Lightning integration, about 2-3 minutes)"
	$(PY) -m pytest -n 2 --dist loadfile -q

test-quick: $(STAMP)
	@echo "make test-quick: the core and the Lightning integration with 2 workers, about 2-3 minutes on 2 cores (make test: everything)"
	$(PY) -m pytest -n 2 --dist loadfile -q $(QUICK_TESTS)

$(FLOOR_STAMP): pyproject.toml .ci/floor.txt
	@test -n "$(FLOOR_PYTHON)" || { echo "make test-floor: no Python 3.10 (none under ~/.pyenv/versions, no python3.10 on PATH); name one with FLOOR_PYTHON=/path/to/python3.10" >&2; exit 2; }
	rm -rf $(FLOOR_VENV)
	$(FLOOR_PYTHON) -m venv $(FLOOR_VENV)
	$(FLOOR_PY) -m pip install --quiet -c .ci/floor.txt -e ".[test]"
	touch $(FLOOR_STAMP)

floor-python:
	@echo "$(FLOOR_PYTHON)"

install-floor: $(FLOOR_STAMP)

test-floor: $(FLOOR_STAMP)
	@$(FLOOR_PY) -c "import sys, torch, lightning, pytorch_lightning, torchmetrics; print('floor: Python', sys.version.split()[0], '| torch', torch.__version__, '| lightning', lightning.__version__, '| pytorch_lightning', pytorch_lightning.__version__, '| torchmetrics', torchmetrics.__version__)"
	LIGHTNING_METRICS_FLOOR=1 $(FLOOR_PY) -m pytest -n 2 --dist loadfile -q $(FLOOR_TESTS)

demo: $(STAMP)
	$(PY) examples/digits.py

bench: $(STAMP)
	for f in benchmarks/*.py; do echo "== $$f"; $(PY) $$f || exit 1; done

clean:
	rm -rf $(VENV) $(FLOOR_VENV) lightning_logs
