"""CollisionLimit and taskik.geometry on inputs nobody tuned them for: a half-space table,
the second-order loss of fast steps, degenerate meshes, non-finite and duplicated inputs,
obstacles changed in place, malformed poses, a geometry model of another robot, row names
after the scene changed, and obstacles very far away."""

from __future__ import annotations

import faulthandler
import os
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

import coal
import numpy as np
import pinocchio as pin
import pytest

import taskik
from taskik import geometry
from taskik.exceptions import InvalidInput, TaskikError
from taskik.limits.collision import CollisionLimit

DT = 0.01


def closest(limit: CollisionLimit, conf: taskik.Configuration) -> float:
    return float(limit.distances(conf, all_pairs=True).distance.min())


def panda_pressing_on(table: geometry.Obstacle, episodes: int = 4) -> float:
    """The Panda's hand (position only) sent 0.55 m down, through ``table``, to random places:
    links slide along the table at the joints' velocity limits. The closest distance (m)."""
    robot = taskik.robots.load("panda")
    conf = robot.configuration()
    hand = conf.get_transform_frame_to_world("panda_hand")
    limit = CollisionLimit(robot, obstacles=[table])
    task = taskik.FrameTask("panda_hand", 1.0, 0.0)
    posture = taskik.PostureTask(1e-3)
    posture.set_target(robot.q0)
    limits = [taskik.ConfigurationLimit(robot.model), taskik.VelocityLimit(robot.model), limit]
    rng = np.random.default_rng(0)
    low = np.inf
    for _ in range(episodes):
        target = hand.copy()
        target.translation = hand.translation + [*rng.uniform(-0.4, 0.4, 2), -0.55]
        task.set_target(target)
        for _ in range(150):
            v = taskik.solve_ik(conf, [task, posture], DT, limits)
            conf.integrate_inplace(v, DT)
            low = min(low, closest(limit, conf))
    return low


# ------------------------------------------------------------------------------ half-space
def test_a_half_space_table_keeps_the_safety_distance():
    """The table as a half-space had no tilt rows (its bounding radius is 0): a link went to
    1.8 mm of it for d_s = 10 mm, where the same table as a box kept its distance."""
    low = panda_pressing_on(geometry.halfspace("table", [0.0, 0.0, 1.0], 0.2))
    assert low >= 0.01 - 1e-4


def test_a_box_table_keeps_the_safety_distance_at_full_joint_speed():
    """Held at the edge of the buffer, a link swung at the velocity limits lost ~0.17 mm a step
    to the curvature of its path (second order, which the rows do not see), and ended 9.84 mm
    from the box for d_s = 10 mm: the last step's loss is now asked back."""
    low = panda_pressing_on(geometry.box("table", [2.0, 2.0, 0.2], [0.3, 0.0, 0.1]))
    assert low >= 0.01 - 1e-4


def test_every_pair_of_a_flat_or_long_shape_has_a_lever():
    """Tilt rows (a lever ℓ > 0) for every pair but those with a sphere (point contacts)."""
    robot = taskik.robots.load("panda")
    conf = robot.configuration()
    cube = np.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)], float) * 0.1
    hand = conf.get_transform_frame_to_world("panda_hand").translation
    obstacles = [
        geometry.sphere("sphere", 0.05, hand + [0.2, 0.0, 0.0]),
        geometry.capsule("capsule", 0.04, 0.2, hand + [0.0, 0.2, 0.0]),
        geometry.box("box", [0.1, 0.2, 0.05], hand + [-0.2, 0.0, 0.0]),
        geometry.cylinder("cylinder", 0.05, 0.1, hand + [0.0, -0.2, 0.0]),
        geometry.halfspace("floor", [0.0, 0.0, 1.0], 0.0),
        geometry.mesh("mesh", cube, [[0, 1, 2]], hand + [0.0, 0.0, 0.3]),
    ]
    limit = CollisionLimit(robot, obstacles=obstacles, self_collision=False)
    every = limit.distances(conf, all_pairs=True)
    for k, pair in enumerate(every.pairs):
        obstacle = limit.pair_names[pair].split(" / ")[1]
        robot_shape = limit.scene.geometry_model.geometryObjects[int(limit.scene.pairs[pair, 0])]
        point_contact = obstacle == "sphere" or type(robot_shape.geometry).__name__ == "Sphere"
        assert (every.lever[k] == 0) == point_contact, limit.pair_names[pair]
        assert np.isfinite(every.lever[k])


