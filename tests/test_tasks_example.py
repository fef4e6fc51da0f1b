"""examples/more_tasks.py achieves what it shows (it also runs as a script in
tests/test_examples.py)."""

from test_examples import run_main


def test_more_tasks_example_meets_every_task(monkeypatch, tmp_path):
    r = run_main("more_tasks", monkeypatch, tmp_path)
    panda, humanoid = r["panda"], r["humanoid"]
    # measured after 40 steps: 1.1e-7 mm, 0 rad (from 0.278), 7e-15 rad
    assert panda["hand_error_mm"] < 1e-3
    assert panda["start_axis_rad"] > 0.25 and panda["axis_error_rad"] < 1e-4
    assert panda["worst_cone_rad"] < 0.35  # never left the cone
    assert panda["gear_error_rad"] < 1e-6
    assert panda["manipulability_ratio"] >= 1.0 - 1e-6  # measured 1.49
    # levels: every level met (measured 2e-13 mm and 0 rad)
    assert humanoid["feet_error_mm"] < 1e-3 and humanoid["com_error_mm"] < 1e-3
    assert humanoid["hands_error_mm"] < 1e-3 and humanoid["gaze_error_rad"] < 1e-4
