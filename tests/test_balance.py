"""Static balance: contacts, the static-equilibrium region, its check, and the balance limit."""

from __future__ import annotations

import math

import numpy as np
import pytest

import taskik
from taskik.contacts import (
    Contact,
    ContactSet,
    both_feet,
    check_static_balance,
    convex_hull_2d,
    equilibrium_forces,
    feet_and_hand,
    friction_generators,
    one_foot,
    support_region,
)
from taskik.exceptions import InvalidInput
from taskik.limits import BalanceLimit


def flat_rectangle(x0: float, y0: float, length: float, width: float) -> np.ndarray:
    hx, hy = length / 2, width / 2
    return np.array(
        [[x0 + sx * hx, y0 + sy * hy, 0.0] for sx, sy in ((1, 1), (-1, 1), (-1, -1), (1, -1))]
    )


def contact_set(parts: list[tuple[np.ndarray, np.ndarray, float]]) -> ContactSet:
    points = np.vstack([p for p, _, _ in parts])
    normals = np.vstack([np.tile(n / np.linalg.norm(n), (len(p), 1)) for p, n, _ in parts])
    friction = np.concatenate([np.full(len(p), mu) for p, _, mu in parts])
    return ContactSet(points, normals, friction)


def uneven_stance() -> ContactSet:
    """A foot flat on the floor, a foot on a 30° slope higher up, a hand on a wall: not
    coplanar, not symmetric about any axis through the origin."""
    slope = np.array([np.sin(np.pi / 6), 0.0, np.cos(np.pi / 6)])  # rises toward −x
    tangent = np.cross(slope, [0.0, 1.0, 0.0])
    right = np.array(
        [
            [0.6 + a * tangent[0] * 0.1, -0.2 + b * 0.05, 0.3 + a * tangent[2] * 0.1]
            for a, b in ((1, 1), (-1, 1), (-1, -1), (1, -1))
        ]
    )
    return contact_set(
        [
            (flat_rectangle(0.4, 0.25, 0.2, 0.1), np.array([0.0, 0.0, 1.0]), 0.6),
            (right, slope, 0.6),
            (np.array([[1.4, 0.1, 1.2]]), np.array([-1.0, 0.0, 0.0]), 0.5),
        ]
    )


def test_friction_generators_lie_on_the_cone():
    n = np.array([0.3, -0.2, 0.9])
    n /= np.linalg.norm(n)
    U = friction_generators(n, 0.6, 8)
    normal_part = U @ n
    tangential = np.linalg.norm(U - np.outer(normal_part, n), axis=1)
    np.testing.assert_allclose(normal_part, 1.0, atol=1e-12)
    np.testing.assert_allclose(tangential, 0.6, atol=1e-12)  # on the cone: ‖f_t‖ = μ f_n
    # spread evenly around the normal
    assert np.linalg.norm(U.sum(axis=0) - 8 * n) < 1e-12


def test_flat_region_is_the_hull_of_the_feet():
    feet = contact_set(
        [
            (flat_rectangle(0.0, 0.1, 0.2, 0.1), np.array([0.0, 0.0, 1.0]), 0.7),
            (flat_rectangle(0.1, -0.1, 0.2, 0.1), np.array([0.0, 0.0, 1.0]), 0.7),
        ]
    )
    region = support_region(feet)
    # hull of both rectangles: the outer corners
    corners = {tuple(np.round(v, 9)) for v in region.vertices}
    assert corners == {
        (0.1, 0.15),
        (-0.1, 0.15),
        (-0.1, 0.05),
        (0.0, -0.15),
        (0.2, -0.15),
        (0.2, -0.05),
    }
    assert region.signed_distance([0.05, 0.0]) > 0.0
    assert region.signed_distance([0.3, 0.0]) == pytest.approx(-np.hypot(0.1, 0.0) + 0.0, abs=0.05)
    assert region.signed_distance([-0.2, 0.1]) == pytest.approx(-0.1, abs=1e-12)


@pytest.mark.parametrize("stance", ["flat", "uneven"])
def test_region_agrees_with_the_force_lp_on_a_grid(stance):
    """Brute force: at every sampled CoM, forces exist exactly when the region holds it
    (up to the projection's tolerance)."""
    contacts = (
        uneven_stance()
        if stance == "uneven"
        else contact_set(
            [
                (flat_rectangle(0.3, 0.1, 0.25, 0.12), np.array([0.0, 0.0, 1.0]), 0.7),
                (flat_rectangle(0.5, -0.2, 0.25, 0.12), np.array([0.0, 0.0, 1.0]), 0.7),
            ]
        )
    )
    region = support_region(contacts, tol=1e-5)
    assert len(region.vertices) >= 3 and region.bounded
    lo, hi = region.vertices.min(0) - 0.15, region.vertices.max(0) + 0.15
    disagreements, inside = 0, 0
    for x in np.linspace(lo[0], hi[0], 13):
        for y in np.linspace(lo[1], hi[1], 13):
            d = region.signed_distance([x, y])
            if abs(d) < 1e-3:
                continue  # on the edge: either answer is right
            held = equilibrium_forces(contacts, np.array([x, y, 0.9])) is not None
            inside += held
            disagreements += held != (d > 0)
    assert disagreements == 0
    assert inside >= 12  # the grid does sample the region