def steps_near_a_ball(beside: float):
    """ur5 at home, an 8 cm ball ``beside`` m from its tool, and 20 seeded random steps
    (2 rad/s): (robot, ball, limit, start, v, moved) each, ``limit`` a new one that has
    computed its rows at ``start``."""
    robot = taskik.robots.load("ur5")
    start = robot.configuration()
    tool = start.get_transform_frame_to_world("tool0").translation
    ball = geometry.sphere("ball", 0.08, tool + [0.0, beside, 0.0])
    rng = np.random.default_rng(2)
    for _ in range(20):
        limit = CollisionLimit(robot, obstacles=[ball], self_collision=False)
        limit.compute_inequalities(start, DT)
        v = rng.standard_normal(robot.model.nv) * 2.0
        moved = robot.configuration(pin.integrate(robot.model, start.q, v * DT))
        yield robot, ball, limit, start, v, moved


def test_the_last_steps_second_order_loss_is_asked_back():
    """h = k (d − d_s − buffer) − loss / dt, loss = clip(−(d₁ − d₀ − g₀·(q₁ ⊖ q₀)), 0, buffer):
    the distance the pair lost in the last step beyond its first-order prediction."""
    seen = 0
    for robot, _, limit, start, v, moved in steps_near_a_ball(0.13):
        before = limit.distances(start)
        _, h = limit.compute_inequalities(moved, DT)
        after = limit.distances(moved)
        common, now, then = np.intersect1d(after.pairs, before.pairs, return_indices=True)
        predicted = before.distance[then] + before.gradient[then] @ (v * DT)
        loss = np.clip(predicted - after.distance[now], 0.0, limit.buffer)
        damper = limit.rate(DT) * (after.distance - limit.safety_distance - limit.buffer)
        expected = damper.copy()
        expected[now] -= loss / DT
        reach = 0.5 * (np.abs(after.gradient) @ robot.model.velocityLimit)
        expected = np.maximum(expected, -np.minimum(limit.speed, reach))
        np.testing.assert_allclose(h[: len(after.pairs)], expected, rtol=1e-9, atol=1e-12)
        seen += int(np.any(loss > 1e-6) and len(common) > 0)
    assert seen >= 3  # the loss was at work, not zero every time


# ------------------------------------------------------------------------------ degenerate meshes
DEGENERATE = {
    "coplanar": [[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0], [0.5, 0.5, 0]],
    "collinear": [[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0]],
    "repeated": [[0.1, 0.2, 0.3]] * 4,
    "nearly flat": [[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 1e-9], [0.5, 0.5, 0]],
}


def isolated(code: str, timeout: float = 300.0) -> str:
    """Run ``code`` in a process of its own, so that a crash (coal's hull of degenerate
    vertices killed the process with SIGSEGV) fails the test instead of ending the session;
    returns its output. Where ``os.fork`` exists the process is a fork of this one (its
    imports done: a fresh interpreter spends about 2 s of CPU importing taskik), as the
    fuzzing harness runs its cases; elsewhere a fresh interpreter."""
    if not hasattr(os, "fork"):
        env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=timeout
        )
        assert done.returncode == 0, f"the process died ({done.returncode}): {done.stderr[-500:]}"
        return done.stdout
    with tempfile.TemporaryDirectory() as folder:
        out, err = Path(folder, "stdout"), Path(folder, "stderr")
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # the child: run the code, report through the files, never return
            status = 1
            try:
                faulthandler.disable()  # (a crash is reported by the parent, not traced here)
                with open(out, "w") as sys.stdout, open(err, "w") as sys.stderr:
                    try:
                        exec(compile(code, "<isolated>", "exec"), {"__name__": "__main__"})
                        status = 0
                    except BaseException:  # noqa: BLE001 - reported through the exit status
                        traceback.print_exc()
            finally:
                os._exit(status)
        deadline = time.monotonic() + timeout
        while (waited := os.waitpid(pid, os.WNOHANG))[0] == 0:
            if time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                waited = os.waitpid(pid, 0)
                break
            time.sleep(0.01)
        status = waited[1]
        died = (
            f"killed by {signal.Signals(os.WTERMSIG(status)).name}"
            if os.WIFSIGNALED(status)
            else f"exit status {os.WEXITSTATUS(status)}"
        )
        assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, (
            f"the process died ({died}): {err.read_text()[-500:]}"
        )
        return out.read_text()


