"""A second process for the work on a large trace that can run beside the main one.

The worker is forked before the trace is decoded, while the heap is small: the two processes
share little, so later writes on either side copy few pages. Its first job is given at the
fork, so it reads the file's bytes from the shared memory without a copy; later jobs and every
result travel through a pipe, pickled, in order. A job the worker fails (or cannot send back)
is computed by the caller, so errors surface as they would without a worker.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

R = TypeVar("R")
_FAILED = object()


class Job(Generic[R]):
    """FUNC(*ARGS), in the worker when there is one, else here when the result is asked for."""

    def __init__(self, worker: Worker | None, func: Callable[..., R], args: tuple[Any, ...]):
        self.worker, self.func, self.args = worker, func, args
        self.value: Any = _FAILED

    def result(self) -> R:
        if self.worker is not None:
            self.worker.collect(self)
        if self.value is _FAILED:  # no worker, or it failed: compute here
            self.value = self.func(*self.args)
            self.args = ()
        value: R = self.value
        return value


def _serve(conn: Connection, func: Callable[..., Any], args: tuple[Any, ...]) -> None:
    """The worker's life: answer the first job, then each job sent, until the pipe closes."""
    try:
        while True:
            try:
                conn.send(func(*args))
            except Exception:  # the caller computes it again and sees the error
                conn.send(_Failure())
            del args
            try:
                func, args = conn.recv()
            except EOFError:
                break
    finally:
        os._exit(0)  # leave without running the parent's exit handlers or flushing its output


class _Failure:
    """Sent back for a job that raised."""


class Worker:
    """A forked process running jobs in the order they are given; see the module docstring."""

    def __init__(self, conn: Connection, pid: int, first: Job[Any]) -> None:
        self.conn, self.pid = conn, pid
        self.waiting: list[Job[Any]] = [first]  # jobs sent whose results are not read yet

    @classmethod
    def start(cls, func: Callable[..., R], *args: Any) -> tuple[Worker | None, Job[R]]:
        """A worker whose first job is FUNC(*ARGS), or None where fork or a second core is
        missing; and that job."""
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        if not hasattr(os, "fork") or (cores or 1) < 2:
            return None, Job(None, func, args)
        from multiprocessing import Pipe

        ours, theirs = Pipe()
        pid = os.fork()
        if pid == 0:
            ours.close()
            _serve(theirs, func, args)
        theirs.close()
        first: Job[R] = Job(None, func, args)
        worker = cls(ours, pid, first)
        first.worker = worker
        return worker, first

    def submit(self, func: Callable[..., R], *args: Any) -> Job[R]:
        job: Job[R] = Job(self, func, args)
        try:
            self.conn.send((func, args))
            self.waiting.append(job)
        except Exception:  # the job cannot be pickled, or the worker is gone: compute here
            job.worker = None
        return job

    def collect(self, job: Job[Any]) -> None:
        """Reads results, in order, until JOB's has arrived (or the worker is gone)."""
        while job in self.waiting:
            done = self.waiting.pop(0)
            done.worker = None
            try:
                value = self.conn.recv()
            except (EOFError, OSError, ValueError):
                value = _Failure()
            if not isinstance(value, _Failure):
                done.value, done.args = value, ()

    def close(self, kill: bool = False) -> None:
        """Ends the worker (at once if KILL: its results are not wanted)."""
        if self.pid < 0:
            return
        if kill:
            os.kill(self.pid, signal.SIGKILL)
        self.conn.close()
        os.waitpid(self.pid, 0)
        self.pid = -1
        for job in self.waiting:
            job.worker = None
        self.waiting.clear()