def test_uneven_region_is_not_the_hull_and_depends_on_friction():
    contacts = uneven_stance()
    region = support_region(contacts)
    low = support_region(ContactSet(contacts.points, contacts.normals, contacts.friction / 4))

    def area(V: np.ndarray) -> float:
        return 0.5 * abs(V[:, 0] @ np.roll(V[:, 1], -1) - V[:, 1] @ np.roll(V[:, 0], -1))

    assert area(low.vertices) < area(region.vertices) - 1e-3  # less friction, less region
    # the wall lets the CoM go beyond the feet toward it
    assert region.vertices[:, 0].max() > contacts.points[:8, 0].max() + 0.02


def test_forces_balance_gravity_inside_their_cones():
    contacts = uneven_stance()
    com = np.array([0.55, 0.05, 0.9])
    forces = equilibrium_forces(contacts, com)
    assert forces is not None
    np.testing.assert_allclose(forces.sum(axis=0), [0.0, 0.0, 1.0], atol=1e-8)
    moment = np.cross(contacts.points, forces).sum(axis=0) + np.cross(com, [0.0, 0.0, -1.0])
    np.testing.assert_allclose(moment, 0.0, atol=1e-8)
    fn = np.einsum("ij,ij->i", forces, contacts.normals)
    ft = np.linalg.norm(forces - fn[:, None] * contacts.normals, axis=1)
    assert (fn >= -1e-9).all() and (ft <= contacts.friction * fn + 1e-8).all()


def test_talos_soles_come_from_its_geometry(talos):
    conf = talos.configuration()
    left, right = both_feet(talos, conf)
    for contact in (left, right):
        pts = contact.world_points(conf)
        extent = np.ptp(pts[:, :2], axis=0)
        assert 0.15 < extent[0] < 0.3 and 0.08 < extent[1] < 0.18, extent  # a sole, in metres
        assert np.ptp(pts[:, 2]) < 1e-9  # flat
    check = check_static_balance(conf, [left, right])
    assert check.stable and check.margin > 0.05  # standing: CoM well inside
    assert not check_static_balance(conf, one_foot(talos, conf, "left")).stable


def test_balance_rows_match_finite_differences(talos):
    conf = talos.configuration()
    limit = BalanceLimit(both_feet(talos, conf), margin=0.02, detection_distance=math.inf)
    dt = 0.01
    G, h = limit.compute_inequalities(conf, dt)
    rng = np.random.default_rng(3)
    v = rng.standard_normal(talos.model.nv)
    eps = 1e-6
    after = taskik.Configuration(talos.model, conf.integrate(v, eps))
    # h_i = b_i − margin − n_iᵀ c: its rate is −G v
    rate = (limit.margins(after) - limit.margins(conf)) / eps
    np.testing.assert_allclose(rate, -(G @ v), atol=1e-5 * max(1.0, np.abs(G @ v).max()))
    np.testing.assert_allclose(h, limit.gain * limit.margins(conf) / dt, rtol=1e-12)


def lean(robot, contacts, conf, hand_frame, offset, limits, steps=300, levels=False):
    feet = [c.task(conf, cost=10.0) for c in contacts if c.frame.name in robot.end_effectors[:2]]
    hand = taskik.PositionTask(hand_frame, cost=1.0, lm_damping=1.0)
    hand.set_target(conf.get_transform_frame_to_world(hand_frame).translation + offset)
    posture = taskik.PostureTask(cost=1e-2)
    posture.set_target(robot.q0)
    tasks = [feet, [hand], [posture]] if levels else [*feet, hand, posture]
    margins, key, region = [], None, None
    for _ in range(steps):
        v = taskik.solve_ik(conf, tasks, 0.01, limits=limits)
        conf.integrate_inplace(v, 0.01)
        # the margin in the region of the contacts where they are now, computed here (the
        # region again whenever a contact point moved by 0.1 mm), not the limit's
        world = ContactSet.of(conf, contacts)
        if key is None or np.abs(world.points - key).max() > 1e-4:
            key, region = world.points, support_region(world)
        margins.append(region.signed_distance(conf.com[:2]))
    return np.array(margins), float(np.linalg.norm(hand.compute_error(conf)))


@pytest.mark.parametrize("levels", [False, True])
def test_talos_leans_to_the_edge_and_stops(talos, levels):
    conf = talos.configuration()
    contacts = both_feet(talos, conf)
    limit = BalanceLimit(contacts, margin=0.01)
    limits = [*taskik.limits.default_limits(talos.model), limit]
    margins, _ = lean(
        talos, contacts, conf, talos.end_effectors[3], [1.5, 0.0, -0.3], limits, levels=levels
    )
    assert margins.min() > 0.01 - 0.002  # never closer to the edge than the margin, less 2 mm
    assert margins[-1] < 0.02  # it did ride to the edge: the hand is far out of reach
    assert check_static_balance(conf, contacts).stable