def test_isolated_returns_the_output_and_fails_on_a_crash_an_error_or_a_hang():
    """The tests below rely on it: a segfault, an exception or a hang of the code fails the
    test (and leaves this process running); otherwise its printed output comes back."""
    assert isolated("import taskik\nprint('ran', taskik.__name__)") == "ran taskik\n"
    with pytest.raises(AssertionError, match="killed by SIGSEGV"):
        isolated("import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)")
    with pytest.raises(AssertionError, match="(?s)exit status 1.*ZeroDivisionError"):
        isolated("1 / 0")
    with pytest.raises(AssertionError, match="killed by SIGKILL"):
        isolated("import time\ntime.sleep(60)", timeout=0.5)


@pytest.mark.parametrize("case", sorted(DEGENERATE))
def test_a_mesh_that_spans_no_volume_is_refused_without_a_crash(case):
    out = isolated(
        "import numpy as np\n"
        "from taskik import geometry\n"
        "from taskik.exceptions import InvalidInput\n"
        f"V = np.array({DEGENERATE[case]!r}, float)\n"
        "try:\n"
        "    geometry.mesh('m', V, [[0, 1, 2], [0, 2, 3]])\n"
        "except InvalidInput as exc:\n"
        "    print('refused:', exc)\n"
    )
    assert "refused:" in out and "span no volume" in out


def test_a_solid_mesh_with_repeated_vertices_is_its_hull():
    cube = np.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)], float)
    solid = geometry.mesh("m", np.vstack([cube, cube[:3]]), [[0, 1, 2]], [0.0, 0.0, 1.0])
    assert solid.kind == "mesh" and solid.geometry.num_points == 8


def test_a_robot_mesh_that_spans_no_volume_is_named():
    out = isolated(
        "import coal, numpy as np, pinocchio as pin, taskik\n"
        "from taskik import geometry\n"
        "from taskik.exceptions import InvalidInput\n"
        "from taskik.limits.collision import CollisionLimit\n"
        "robot = taskik.robots.load('ur5')\n"
        "flat = pin.GeometryModel()\n"
        "bvh = coal.BVHModelOBBRSS()\n"
        "bvh.beginModel(2, 4)\n"
        "bvh.addVertices(np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]], float))\n"
        "bvh.addTriangles(np.array([[0, 1, 2], [1, 3, 2]]))\n"
        "bvh.endModel()\n"
        "flat.addGeometryObject(pin.GeometryObject('plate', 1, pin.SE3.Identity(), bvh))\n"
        "makers = (lambda: geometry.convexify(flat), lambda: CollisionLimit(robot.model, flat))\n"
        "for make in makers:\n"
        "    try:\n"
        "        make()\n"
        "    except InvalidInput as exc:\n"
        "        print('refused:', exc)\n"
    )
    refused = [line for line in out.splitlines() if line.startswith("refused:")]
    assert len(refused) == 2 and all("'plate'" in r and "span no volume" in r for r in refused)


# ------------------------------------------------------------------------------ silent answers
def test_a_non_finite_reference_configuration_is_refused():
    """A NaN or inf in q_reference dropped self-collision pairs as 'in contact'."""
    robot = taskik.robots.load("humanoid")
    for bad in (np.nan, np.inf):
        q = robot.q0.copy()
        q[-1] = bad
        with pytest.raises(InvalidInput, match="q_reference.*NaN or inf"):
            CollisionLimit(robot, q_reference=q)
        with pytest.raises(InvalidInput, match="q_reference"):
            geometry.self_collision_pairs(robot.model, robot.collision_model, q)
    with pytest.raises(InvalidInput, match="q_reference"):
        CollisionLimit(robot, q_reference=robot.q0[:-1])


