"""What orchtrace's tests share: the repository, its example traces and the command."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


REPO = HERE.parents[2]  # the repository: its traces/ and tests/bench/


EXAMPLES = REPO / "traces" / "examples"


def orchtrace(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """`orchtrace ARGS` in a fresh interpreter, its output captured."""
    return subprocess.run(
        [sys.executable, "-m", "orchtrace", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
    )


def example(name: str) -> dict[str, Any]:
    return json.loads((EXAMPLES / f"{name}.json").read_text())


def generated_trace(events: int) -> str:
    """A trace from the bench's generator (tests/bench/gentrace.py), as JSON."""
    spec = importlib.util.spec_from_file_location("gentrace", REPO / "tests/bench/gentrace.py")
    assert spec is not None and spec.loader is not None
    gentrace = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gentrace)
    return json.dumps(gentrace.generate(events, workers=9))