def test_without_the_limit_talos_falls_over(talos):
    conf = talos.configuration()
    contacts = both_feet(talos, conf)
    margins, _ = lean(talos, contacts, conf, talos.end_effectors[3], [1.5, 0.0, -0.3], None)
    assert margins[-1] < -0.1  # CoM 10 cm or more outside the soles


def test_a_hand_on_a_table_lets_talos_reach_further(talos):
    """The left hand goes onto a table in front (as far as balance on the feet allows) and
    pushes down there; the right hand then reaches for a target far out of reach, further
    than it does from the same posture with the feet alone."""
    conf = talos.configuration()
    feet = both_feet(talos, conf)
    held = [c.task(conf, cost=10.0) for c in feet]
    left, right = talos.end_effectors[2], talos.end_effectors[3]
    to_table = taskik.PositionTask(left, cost=1.0, lm_damping=1.0)
    to_table.set_target(conf.get_transform_frame_to_world(left).translation + [0.6, 0.0, -0.1])
    posture = taskik.PostureTask(cost=1e-2)
    posture.set_target(talos.q0)
    limits = [*taskik.limits.default_limits(talos.model), BalanceLimit(feet)]
    for _ in range(200):
        conf.integrate_inplace(
            taskik.solve_ik(conf, [*held, to_table, posture], 0.01, limits=limits), 0.01
        )
    start = conf.q.copy()

    def reach(contacts):
        conf = taskik.Configuration(talos.model, start.copy())
        hand = taskik.PositionTask(right, cost=1.0, lm_damping=1.0)
        hand.set_target(conf.get_transform_frame_to_world(right).translation + [1.5, 0.0, -0.3])
        tasks = [*(c.task(conf, cost=10.0) for c in contacts), hand, posture]
        limits = [*taskik.limits.default_limits(talos.model), BalanceLimit(contacts)]
        for _ in range(300):
            conf.integrate_inplace(taskik.solve_ik(conf, tasks, 0.01, limits=limits), 0.01)
        assert check_static_balance(conf, contacts).margin > 0.01 - 0.002
        return float(np.linalg.norm(hand.compute_error(conf)))

    braced = feet_and_hand(talos, taskik.Configuration(talos.model, start), left, [0.0, 0.0, 1.0])
    assert reach(braced) < reach(both_feet(talos, taskik.Configuration(talos.model, start))) - 0.05


def test_solve_posture_with_the_limit_ends_balanced(talos):
    conf = talos.configuration()
    contacts = both_feet(talos, conf)
    feet = [c.task(conf) for c in contacts]
    hand = taskik.PositionTask(talos.end_effectors[3])
    hand.set_target(
        conf.get_transform_frame_to_world(talos.end_effectors[3]).translation + [0.8, 0, -0.4]
    )
    limits = [*taskik.limits.default_limits(talos.model), BalanceLimit(contacts)]
    result = taskik.solve_posture(
        conf, [*feet, hand], method="qp", limits=limits, max_searches=1, max_iterations=200
    )
    final = taskik.Configuration(talos.model, result.q)
    assert check_static_balance(final, contacts).margin > 0.01 - 0.002


def test_bad_contacts_are_refused():
    with pytest.raises(InvalidInput, match="empty"):
        BalanceLimit([])
    with pytest.raises(InvalidInput, match="friction"):
        Contact("f", [[0, 0, 0]], friction=0.0)
    with pytest.raises(InvalidInput, match="normal"):
        Contact("f", [[0, 0, 0]], normal=[0, 0, 0])
    with pytest.raises(InvalidInput, match="points"):
        Contact("f", [[0, 0]])
    with pytest.raises(InvalidInput):
        Contact("f", [[0, 0, np.nan]])
    with pytest.raises(InvalidInput, match="Contact"):
        BalanceLimit(["left_sole_link"])


def test_status_names_the_closest_edge(talos):
    conf = talos.configuration()
    limit = BalanceLimit(both_feet(talos, conf), detection_distance=math.inf)
    status = limit.status(conf)
    # standing: the CoM is nearest to the toes, the edge from one sole to the other
    assert set(status.frames) == {"left_sole_link", "right_sole_link"}
    assert status.segment[:, 0].min() > conf.com[0]  # in front of the CoM
    assert status.margin == pytest.approx(limit.balance_margin(conf))
    assert "mm" in str(status)
    G, _ = limit.compute_inequalities(conf, 0.01)
    names = limit.row_names()
    assert len(names) == len(G) and "left_sole_link" in names[status.edge]
    single = BalanceLimit(one_foot(talos, conf, "right")).status(conf)
    assert single.margin < 0 and single.frames == ("right_sole_link",)


def test_the_balance_page_runs_as_written():
    """The two snippets of docs/concepts/balance.md, run in order, do what the page says."""
    from pages import python_blocks

    snippets = python_blocks("docs/concepts/balance.md")
    assert len(snippets) == 2
    namespace: dict = {}
    for snippet in snippets:
        exec(compile(snippet, "docs/concepts/balance.md", "exec"), namespace)
    status = namespace["limit"].status(namespace["configuration"])
    assert abs(status.margin - 0.01) < 2e-3  # rode to the edge, 1 cm inside
    assert taskik.check_static_balance(namespace["configuration"], namespace["feet"]).stable


