"""One control step, taskik against compiled peers: placo, roboplan-oink, TSID and EmbodiK.

How to run: ``make bench-peers`` builds one virtual environment per peer in the repository
(``.venv-peers-placo``, ``.venv-peers-oink``, ``.venv-peers-tsid``, ``.venv-peers-embodik``:
taskik installed editable with example-robot-data, plus that peer from PyPI; the peers pin
different Pinocchio builds, so they cannot share one) and runs this script, which starts
itself once per environment (``--worker PEER``) and writes
benchmarks/results/step_compiled_peers.txt. A peer whose environment is missing, or that
fails to import or to build a scene, gets a line saying so with the exact error.
``--envs DIR`` takes the environments from another folder (another clone's, already built).
``python benchmarks/step_compiled_peers.py --worker placo`` runs one peer in the current
interpreter. None of the peers is a dependency of taskik.

The robots: the calling interpreter (the repository's .venv, example-robot-data 5, the one
taskik's other step benchmarks run in) finds each robot's URDF, SRDF and mesh directories
(``model_files``) and gives them by path to every worker (``--files``), which builds
taskik's model from them as example-robot-data does (``Robot``) and gives the peer the same
URDF. So every peer runs the same robots, whatever example-robot-data its environment has:
placo 0.10 brings pin 3.8 and TSID 1.7.1 needs pin 3.4, so their environments have
example-robot-data 4, which has no G1 (the Makefile says why these versions); roboplan-oink
0.7 and EmbodiK 0.23 run on pin 4. Where a peer cannot take a scene whole, both sides of its
row get the same change and the row is labelled: roboplan drops the Panda's mimic finger
joint, so for oink both finger joints are fixed at their start value, in its URDF and in
taskik's model ("fingers fixed"; no task moves them); roboplan-oink 0.7 has no
centre-of-mass task, so on Talos and G1 oink and taskik both run the scene without its CoM
task ("no CoM": the same problem for both, a fair comparison of the two on it, but not the
humanoid scene of the other rows). roboplan's URDF has no free flyer of its own: a floating
joint named ``root_joint`` is added above the root link (``floating_root``).

What is compared: the scenes of ``benchmarks/step_vs_pink.py`` (UR5 and Panda: a frame task on
the tool, posture cost 1e-3; Talos and G1: both soles, both grippers or hands and the base,
a CoM task, posture cost 1e-2; every frame target 10 cm away, the CoM 2 cm away), the same
costs, gain 1, dt = 0.01 s, the position limits with gain 0.5 and the velocity limits where
the peer has them. One timed call is the whole step from a configuration to a velocity:
setting q and the kinematics that go with it (``conf.update(q_k)`` for taskik, the peer's own
update), the tasks, the limits and the QP. The configurations follow the smooth path of
``_timing.moving_path``; taskik and the peer run interleaved in one process over the same
configurations (``_timing.interleaved_steps``): median and p95 µs, and the peer's time as a
fraction of taskik's. taskik runs with its defaults (DAQP, ``adaptive=True``).

Agreement, step by step in a closed loop: taskik's plain step (``adaptive=False``) drives a
100-step loop from the start q (step, integrate); at every step the peer is given the same q,
and the largest difference of the velocities is reported, absolute and relative to the
largest |v|. The peer's own closed loop from the same start (its steps integrated by
Pinocchio) is reported by the largest distance of its configurations from taskik's
(``pin.difference``, max norm) over the 100 steps. Where the peer's problem differs from
taskik's (its weighting, its limits, a hierarchy instead of weights), the note under its
table says how; a difference of the velocities then measures that, not an error. The
'matched' column runs the agreement loop again with taskik's position limits set as the
peer's own (placo: gain 1, TSID: none), to tell that difference from the others.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import traceback
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path
from typing import Any

import numpy as np
import pinocchio as pin

sys.path.insert(0, str(Path(__file__).parent))
from _scenes import robot_scenario, scene_tasks, targets  # noqa: E402
from _timing import interleaved_steps, moving_path, publish, stats  # noqa: E402

import taskik  # noqa: E402

DT = 0.01
ROOT = Path(__file__).resolve().parents[1]
PEERS = ("placo", "oink", "tsid", "embodik")
PACKAGES = {"placo": "placo", "oink": "roboplan-oink", "tsid": "tsid", "embodik": "embodik"}
ROBOTS = ("ur5", "panda", "talos", "g1")
PANDA_FINGERS = ("panda_finger_joint1", "panda_finger_joint2")
# ProxQP's absolute tolerance in oink: at its default 1e-6 the posture's weight (cost² = 1e-6
# on the arms) is within the tolerance and the step along a redundant arm's null space is
# off by up to the velocity limit; 1e-10 gives taskik's answer (--oink-eps-abs changes it)
OINK_EPS_ABS = 1e-10
# taskik's position limits set as a peer's own, for the 'matched' agreement column: placo
# bounds q + Δq by the full distance to a limit (gain 1), TSID has none
MATCHED: dict[str, dict] = {"placo": {"gain": 1.0}, "tsid": {"position_limits": False}}
LOOP_STEPS = 100


def model_files(name: str) -> dict:
    """Where this interpreter's example-robot-data takes the scene's robot from: the URDF,
    the package directories of its meshes, the SRDF and its reference posture, the base;
    or, where it has no such robot, ``{"error": why}`` (the robot's rows say so)."""
    from example_robot_data.robots_loader import ROBOTS

    if name not in ROBOTS:
        return {"error": f"example-robot-data {version('example-robot-data')} has no {name}"}
    loader = ROBOTS[name]()
    return {
        "urdf": os.path.normpath(loader.df_path),
        "package_dirs": [os.path.normpath(os.path.join(loader.model_path, "../.."))],
        "srdf": loader.srdf_path and os.path.normpath(loader.srdf_path),
        "posture": loader.ref_posture,
        "free_flyer": loader.free_flyer,
        "source": f"example-robot-data {version('example-robot-data')}",
    }


class Robot:
    """The scene's robot built from its files as example-robot-data builds it (the model,
    ``q0``: the SRDF's reference posture or the neutral q, the free flyer's position
    bounded by ±1), so that a peer's process runs the model taskik's process loads; the
    joints in ``fixed`` are turned into fixed joints at their ``q0`` value, in the model and
    in the URDF text the peer is given (``urdf_text``: no visual or collision elements)."""

    def __init__(self, files: dict, fixed: tuple[str, ...] = ()) -> None:
        if "error" in files:
            raise ValueError(files["error"])
        self.urdf = files["urdf"]
        root = [pin.JointModelFreeFlyer()] if files["free_flyer"] else []
        model = pin.buildModelFromUrdf(self.urdf, *root)
        q0 = pin.neutral(model)
        if files["srdf"] and files["posture"] is not None:
            pin.loadReferenceConfigurations(model, files["srdf"], False)
            q0 = pin.normalize(model, model.referenceConfigurations[files["posture"]].copy())
        self.urdf_text = bare_urdf(Path(self.urdf).read_text(), model, q0, fixed)
        if fixed:
            full, full_q0 = model, q0
            model = pin.buildModelFromXML(self.urdf_text, *root)
            q0 = np.concatenate(
                [full_q0[full.idx_qs[full.getJointId(n)] :][: j.nq] for n, j in joints(model)]
            )
        if files["free_flyer"]:
            model.upperPositionLimit[:7] = 1.0
            model.lowerPositionLimit[:7] = -1.0
        self.model, self.q0 = model, q0


def joints(model: pin.Model) -> list[tuple[str, pin.JointModel]]:
    """The model's joints after the universe: (name, joint model)."""
    return [(model.names[i], model.joints[i]) for i in range(1, model.njoints)]


class Scene:
    """One scene of the step benchmark (step_vs_pink.py): the robot, its start q, the frame
    tasks, CoM, posture cost, targets. ``com=False`` drops the CoM task (a peer without
    one); ``fixed`` names joints fixed at their start value, in taskik's model and the
    peer's."""

    def __init__(
        self, name: str, files: dict, fixed: tuple[str, ...] = (), com: bool = True
    ) -> None:
        self.name = name
        robot, q, frames, with_com, posture_cost = robot_scenario(name, Robot(files, fixed))
        self.robot, self.model = robot, robot.model
        self.q0 = np.array(q, dtype=float)
        with_com = with_com and com
        self.frames, self.with_com, self.posture_cost = frames, with_com, posture_cost
        self.goals, self.com = targets(self.model, self.q0, frames)
        self.floating = self.model.joints[1].shortname() == "JointModelFreeFlyer"

    def taskik_tasks(self, levels: bool = False) -> list:
        tasks = scene_tasks(
            taskik, self.frames, self.goals, self.com, self.q0, self.with_com, self.posture_cost
        )
        return [tasks[:-1], tasks[-1:]] if levels else tasks


class TaskikStep:
    """taskik's step from q: ``conf.update(q)`` then ``solve_ik``."""

    def __init__(
        self,
        scene: Scene,
        adaptive: bool = True,
        levels: bool = False,
        gain: float = 0.5,
        position_limits: bool = True,
    ) -> None:
        self.conf = taskik.Configuration(scene.model, scene.q0)
        self.tasks = scene.taskik_tasks(levels)
        self.limits = [taskik.VelocityLimit(scene.model)]
        if position_limits:
            self.limits.insert(0, taskik.ConfigurationLimit(scene.model, gain=gain))
        self.adaptive = adaptive

    def __call__(self, q: np.ndarray) -> np.ndarray:
        self.conf.update(q)
        return taskik.solve_ik(
            self.conf, self.tasks, DT, limits=self.limits, solver="daqp", adaptive=self.adaptive
        )


# ---------------------------------------------------------------------------------- peers
# Each builder returns (step, notes): step(q) -> v (Pinocchio's order, rad/s and m/s) from a
# configuration in Pinocchio's order, kinematics included; notes say how its problem differs.


def build_placo(scene: Scene) -> tuple[Callable[[np.ndarray], np.ndarray], list[str], bool]:
    import placo

    with tempfile.TemporaryDirectory() as tmp:
        urdf = Path(tmp) / "robot.urdf"
        urdf.write_text(scene.robot.urdf_text)
        robot = placo.RobotWrapper(str(urdf))
    # placo's model always has a free flyer first: a fixed base is masked, its 6 velocities
    # dropped from v; a floating base is Pinocchio's own free flyer
    base = 0 if scene.floating else 6
    if robot.model.nv - base != scene.model.nv:
        raise ValueError(f"placo's model has nv {robot.model.nv}, Pinocchio's {scene.model.nv}")
    qfull = np.array(robot.state.q, dtype=float)
    solver = placo.KinematicsSolver(robot)
    solver.dt = DT
    solver.mask_fbase(not scene.floating)
    solver.enable_joint_limits(True)
    solver.enable_velocity_limits(True)
    for frame, pc, oc in scene.frames:
        task = solver.add_frame_task(frame, scene.goals[frame].homogeneous)
        # placo's weight multiplies the squared error: cost² is taskik's weight
        task.configure(frame, "soft", pc**2, oc**2)
    if scene.with_com:
        com = solver.add_com_task(scene.com)
        com.configure("com", "soft", 1.0)
    posture = solver.add_joints_task()
    model = scene.model
    posture.set_joints(
        {n: float(scene.q0[model.idx_qs[model.getJointId(n)]]) for n in robot.joint_names()}
    )
    posture.configure("posture", "soft", scene.posture_cost**2)
    notes = [
        "placo: tasks in one weighted QP (a soft task's weight multiplies its squared error:",
        "  weight = cost²); its joint limits bound q + Δq by the full distance to the limit",
        "  (no gain 0.5); its own regularisation of Δq is added to every problem; its frame",
        "  error is the position and the rotation split, taskik's is log6: where the tasks",
        "  cannot all be met in one step (velocity limits), the compromise differs;",
        "  solve(False) returns Δq, v = Δq / dt",
    ]

    def step(q: np.ndarray) -> np.ndarray:
        if base:
            qfull[7:] = q
            robot.state.q = qfull
        else:
            robot.state.q = q
        robot.update_kinematics()
        return solver.solve(False)[base:] / DT

    return step, notes, False


def build_oink(scene: Scene) -> tuple[Callable[[np.ndarray], np.ndarray], list[str], bool]:
    import roboplan.core as rc
    import roboplan.optimal_ik as oi

    if scene.with_com:
        raise ValueError("roboplan-oink 0.7 has no centre-of-mass task")
    text = scene.robot.urdf_text
    if scene.floating:
        text = floating_root(text)
    desc = rc.loadUrdfSceneDescriptionFromXml(text)
    sc = rc.Scene(scene.name, desc)
    settings = oi.OinkSettings()
    settings.warm_start = True
    settings.eps_abs = OINK_EPS_ABS
    oink = oi.Oink(sc, settings)
    if oink.num_variables != scene.model.nv:
        raise ValueError(
            f"oink has {oink.num_variables} variables, Pinocchio's model nv {scene.model.nv} "
            "(roboplan drops mimic joints)"
        )
    tasks = []
    for frame, pc, oc in scene.frames:
        target = rc.CartesianConfiguration("", frame, scene.goals[frame].homogeneous)
        # oink's weight matrix is diag(√cost): cost² is taskik's cost
        opts = oi.FrameTaskOptions(position_cost=pc**2, orientation_cost=oc**2, task_gain=1.0)
        tasks.append(oi.FrameTask(oink, sc, target, opts))
    weights = np.full(scene.model.nv, scene.posture_cost**2)
    if scene.floating:
        weights[:6] = 0.0  # taskik's posture leaves out the base named root_joint
    tasks.append(oi.ConfigurationTask(oink, scene.q0.copy(), weights))
    v_max = np.array(scene.model.velocityLimit, dtype=float)
    limits = [oi.PositionLimit(oink, 0.5), oi.VelocityLimit(oink, DT, v_max)]
    delta = np.zeros(oink.num_variables)
    notes = [
        "oink: the same costs (its weights are diag(√cost): given cost²), gain 1, position",
        "  limits with gain 0.5, velocity limits; but its frame error is the position and the",
        "  rotation split, both world-aligned, where taskik's is log6 of the pose error in the",
        "  frame (the same zero, another path to it); its QP is ProxQP;",
        f"  solveIk(q, ...) returns Δq, v = Δq / dt; warm start on; eps_abs {OINK_EPS_ABS:g}",
        "  (at its default 1e-6 the posture's weight 1e-6 is within the tolerance: the step",
        "  along a redundant arm's null space is then off by up to the velocity limit)",
    ]

    def step(q: np.ndarray) -> np.ndarray:
        oink.solveIk(q, tasks, limits, [], delta)
        return delta / DT

    return step, notes, False


def build_embodik(scene: Scene) -> tuple[Callable[[np.ndarray], np.ndarray], list[str], bool]:
    import embodik

    model = embodik.RobotModel(scene.robot.urdf, scene.floating)
    if model.nv != scene.model.nv:
        raise ValueError(f"EmbodiK's model has nv {model.nv}, Pinocchio's {scene.model.nv}")
    solver = embodik.KinematicsSolver(model)
    solver.dt = DT
    solver.enable_position_limits(True)
    solver.enable_velocity_limits(True)
    for frame, _, _ in scene.frames:
        task = solver.add_frame_task(frame, frame)
        T = scene.goals[frame]
        task.set_target_pose(np.array(T.translation), np.asfortranarray(T.rotation))
        task.priority = 0
        task.weight = 1.0 / DT
    if scene.with_com:
        com = solver.add_com_task("com")
        com.set_target_position(scene.com)
        com.priority = 0
        com.weight = 1.0 / DT
    posture = solver.add_posture_task("posture")
    posture.set_target_configuration(scene.q0.copy())
    posture.priority = 1
    posture.weight = 1.0 / DT
    notes = [
        "EmbodiK: a hierarchy (frames and CoM first, posture second), compared with taskik's",
        "  levels [[frames, CoM], [posture]]; its velocity limits scale the whole step, its",
        "  position limits are its own; solve_velocity(q) returns v",
    ]

    def step(q: np.ndarray) -> np.ndarray:
        return np.array(solver.solve_velocity(q).joint_velocities)

    return step, notes, True


def build_tsid(scene: Scene) -> tuple[Callable[[np.ndarray], np.ndarray], list[str], bool]:
    try:
        import tsid

        tsid.RobotWrapper  # noqa: B018 - the 1.7.1 wheel's package has no __init__ at its top
    except AttributeError:
        from tsid import tsid_pywrap as tsid

    with tempfile.TemporaryDirectory() as tmp:
        urdf = Path(tmp) / "robot.urdf"
        urdf.write_text(scene.robot.urdf_text)
        if scene.floating:
            robot = tsid.RobotWrapper(str(urdf), [], pin.JointModelFreeFlyer(), False)
        else:
            robot = tsid.RobotWrapper(str(urdf), [], False)
    if robot.nv != scene.model.nv:
        raise ValueError(f"TSID's model has nv {robot.nv}, Pinocchio's {scene.model.nv}")
    form = tsid.InverseDynamicsFormulationAccForce("ik", robot, False)
    v0 = np.zeros(robot.nv)
    form.computeProblemData(0.0, scene.q0, v0)
    # with v = 0 at every call, a task's desired acceleration Kp e with Kp = 1 / dt² gives
    # v = a dt whose task velocity is e / dt: gain 1 per step, as taskik's
    kp = 1.0 / DT**2
    keep = []
    for frame, pc, oc in scene.frames:
        task = tsid.TaskSE3Equality(frame, robot, frame)
        task.setKp(kp * np.ones(6))
        task.setKd(np.zeros(6))
        traj = tsid.TrajectorySE3Constant(frame, scene.goals[frame])
        sample = traj.computeNext()  # tasks keep a reference to their sample: kept alive
        task.setReference(sample)
        # one weight per task in TSID: the scenes' position and orientation costs are equal
        form.addMotionTask(task, pc * oc, 1, 0.0)
        keep += [task, traj, sample]
    if scene.with_com:
        com = tsid.TaskComEquality("com", robot)
        com.setKp(kp * np.ones(3))
        com.setKd(np.zeros(3))
        ctraj = tsid.TrajectoryEuclidianConstant("com", scene.com)
        csample = ctraj.computeNext()
        com.setReference(csample)
        form.addMotionTask(com, 1.0, 1, 0.0)
        keep += [com, ctraj, csample]
    posture = tsid.TaskJointPosture("posture", robot)
    na = robot.na
    posture.setKp(kp * np.ones(na))
    posture.setKd(np.zeros(na))
    ptraj = tsid.TrajectoryEuclidianConstant("posture", scene.q0[scene.model.nq - na :])
    psample = ptraj.computeNext()
    posture.setReference(psample)
    form.addMotionTask(posture, scene.posture_cost**2, 1, 0.0)
    bounds = tsid.TaskJointBounds("bounds", robot, DT)
    vmax = np.array(scene.model.velocityLimit[scene.model.nv - na :], dtype=float)
    bounds.setVelocityBounds(-vmax, vmax)
    form.addMotionTask(bounds, 1.0, 0, 0.0)
    keep += [robot, posture, ptraj, psample, bounds]
    solver = tsid.SolverHQuadProgFast("qp")
    solver.resize(form.nVar, form.nEq, form.nIn)
    notes = [
        "TSID: inverse dynamics (accelerations and torques, M a + h = Sᵀτ) at v = 0, tasks",
        "  as accelerations Kp e with Kp = 1/dt², v = a dt; weights cost²; the joint velocity",
        "  bounds as acceleration bounds, no position limits; a floating base is not actuated",
        "  (no contact): gravity acts on it, so on humanoids the problem is another one",
    ]

    qbuf = scene.q0.copy()

    def step(q: np.ndarray) -> np.ndarray:
        qbuf[:] = q
        data = form.computeProblemData(0.0, qbuf, v0)
        sol = solver.solve(data)
        return np.array(form.getAccelerations(sol)) * DT

    step.keep = keep  # type: ignore[attr-defined]
    return step, notes, False


BUILDERS = {"placo": build_placo, "oink": build_oink, "tsid": build_tsid, "embodik": build_embodik}


def agreement(
    scene: Scene, peer: Callable[[np.ndarray], np.ndarray], levels: bool, **limits: Any
) -> tuple[float, float, float]:
    """Closed loop of taskik's plain step; the peer at the same q; the peer's own loop.
    ``limits``: TaskikStep's position-limit keywords (the peer's own limits, matched)."""
    ref = TaskikStep(scene, adaptive=False, levels=levels, **limits)
    q = scene.q0.copy()
    qp = scene.q0.copy()
    dv = vmax = dq = 0.0
    for _ in range(LOOP_STEPS):
        v = np.array(ref(q))
        vp = np.array(peer(q))
        dv = max(dv, float(np.abs(v - vp).max()))
        vmax = max(vmax, float(np.abs(v).max()))
        q = pin.integrate(scene.model, q, v * DT)
        qp = pin.integrate(scene.model, qp, np.array(peer(qp)) * DT)
        dq = max(dq, float(np.abs(pin.difference(scene.model, q, qp)).max()))
    return dv, dv / vmax, dq


def timings(scene: Scene, ours, theirs, calls: int):
    """(median, p95) µs of taskik's step and the peer's, interleaved on the moving path."""
    path = moving_path(scene.model, scene.q0, max(calls, 400))
    m = len(path)
    at = [0]

    def mark(k: int) -> None:
        at[0] = k % m

    contenders = {
        "taskik": (mark, lambda: ours(path[at[0]])),
        "peer": (mark, lambda: theirs(path[at[0]])),
    }
    res = interleaved_steps(contenders, calls)
    return stats(res["taskik"]), stats(res["peer"])


def floating_root(text: str) -> str:
    """The URDF's text with a floating joint named ``root_joint`` from a new world link to
    its root link: Pinocchio's model of it is that of the URDF on a free flyer."""
    children = set(re.findall(r'<child\s+link="([^"]+)"', text))
    roots = [x for x in re.findall(r'<link\s+name="([^"]+)"', text) if x not in children]
    if len(roots) != 1:
        raise ValueError(f"the URDF has root links {roots}, one expected")
    joint = (
        '<link name="floating_root_world"/><joint name="root_joint" type="floating">'
        f'<parent link="floating_root_world"/><child link="{roots[0]}"/></joint>'
    )
    return re.sub(r"(<robot\b[^>]*>)", lambda m: m.group(1) + joint, text, count=1)


def bare_urdf(text: str, model: pin.Model, q0: np.ndarray, fixed: tuple[str, ...]) -> str:
    """The URDF's text without comments, visual and collision elements (no meshes to find), the
    joints in ``fixed`` turned into fixed joints whose origin is their placement at ``q0``
    (Pinocchio's model of the URDF ``model``), their mimic elements dropped."""
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)  # a comment may hold a link or joint
    for tag in ("visual", "collision"):
        text = re.sub(rf"<{tag}\b.*?</{tag}>", "", text, flags=re.S)
    if not fixed:
        return text
    data = model.createData()
    pin.framesForwardKinematics(model, data, q0)
    for name in fixed:
        head = re.search(rf'<joint\b[^>]*\bname="{re.escape(name)}"[^>]*>', text)
        if head is None:
            raise ValueError(f"the URDF has no joint {name}")
        end = text.index("</joint>", head.end())
        parent = re.search(r'<parent\s+link="([^"]+)"', text[head.end() : end])
        if parent is None:
            raise ValueError(f"the URDF's joint {name} has no parent link")
        # the joint's origin at q0, relative to its parent link (Pinocchio's joint placements
        # are relative to the parent joint, past the fixed joints it merged)
        placement = data.oMf[model.getFrameId(parent.group(1))].actInv(
            data.oMi[model.getJointId(name)]
        )
        xyz = " ".join(f"{x:.17g}" for x in placement.translation)
        rpy = " ".join(f"{x:.17g}" for x in pin.rpy.matrixToRpy(placement.rotation))
        body = re.sub(
            r"<(origin|axis|limit|mimic|dynamics|safety_controller)\b[^>]*/>",
            "",
            text[head.end() : end],
        )
        opening = re.sub(r'\btype="\w+"', 'type="fixed"', head.group(0))
        origin = f'<origin xyz="{xyz}" rpy="{rpy}"/>'
        text = text[: head.start()] + opening + origin + body + text[end:]
    return text


