"""Run tables: one row per trace of a training run (its measures, its rewards and its problem
codes) and one row per event, written as two Parquet files with typed columns.

Reads the inputs that runinputs.py finds and makes their rows as runrows.py says; writes OUT
(the traces) and OUT's `.events.parquet` beside it. Each chunk of work is checked, measured and
written to a part file (Arrow IPC) in a hidden folder beside OUT as soon as it is done; the
parts are joined into the two Parquet files at the end, one part at a time, and the folder
removed. A killed run, started again with the same inputs, redoes only the chunks that have no
part; one run at a time writes OUT (a second is refused: `Busy`). A trace that cannot be read
or has errors is a row with its problem codes and no measures, never a stopped run (runrows.py).
The chunks run in worker processes on one machine, or as a Ray Data pipeline (`engine="ray"`,
the `cluster` extra): the same function makes the same parts either way.
"""

from __future__ import annotations

import gc
import json
import multiprocessing
import os
import shutil
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from .runinputs import Chunk, expand, plan
from .runrows import (
    EVENT_SCHEMA,
    TRACE_SCHEMA,
    chunk_tables,
)


def events_path(out: Path) -> Path:
    """Where the events table of OUT goes: run.parquet -> run.events.parquet."""
    return out.with_name(out.stem + ".events" + out.suffix)


def parts_dir(out: Path) -> Path:
    return out.with_name(f".{out.name}.parts")


def _ipc(table: pa.Table) -> bytes:
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return bytes(sink.getvalue().to_pybytes())


def run_chunk(parts: str, index: int, chunk: dict[str, Any]) -> int:
    """Makes the parts of one chunk in folder PARTS (events first: a traces part marks the
    chunk done) and returns its number of traces. What workers and Ray tasks run."""
    from surewrite.files import write_file

    # Traces parse into trees without reference cycles: the cycle collector would only rescan
    # the chunk's objects again and again (twice the time); a Ray worker has it on
    collecting = gc.isenabled()
    gc.disable()
    try:
        traces, events = chunk_tables(Chunk.from_json(chunk))
        # not flushed to disk: a killed run keeps them; one torn by a crash is made again
        write_file(Path(parts) / f"{index:06d}.events.arrow", _ipc(events), sync=False)
        write_file(Path(parts) / f"{index:06d}.traces.arrow", _ipc(traces), sync=False)
    finally:
        gc.collect(0)  # the chunk's own objects only: a full pass rescans every module's too
        if collecting:
            gc.enable()
    return int(traces.num_rows)


@dataclass(slots=True)
class Summary:
    traces: int
    failed: int  # traces with errors, or that could not be read
    chunks: int
    resumed: int  # chunks a killed run had done already


class Busy(Exception):
    """Another run is writing the same table (it holds the lock of the parts folder)."""


