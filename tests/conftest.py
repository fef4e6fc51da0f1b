"""Shared fixtures: bundled robots and random configurations."""

from __future__ import annotations

import numpy as np
import pytest

import taskik


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


@pytest.fixture
def rng():
    return np.random.default_rng(20261121)
