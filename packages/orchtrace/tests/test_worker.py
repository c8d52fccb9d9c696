"""The second process that reads a large trace beside the main one: the same answers with or
without it, a worker that dies replaced by the caller, answers in turn up to a failure."""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Generator
from typing import Any

import pytest

from orchtrace.measures.metrics import metrics
from tracehelp import generated_trace


def _spoiled(text: str) -> str:
    """TEXT with a repeated event id, a dangling edge and a despawned agent acting on."""
    trace = json.loads(text)
    trace["events"][7]["id"] = trace["events"][3]["id"]
    trace["edges"][5]["target"] = "nowhere"
    trace["events"].append(
        {"id": "late", "type": "despawn", "agent": "O", "t": 1, "target": "W1_0"}
    )
    return json.dumps(trace)


@pytest.fixture
def small_worker_threshold(monkeypatch: pytest.MonkeyPatch) -> None:
    """Traces of a kilobyte get a worker, on this machine whatever its cores."""
    import orchtrace.measures.examine

    monkeypatch.setattr(orchtrace.measures.examine, "PARALLEL_BYTES", 1_000)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)


def _started(monkeypatch: pytest.MonkeyPatch, kill: bool = False) -> list[int]:
    """The pids of the workers examine starts from now on (killed at once if KILL)."""
    import orchtrace.measures.examine
    from orchtrace.core.worker import Worker

    pids: list[int] = []
    real = Worker.start

    def start(*args: Any) -> Worker | None:
        worker = real(*args)
        assert worker is not None
        pids.append(worker.pid)
        if kill:
            os.kill(worker.pid, signal.SIGKILL)
        return worker

    monkeypatch.setattr(orchtrace.measures.examine.Worker, "start", start)
    return pids


@pytest.mark.usefixtures("small_worker_threshold")
def test_a_worker_process_gives_the_same_answers(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import orchtrace.measures.examine
    from orchtrace.core.formats import convert_trace
    from orchtrace.measures.examine import examine

    text = generated_trace(3_000)
    pids = _started(monkeypatch)
    done = examine(text, "big", measure=True)
    assert pids and done.problems == [] and done.measures == metrics(json.loads(text))
    theirs = json.dumps(convert_trace(json.loads(text), "artifact")[0])  # `src`, `dst`
    done = examine(theirs, "theirs", measure=True)
    assert len(pids) == 2 and done.problems == [] and done.measures == metrics(json.loads(theirs))
    assert "failed" not in caplog.text  # the worker did its part in both formats
    nan = json.loads(text)
    nan["events"][3]["t"] = float("nan")
    # a repeated key, found while the worker replays: the plain reading's problems, measures none
    repeated = text.replace('"type": ', '"type": "spawn", "type": ', 1)
    assert examine(repeated, "x", measure=True).measures is None
    for spoiled in (_spoiled(text), json.dumps(nan), repeated):
        with_worker = examine(spoiled, "x", measure=True).problems
        monkeypatch.setattr(orchtrace.measures.examine, "PARALLEL_BYTES", 10**12)
        assert with_worker and with_worker == examine(spoiled, "x", measure=True).problems
        monkeypatch.setattr(orchtrace.measures.examine, "PARALLEL_BYTES", 1_000)


@pytest.mark.usefixtures("small_worker_threshold")
def test_a_worker_that_dies_is_replaced_by_the_caller(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from orchtrace.measures.examine import examine

    text = generated_trace(3_000)
    pids = _started(monkeypatch, kill=True)
    done = examine(text, "big", measure=True)
    assert pids and done.problems == [] and done.measures == metrics(json.loads(text))
    assert "the second process failed (it ended before it answered)" in caplog.text


def _squares(fail_at: int) -> Generator[int, int, None]:
    k = 0
    while k != fail_at:
        k = yield k * k
    raise ZeroDivisionError(k)


@pytest.mark.usefixtures("small_worker_threshold")
def test_a_worker_answers_in_turn_and_stops_at_a_failure() -> None:
    from orchtrace.core.worker import Worker

    worker = Worker.start(_squares, 3)
    assert worker is not None
    worker.send(2)  # held back until the first answer is read
    assert worker.receive() == 0 and worker.receive() == 4
    assert worker.receive() is None  # it waits for a value: nothing to read
    worker.send(3)  # raises there
    assert worker.receive() is None and worker.pid == -1  # reaped once it failed
    worker = Worker.start(_squares, -1)
    assert worker is not None and worker.receive() == 0
    worker.send(5)
    worker.close(kill=True)  # does not wait for what it computes
    assert worker.receive() is None
    worker = Worker.start(_squares, -1)
    assert worker is not None
    pid = worker.pid
    del worker  # dropped without a word: stopped and reaped
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, 0)