def test_a_pair_listed_twice_is_refused():
    """A duplicate shifted the pair indices: a pair reported with another's distance."""
    robot = taskik.robots.load("ur5")
    names = [o.name for o in robot.collision_model.geometryObjects]
    for twice in ([(names[0], names[3]), (names[0], names[3])],
                  [(names[0], names[3]), (names[3], names[0])]):  # fmt: skip
        with pytest.raises(InvalidInput, match="listed twice"):
            CollisionLimit(robot, self_collision=twice)
    with pytest.raises(InvalidInput, match="listed twice"):
        geometry.CollisionScene(robot.model, robot.collision_model, [(0, 3), (3, 0)])


def ur5_ball(offset=(0.0, 0.2, 0.0)):
    robot = taskik.robots.load("ur5")
    conf = robot.configuration()
    tool = conf.get_transform_frame_to_world("tool0").translation
    ball = geometry.sphere("ball", 0.05, tool + np.asarray(offset))
    return robot, conf, ball, CollisionLimit(robot, obstacles=[ball], self_collision=False)


def fresh_clearance(robot, conf, obstacle):
    """The clearance computed by a new limit, with a new obstacle of the same shape and pose."""
    copy = geometry.Obstacle("copy", obstacle.geometry.clone(), pin.SE3(obstacle.pose))
    return CollisionLimit(robot, obstacles=[copy], self_collision=False).clearance(conf)


def test_a_pose_changed_in_place_is_seen():
    robot, conf, ball, limit = ur5_ball()
    before = limit.clearance(conf)
    ball.pose.translation = ball.pose.translation + [0.0, -0.1, 0.0]  # in place
    moved = limit.clearance(conf)
    assert moved == pytest.approx(fresh_clearance(robot, conf, ball), abs=1e-9)
    assert moved < before - 0.03
    ball.pose = pin.SE3(np.eye(3), ball.pose.translation + [0.0, 0.1, 0.0])  # assigned
    assert limit.clearance(conf) == pytest.approx(before, abs=1e-9)


def test_a_pose_changed_in_place_is_a_motion_of_the_obstacle():
    robot, conf, ball, limit = ur5_ball((0.0, 0.13, 0.0))
    limit.compute_inequalities(conf, DT)
    _, h_still = limit.compute_inequalities(conf, DT)
    ball.pose.translation = ball.pose.translation - [0.0, 0.01, 0.0]  # 1 cm toward the tool
    _, h_moved = limit.compute_inequalities(conf, DT)
    limit_moved = CollisionLimit(robot, obstacles=[ball], self_collision=False)
    _, h_static = limit_moved.compute_inequalities(conf, DT)
    # the motion (−1 cm along the normal, per step) is subtracted from the static bound
    assert np.min(h_moved - h_static) < -0.5 and np.all(h_moved <= h_static + 1e-9)
    assert len(h_still) <= len(h_moved)


def test_a_geometry_reassigned_or_resized_is_seen():
    robot, conf, ball, limit = ur5_ball()
    before = limit.clearance(conf)
    ball.geometry = coal.Sphere(0.1)  # 5 cm larger
    assert limit.clearance(conf) == pytest.approx(fresh_clearance(robot, conf, ball), abs=1e-9)
    assert limit.clearance(conf) < before - 0.03
    ball.geometry.radius = 0.12  # resized in place
    assert limit.clearance(conf) == pytest.approx(fresh_clearance(robot, conf, ball), abs=1e-9)
    near = limit.distances(conf)  # the broadphase saw the new radius too
    every = limit.distances(conf, all_pairs=True)
    assert set(near.pairs) == set(every.pairs[every.distance < limit.detection_distance])
    with pytest.raises(InvalidInput, match="convex coal shape"):
        ball.geometry = "sphere"
    ball.geometry.radius = float("nan")
    with pytest.raises(InvalidInput, match="NaN"):
        limit.clearance(conf)


