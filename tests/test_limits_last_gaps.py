"""Limits: the collision damper's rule for pairs inside the buffer and inside the safety
distance, the message of a velocity-cap vector of the wrong length, and the work a step
does for the built-in limits (no per-step checks of their rows, no copy of q)."""

from __future__ import annotations

import numpy as np
import pytest

import taskik
import taskik.problem
from taskik import geometry
from taskik.exceptions import InvalidInput
from taskik.limits.base_velocity import BaseVelocityLimit
from taskik.limits.collision import CollisionLimit

DT = 0.01


def ur5_facing(kind: str, gap: float):
    """The UR5 at q0 with a sphere or a cube (16 cm) placed along +y from its tool so that
    the last link is ``gap`` from it. Returns ``(configuration, limit, name of that pair)``."""
    robot = taskik.robots.load("ur5")
    conf = robot.configuration()
    # at 0.2 m along +y the obstacle is 0.07 m from the last link, along y
    centre = conf.get_transform_frame_to_world("tool0").translation + [0.0, 0.13 + gap, 0.0]
    make = geometry.sphere if kind == "sphere" else geometry.box
    size = 0.08 if kind == "sphere" else [0.16, 0.16, 0.16]
    obstacle = make("obstacle", size, centre)
    limit = CollisionLimit(robot, obstacles=[obstacle], self_collision=False)
    return conf, limit, "wrist_3_joint_link / obstacle"


def rows_of(limit: CollisionLimit, conf: taskik.Configuration, pair: str):
    """``(distance, lever, h of its rows)`` of one pair at this configuration."""
    near = limit.distances(conf)
    k = [limit.scene.names[p] for p in near.pairs].index(pair)
    _, h = limit.compute_inequalities(conf, DT)
    own = [i for i, name in enumerate(limit.row_names()) if name == pair]
    return float(near.distance[k]), float(near.lever[k]), h[own]


def test_a_sphere_pair_inside_the_buffer_is_pushed_out_to_the_buffer():
    """A point contact (a sphere: no tilt rows) between d_s and d_s + buffer gets its damper
    row ``k (d − d_s − buffer) < 0``: it moves apart, it is not held where it is."""
    conf, limit, pair = ur5_facing("sphere", 0.011)
    d, lever, h = rows_of(limit, conf, pair)
    assert lever == 0.0
    assert limit.safety_distance < d < limit.safety_distance + limit.buffer
    assert len(h) == 1  # the damper row alone
    expected = limit.rate(DT) * (d - limit.safety_distance - limit.buffer)
    assert expected < 0.0
    assert h[0] == pytest.approx(expected, rel=1e-9)


def test_a_face_contact_inside_the_buffer_is_held_with_its_tilt_rows():
    """A face contact (a box: lever > 0) between d_s and d_s + buffer is held: its damper row
    and its four tilt rows all have h = 0."""
    conf, limit, pair = ur5_facing("box", 0.011)
    d, lever, h = rows_of(limit, conf, pair)
    assert lever > 0.0
    assert limit.safety_distance < d < limit.safety_distance + limit.buffer
    assert len(h) == 5 and np.all(h == 0.0)


def test_a_face_contact_closer_than_the_safety_distance_is_pushed_out_and_held_by_its_tilt():
    """Closer than d_s a face contact's damper row asks it to separate:
    ``h = max(k (d − d_s − buffer), −min(ξ, reach)) < 0``, not a hold at 0; its four tilt
    rows hold it (h = 0 with a still obstacle): turning the face may not bring another of its
    points nearer while the closest one moves out."""
    conf, limit, pair = ur5_facing("box", 0.005)
    d, lever, h = rows_of(limit, conf, pair)
    assert lever > 0.0 and 0.0 < d < limit.safety_distance
    assert len(h) == 5
    assert h[0] == pytest.approx(limit.rate(DT) * (d - limit.safety_distance - limit.buffer))
    assert h[0] < -0.05
    assert np.all(h[1:] == 0.0)
    # every pair of this scene is inside d_s (two links penetrate the box): each damper row
    # asks its pair to separate
    _, h_all = limit.compute_inequalities(conf, DT)
    pairs = len(limit.distances(conf).pairs)
    assert np.all(h_all[:pairs] < 0.0)
    assert np.all(h_all[pairs:] == 0.0)


@pytest.mark.parametrize("caps", [[1.0, 2.0], np.ones(7)])
def test_a_cap_vector_of_the_wrong_length_is_quoted_as_given(ur5, caps):
    """The message quotes the vector given and nothing after it (numbers of the right kind:
    there is no other reason to give)."""
    with pytest.raises(InvalidInput) as caught:
        taskik.VelocityLimit(ur5.model, caps)
    message = str(caught.value)
    assert "vector of nv = 6 velocity caps or a mapping" in message
    assert message.endswith(f"got {caps!r}")


def test_the_base_velocity_rows_are_not_checked_again_at_every_step(humanoid, monkeypatch):
    """BaseVelocityLimit's rows are well formed by construction: the assembler does not
    check them at each step (a limit of one's own is checked)."""
    checked: list[str] = []
    real = taskik.problem.check_rows

    def counting(lim, rows, nv):
        checked.append(lim.name)
        return real(lim, rows, nv)

    monkeypatch.setattr(taskik.problem, "check_rows", counting)
    limit = BaseVelocityLimit(humanoid.model, linear=0.4, angular=0.6, shape="norm")
    assert limit.well_formed is True
    conf = humanoid.configuration()
    posture = taskik.PostureTask(1.0)
    posture.set_target(humanoid.q0)
    for _ in range(2):
        taskik.solve_ik(conf, [posture], DT, [limit])
    assert checked == []

    class OwnRows(taskik.Limit):
        name = "own rows"

        def compute_inequalities(self, configuration, dt):
            return np.zeros((1, humanoid.model.nv)), np.ones(1)

    taskik.solve_ik(conf, [posture], DT, [limit, OwnRows()])
    assert checked == ["own rows"]