def variant(peer: str, name: str) -> tuple[dict, str]:
    """How a scene is changed for a peer that cannot take it whole: Scene's keywords and
    the label its row carries (the same change is made to taskik's side of the row)."""
    if peer == "oink" and name == "panda":
        # roboplan drops a mimic joint from its model: both fingers are fixed at their start
        # value, in oink's URDF and in taskik's model (no task moves the fingers)
        return {"fixed": PANDA_FINGERS}, "fingers fixed"
    if peer == "oink" and name in ("talos", "g1"):
        return {"com": False}, "no CoM"
    return {}, ""


def worker(peer: str, robots: list[str], calls: int, files: dict) -> list[dict]:
    """Rows for one peer, run in this interpreter (JSON-able dicts); ``files``: the robots'
    files by name (``model_files``), as the interpreter running taskik's own benchmarks has
    them."""
    rows: list[dict] = []
    try:
        __import__(
            {"oink": "roboplan.optimal_ik", "placo": "placo", "tsid": "tsid"}.get(peer, peer)
        )
        peer_version = version(PACKAGES[peer])
    except Exception as exc:  # noqa: BLE001 - reported in the results
        return [{"peer": peer, "error": f"import failed: {type(exc).__name__}: {exc}"}]
    for name in robots:
        print(f"{peer}: {name} ...", file=sys.stderr)
        options, label = variant(peer, name)
        try:
            scene = Scene(name, files[name], **options)
        except Exception as exc:  # noqa: BLE001 - reported in the results
            rows.append(
                {
                    "peer": peer,
                    "version": peer_version,
                    "robot": name,
                    "error": f"{type(exc).__name__}: {exc}",
                }
            )
            continue
        try:
            step, notes, levels = BUILDERS[peer](scene)
            step(scene.q0)
        except Exception as exc:  # noqa: BLE001 - reported in the results
            last = traceback.extract_tb(exc.__traceback__)[-1]
            rows.append(
                {
                    "peer": peer,
                    "version": peer_version,
                    "robot": name,
                    "nv": scene.model.nv,
                    "error": f"{type(exc).__name__}: {exc} (line {last.lineno})",
                }
            )
            continue
        dv, rel, dq = agreement(scene, step, levels)
        matched = agreement(scene, step, levels, **MATCHED[peer])[1] if peer in MATCHED else None
        (tm, tp), (pm, pp) = timings(scene, TaskikStep(scene, levels=levels), step, calls)
        rows.append(
            {
                "peer": peer,
                "version": peer_version,
                "robot": name,
                "variant": label,
                "nv": scene.model.nv,
                "levels": levels,
                "taskik": [tm, tp],
                "timed": [pm, pp],
                "dv": dv,
                "dv_rel": rel,
                "dq": dq,
                "matched": matched,
                "notes": notes,
            }
        )
    return rows


