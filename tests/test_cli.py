"""The `taskik` command: help everywhere, robots, demo, bench, clear errors."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from taskik import cli

COMMANDS = ["robots", "view", "demo", "bench", "batch", "retarget"]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_console_script_is_installed():
    script = Path(sys.executable).with_name("taskik")
    assert script.exists() or shutil.which("taskik"), "pip install -e . installs `taskik`"
    out = subprocess.run(
        [str(script) if script.exists() else "taskik", "--help"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    for command in COMMANDS:
        assert command in out


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help(command, capsys):
    with pytest.raises(SystemExit) as exit_info:
        cli.main([command, "--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: taskik {command}")
    assert len(out.splitlines()) > 4


def test_no_command_is_an_error(capsys):
    with pytest.raises(SystemExit) as exit_info:
        cli.main([])
    assert exit_info.value.code == 2
    assert "COMMAND" in capsys.readouterr().err


def test_robots_lists_bundled_robots_with_sizes(capsys):
    code, out, _ = run(capsys, "robots")
    assert code == 0
    rows = {line.split()[0]: line.split() for line in out.splitlines()[1:8]}
    assert rows["ur5"][1:4] == ["6", "6", "tool0"]
    assert rows["humanoid"][1:3] == ["35", "34"]
    assert "talos" in out  # example-robot-data is installed by the dev extra


def test_view_unknown_robot_names_close_matches(capsys):
    code, _, err = run(capsys, "view", "pandaa")
    assert code == 2
    assert "pandaa" in err and "panda" in err


def test_demo_lists_runs_and_rejects(capsys, monkeypatch):
    code, out, _ = run(capsys, "demo", "--list")
    assert code == 0
    assert "manipulator_servoing" in out and "control_loop" in out
    code, _, err = run(capsys, "demo", "control_lop")
    assert code == 2 and "did you mean control_loop" in err
    monkeypatch.setenv("TASKIK_SMOKE", "1")
    argv = list(sys.argv)
    code, out, _ = run(capsys, "demo", "control_loop")
    assert code == 0 and "deadline(s) missed" in out
    assert sys.argv == argv


def test_demo_list_prints_whole_descriptions(capsys, monkeypatch, tmp_path):
    # the first paragraph of each docstring, however many lines it spans, wrapped to the width
    monkeypatch.setenv("COLUMNS", "80")
    code, out, _ = run(capsys, "demo", "--list")
    assert code == 0
    assert max(len(line) for line in out.splitlines()) <= 80
    flat = " ".join(out.split())
    for name, path in cli._examples().items():
        summary = cli._summary(path)
        assert f"{name} {summary}" in flat, name

    words = " ".join(f"word{i}" for i in range(60))
    (tmp_path / "long.py").write_text(f'"""{words[:200]}\n{words[200:]}\n\nNot this."""\n')
    (tmp_path / "a_rather_long_example_name_indeed.py").write_text('"""Short."""\n')
    monkeypatch.setenv("TASKIK_EXAMPLES", str(tmp_path))
    code, out, _ = run(capsys, "demo", "--list")
    assert code == 0
    lines = out.splitlines()
    assert lines[:2] == ["a_rather_long_example_name_indeed", " " * 25 + "Short."]
    assert lines[2].startswith("long" + " " * 21 + "word0 word1")
    assert all(line.startswith(" " * 25 + "word") for line in lines[3:])
    assert " ".join(" ".join(lines[2:]).split()[1:]) == words
    assert "Not this" not in out


def test_demo_without_examples_folder(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("TASKIK_EXAMPLES", str(tmp_path / "nowhere"))
    code, _, err = run(capsys, "demo")
    assert code == 2 and "source checkout" in err


def test_bench_steps_prints_a_table_and_progress(capsys):
    code, out, err = run(capsys, "bench", "--calls", "60", "--robots", "ur5", "planar_2r")
    assert code == 0
    assert "60/120" in err or "120/120" in err  # the progress bar
    rows = [line.split() for line in out.splitlines() if line.startswith(("ur5", "planar_2r"))]
    assert [r[0] for r in rows] == ["ur5", "planar_2r"]
    assert all(0 < float(r[3]) <= float(r[4]) for r in rows)  # median ≤ p95, in µs


def test_bench_rejects_bad_input(capsys):
    assert run(capsys, "bench", "--calls", "0")[0] == 2
    code, _, err = run(capsys, "bench", "--robots", "ur6")
    assert code == 2 and "ur5" in err
    code, _, err = run(capsys, "bench", "step_vs_pnk")
    assert code == 2 and "step_vs_pink" in err


def test_bench_script_shows_progress_while_quiet(capsys, monkeypatch, tmp_path):
    (tmp_path / "slow.py").write_text(
        textwrap.dedent(
            """
            '''A quiet benchmark.'''
            import sys, time
            time.sleep(1)
            print("result", sys.argv[1:])
            """
        )
    )
    monkeypatch.setenv("TASKIK_BENCHMARKS", str(tmp_path))
    monkeypatch.setattr(cli, "HEARTBEAT_SILENCE", 0.2)  # (3 s and 1 s by default)
    monkeypatch.setattr(cli, "HEARTBEAT_PERIOD", 0.1)
    code, out, _ = run(capsys, "bench", "--list")
    assert "slow" in out and "A quiet benchmark." in out
    code, out, err = run(capsys, "bench", "slow", "--calls", "3")
    assert code == 0
    assert "result ['--calls', '3']" in out  # the remaining arguments go to the script
    assert re.search(r"… slow running, \d+ s", err)  # a heartbeat while it printed nothing
    assert "slow finished in" in err


def test_partial_table1_run_leaves_the_checkout_clean(capsys, monkeypatch):
    """``taskik bench table1 --targets N`` writes under the ignored benchmarks/results/partial/.
    (The command runs in this process, from the checkout; the benchmark, as always, in a
    process of its own.)"""
    root = Path(cli.CHECKOUT)
    if shutil.which("git") is None or not (root / ".git").exists():
        pytest.skip("not a git checkout")

    def status() -> str:
        return subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=all", "--", "benchmarks"],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
        ).stdout

    output = root / "benchmarks" / "results" / "partial" / "table1_7.txt"
    existed = output.exists()
    before = status()
    monkeypatch.chdir(root)
    try:
        code, out, err = run(capsys, "bench", "table1", "--targets", "7")
        assert code == 0, err[-2000:]
        assert "7 targets" in out
        assert output.is_file()
        assert status() == before
    finally:
        if not existed:
            output.unlink(missing_ok=True)


def test_api_overview_lists_the_robots_that_taskik_robots_prints(capsys):
    code, out, _ = run(capsys, "robots")
    assert code == 0
    table = out.split("\n\n", 1)[0].splitlines()[1:]
    bundled = [line.split()[0] for line in table]
    overview = (Path(cli.CHECKOUT) / "docs" / "api.md").read_text()  # "At a glance"
    row = next(line for line in overview.splitlines() if line.startswith("| `robots.load(name)`"))
    listed = re.search(r"bundled robots \(([^)]*)\)", row).group(1)
    assert re.findall(r"`(\w+)`", listed) == bundled


def test_retarget_command_writes_the_trajectory(tmp_path, capsys):
    from taskik.retarget import load_result, sample_clip_path, sample_mapping_path

    out = tmp_path / "talos.npz"
    code = cli.main(
        [
            "retarget",
            str(sample_clip_path()),
            str(out),
            "--robot",
            "talos",
            "--mapping",
            str(sample_mapping_path("talos")),
        ]  # fmt: skip
    )
    assert code == 0 and "wrote" in capsys.readouterr().out
    assert load_result(out).q.shape[0] == 121