def test_only_edges_within_the_detection_distance_give_rows(talos):
    conf = talos.configuration()
    feet = both_feet(talos, conf)
    limit = BalanceLimit(feet, margin=0.01, detection_distance=0.05)
    assert limit.margins(conf).min() > 0.05  # standing: every edge farther than 5 cm
    assert limit.compute_inequalities(conf, 0.01) is None and limit.row_names() == []
    near = BalanceLimit(feet, margin=0.01, detection_distance=0.09)
    G, h = near.compute_inequalities(conf, 0.01)
    every = BalanceLimit(feet, margin=0.01, detection_distance=math.inf)
    G_all, h_all = every.compute_inequalities(conf, 0.01)
    kept = every.margins(conf) < 0.09
    assert 0 < len(h) == kept.sum() < len(h_all)
    np.testing.assert_array_equal(G, G_all[kept])
    np.testing.assert_array_equal(h, h_all[kept])
    assert near.row_names() == [n for n, k in zip(every.row_names(), kept, strict=True) if k]
    with pytest.raises(InvalidInput, match="detection_distance"):
        BalanceLimit(feet, detection_distance=0.0)


def reach_past_the_feet(talos, conf):
    """Both feet held and a hand sent 1.5 m forward: a loop that rides to the soles' edge."""
    feet = both_feet(talos, conf)
    tasks = [*(c.task(conf) for c in feet)]
    hand = taskik.PositionTask(talos.end_effectors[3], lm_damping=1.0)
    hand.set_target(
        conf.get_transform_frame_to_world(talos.end_effectors[3]).translation + [1.5, 0, -0.3]
    )
    return feet, [*tasks, hand]


def test_the_step_report_shows_the_balance_rows_and_margin(talos):
    conf = talos.configuration()
    feet, tasks = reach_past_the_feet(talos, conf)
    limits = [*taskik.limits.default_limits(talos.model), BalanceLimit(feet)]
    for _ in range(150):
        conf.integrate_inplace(taskik.solve_ik(conf, tasks, 0.01, limits=limits), 0.01)
    v = taskik.solve_ik(conf, tasks, 0.01, limits=limits)
    step = taskik.report(conf, tasks, 0.01, v, limits)
    assert step.rows and all(r.limit == "balance" for r in step.rows)
    assert all(r.row.startswith("balance edge") for r in step.rows)
    assert all(abs(r.value - r.bound) <= 1e-6 * max(1.0, abs(r.bound)) for r in step.rows)
    (line,) = step.limit_status
    assert line.startswith("balance: balance margin +10.0 mm")  # at the edge, 1 cm inside
    text = str(step)
    assert "active rows" in text and line in text
    assert max(map(len, text.splitlines())) <= 100


def test_the_region_is_reused_while_no_contact_point_moved_by_the_tolerance(talos):
    """The region is computed again exactly when a contact point moved by more than
    ``tolerance`` since it was computed: not before (a looser bound on the frames'
    placements recomputed it at 0.8 mm), and not after (for translations and rotations)."""
    conf = talos.configuration()
    feet = both_feet(talos, conf)
    limit = BalanceLimit(feet, tolerance=1e-3)
    q0 = conf.q.copy()
    first = limit.region(conf)
    start = np.vstack([c.world_points(conf) for c in feet])

    def moved(q: np.ndarray) -> float:
        conf.update(q)
        now = np.vstack([c.world_points(conf) for c in feet])
        return float(np.linalg.norm(now - start, axis=1).max())

    shifted = q0.copy()
    shifted[0] += 0.95e-3  # the floating base 0.95 mm forward: every point moves that much
    assert moved(shifted) == pytest.approx(0.95e-3) and limit.region(conf) is first
    reach = float(np.linalg.norm(start[:, :2] - q0[:2], axis=1).max())
    for turn, reused in ((0.95e-3 / reach, True), (1.05e-3 / reach, False)):
        yawed = q0.copy()  # a yaw of the base about its own origin
        yawed[3:7] = [0.0, 0.0, math.sin(turn / 2), math.cos(turn / 2)]
        distance = moved(yawed)
        assert (distance < 1e-3) == reused
        assert (limit.region(conf) is first) == reused
    shifted[0] = q0[0] + 1.05e-3
    moved(shifted)
    again = limit.region(conf)
    assert again is not first  # (and it is computed from where the feet are now)
    np.testing.assert_allclose(again.vertices, first.vertices + [1.05e-3, 0.0], atol=1e-12)


