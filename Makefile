PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip

.PHONY: demo test lint bench bench-peers docs images dist clean mutate

# Packages go in with uv (installed into the venv itself, nothing global): it fetches and
# unpacks in parallel, about 5x faster than pip for the test environment. Where uv cannot be
# had, pip does the same install. uv's cache stays inside the venv, like everything else.
UV_VERSION := uv>=0.5,<1
INSTALL = UV_CACHE_DIR=$(VENV)/.uv-cache $(PY) -m uv pip install --quiet --python $(PY)

$(VENV)/bin/activate:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet "$(UV_VERSION)" || $(PIP) install --quiet --upgrade pip

$(VENV)/.installed: $(VENV)/bin/activate pyproject.toml
	$(INSTALL) -e . || $(PIP) install --quiet -e .
	touch $@

# One install for the test environment (one resolve, one editable build of taskik): it holds
# what `-e .` installs, so it stamps that too (`make demo` alone still installs only `-e .`).
$(VENV)/.installed-dev: $(VENV)/bin/activate pyproject.toml
	$(INSTALL) -e ".[dev,viewer,plot,docs]" || $(PIP) install --quiet -e ".[dev,viewer,plot,docs]"
	touch $(VENV)/.installed $@

$(VENV)/.installed-docs: $(VENV)/.installed pyproject.toml
	$(INSTALL) -e ".[docs]" || $(PIP) install --quiet -e ".[docs]"
	touch $@

$(VENV)/.installed-bench: $(VENV)/.installed pyproject.toml
	$(INSTALL) -e ".[bench,robots]" || $(PIP) install --quiet -e ".[bench,robots]"
	touch $@

$(VENV)/.installed-mutate: $(VENV)/.installed pyproject.toml
	$(INSTALL) -e ".[dev,mutate]" || $(PIP) install --quiet -e ".[dev,mutate]"
	touch $@

demo: $(VENV)/.installed
	$(PY) examples/demo.py

# Changes nothing outside the repository. The viewer's browser test needs a headless Chromium
# (`sudo apt-get install chromium` on Debian): without one it is skipped, and the test summary
# says so. .ci/run installs it on the CI machine.
test: $(VENV)/.installed-dev
	$(PY) -m pytest -n auto --dist loadfile

lint: $(VENV)/.installed-dev
	$(PY) -m ruff check taskik tests examples benchmarks scripts docs/_hooks
	$(PY) -m ruff format --check taskik tests examples benchmarks scripts docs/_hooks
	$(PY) -m mypy

bench: $(VENV)/.installed-bench
	$(PY) benchmarks/step_vs_pink.py

# The compiled peers of benchmarks/step_compiled_peers.py, one environment each in the
# repository (.venv-peers-placo, ...-oink, ...-tsid, ...-embodik: taskik editable with
# example-robot-data, plus the peer from PyPI), since they pin different Pinocchio builds.
# None of them is a dependency of taskik, and `make test` uses none of them. placo 0.10 pins
# pin 3.8, which example-robot-data 5 does not load (it needs pin 4): its environment takes
# example-robot-data 4. tsid 1.10's wheel needs libtsid 1.10, which PyPI has only as source
# (a long C++ build): tsid 1.7.1, whose wheel is whole, built against pin 3.4.0 and the
# urdfdom 4 / tinyxml2 10 that pin 3.4 links, with example-robot-data 4 too. Its version does
# not matter to the scenes: the script runs in .venv (example-robot-data 5, as the other
# step benchmarks) and gives every peer's process the robots' files from there.
PYPI_ERD4 := "example-robot-data<5" "example-robot-data-loaders<5"
PEER_PACKAGES_placo := placo $(PYPI_ERD4)
PEER_PACKAGES_oink := roboplan-oink
PEER_PACKAGES_tsid := "tsid==1.7.1" "pin==3.4.0" "cmeel-urdfdom<5" "cmeel-tinyxml2<11" $(PYPI_ERD4)
PEER_PACKAGES_embodik := embodik
PEERS := placo oink tsid embodik

.venv-peers-%/.installed: pyproject.toml
	$(PYTHON) -m venv .venv-peers-$*
	.venv-peers-$*/bin/python -m pip install --quiet --upgrade pip
	.venv-peers-$*/bin/python -m pip install --quiet -e ".[robots]" $(PEER_PACKAGES_$*)
	touch $@

$(VENV)/.installed-robots: $(VENV)/.installed pyproject.toml
	$(INSTALL) -e ".[robots]" || $(PIP) install --quiet -e ".[robots]"
	touch $@