class _NoIndexing(np.ndarray):
    """A q that records every indexing (a copy of some of its entries)."""

    reads: list[object]

    def __getitem__(self, key):
        self.reads.append(key)
        return super().__getitem__(key)


def test_the_position_box_reads_q_as_is_when_every_joint_has_a_range(ur5):
    """When every coordinate of q has a range (the UR5), the box is computed from q itself:
    q is not indexed (copied) at each step."""
    limit = taskik.ConfigurationLimit(ur5.model)
    assert np.array_equal(limit.q_indices, np.arange(ur5.model.nq))
    conf = ur5.configuration()
    q = conf.q.copy().view(_NoIndexing)
    q.reads = []

    class Conf:  # what compute_stacked_box reads of a configuration
        pass

    view = Conf()
    view.q = q
    idx, bounds = limit.compute_stacked_box(view, DT)
    assert q.reads == []
    expected = limit.gain / DT * (np.vstack([limit.q_min, limit.q_max]) - conf.q)
    np.testing.assert_allclose(np.asarray(bounds), expected)
    assert np.array_equal(np.arange(ur5.model.nv)[idx], np.arange(6))


def test_a_face_contact_exactly_at_the_safety_distance_is_held_not_pushed():
    """``d = d_s`` is inside the buffer (``d_s ≤ d < d_s + buffer``), not closer than
    ``d_s``: the face contact keeps its four tilt rows and is held (h = 0)."""
    conf, probe, pair = ur5_facing("box", 0.011)
    for _ in range(3):  # the distance query settles (warm start) after the first call
        d = float(probe.distances(conf).distance[-1])
    robot = taskik.robots.load("ur5")
    limit = CollisionLimit(
        robot, obstacles=probe.obstacles, self_collision=False, safety_distance=d
    )
    for _ in range(2):
        limit.distances(conf)
    names = [limit.scene.names[p] for p in limit.distances(conf).pairs]
    if limit.distances(conf).distance[names.index(pair)] != limit.safety_distance:
        pytest.skip("the distance query does not repeat its value to the last bit here")
    distance, lever, h = rows_of(limit, conf, pair)
    assert distance == limit.safety_distance and lever > 0.0
    assert len(h) == 5 and np.all(h == 0.0)


def test_a_step_whose_cap_equals_the_damper_rate_is_a_short_step(ur5):
    """``gain / dt`` equal to the damper rate (1/s here, exactly) does not cap ``k``: the
    step is a short one, with rows for the pairs within ``d_i`` (widened by how far the
    velocity box lets a pair approach in the step: here, in half a second, every pair) and
    tilt rows; a longer step watches every pair, without tilt rows."""
    conf = ur5.configuration()
    centre = conf.get_transform_frame_to_world("tool0").translation + [0.0, 0.33, 0.0]
    box = geometry.box("block", [0.16, 0.16, 0.16], centre)
    limit = CollisionLimit(
        ur5,
        obstacles=[box],
        self_collision=False,
        safety_distance=0.0,
        buffer=0.0,
        detection_distance=0.125,
        speed=0.125,
        gain=0.5,
    )
    assert limit.damper_rate == 1.0 == limit.gain / 0.5
    every = limit.distances(conf, all_pairs=True)
    within = int((every.distance < limit.detection_distance).sum())
    assert 0 < within < len(every.pairs)
    _, h = limit.compute_inequalities(conf, 0.5)
    near = len(set(limit.row_names()))
    assert near >= within
    assert len(h) == 5 * near  # a damper row and four tilt rows per pair with rows
    _, h_long = limit.compute_inequalities(conf, 0.51)
    assert len(h_long) == len(every.pairs)


def test_a_step_exactly_on_the_reported_tolerance_makes_its_row_active():
    """``report`` flags a pair when its row holds with ``G v ≥ h − 1e-9``: a step with
    ``G v = h − 1e-9`` exactly is active, the same step 0.1 % shorter is not."""
    robot = taskik.robots.load("ur5")
    conf = robot.configuration()
    centre = conf.get_transform_frame_to_world("tool0").translation + [0.0, 0.16, 0.0]
    ball = geometry.sphere("ball", 0.08, centre)
    limit = CollisionLimit(robot, obstacles=[ball], self_collision=False)
    pair = "wrist_3_joint_link / ball"
    G, h = limit.compute_inequalities(conf, DT)  # static ball: the rows report reads
    i = limit.row_names().index(pair)
    j = int(np.argmax(np.abs(G[i])))
    target = h[i] - 1e-9
    v = np.zeros(robot.model.nv)
    v[j] = target / G[i, j]
    for _ in range(8):  # the nearest float that lands on the target
        if (G @ v)[i] == target:
            break
        up = ((G @ v)[i] < target) == (G[i, j] > 0)
        v[j] = np.nextafter(v[j], np.inf if up else -np.inf)
    if (G @ v)[i] != target:
        pytest.skip("no step lands on the tolerance exactly")

    def active(step):
        report = limit.report(conf, step, DT)
        return bool(report.active[report.names.index(pair)])

    assert active(v)
    assert not active(0.999 * v)
