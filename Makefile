# Every target does its own set-up from a fresh clone: a virtual environment, the CPU build of
# torch 2.13 (installed first, so no CUDA build is pulled), then the project with its test extras.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: install test demo bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet torch==2.13.0
	$(PY) -m pip install --quiet -e ".[test]"
	touch $(STAMP)

install: $(STAMP)

test: $(STAMP)
	$(PY) -m pytest -n 2 --dist loadfile -q

demo: $(STAMP)
	$(PY) examples/digits.py

bench: $(STAMP)
	for f in benchmarks/*.py; do echo "== $$f"; $(PY) $$f || exit 1; done

clean:
	rm -rf $(VENV) lightning_logs