def test_the_balance_rows_take_the_fast_assembly_and_the_warm_solver_unchanged(talos):
    """With the model's limits and a balance limit, the step assembles the box on its fast
    path and solves on the warm DAQP workspace; a second copy of the position limits forces
    the general assembly, and ``build_ik`` + ``solve_qp`` solve cold: all take the same
    step, to rounding, along a loop that rides to the edge of the soles."""
    conf = talos.configuration()
    feet, tasks = reach_past_the_feet(talos, conf)
    model_limits = taskik.limits.default_limits(talos.model)
    fast = [*model_limits, BalanceLimit(feet)]
    general = [*model_limits, taskik.limits.ConfigurationLimit(talos.model), BalanceLimit(feet)]
    other = taskik.Configuration(talos.model, conf.q)
    active = 0
    for _ in range(120):
        other.update(conf.q)
        v = taskik.solve_ik(conf, tasks, 0.01, limits=fast, adaptive=False)
        v_general = taskik.solve_ik(other, tasks, 0.01, limits=general, adaptive=False)
        problem = taskik.build_ik(conf, tasks, 0.01, limits=fast)
        v_cold = taskik.backends.solve_qp(problem, "daqp")
        scale = 1.0 + float(np.abs(v_cold).max())
        assert np.abs(v - v_general).max() <= 1e-9 * scale
        assert np.abs(v - v_cold).max() <= 1e-9 * scale
        active += int((problem.G @ v >= problem.h - 1e-9).any())
        conf.integrate_inplace(v, 0.01)
    assert active > 30  # the balance rows did bind along the way


