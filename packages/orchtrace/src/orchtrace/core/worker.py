"""A second process for the work on a large trace that can run beside the main one.

The worker is forked before the trace is decoded, while the heap is small: the two processes
share little, so later writes on either side copy few pages, and the worker reads the file's
bytes from the shared memory without a copy. It sends back, pickled through a pipe and one by
one, what its function yields. Whatever it fails to send, the caller computes itself, so errors
surface as they would without a worker.
"""

from __future__ import annotations

import logging
import os
import signal
import traceback
import weakref
from collections.abc import Callable, Generator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from multiprocessing.connection import Connection


LOG = logging.getLogger("orchtrace")


class _Failure:
    """Sent back when the function raises: the caller computes the rest itself."""

    def __init__(self, reason: str) -> None:
        self.reason = reason


def _serve(conn: Connection, func: Callable[..., Generator[Any, Any, None]], args: Any) -> None:
    """Sends each value the generator yields, and passes it each value the caller sends."""
    try:
        try:
            steps = func(*args)
            value = next(steps)
            while True:
                conn.send(value)
                value = steps.send(conn.recv())
        except (StopIteration, EOFError):
            pass
        except Exception as exc:
            where = traceback.extract_tb(exc.__traceback__)[-1]
            conn.send(_Failure(f"{type(exc).__name__}: {exc} ({where.name}, line {where.lineno})"))
    finally:
        os._exit(0)  # leave without running the parent's exit handlers or flushing its output


def _reap(conn: Connection, pid: int) -> None:
    os.kill(pid, signal.SIGKILL)  # harmless if it has exited: it waits to be reaped
    conn.close()
    os.waitpid(pid, 0)


class Worker:
    """A forked process running the generator FUNC(*ARGS): it sends back what the generator
    yields, and each value it is sent resumes the generator; see the module docstring."""

    def __init__(self, conn: Connection, pid: int) -> None:
        self.conn, self.pid = conn, pid
        self.reap = weakref.finalize(self, _reap, conn, pid)  # a worker dropped is stopped
        # The two sides take turns: the worker sends a value, then waits for one. A value for
        # it is held back while it owes one, or both could block writing to a full pipe.
        self.owed = True
        self.held: list[Any] = []

    @classmethod
    def start(cls, func: Callable[..., Generator[Any, Any, None]], *args: Any) -> Worker | None:
        """The worker, or None where fork or a second core is missing."""
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        if not hasattr(os, "fork") or (cores or 1) < 2:
            return None
        from multiprocessing import Pipe

        ours, theirs = Pipe()
        pid = os.fork()
        if pid == 0:
            ours.close()
            _serve(theirs, func, args)
        theirs.close()
        return cls(ours, pid)

    def receive(self) -> Any:
        """The next value sent, or None once the worker has failed, finished or been closed
        (or when it waits for a value itself)."""
        if self.pid < 0 or not self.owed:
            return None
        try:
            value = self.conn.recv()
        except (EOFError, OSError):
            value = _Failure("it ended before it answered")
        if isinstance(value, _Failure):
            LOG.warning("the second process failed (%s); this one does its work", value.reason)
            self.close()
            return None
        self.owed = False
        if self.held:
            self.send(self.held.pop(0))
        return value

    def send(self, value: Any) -> None:
        """Passes VALUE to the generator, once it has sent what it owes (nothing happens once
        the worker is gone)."""
        if self.owed:
            self.held.append(value)
        elif self.pid >= 0:
            try:
                self.conn.send(value)
                self.owed = True
            except OSError:
                self.close()

    def close(self, kill: bool = False) -> None:
        """Ends the worker; at once if KILL, when what it still computes is not wanted. One
        still on its way out is not waited for: it is reaped when this object goes."""
        if self.pid >= 0:
            if kill:
                os.kill(self.pid, signal.SIGKILL)
            self.conn.close()
            if os.waitpid(self.pid, os.WNOHANG)[0] == self.pid:
                self.reap.detach()
            self.pid = -1