@pytest.mark.parametrize(
    ("pose", "message"),
    [
        (np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0.3, 0.2, 0.1, 1]]), "last row"),
        (np.array([[1, 0, 0, 0.3], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 1, 1.0]]), "last row"),
        (np.eye(4) * (1 + 0j), "complex"),
        (np.array([0.1, 0.2, 0.3j]), "complex"),
        (np.diag([1.0, 2.0, 1.0, 1.0]), "rotation"),
        (np.diag([1.0, 1.0, -1.0, 1.0]), "rotation"),
        (np.eye(3), "shape"),
        ("here", "real numbers"),
        ([1e300, 0.0, 0.0], "farther than"),
        (pin.SE3(np.diag([1.0, 2.0, 1.0]), np.zeros(3)), "rotation"),
    ],
)
def test_a_pose_must_be_a_rigid_transform(pose, message):
    with pytest.raises(InvalidInput, match=message):
        geometry.sphere("ball", 0.1, pose)
    ball = geometry.sphere("ball", 0.1)
    with pytest.raises(InvalidInput, match=message):
        ball.move_to(pose)


def test_a_pose_broken_in_place_is_refused_at_the_next_step():
    robot, conf, ball, limit = ur5_ball()
    ball.pose.rotation = np.diag([1.0, 2.0, 1.0])
    with pytest.raises(InvalidInput, match="ball.*rotation"):
        limit.compute_inequalities(conf, DT)


def test_obstacles_very_far_away_are_refused():
    """At 1e300 m the distances were NaN, with no error."""
    with pytest.raises(InvalidInput, match="farther than"):
        geometry.sphere("ball", 0.1, [1e300, 0.0, 0.0])
    with pytest.raises(InvalidInput, match="offset"):
        geometry.halfspace("floor", [0.0, 0.0, 1.0], 1e300)
    with pytest.raises(InvalidInput, match="radius"):
        geometry.sphere("ball", 1e300)
    robot, conf, ball, limit = ur5_ball()
    ball.move_to([1e5, 0.0, 0.0])  # far, but within the accepted range: finite distances
    assert np.isfinite(limit.clearance(conf)) and limit.clearance(conf) > 9e4


def test_a_geometry_model_of_another_robot_is_refused():
    """The UR5's geometry on the Panda was attached to the wrong joints, or raised a bare
    IndexError."""
    panda, ur5, planar = (taskik.robots.load(n) for n in ("panda", "ur5", "planar_2r"))
    with pytest.raises(InvalidInput, match="another robot"):
        CollisionLimit(panda.model, ur5.collision_model)  # the same indices, other names
    with pytest.raises(InvalidInput, match="joint 7, but the model has 7 joints.*another robot"):
        CollisionLimit(ur5.model, panda.collision_model)  # was a bare IndexError
    with pytest.raises(InvalidInput, match="another robot"):
        CollisionLimit(taskik.robots.load("talos").model, panda.collision_model)
    with pytest.raises(InvalidInput, match="another robot"):
        CollisionLimit(planar.model, panda.collision_model)
    with pytest.raises(InvalidInput, match="another robot"):
        geometry.self_collision_pairs(planar.model, panda.collision_model, planar.q0)
    with pytest.raises(InvalidInput, match="another robot"):
        geometry.CollisionScene(planar.model, panda.collision_model)


def test_row_names_match_the_rows_after_an_obstacle_is_removed():
    robot, conf, ball, limit = ur5_ball((0.0, 0.13, 0.0))
    other = geometry.sphere("other", 0.05, ball.pose.translation + [0.0, -0.26, 0.0])
    limit.add_obstacle(other)
    G, h = limit.compute_inequalities(conf, DT)
    names = limit.row_names()
    assert len(names) == len(h) and any("ball" in n for n in names)
    limit.remove_obstacle("ball")  # the rows are still those computed with the ball
    assert limit.row_names() == names
    rows = limit.compute_inequalities(conf, DT)
    after = limit.row_names()
    assert rows is not None and len(after) == len(rows[1])
    assert not any("ball" in n for n in after)


# ------------------------------------------------------------------------------ bad values
BAD = [None, "x", True, np.nan, np.inf, -1.0, 0.0, 1e300, 1j, [1, 2], np.full(3, np.nan),
       np.eye(3), np.zeros((4, 4)), np.array(["a", "b"]), object(), coal.Sphere(0.1)]  # fmt: skip