@contextmanager
def _claimed(parts: Path, out: Path) -> Iterator[None]:
    """Holds the lock of the folder PARTS (made if missing) while the run writes OUT: a second
    run on the same output would share and break the folder, so it raises Busy. The lock is
    the kernel's (flock, on the folder itself, which the run removes only when done): a killed
    run leaves none behind. A file system without locks gets none."""
    parts.mkdir(exist_ok=True)
    fd = os.open(parts, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        if sys.platform != "win32":
            import fcntl

            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise Busy(f"another run is writing {out}; wait for it, or stop it") from None
            except OSError:
                pass  # no locks on this file system (some network ones): run without
        yield
    finally:
        os.close(fd)


def _prepare(parts: Path, digest: str) -> None:
    """PARTS holding this plan's parts, or empty for it: parts of another plan (other inputs,
    or changed files) are removed, and nothing else that is in it."""
    stamp = parts / "plan.json"
    if parts.exists():
        if not stamp.exists():
            if any(parts.iterdir()):
                raise FileExistsError(f"{parts} exists and was not made by orchtrace table")
        elif json.loads(stamp.read_text())["plan"] == digest:
            return
        for f in parts.glob("*.arrow"):
            f.unlink()
    parts.mkdir(exist_ok=True)
    from surewrite.files import write_file

    write_file(stamp, json.dumps({"plan": digest}).encode())


def _processes(parts: Path, pending: list[tuple[int, Chunk]], jobs: int) -> Iterator[int]:
    work = [(str(parts), i, c.to_json()) for i, c in pending]
    if jobs <= 1:
        yield from (run_chunk(*w) for w in work)
        return
    context = multiprocessing.get_context("fork")  # workers start with what is imported
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        yield from pool.map(run_chunk, *zip(*work, strict=True))


def _ray_task(parts: str, row: dict[str, Any]) -> dict[str, Any]:
    return {
        "index": row["index"],
        "traces": run_chunk(parts, row["index"], json.loads(row["chunk"])),
    }


def _ray(parts: Path, pending: list[tuple[int, Chunk]], jobs: int) -> Iterator[int]:
    """The chunks as a Ray Data pipeline: on the cluster named by RAY_ADDRESS, else on a
    local Ray with JOBS CPUs. The parts folder must be one that every worker reaches."""
    import logging

    import ray
    import ray.data

    started = not ray.is_initialized()
    if started:
        address = os.environ.get("RAY_ADDRESS")
        ray.init(
            address=address,
            num_cpus=None if address else jobs,
            include_dashboard=False,
            log_to_driver=False,
            logging_level=logging.ERROR,
        )
    try:
        for name in ("ray", "ray.data"):  # its notes on stderr are not ours
            logging.getLogger(name).setLevel(logging.ERROR)
        context = ray.data.DataContext.get_current()
        context.enable_progress_bars = False
        items = [{"index": i, "chunk": json.dumps(c.to_json())} for i, c in pending]
        ds = ray.data.from_items(items, override_num_blocks=max(1, len(items)))
        for row in ds.map(partial(_ray_task, str(parts)), num_cpus=1).iter_rows():
            yield int(row["traces"])
    finally:
        if started:
            ray.shutdown()


ENGINES: dict[str, Callable[[Path, list[tuple[int, Chunk]], int], Iterator[int]]] = {
    "processes": _processes,
    "ray": _ray,
}


def _read(parts: Path, index: int, kind: str, chunks: list[Chunk]) -> pa.Table:
    """One part; a part torn by a machine that failed mid-run is made again first."""
    path = parts / f"{index:06d}.{kind}.arrow"
    try:
        with pa.memory_map(str(path)) as source:
            return pa.ipc.open_stream(source).read_all()
    except (OSError, pa.ArrowInvalid):
        run_chunk(str(parts), index, chunks[index].to_json())
        with pa.memory_map(str(path)) as source:
            return pa.ipc.open_stream(source).read_all()


def _join(
    parts: Path, kind: str, schema: pa.Schema, target: Path, chunks: list[Chunk]
) -> list[bool]:
    """The parts of one kind joined into TARGET, one part at a time; returns the `ok` column
    of the traces (nothing for the events)."""
    oks: list[bool] = []
    with pq.ParquetWriter(target, schema) as writer:
        for i in range(len(chunks)):
            table = _read(parts, i, kind, chunks)
            writer.write_table(table)
            if kind == "traces":
                oks += table.column("ok").to_pylist()
    return oks


def build(
    inputs: list[str],
    out: Path,
    engine: str = "processes",
    jobs: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Summary:
    """Writes the run table of INPUTS to OUT and its events beside it (see the module
    docstring); PROGRESS, when given, hears (chunks done, chunks) as chunks finish."""
    chunks, digest = plan(expand(inputs))
    parts = parts_dir(out)
    with _claimed(parts, out):
        _prepare(parts, digest)
        pending = [
            (i, c) for i, c in enumerate(chunks) if not (parts / f"{i:06d}.traces.arrow").exists()
        ]
        resumed = len(chunks) - len(pending)
        done = resumed
        for _ in ENGINES[engine](parts, pending, jobs or os.cpu_count() or 1):
            done += 1
            if progress is not None:
                progress(done, len(chunks))
        from surewrite.files import writing

        # both written beside their targets, then renamed one after the other
        with writing(events_path(out)) as events, writing(out) as traces:
            _join(parts, "events", EVENT_SCHEMA, events, chunks)
            ok = _join(parts, "traces", TRACE_SCHEMA, traces, chunks)
        shutil.rmtree(parts)
    return Summary(len(ok), ok.count(False), len(chunks), resumed)
