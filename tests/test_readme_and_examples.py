"""The README's snippets and the examples run as written."""

import re
import runpy
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def readme_snippets():
    text = (ROOT / "README.md").read_text()
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


@pytest.mark.parametrize("index", range(len(readme_snippets())))
def test_readme_snippet_runs(index, capsys):
    exec(compile(readme_snippets()[index], f"README snippet {index}", "exec"), {})
    assert capsys.readouterr().out.strip()  # every snippet shows its result


def test_readme_backends_snippet_shows_the_singularity(capsys):
    (snippet,) = [s for s in readme_snippets() if "planar_2r" in s]
    exec(snippet, {})
    lines = dict(line.split(":", 1) for line in capsys.readouterr().out.splitlines())
    assert lines["       pinv"].strip() == "v = [0. 0.]"
    assert lines["        dls"].strip() == "v = [0. 0.]"
    assert lines["regularized"].strip() != "v = [0. 0.]"


def test_readme_control_loop_reaches_its_target(capsys):
    namespace: dict = {}
    exec(readme_snippets()[0], namespace)
    assert "FrameTask('tool0'" in capsys.readouterr().out
    err = namespace["tool"].compute_error(namespace["configuration"])
    assert (err**2).sum() ** 0.5 < 1e-4


def test_demo_runs_and_prints_every_task():
    out = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "demo.py")],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    assert out.count("|e| =") >= 4
    for name in ("lleg_effector_body", "rleg_effector_body", "ComTask", "rarm_effector_body"):
        assert name in out


def test_readme_lists_every_public_name():
    import taskik

    text = (ROOT / "README.md").read_text()
    missing = [n for n in taskik.__all__ if n[0].isupper() or n in ("solve_ik", "build_ik")]
    missing = [n for n in missing if n not in text]
    assert not missing, missing


def test_demo_module_has_main():
    module = runpy.run_path(str(ROOT / "examples" / "demo.py"), run_name="not_main")
    assert callable(module["main"])