# A peer that fails to install is left out (the script's results say which and why).
bench-peers: $(VENV)/.installed-robots
	-for p in $(PEERS); do $(MAKE) .venv-peers-$$p/.installed; done
	$(PY) benchmarks/step_compiled_peers.py

docs: $(VENV)/.installed-docs
	$(VENV)/bin/mkdocs build --strict --site-dir site

# The documentation's pictures (docs/images/), made from the code; the viewer's screenshot
# needs a headless Chromium and is kept as it is without one.
images: $(VENV)/.installed-dev
	$(PY) scripts/docs_images.py

# An sdist and a wheel in dist/ (python -m build)
dist: $(VENV)/.installed-dev
	$(PY) -m build --outdir dist

# Mutation testing (mutmut, not part of `make test`; see docs/mutation.md). It runs on a copy
# of the tree in $(MUTATE_DIR)/ so the working tree is never mutated. Per mutant, mutmut runs
# only the tests that execute the mutated function. `make mutate MUTANTS='taskik.tasks.*'`
# runs a subset (mutant names are module.function__mutmut_N, shell-style patterns);
# MUTATE_DIR=.mutate-x MUTATE_JOBS=1 runs a second copy beside the first, on one core.
MUTATE_DIR ?= .mutate
MUTATE_JOBS ?= 2
# (validation.py and nullspace.py were split out of problem.py and hierarchy.py)
MUTATE_SOURCES := taskik/problem.py taskik/validation.py taskik/solve.py taskik/hierarchy.py \
	taskik/nullspace.py taskik/tasks/* taskik/limits/* taskik/backends/*
MUTATE_TESTS := tests/test_problem.py tests/test_tasks.py tests/test_limits.py \
	tests/test_backends_*.py tests/test_hierarchy.py tests/test_solve.py \
	tests/test_configuration.py tests/test_steps.py tests/test_robots.py \
	tests/test_bad_input.py tests/test_limits_*.py tests/test_tasks_*.py tests/test_*_gaps.py \
	tests/test_plan_cache.py tests/test_trust_region.py tests/test_hierarchy_rest.py \
	tests/test_coming_from_pink.py
MUTANTS ?=
define MUTATE_SCORE
import collections, glob, json
done = collections.Counter()
total = collections.Counter()
alive = []
for meta in sorted(glob.glob("mutants/taskik/**/*.py.meta", recursive=True)):
    module = meta[len("mutants/"):-len(".meta")]
    for name, code in json.load(open(meta))["exit_code_by_key"].items():
        if code is None:
            continue  # not run (a MUTANTS subset)
        total[module] += 1
        if code not in (0, 5, 33, 34, 35):  # test failure, crash or timeout: killed
            done[module] += 1
        else:
            alive.append(name)
for module in sorted(total):
    print(f"{module:36s} {done[module]:5d} / {total[module]:5d}  {100 * done[module] / total[module]:5.1f} %")
n, k = sum(total.values()), sum(done.values())
print(f"{'overall':36s} {k:5d} / {n:5d}  {100 * k / max(n, 1):5.1f} %")
open("alive.txt", "w").write("".join(a + "\n" for a in alive))
print(f"{len(alive)} mutants not killed: $(MUTATE_DIR)/alive.txt (`mutmut show NAME` in $(MUTATE_DIR))")
endef
export MUTATE_SCORE

mutate: $(VENV)/.installed-mutate
	rm -rf $(MUTATE_DIR) && mkdir -p $(MUTATE_DIR)
	cp -r taskik tests examples docs $(MUTATE_DIR)/
	printf '%s\n' '[mutmut]' 'source_paths = taskik/' 'also_copy =' '    examples/' '    docs/' \
		'do_not_mutate_patterns = ^\s*raise\b' 'only_mutate =' \
		$(foreach s,$(MUTATE_SOURCES),'    $(s)') 'pytest_add_cli_args_test_selection =' \
		$(foreach t,$(wildcard $(MUTATE_TESTS)),'    $(t)') > $(MUTATE_DIR)/setup.cfg
	cd $(MUTATE_DIR) && HYPOTHESIS_PROFILE=ci ../$(VENV)/bin/mutmut run --max-children $(MUTATE_JOBS) $(MUTANTS) \
		| tr '\r' '\n' | tail -n 2
	cd $(MUTATE_DIR) && ../$(PY) -c "$$MUTATE_SCORE"

clean:
	rm -rf $(VENV) build dist site *.egg-info
