"""orchtrace's compute_score called by verl's own code: verl pins a transformers release that
TRL's cannot import beside, so `make test` gives it an environment of its own (.venv-verl, CPU
torch and verl) and this test runs tests/verl_manager.py there. A completion is text: the
trace in it earns its reward, and prose, an empty text or a file name earn `missing` with
the reason kept beside the score, never a stopped batch."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]  # the repository: its traces/ and tests/bench/


VERL_PYTHON = REPO / ".venv-verl" / "bin" / "python"
TRACE = (REPO / "traces" / "examples" / "swarm.json").read_text()


def test_verl_reward_manager_calls_compute_score() -> None:
    completions = [
        TRACE,
        "I merged the answers.",
        "",
        f"Trace: {TRACE}",
        "traces/examples/swarm.json",
    ]
    sources = [REPO / "packages" / name / "src" for name in ("surewrite", "orchtrace")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, sources))}
    script = HERE / "verl_manager.py"
    command = [str(VERL_PYTHON), str(script), str(REPO), json.dumps(completions)]
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=REPO, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    # the swarm example's 5 critical steps (test_orchtrace derives them); missing is -1.0 here
    assert got["scores"] == [5.0, -1.0, -1.0, 5.0, -1.0]
    assert got["supported"] == [1.0, 0.0, 0.0, 1.0, 0.0]
    none = "no-trace-in-completion: the completion holds no JSON object"
    assert got["reason"] == ["", none, none, "", none]