def test_convex_hull_matches_scipys_on_points_with_repeats_and_collinear_runs():
    """``convex_hull_2d`` (a monotone chain on Python floats) against SciPy's Qhull: the same
    vertices, counter-clockwise, on random point sets with repeated points and points on a
    grid (collinear runs along the hull's edges)."""
    from scipy.spatial import ConvexHull

    rng = np.random.default_rng(7)
    for trial in range(200):
        P = rng.normal(size=(int(rng.integers(3, 30)), 2)) * 10.0 ** rng.integers(-3, 3)
        if trial % 2:
            P = np.round(P / P.std(), 0)  # on a grid: collinear and repeated points
        P = np.vstack([P, P[: len(P) // 3]])
        if np.linalg.matrix_rank(P - P.mean(axis=0), tol=1e-9 * np.abs(P).max()) < 2:
            continue
        hull = convex_hull_2d(P)
        ref = P[ConvexHull(P).vertices]  # (Qhull: counter-clockwise, no collinear points)
        assert len(hull) == len(ref)
        start = int(np.argmin(np.linalg.norm(ref - hull[0], axis=1)))
        np.testing.assert_allclose(np.roll(ref, -start, axis=0), hull, atol=1e-9)
        edges = np.roll(hull, -1, axis=0) - hull
        turns = edges[:, 0] * np.roll(edges, -1, axis=0)[:, 1]
        turns -= edges[:, 1] * np.roll(edges, -1, axis=0)[:, 0]
        assert turns.min() > 0.0  # every turn to the left: counter-clockwise, convex


def test_convex_hull_keeps_the_corners_of_points_almost_on_a_vertical_line():
    """Sorted by x, points whose x differ by nanometres along a near-vertical edge (a sole's
    back edge) are not in order along that edge: the chain must still keep its two ends. A
    chain popping every turn below its tolerance dropped the lower corner (1e-9, -0.03) and
    kept the middle point, so the polygon lost a third of its back edge and the margins read
    on it were too small."""
    back = np.array([[0.0, 0.03], [1e-9, -0.03], [2e-9, 0.0]])
    front = np.array([[0.2, 0.03], [0.2, -0.03]])
    for P in (np.vstack([back, front]), np.vstack([front, back[::-1]])):
        hull = convex_hull_2d(P)
        assert {tuple(v) for v in hull.tolist()} == {
            (0.0, 0.03), (1e-9, -0.03), (0.2, -0.03), (0.2, 0.03)
        }  # fmt: skip
        assert tuple(hull[0]) == (0.0, 0.03)  # (starts at the least (x, y))
    # nearly collinear points only: the two ends of the line, not the first and last by x
    ends = convex_hull_2d(back)
    assert {tuple(v) for v in ends.tolist()} == {(0.0, 0.03), (1e-9, -0.03)}


def test_the_limit_s_region_of_flat_contacts_is_support_region_s(talos):
    """On flat contacts the limit computes the hull of the points itself, without the
    contact set: the same region as ``support_region`` at configurations along a reach."""
    conf = talos.configuration()
    feet = both_feet(talos, conf)
    limit = BalanceLimit(feet, tolerance=0.0)  # (computed again at every new placement)
    rng = np.random.default_rng(3)
    for _ in range(5):
        q = conf.q.copy()
        q[:3] += rng.uniform(-0.05, 0.05, 3)
        q[7:] += rng.uniform(-0.1, 0.1, len(q) - 7)
        conf.update(q)
        mine = limit.region(conf)
        ref = support_region(ContactSet.of(conf, feet))
        np.testing.assert_allclose(mine.vertices, ref.vertices, atol=1e-12)
        np.testing.assert_allclose(mine.offsets, ref.offsets, atol=1e-12)


def test_rows_follow_margin_gain_and_dt_changed_between_steps(talos):
    """The rows' constant parts are kept per (region, margin, gain, dt) by value: changing
    any of them between two steps at the same configuration gives the rows of a new limit."""
    conf = talos.configuration()
    feet = both_feet(talos, conf)
    limit = BalanceLimit(feet)
    limit.compute_inequalities(conf, 0.01)
    for margin, gain, dt in ((0.02, 0.5, 0.01), (0.02, 0.25, 0.01), (0.02, 0.25, 0.02)):
        limit.margin, limit.gain = margin, gain
        G, h = limit.compute_inequalities(conf, dt)
        G0, h0 = BalanceLimit(feet, margin=margin, gain=gain).compute_inequalities(conf, dt)
        np.testing.assert_allclose(G, G0, atol=1e-12)
        np.testing.assert_allclose(h, h0, atol=1e-12)
        expected = gain / dt * (limit.margins(conf))  # h_i = gain · (b_i − margin − n_iᵀ c) / dt
        np.testing.assert_allclose(h, expected, atol=1e-9)


def test_a_checked_step_has_the_near_edges_rows_and_gets_those_it_breaks(talos):
    """Announced (``expect_check``, as ``solve_ik`` does), the rows are the edges within
    ``CHECKED_DISTANCE`` (and the hysteresis, at the first call); ``check_step`` passes a
    step that keeps the others and returns the rows with those of the edges a step breaks
    added; unannounced calls get every row."""
    from taskik.limits.balance import CHECKED_DISTANCE, HYSTERESIS

    conf = talos.configuration()
    feet = both_feet(talos, conf)
    limit = BalanceLimit(feet)
    dt = 0.01
    G_all, h_all = limit.compute_inequalities(conf, dt)
    margins = limit.margins(conf)
    near = np.flatnonzero(margins < CHECKED_DISTANCE + HYSTERESIS)
    far = np.flatnonzero(margins >= CHECKED_DISTANCE + HYSTERESIS)
    assert len(far) >= 3  # (standing straight: most edges are far)
    limit.expect_check()
    rows = limit.compute_inequalities(conf, dt)
    if len(near):
        G, h = rows
        np.testing.assert_allclose(G, G_all[near], atol=1e-12)
        np.testing.assert_allclose(h, h_all[near], atol=1e-12)
    else:
        assert rows is None
    assert len(limit.row_names()) == len(near)
    nv = talos.model.nv
    assert limit.check_step(conf, np.zeros(nv), dt) is None
    # a step moving the CoM toward a far edge by 1.5 times what its row allows
    i = far[np.argmax(margins[far])]
    J = conf.com_jacobian
    speed = 1.5 * limit.gain * margins[i] / dt
    v = J.T @ np.linalg.solve(J @ J.T, np.append(speed * limit.region(conf).normals[i], 0.0))
    assert limit.check_step(conf, v, 2 * dt) is None  # (another dt: not the announced step)
    G, h = limit.check_step(conf, v, dt)
    broken = np.flatnonzero(G_all @ v > h_all)
    assert i in broken
    expected = np.union1d(near, broken)
    np.testing.assert_allclose(G, G_all[expected], atol=1e-12)
    np.testing.assert_allclose(h, h_all[expected], atol=1e-12)
    assert (G @ v > h).any()  # (the new rows are the ones v breaks)
    assert len(limit.row_names()) == len(expected)
    assert limit.check_step(conf, v, dt) is None  # (every broken edge has its row now)
    G2, h2 = limit.compute_inequalities(conf, dt)  # unannounced: every row again
    np.testing.assert_allclose(G2, G_all, atol=1e-12)
    assert limit.check_step(conf, v, dt) is None


def test_announced_rows_follow_a_change_of_margin_gain_dt_or_detection_distance(talos):
    """An announced call reuses the near edges found by the last one (the common step of a
    loop): margin, gain, dt or detection_distance changed in between, its rows are those of
    a new limit with the new values, bit for bit, and the solved step is checked likewise."""
    conf = talos.configuration()
    feet = both_feet(talos, conf)
    limit = BalanceLimit(feet, margin=0.08)  # (the front and back edges within 2.5 cm)
    settings = {"margin": 0.08, "gain": 0.5, "detection_distance": math.inf, "dt": 0.01}
    changes = [{}, {}, {"margin": 0.09}, {"gain": 0.3}, {"dt": 0.02}]
    changes += [{"detection_distance": 0.05}, {"detection_distance": math.inf}, {}]
    nv = talos.model.nv
    v = np.linalg.pinv(conf.com_jacobian) @ np.array([0.5, 0.0, 0.0])  # (the CoM forward)
    for change in changes:
        settings.update(change)
        dt = settings.pop("dt")
        fresh = BalanceLimit(feet, **settings)
        for name, value in settings.items():
            setattr(limit, name, value)
        rows = []
        for lim in (limit, fresh):
            lim.expect_check()
            rows.append(lim.compute_inequalities(conf, dt))
        assert rows[1] is not None
        for got, expected in zip(rows[0], rows[1], strict=True):
            assert got.tobytes() == expected.tobytes()
        assert limit.row_names() == fresh.row_names()
        checks = [lim.check_step(conf, v, dt) for lim in (limit, fresh)]
        assert (checks[0] is None) == (checks[1] is None)
        assert limit.check_step(conf, np.zeros(nv), dt) is None
        settings["dt"] = dt


def test_the_checked_step_is_the_step_of_every_row_also_when_solved_again(talos):
    """Along a loop whose first steps swing the CoM fast (no base velocity limit), steps
    where ``check_step`` found an edge without a row broken are solved again: every step
    equals the cold solve of every row, to rounding."""

    class Counted(BalanceLimit):
        again = 0

        def check_step(self, configuration, v, dt):  # type: ignore[no-untyped-def]
            rows = super().check_step(configuration, v, dt)
            Counted.again += rows is not None
            return rows

    conf = talos.configuration()
    feet, tasks = reach_past_the_feet(talos, conf)
    limit = Counted(feet)
    limits = [*taskik.limits.default_limits(talos.model), limit]
    for _ in range(40):
        v = taskik.solve_ik(conf, tasks, 0.01, limits=limits, adaptive=False)
        cold = taskik.backends.solve_qp(taskik.build_ik(conf, tasks, 0.01, limits=limits), "daqp")
        assert np.abs(v - cold).max() <= 1e-9 * (1.0 + float(np.abs(cold).max()))
        conf.integrate_inplace(v, 0.01)
    assert Counted.again >= 1


def test_contact_frames_are_found_by_name_in_the_model_as_it_is_now(talos):
    """The contact frames' indices follow the model's values, not its identity: after two
    frames of the same model swap places, a new configuration reads the soles where they
    are now (a cache keyed by the model object kept the old indices: a torso link)."""
    model = talos.model.copy()
    conf = taskik.Configuration(model, talos.q0)
    feet = both_feet(talos, conf)
    limit = BalanceLimit(feet)
    first = limit.region(conf)
    a, b = conf.get_frame_id(feet[0].frame.name), conf.get_frame_id("torso_2_link")
    frame_a, frame_b = model.frames[a].copy(), model.frames[b].copy()
    model.frames[a], model.frames[b] = frame_b, frame_a
    moved = taskik.Configuration(model, talos.q0)
    assert moved.get_frame_id(feet[0].frame.name) == b
    np.testing.assert_allclose(limit.region(moved).vertices, first.vertices, atol=1e-12)
    reference = BalanceLimit(feet).region(moved)
    np.testing.assert_allclose(limit.region(moved).vertices, reference.vertices, atol=1e-12)


def test_the_region_follows_a_foot_moved_in_place(talos):
    """The limit reads the contact frames where every update writes them, by value: a foot
    moved by editing the configuration's q in place (then ``update()``), or the model's
    sole frame in place, gives the region of a new limit at the new placement."""
    model = talos.model.copy()
    conf = taskik.Configuration(model, talos.q0)
    feet = both_feet(talos, conf)
    limit = BalanceLimit(feet)
    first = limit.region(conf)
    conf.q[0] += 0.05  # (the base, and both feet, 5 cm forward)
    conf.update()
    shifted = limit.region(conf)
    np.testing.assert_allclose(shifted.vertices, first.vertices + [0.05, 0.0], atol=1e-12)
    sole = model.frames[conf.get_frame_id(feet[0].frame.name)]
    sole.placement.translation[1] += 0.1  # (the left sole 10 cm to the left, in the model)
    conf.update()
    wider = limit.region(conf)
    reference = BalanceLimit(feet).region(conf)
    np.testing.assert_allclose(wider.vertices, reference.vertices, atol=1e-12)
    assert wider.vertices[:, 1].max() > shifted.vertices[:, 1].max() + 0.09


def test_the_region_is_never_reused_after_a_point_moved_by_more_than_the_tolerance(talos):
    """Random motions of the base and legs around the tolerance: whenever the region is
    reused, no contact point moved by more than ``tolerance`` since it was computed (the
    fast test on the frames' placements is sufficient only), and it is reused at least
    whenever they moved by less than half of it."""
    conf = talos.configuration()
    feet = both_feet(talos, conf)
    q0 = conf.q.copy()
    rng = np.random.default_rng(11)
    reused = 0
    for _ in range(100):
        conf.update(q0)
        limit = BalanceLimit(feet, tolerance=1e-3)
        first = limit.region(conf)
        start = np.vstack([c.world_points(conf) for c in feet])
        q = q0.copy()
        scale = 10.0 ** rng.uniform(-4.5, -2.5)
        q[:3] += rng.normal(size=3) * scale
        q[7:19] += rng.normal(size=12) * scale  # (the legs)
        conf.update(q)
        now = np.vstack([c.world_points(conf) for c in feet])
        distance = float(np.linalg.norm(now - start, axis=1).max())
        again = limit.region(conf)
        if again is first:
            reused += 1
            assert distance <= 1e-3 * (1 + 1e-9)
        else:
            assert distance > 0.5e-3
    assert 10 <= reused <= 90


def _drifted(P: np.ndarray, rng: np.random.Generator, scale: float) -> np.ndarray:
    """``P`` (k × 2) moved as a whole (a small rotation and shift) plus a smaller noise."""
    a = rng.normal() * scale
    R = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    return P @ R.T + rng.normal(size=2) * scale + rng.normal(size=P.shape) * 0.1 * scale


def test_the_hull_kept_by_vertex_order_is_the_chain_s_hull_or_gives_way(talos):
    """``hull_by_order`` (the hull of drifted points from the vertex order found before) on
    random polygons with points inside and on Talos's two soles, under drifts of 1 µm to
    1 cm: whenever it answers, the same vertices in the same order as ``convex_hull_2d`` to
    1e-12 m; when the drift changed which points make the hull it answers None. It answers
    for most drifts below 0.1 mm that left the same points on the hull (the feet of a loop
    drift that much between regions)."""
    from taskik.contacts.hull import hull_by_order, hull_vertex_order

    rng = np.random.default_rng(5)
    conf = talos.configuration()
    soles = np.vstack([c.world_points(conf)[:, :2] for c in both_feet(talos, conf)])
    answered = small = small_answered = changed = soles_answered = 0
    for trial in range(400):
        if trial % 4 == 0:
            P = soles
        else:  # points on a circle (some nearly collinear) and inside it
            n = int(rng.integers(3, 12))
            angles = np.sort(rng.uniform(0.0, 2 * np.pi, n))
            outer = np.column_stack([np.cos(angles), np.sin(angles)])
            inner = rng.uniform(-0.5, 0.5, (int(rng.integers(0, 10)), 2))
            P = np.vstack([outer, inner]) * 0.1 + rng.normal(size=2)
        before = convex_hull_2d(P)
        indices = hull_vertex_order(P, before)
        if indices is None:
            continue
        order, others = indices
        np.testing.assert_array_equal(np.round(P[order], 12), before)
        assert sorted([*order, *others]) == list(range(len(P)))
        scale = 10.0 ** rng.uniform(-6, -2)
        Q = _drifted(P, rng, scale)
        found = hull_by_order(Q, order, others)
        after = convex_hull_2d(Q)
        same_points = hull_vertex_order(Q, after)
        if same_points is None or set(same_points[0].tolist()) != set(order.tolist()):
            changed += 1
            assert found is None  # another set of points makes the hull
        elif scale < 1e-4:
            small += 1
        if found is None:
            continue
        answered += 1
        small_answered += scale < 1e-4
        if trial % 4 == 0:
            soles_answered += 1
        V, kept = found
        assert V.shape == after.shape
        np.testing.assert_allclose(V, after, rtol=0.0, atol=1e-12)
        np.testing.assert_array_equal(np.round(Q[kept], 12), V)
    assert answered > 100 and changed > 10
    assert small_answered >= 0.8 * small and soles_answered >= 20


def test_the_hull_kept_by_vertex_order_gives_way_on_purpose():
    """A point pushed out of the hull, a vertex pulled in, a vertex made collinear, a NaN:
    ``hull_by_order`` answers None; repeated points leave no vertex order to keep."""
    from taskik.contacts.hull import hull_by_order, hull_vertex_order

    P = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0], [0.5, 0.5], [0.2, 0.7]])
    indices = hull_vertex_order(P, convex_hull_2d(P))
    assert indices is not None
    order, others = indices
    assert order.tolist() == [0, 1, 2, 3] and others.tolist() == [4, 5]
    found = hull_by_order(P, order, others)
    assert found is not None and np.array_equal(found[0], convex_hull_2d(P))
    for point, where in ((4, [1.2, 0.5]), (1, [0.7, 0.8]), (1, [0.3, 0.3]), (5, [np.nan, 0.0])):
        Q = P.copy()
        Q[point] = where
        assert hull_by_order(Q, order, others) is None
    assert hull_vertex_order(np.vstack([P, P[:1]]), convex_hull_2d(P)) is None