def entry_points(robot, conf, x):
    """Calls of taskik.geometry and CollisionLimit with the bad value ``x`` in one place."""
    ball = geometry.sphere("b", 0.05, [0.5, 0.2, 0.5])
    limit = CollisionLimit(robot, obstacles=[ball], self_collision=False)
    scene = geometry.CollisionScene(robot.model, robot.collision_model, [(0, 3)], [ball])
    yield lambda: geometry.sphere("s", x)
    yield lambda: geometry.sphere("s", 0.1, x)
    yield lambda: geometry.box("s", x)
    yield lambda: geometry.halfspace("s", x)
    yield lambda: geometry.halfspace("s", [0, 0, 1], x)
    yield lambda: geometry.mesh("s", x, [[0, 1, 2]])
    yield lambda: geometry.mesh("s", np.eye(4, 3) + 0.1 * np.eye(4, 3)[::-1], x)
    yield lambda: geometry.Obstacle("o", x)
    yield lambda: geometry.Obstacle(x, coal.Sphere(0.1))
    yield lambda: ball.move_to(x)
    yield lambda: geometry.fit_capsules(x, 0.1)
    yield lambda: geometry.fit_capsules(robot.model, x)
    yield lambda: geometry.convexify(x)
    yield lambda: geometry.self_collision_pairs(robot.model, robot.collision_model, x)
    yield lambda: geometry.CollisionScene(robot.model, robot.collision_model, x)
    yield lambda: geometry.CollisionScene(robot.model, robot.collision_model, (), x)
    yield lambda: scene.distances(x, 0.05)
    yield lambda: scene.distances(conf.data, x)
    yield lambda: scene.obstacle_motion(x)
    for key in ("geometry_model", "self_collision", "obstacles", "safety_distance", "speed",
                "q_reference", "srdf"):  # fmt: skip
        yield lambda key=key: CollisionLimit(robot, **{key: x})
    yield lambda: CollisionLimit(x)
    yield lambda: limit.compute_inequalities(x, DT)
    yield lambda: limit.compute_inequalities(conf, x)
    yield lambda: limit.report(conf, x)
    yield lambda: limit.distances(x)
    yield lambda: limit.add_obstacle(x)
    yield lambda: limit.remove_obstacle(x)


@pytest.mark.parametrize("x", BAD, ids=[type(x).__name__ + str(i) for i, x in enumerate(BAD)])
def test_bad_values_give_named_errors_or_finite_answers(x):
    """Every entry point of taskik.geometry and CollisionLimit, given a wrong type, NaN, a
    wrong shape or an absurd size: a TaskikError or a finite answer, never a bare exception
    (there were TypeError, AttributeError, IndexError, ZeroDivisionError, Pinocchio's)."""
    robot = taskik.robots.load("ur5")
    conf = robot.configuration()
    for k, call in enumerate(entry_points(robot, conf, x)):
        try:
            out = call()
        except TaskikError:
            continue
        except Exception as exc:  # noqa: BLE001 - the point of the test
            raise AssertionError(f"call {k} with {x!r}: bare {type(exc).__name__}: {exc}") from exc
        for value in out if isinstance(out, tuple) else (out,):
            if isinstance(value, np.ndarray) and value.dtype.kind == "f":
                assert np.all(np.isfinite(value)), f"call {k} with {x!r} gave {value}"


def damper_bounds(limit: CollisionLimit, conf: taskik.Configuration) -> dict[str, float]:
    """``compute_inequalities``' bound ``h`` of each near pair's damper row, by pair name."""
    rows = limit.compute_inequalities(conf, DT)
    if rows is None:
        return {}
    names = limit.row_names()
    return {names[i]: float(rows[1][i]) for i in range(len(limit._last.pairs))}


def test_the_loss_is_the_same_when_the_rows_are_asked_twice_at_one_configuration():
    """A second call at the same q (another priority level, a report) measures no new step:
    it keeps the loss of the last one instead of finding none."""
    asked = 0
    for robot, ball, limit, _, _, moved in steps_near_a_ball(0.16):
        first = damper_bounds(limit, moved)
        if not first:
            continue
        again = damper_bounds(limit, moved)  # the same step: the same lookahead too
        without = damper_bounds(
            CollisionLimit(robot, obstacles=[ball], self_collision=False), moved
        )  # (no last step: no lookahead, it may watch fewer pairs)
        assert again == first
        asked += int(any(first[name] < without[name] - 1e-6 for name in without))
    assert asked >= 3
