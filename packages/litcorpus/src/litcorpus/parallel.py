"""Runs a function over slices of a large job in forked worker processes.

Forked workers share the parent's memory as it was at the fork, so a function that only reads
the parent's data (the corpus, the taxonomy) gets it without a copy; only each slice's result
travels back, pickled. The parent works on a slice too. Small jobs, one-core machines and
platforms without fork run everything in the calling process, in order.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

S = TypeVar("S")
R = TypeVar("R")

MIN_ITEMS = 2_000  # below this, starting workers costs more than it saves
MAX_WORKERS = 4
_shared: Any = None  # what the workers read, set just before they fork


@contextmanager
def no_cycle_collection() -> Iterator[None]:
    """Pause Python's cycle collector while a large corpus is read: parsed YAML holds no
    reference cycles, and each collection would rescan every record read so far."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _run(func: Callable[[Any, int, int], list[Any]], start: int, stop: int) -> list[Any]:
    return func(_shared, start, stop)


def workers(count: int, min_items: int = MIN_ITEMS) -> int:
    """How many processes a job of COUNT items gets (1: run in this process)."""
    if count < min_items:
        return 1
    import multiprocessing  # only large jobs need it; a small check starts faster without

    if "fork" not in multiprocessing.get_all_start_methods():
        return 1
    return max(1, min(len(os.sched_getaffinity(0)), MAX_WORKERS))


def map_slices(
    func: Callable[[S, int, int], list[R]],
    shared: S,
    count: int,
    on_done: Callable[[int, int], None] | None = None,
    min_items: int = MIN_ITEMS,
) -> list[R]:
    """FUNC(SHARED, start, stop) over consecutive slices of range(COUNT), concatenated in
    order. FUNC must be a module-level function; ON_DONE(items done, COUNT) follows progress."""
    global _shared
    n = workers(count, min_items)
    slices = 1 if n == 1 else n * 4  # several slices a worker, so progress moves steadily
    bounds = [count * k // slices for k in range(slices + 1)]
    if n == 1:
        out = func(shared, 0, count)
        if on_done:
            on_done(count, count)
        return out
    import multiprocessing

    _shared = shared
    try:
        with multiprocessing.get_context("fork").Pool(n - 1) as pool:
            # the parent takes the first slices itself while the workers take the rest
            mine = slices // n
            pending = [
                pool.apply_async(_run, (func, bounds[k], bounds[k + 1]))
                for k in range(mine, slices)
            ]
            parts: list[list[R]] = []
            for k in range(mine):
                parts.append(func(shared, bounds[k], bounds[k + 1]))
            done = bounds[mine]
            if on_done:
                on_done(done, count)
            for k, job in zip(range(mine, slices), pending, strict=True):
                parts.append(job.get())
                done += bounds[k + 1] - bounds[k]
                if on_done:
                    on_done(done, count)
    finally:
        _shared = None
    return [item for part in parts for item in part]