def test_the_limit_s_region_follows_drifting_feet_as_the_chain_does(talos, monkeypatch):
    """The region of flat contacts (tolerance 0: computed again at every step) equals
    ``support_region``'s: with the feet shifted, without the chain of ``convex_hull_2d`` after
    the first region; with the legs moved further (the soles tilt and yaw), the points on
    the hull's edges change and the chain runs again."""
    import taskik.contacts.hull as hull

    chains = []
    chain = hull.convex_hull_2d
    monkeypatch.setattr(hull, "convex_hull_2d", lambda P: chains.append(1) or chain(P))
    conf = talos.configuration()
    feet = both_feet(talos, conf)
    limit = BalanceLimit(feet, tolerance=0.0)
    rng = np.random.default_rng(8)
    q0 = conf.q.copy()
    limit_chains = 0
    for k in range(60):
        q = q0.copy()  # (first the base shifted and the legs barely moved, then moved more)
        q[:3] += rng.normal(size=3) * (1e-3 if k < 40 else 5e-2)
        q[7:19] += rng.normal(size=12) * (1e-7 if k < 40 else 5e-2)  # (the legs)
        conf.update(q)
        before = len(chains)
        mine = limit.region(conf)
        limit_chains += len(chains) - before  # (the limit's chains: not support_region's)
        ref = support_region(ContactSet.of(conf, feet))
        np.testing.assert_allclose(mine.vertices, ref.vertices, rtol=0.0, atol=1e-12)
        np.testing.assert_allclose(mine.normals, ref.normals, rtol=0.0, atol=1e-12)
        np.testing.assert_allclose(mine.offsets, ref.offsets, rtol=0.0, atol=1e-12)
        if k == 39:
            assert limit_chains == 1  # (the first region only)
    assert limit_chains > 10  # the large motions changed the hull's vertices
