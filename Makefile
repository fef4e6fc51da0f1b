PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip

.PHONY: demo test lint bench docs chromium clean

$(VENV)/bin/activate:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

$(VENV)/.installed: $(VENV)/bin/activate pyproject.toml
	$(PIP) install --quiet -e .
	touch $@

$(VENV)/.installed-dev: $(VENV)/.installed pyproject.toml
	$(PIP) install --quiet -e ".[dev,viewer,plot,docs]"
	touch $@

$(VENV)/.installed-docs: $(VENV)/.installed pyproject.toml
	$(PIP) install --quiet -e ".[docs]"
	touch $@

$(VENV)/.installed-bench: $(VENV)/.installed pyproject.toml
	$(PIP) install --quiet -e ".[bench,robots]"
	touch $@

demo: $(VENV)/.installed
	$(PY) examples/demo.py

# The viewer test loads the page in headless Chromium (Debian's package).
chromium:
	@command -v chromium >/dev/null || (apt-get update -qq && apt-get install -y -qq chromium)

test: $(VENV)/.installed-dev chromium
	$(PY) -m pytest

lint: $(VENV)/.installed-dev
	$(PY) -m ruff check taskik tests examples benchmarks
	$(PY) -m ruff format --check taskik tests examples benchmarks
	$(PY) -m mypy

bench: $(VENV)/.installed-bench
	$(PY) benchmarks/step_vs_pink.py

docs: $(VENV)/.installed-docs
	$(VENV)/bin/mkdocs build --strict --site-dir site

clean:
	rm -rf $(VENV) build *.egg-info
