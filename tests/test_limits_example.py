"""examples/more_limits.py achieves what it shows (it also runs as a script in
tests/test_examples.py): each limit holds in its closed loop, the task is still met, and
without the limit the same loop breaks the bound (so the limit is what kept it)."""

import pytest
from test_examples import run_main


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    monkeypatch = pytest.MonkeyPatch()
    try:
        yield run_main("more_limits", monkeypatch, tmp_path_factory.mktemp("more_limits"))
    finally:
        monkeypatch.undo()


def test_acceleration_limit_ramps_the_ur5_speeds(results):
    r = results["ur5 acceleration"]
    # measured after 100 steps of 20 ms: 20 rad/s² (the cap, to rounding), 9e-14 mm
    assert r["max_acceleration"] <= r["a_max"] * (1 + 1e-6)
    assert r["max_acceleration"] >= 0.99 * r["a_max"]  # the cap is what bounds the ramp
    assert r["tool_error_mm"] < 1e-3
    # without it the first step jumps to the velocity limit: 314 rad/s² (6.28 rad/s in 20 ms)
    assert r["max_acceleration_without"] > 10 * r["a_max"]


def test_base_velocity_limit_caps_the_humanoid_base(results):
    r = results["humanoid base"]
    cap = r["base_speed_cap"]
    # measured after 100 steps: 0.5 m/s and 0.5 rad/s, 0.956 m travelled, hand 1.25 mm off
    assert r["max_base_speed"] <= cap * (1 + 1e-6)
    assert r["max_base_turn_rate"] <= cap * (1 + 1e-6)
    assert r["max_base_speed"] >= 0.95 * cap  # the base did walk at the cap
    assert 0.8 <= r["base_travel_m"] <= cap * 100 * 0.02 * (1 + 1e-6)
    assert r["hand_error_mm"] < 5.0
    # without it: 51.9 m/s and 46.6 rad/s in the first steps
    assert r["max_base_speed_without"] > 20 * cap
    assert r["max_base_turn_rate_without"] > 20 * cap


def test_frozen_joints_do_not_move_while_the_others_reach(results):
    r = results["panda frozen"]
    assert r["frozen_joints_motion_rad"] == 0.0  # a hard box [0, 0]: not one step moves them
    assert r["free_joints_motion_rad"] > 0.1  # measured 0.494 rad
    assert r["hand_error_mm"] < 1e-3  # two joints suffice for a point in their plane
    assert r["frozen_joints_motion_without_rad"] > 0.1  # measured 0.594 rad
