"""Shared fixtures: bundled robots and random configurations; Hypothesis profiles."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import numpy as np
import pytest
from hypothesis import settings

if TYPE_CHECKING:
    import taskik

# Hypothesis: "ci" replays the same examples on every run (derandomized, no example
# database, no deadline: shared runners are slow); "dev" draws new examples on every local
# run. CI picks "ci" when the CI variable is set; HYPOTHESIS_PROFILE overrides either way.
# Both start from Hypothesis's defaults, not from whatever profile it loaded on its own.
_defaults = settings.get_profile("default")
settings.register_profile(
    "ci", _defaults, derandomize=True, database=None, deadline=None, print_blob=True
)
settings.register_profile("dev", _defaults, derandomize=False, deadline=None)
settings.load_profile(
    os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev")
)


#: Seconds each long file took (the sum of its tests' setup, call and teardown) in a whole run
#: on two workers of a fresh clone (no .mypy_cache: mypy checks the package from scratch, as
#: on CI), 2026-11-27, on a loaded machine (the suite had 1.2 cores of the two): only their
#: order matters. Re-measure with ``pytest -n 2 --dist loadfile --file-seconds`` (it prints
#: this table: the files of 3 s or more). The files are collected longest first and, with
#: ``--dist loadfile`` (the Makefile's), the workers take whole files in that order
#: (:func:`pytest_configure` keeps xdist from reordering them by number of tests, which would
#: leave a long file of few tests, such as test_lint.py or test_batch_ray.py, to the end while
#: the other worker idles). A file not listed counts as 0 s: it runs after the listed ones, in
#: the collection's order. The order of the tests within a file, and what any test does, are
#: unchanged. (test_batch_ray.py: measured with ray[default]'s packages installed; with the
#: dev extra's plain ray an earlier run took 0.85 of that: still the longest file.)
FILE_SECONDS = {
    "test_batch_ray.py": 45.3, "test_viewer.py": 38.3, "test_examples.py": 32.5,
    "test_fuzz.py": 30.1, "test_lint.py": 27.6, "test_batch.py": 26.6, "test_docs.py": 25.3,
    "test_packaging.py": 23.2, "test_limits_collision.py": 23.0, "test_cli.py": 17.4,
    "test_retarget.py": 17.2, "test_batch_store.py": 16.6, "test_retarget_many.py": 16.4,
    "test_geometry_broadphase.py": 13.7, "test_balance_combined.py": 13.4,
    "test_geometry_advancement.py": 8.4, "test_hierarchy.py": 7.9,
    "test_backends_joint_limit_map.py": 7.6, "test_posture.py": 7.6, "test_pink_idioms.py": 7.5,
    "test_balance.py": 7.3, "test_readme_and_examples.py": 7.1, "test_trust_region.py": 5.2,
    "test_limits_collision_holes.py": 4.7, "test_plots.py": 4.7, "test_limits.py": 4.6,
    "test_mjcf_mirror.py": 4.6, "test_geometry_views.py": 4.5, "test_robots_cache.py": 4.2,
    "test_coming_from_pink.py": 4.0, "test_batch_engine.py": 3.7,
    "test_limits_collision_lazy.py": 3.6, "test_limits_collision_gaps.py": 3.5,
}  # fmt: skip


def pytest_addoption(parser):
    parser.addoption(
        "--file-seconds",
        action="store_true",
        help="print the seconds each test file took, as conftest.FILE_SECONDS lists them",
    )


def pytest_configure(config):
    # xdist's loadfile scheduler sorts the files by number of tests unless told not to; the
    # option exists only where xdist is installed (pytest -p no:xdist runs without it)
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False


def pytest_collection_modifyitems(config, items):
    items.sort(key=lambda item: -FILE_SECONDS.get(item.path.name, 0.0))  # (stable)


#: This run's seconds per file (on xdist's controller, from the workers' reports).
_RUN_SECONDS: dict[str, float] = {}


def pytest_runtest_logreport(report):
    name = report.nodeid.split("::")[0].rsplit("/", 1)[-1]
    _RUN_SECONDS[name] = _RUN_SECONDS.get(name, 0.0) + report.duration


def pytest_terminal_summary(terminalreporter, config):
    if config.getoption("file_seconds"):
        terminalreporter.write_line("FILE_SECONDS = {")
        for name, seconds in sorted(_RUN_SECONDS.items(), key=lambda kv: -kv[1]):
            if seconds >= 3.0:
                terminalreporter.write_line(f'    "{name}": {seconds:.1f},')
        terminalreporter.write_line("}")


def _robots():
    """``taskik.robots``, imported when a fixture first needs it: xdist's controller, which
    runs no test, imports this file too, and taskik costs it about 2 s of CPU while the
    workers start (the test modules import taskik in the workers anyway)."""
    import taskik.robots

    return taskik.robots


@pytest.fixture(scope="session")
def ur5() -> taskik.robots.Robot:
    return _robots().load("ur5")


@pytest.fixture(scope="session")
def panda() -> taskik.robots.Robot:
    return _robots().load("panda")


@pytest.fixture(scope="session")
def humanoid() -> taskik.robots.Robot:
    return _robots().load("humanoid")


@pytest.fixture(scope="session")
def planar_2r() -> taskik.robots.Robot:
    return _robots().load("planar_2r")


@pytest.fixture(scope="session")
def talos() -> taskik.robots.Robot:
    """example-robot-data's Talos, loaded once per test process (a copy of the process's
    parse, which taskik.robots.load keeps). Shared: a test that changes its model or arrays
    works on a copy."""
    return _robots().load("talos")


@pytest.fixture
def rng():
    return np.random.default_rng(20261121)