def run_peer(peer: str, robots: list[str], calls: int, files: dict, envs: Path) -> list[dict]:
    """Run the worker in the peer's environment (``envs/.venv-peers-PEER``); rows, or one row
    saying why not."""
    python = envs / f".venv-peers-{peer}" / "bin" / "python"
    if not python.exists():
        return [
            {
                "peer": peer,
                "error": f"no environment {python.parent.parent.name}: "
                f"run `make .venv-peers-{peer}/.installed` (see the Makefile)",
            }
        ]
    cmd = [str(python), __file__, "--worker", peer, "--calls", str(calls)]
    cmd += ["--oink-eps-abs", repr(OINK_EPS_ABS), "--files", json.dumps(files), "--robots", *robots]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    sys.stderr.write(done.stderr)
    lines = [x for x in done.stdout.splitlines() if x.startswith("{")]
    if done.returncode != 0 or not lines:
        tail = done.stderr.strip().splitlines()[-1:] or ["(no output)"]
        return [{"peer": peer, "error": f"worker exited {done.returncode}: {tail[0]}"}]
    return [json.loads(x) for x in lines]


def report(rows: list[dict], calls: int, source: str) -> str:
    lines = [
        "One control step from a configuration to a velocity (q set and kinematics, tasks, "
        "limits, QP), taskik vs compiled peers",
        "each peer in its own environment, interleaved with taskik in one process over the "
        "same moving configurations (dt = 0.01 s)",
        "'peer/taskik' = the peer's time as a fraction of taskik's (below 1: the peer is "
        "faster); taskik = defaults (DAQP, adaptive=True)",
        "agreement: taskik's plain step in a 100-step closed loop, the peer at the same q: "
        "max|Δv| (and / max|v|);",
        "own loop: the peer's own closed loop, max distance of its q from taskik's "
        "(pin.difference, max norm);",
        "matched: rel again with taskik's position limits set as the peer's own (placo: gain 1;"
        " TSID: none)",
        "p95: in EmbodiK's process taskik's p95 is ms where elsewhere it is 0.1-0.3 ms (with "
        "OMP_NUM_THREADS=1 too): compare medians",
        f"robots: {source}'s files (those of taskik's other step benchmarks), given by path",
        "  to each peer's process, which builds taskik's model from them as example-robot-data",
        "  does and gives the same URDF to the peer",
        "rows '(no CoM)': roboplan-oink 0.7 has no centre-of-mass task; oink and taskik both run",
        "  the humanoid scene without it, the same problem for both: a fair comparison of the two",
        "  on that problem, not on the humanoid scene of the other rows;",
        "rows '(fingers fixed)': roboplan drops the Panda's mimic finger joint; both fingers are",
        "  fixed at their start value in oink's URDF and in taskik's model (no task moves them)",
        f"python {platform.python_version()}, {calls} timed calls per contender in 5 rounds",
        "",
        f"{'peer':<24}{'robot':<22}{'nv':>4}{'taskik µs':>11}{'p95':>8}{'peer µs':>10}"
        f"{'p95':>8}{'peer/taskik':>13}{'p95':>7}{'max|Δv|':>10}{'rel':>9}{'own loop':>10}"
        f"{'matched':>9}",
    ]
    notes: dict[str, list[str]] = {}
    errors: list[str] = []
    for r in rows:
        label = f"{r['peer']} {r.get('version', '')}".strip()
        if "error" in r:
            where = f" on {r['robot']}" if "robot" in r else ""
            errors.append(f"{label}{where}: not run: {r['error']}")
            continue
        if r["levels"]:
            label += " (levels)"
        tm, tp = r["taskik"]
        pm, pp = r["timed"]
        robot = f"{r['robot']} ({r['variant']})" if r["variant"] else r["robot"]
        lines.append(
            f"{label:<24}{robot:<22}{r['nv']:>4}{tm:>11.1f}{tp:>8.1f}{pm:>10.1f}{pp:>8.1f}"
            f"{pm / tm:>12.2f}x{pp / tp:>6.2f}x{r['dv']:>10.2e}{r['dv_rel']:>9.1e}"
            f"{r['dq']:>10.1e}"
            + (f"{r['matched']:>9.1e}" if r["matched"] is not None else f"{'-':>9}")
        )
        notes[r["peer"]] = r["notes"]
    lines.append("")
    for peer in PEERS:
        lines += notes.get(peer, [])
    lines += errors
    return "\n".join(lines)


