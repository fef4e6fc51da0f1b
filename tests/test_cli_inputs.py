"""The command line answers an output it cannot write with exit status 2 and a message
naming the file, not a traceback (the fuzzer's finding: ``taskik batch ... -o`` under a
missing or read-only folder raised FileNotFoundError)."""

from __future__ import annotations

import numpy as np

from taskik import cli


def test_batch_output_that_cannot_be_written_exits_2_naming_it(ur5, tmp_path, capsys):
    conf_T = np.eye(4)
    conf_T[:3, 3] = [0.4, 0.1, 0.4]
    targets = tmp_path / "targets.npz"
    np.savez(targets, targets=conf_T[None])
    (tmp_path / "a_file").write_text("x")
    for out in ("/proc/taskik_no_such_dir/out.npz", str(tmp_path / "a_file" / "out.npz")):
        code = cli.main(["batch", "ur5", "tool0", str(targets), "-o", out, "-q"])
        err = capsys.readouterr().err
        assert code == 2
        assert "out.npz" in err or "cannot" in err, err
        assert "Traceback" not in err
