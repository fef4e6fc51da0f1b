"""What the sdist and the wheel carry: the licence, the typed marker, every subpackage."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

BUILD = """
import sys
from setuptools import build_meta
out = sys.argv[1]
names = [build_meta.build_sdist(out), build_meta.build_wheel(out)]
with open(out + "/built.txt", "w") as f:
    f.write(" ".join(names))
"""


def test_sdist_and_wheel_carry_the_licence_and_every_subpackage(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, src / name)
    shutil.copytree(ROOT / "taskik", src / "taskik", ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp_path / "dist"
    out.mkdir()
    done = subprocess.run(
        [sys.executable, "-c", BUILD, str(out)],
        cwd=src,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    sdist, wheel = (out / name for name in (out / "built.txt").read_text().split())

    with tarfile.open(sdist) as tar:
        names = tar.getnames()
    top = names[0].split("/")[0]
    assert f"{top}/LICENSE" in names
    with zipfile.ZipFile(wheel) as whl:
        names = whl.namelist()
        metadata = whl.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names), names
    assert "License-Expression: Apache-2.0" in metadata
    assert "taskik/py.typed" in names
    packages = {
        p.parent.relative_to(ROOT).as_posix() for p in (ROOT / "taskik").rglob("__init__.py")
    }
    for package in packages:
        assert f"{package}/__init__.py" in names, f"{package} missing from the wheel"