def main() -> None:
    global OINK_EPS_ABS
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000, help="timed calls per contender")
    parser.add_argument("--quick", action="store_true", help="smoke run: 200 calls")
    parser.add_argument("--robots", nargs="+", default=list(ROBOTS))
    parser.add_argument("--peers", nargs="+", default=list(PEERS), choices=PEERS)
    parser.add_argument("--worker", choices=PEERS, help="run one peer in this interpreter")
    parser.add_argument(
        "--oink-eps-abs", type=float, default=OINK_EPS_ABS, help="oink's ProxQP eps_abs"
    )
    parser.add_argument(
        "--envs",
        type=Path,
        default=ROOT,
        help="the folder holding the .venv-peers-* environments (default: the repository)",
    )
    parser.add_argument(
        "--files", help="the robots' files as JSON (from the calling process; default: this one's)"
    )
    parser.add_argument(
        "--out", default=str(Path(__file__).parent / "results/step_compiled_peers.txt")
    )
    args = parser.parse_args()
    calls = 200 if args.quick else args.calls
    OINK_EPS_ABS = args.oink_eps_abs
    files = json.loads(args.files) if args.files else {n: model_files(n) for n in args.robots}
    if args.worker:
        for row in worker(args.worker, args.robots, calls, files):
            print(json.dumps(row))
        return
    rows: list[dict] = []
    for peer in args.peers:
        rows += run_peer(peer, args.robots, calls, files, args.envs)
    source = ", ".join(sorted({f.get("source", "no robots") for f in files.values()}))
    publish(report(rows, calls, source), args.out)


if __name__ == "__main__":
    main()
