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
