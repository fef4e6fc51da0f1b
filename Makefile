PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip

.PHONY: demo test lint bench clean

$(VENV)/bin/activate:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

$(VENV)/.installed: $(VENV)/bin/activate pyproject.toml
	$(PIP) install --quiet -e .
	touch $@

$(VENV)/.installed-dev: $(VENV)/.installed pyproject.toml
	$(PIP) install --quiet -e ".[dev]"
	touch $@

$(VENV)/.installed-bench: $(VENV)/.installed pyproject.toml
	$(PIP) install --quiet -e ".[bench,robots]"
	touch $@

demo: $(VENV)/.installed
	$(PY) examples/demo.py

test: $(VENV)/.installed-dev
	$(PY) -m pytest

lint: $(VENV)/.installed-dev
	$(PY) -m ruff check taskik tests examples benchmarks
	$(PY) -m ruff format --check taskik tests examples benchmarks

bench: $(VENV)/.installed-bench
	$(PY) benchmarks/step_vs_pink.py

clean:
	rm -rf $(VENV) build *.egg-info
