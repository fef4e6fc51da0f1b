"""The MJCF models the tests and the fuzzer write to disk (one text each, shared)."""

#: A free joint, a ball joint and a hinge (MuJoCo's quaternions w-first: the order matters for
#: the first two), a site turned about y, named geoms, a turned mocap body, a plain body and a
#: keyframe whose qpos is in MuJoCo's order.
BALL_ARM = """<mujoco model="ball_arm">
  <worldbody>
    <body name="base" pos="0 0 0.5">
      <freejoint name="root"/>
      <geom name="base_geom" type="box" size="0.1 0.1 0.1"/>
      <body name="upper" pos="0 0 0.2">
        <joint name="shoulder" type="ball"/>
        <geom type="capsule" fromto="0 0 0 0 0 0.3" size="0.03"/>
        <body name="lower" pos="0 0 0.3">
          <joint name="elbow" type="hinge" axis="0 1 0" range="-2 2"/>
          <geom name="forearm" type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
          <site name="tip" pos="0.3 0 0" quat="0.9238795 0 0.3826834 0"/>
        </body>
      </body>
    </body>
    <body name="target" mocap="true" pos="0.2 0.1 0.9" quat="0.9238795 0 0.3826834 0"/>
    <body name="plain" pos="1 0 0"/>
  </worldbody>
  <keyframe>
    <key name="bent" qpos="0.1 0.2 0.6 0.9238795 0 0.3826834 0  0.8660254 0.5 0 0  0.7"/>
  </keyframe>
</mujoco>
"""

#: One body with two hinges (a composite joint in Pinocchio) and a child with one, in radians
#: (MJCF's default unit is the degree).
TWO_HINGES = """<mujoco model="two_hinges">
  <compiler angle="radian"/>
  <worldbody>
    <body name="base">
      <body name="link1" pos="0 0 0.1">
        <joint name="j1" type="hinge" axis="0 0 1" range="-0.5 0.5"/>
        <joint name="j2" type="hinge" axis="0 1 0" range="-0.3 0.4"/>
        <geom type="capsule" size="0.02" fromto="0 0 0 0 0 0.3" mass="1"/>
        <body name="link2" pos="0 0 0.3">
          <joint name="j3" type="hinge" axis="0 1 0" range="-1 1"/>
          <geom type="capsule" size="0.02" fromto="0 0 0 0 0 0.3" mass="1"/>
          <site name="tip" pos="0 0 0.3"/>
        </body>
      </body>
    </body>
  </worldbody>
</mujoco>
"""
