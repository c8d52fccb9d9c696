"""Ctrl-C ends litcorpus and orchtrace with exit 130 and no traceback, whenever it lands: during a
command's work, or inside a weakref callback where Python would only print it."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from corpusfixtures import (
    mini_root_fixture,  # noqa: F401 (the mini_root fixture)
)


def default_sigint() -> None:
    """In the child: Ctrl-C as a terminal delivers it. A test run started in the background
    (`make test &`, nohup) ignores SIGINT, and a process that starts ignoring it keeps doing so:
    Python then installs no handler, and neither a signal nor interrupt_main() reaches it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _spans_export(path: Path, n: int) -> None:
    """An OTLP/JSON export of N spans of no known convention, one after the other."""
    import json

    spans = [
        {
            "traceId": "b" * 32,
            "spanId": f"{i + 1:016x}",
            "name": "work",
            "startTimeUnixNano": str(1_000_000 * i),
            "endTimeUnixNano": str(1_000_000 * i + 500),
        }
        for i in range(n)
    ]
    path.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}))


@pytest.mark.parametrize("tool", ["litcorpus", "orchtrace"])
def test_ctrl_c_exits_130(mini_root: Path, tmp_path: Path, tool: str) -> None:
    """SIGINT in the middle of a run: exit 130 as shells expect, no 'Aborted!', no
    traceback, nothing half written."""
    import os

    env = dict(os.environ)
    if tool == "litcorpus":  # figures drawn anew: seconds of work to interrupt
        env["LITCORPUS_CACHE"] = str(tmp_path / "cache")
        args = ["stats", "--root", str(mini_root), "--out", str(tmp_path / "stats")]
    else:
        _spans_export(tmp_path / "spans.json", 100_000)
        args = ["import", str(tmp_path / "spans.json"), "--out", str(tmp_path / "t.json")]
    proc = subprocess.Popen(
        [sys.executable, "-m", tool, *args], stderr=subprocess.PIPE, text=True, env=env,
        preexec_fn=default_sigint,
    )  # fmt: skip
    time.sleep(1.5)
    assert proc.poll() is None, "the run ended before it could be interrupted"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Aborted!" not in err and "Traceback" not in err
    assert not (tmp_path / "stats").exists() and not (tmp_path / "t.json").exists()
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_a_ctrl_c_that_lands_in_a_weakref_callback_still_ends_the_run() -> None:
    """Python ignores an exception raised inside a weak-reference callback: a Ctrl-C landing
    there (the collector runs them at any allocation) let a run finish and exit 0. With
    surewrite.interrupts installed, as both commands' entry points install it, the run ends."""
    code = (
        "import time, weakref\n"
        "from surewrite.interrupts import lasting_interrupts\n"
        "lasting_interrupts()\n"
        "class A: pass\n"
        "def interrupted(_):\n"
        "    raise KeyboardInterrupt\n"
        "a = A(); ref = weakref.ref(a, interrupted); del a\n"
        "try:\n"
        "    time.sleep(5)\n"
        "    print('ran on')\n"
        "except KeyboardInterrupt:\n"
        "    print('ended')\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                         preexec_fn=default_sigint)  # fmt: skip
    assert run.stdout == "ended\n" and "Exception ignored" not in run.stderr
