"""Shared fixtures: bundled robots and random configurations; Hypothesis profiles."""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import settings

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


#: The files that take longest (a full run on two workers, 2026-11: examples run as scripts,
#: the fuzz run, Ray's nodes, a browser, the docs build, long closed loops), longest first.
#: They are collected first; with ``--dist loadfile --no-loadscope-reorder`` (pyproject's
#: addopts) the workers take whole files in this order, so that the last files to finish are
#: short ones and no worker waits long for another (xdist's own order, by number of tests,
#: would leave a few-test long file such as test_batch_ray.py to the end). The order of the
#: tests within a file, and what any test does, are unchanged.
SLOW_FILES_FIRST = (
    "test_examples.py", "test_balance_combined.py", "test_fuzz.py",
    "test_readme_and_examples.py", "test_limits_collision.py", "test_balance.py",
    "test_viewer.py", "test_limits_collision_holes.py", "test_batch_ray.py", "test_batch.py",
    "test_limits_collision_lazy.py", "test_geometry_broadphase.py", "test_docs.py",
    "test_packaging.py", "test_retarget_many.py", "test_retarget.py", "test_cli.py",
    "test_batch_store.py", "test_geometry_advancement.py", "test_geometry.py",
    "test_backends_joint_limit_map.py", "test_hierarchy.py", "test_trust_region.py",
    "test_pink_idioms.py", "test_posture.py", "test_limits_collision_gaps.py",
    "test_mjcf_mirror.py", "test_batch_cli.py",
)  # fmt: skip


def pytest_collection_modifyitems(config, items):
    rank = {name: i for i, name in enumerate(SLOW_FILES_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # (stable: file order kept)


@pytest.fixture(scope="session")
def ur5():
    return taskik.robots.load("ur5")


@pytest.fixture(scope="session")
def panda():
    return taskik.robots.load("panda")


@pytest.fixture(scope="session")
def humanoid():
    return taskik.robots.load("humanoid")


@pytest.fixture(scope="session")
def planar_2r():
    return taskik.robots.load("planar_2r")


@pytest.fixture(scope="session")
def talos():
    """example-robot-data's Talos, loaded once per test process (a load parses its meshes:
    about 3 s). Shared: a test that changes its model or arrays works on a copy."""
    return taskik.robots.load("talos")


@pytest.fixture
def rng():
    return np.random.default_rng(20261121)
