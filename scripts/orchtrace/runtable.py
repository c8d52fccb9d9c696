"""Run tables: one row per trace of a training run (its measures, its rewards and its problem
codes) and one row per event, written as two Parquet files with typed columns.

Reads the inputs that runinputs.py finds; writes OUT (the traces) and OUT's `.events.parquet`
beside it. Each chunk of work is checked, measured and written to a part file (Arrow IPC) in a
hidden folder beside OUT as soon as it is done; the parts are joined into the two Parquet files
at the end, one part at a time, and the folder removed. A killed run, started again with the
same inputs, redoes only the chunks that have no part; one run at a time writes OUT (a second
is refused: `Busy`). A trace that cannot be read or has errors is a row with its problem codes,
the first problem's message and no measures, never a stopped run: a value that a column's
type cannot hold (text where a number belongs, an integer beyond 64 bits) is null in its cell,
and a trace that orchtrace itself fails on is a row with the code `internal-error`. The
chunks run in worker processes on one machine, or as a Ray Data pipeline (`engine="ray"`, the
`cluster` extra): the same function makes the same parts either way.
"""

from __future__ import annotations

import gc
import json
import multiprocessing
import os
import shutil
import sys
import traceback
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from . import batch
from .examine import examine
from .rewards import FAMILIES, REWARDS, Rollout, all_rewards, read
from .runinputs import Chunk, Record, expand, plan, records
from .trace import TraceProblem

F64, I64, STR, BOOL = pa.float64(), pa.int64(), pa.string(), pa.bool_()
BATCH_BYTES = 16 << 20  # the most text of traces a worker reads together (batch.py)
REWARD_COLUMNS = list(REWARDS)
# name, type, meaning: the README's schema tables are checked against these
TRACE_COLUMNS: list[tuple[str, pa.DataType, str]] = [
    ("source", STR, "file, file:line (JSON Lines) or file#trace_id (exported spans)"),
    ("trace_id", STR, "the trace's id"),
    ("task_id", STR, "its task's id"),
    ("system", STR, "the system that produced it"),
    ("topology", STR, "its topology"),
    ("ok", BOOL, "no errors: measured and rewarded"),
    ("problems", pa.list_(STR), "problem codes, errors and warnings (traces/SCHEMA.md)"),
    ("message", STR, "the first problem's message (errors first): where, and what"),
    ("errors", I64, "problems that are errors"),
    ("warnings", I64, "problems that are warnings"),
    ("events", I64, "events"),
    ("edges", I64, "edges"),
    ("agents", I64, "agents"),
    ("aggregates", I64, "aggregate events"),
    ("messages", I64, "message events"),
    ("mode", STR, "durations or steps (traces/METRICS.md)"),
    ("work", F64, "work W"),
    ("critical_path", F64, "critical path S"),
    ("makespan", F64, "first start to last end (durations only)"),
    ("peak_concurrency", I64, "most agents alive at once"),
    ("stop_cause", STR, "why the run stopped"),
    ("task_success", F64, "metrics.task_success as the run reported it"),
    ("recorded_reward", F64, "the trace's own reward values, summed"),
    ("recorded_rewards", pa.map_(STR, F64), "the trace's own rewards by unit/channel"),
    ("reported_metrics", pa.map_(STR, F64), "the trace's metrics"),
    *[(name, F64, f"{FAMILIES[name]} reward `rewards.{name}`") for name in REWARD_COLUMNS],
    ("unavailable", pa.map_(STR, STR), "reward -> code, for each reward that is null"),
]
EVENT_COLUMNS: list[tuple[str, pa.DataType, str]] = [
    ("source", STR, "the trace's source, as in the traces table"),
    ("trace_id", STR, "the trace's id"),
    ("seq", I64, "the event's place in the trace"),
    ("id", STR, "event id"),
    ("type", STR, "event type, as written"),
    ("agent", STR, "acting agent"),
    ("t", F64, "start"),
    ("t_end", F64, "end"),
    ("target", STR, "agent addressed"),
    ("tool", STR, "tool"),
    ("tokens", I64, "tokens"),
    ("cost_usd", F64, "cost in US dollars"),
    ("error", STR, "error raised"),
    ("subtask", STR, "subtask label of a spawn"),
    ("score", F64, "grader's score"),
    ("critical", BOOL, "on the critical chain"),
    ("useful", BOOL, "among the final event's ancestors (not wasted work)"),
]
EVENT_FIELDS = ("t_end", "target", "tool", "tokens", "cost_usd", "error", "subtask", "score")
TRACE_SCHEMA = pa.schema([(n, t) for n, t, _ in TRACE_COLUMNS])
EVENT_SCHEMA = pa.schema([(n, t) for n, t, _ in EVENT_COLUMNS])


def events_path(out: Path) -> Path:
    """Where the events table of OUT goes: run.parquet -> run.events.parquet."""
    return out.with_name(out.stem + ".events" + out.suffix)


def parts_dir(out: Path) -> Path:
    return out.with_name(f".{out.name}.parts")


def _get(data: Any, *keys: str) -> Any:
    for key in keys:
        data = data.get(key) if data is not None and hasattr(data, "get") else None
    return data


Failure = tuple[str, str]  # a row's problem code and message, for a trace without a rollout
Item = tuple[str, Rollout | None, Failure | None]


def _internal(exc: Exception) -> Failure:
    """What a trace that orchtrace fails on says in its row: the error, and where it arose."""
    if isinstance(exc, MemoryError):
        raise exc
    frame = traceback.extract_tb(exc.__traceback__)[-1]
    where = f"{Path(frame.filename).name}, line {frame.lineno}"
    return "internal-error", f"{type(exc).__name__}: {exc} ({where}); please report it"


def _rollouts(record: Record) -> Iterator[Item]:
    """(source, rollout, None) for each trace of RECORD, or (source, None, (code, message))."""
    if record.failed is not None:
        yield record.label, None, record.failed
    elif record.spans:
        from .importcheck import settle_spans
        from .importers import to_traces
        from .spans import ImportError_, read_spans

        try:
            traces, _ = to_traces(settle_spans(read_spans(record.text))[0], "auto")
        except ImportError_ as exc:
            yield record.label, None, ("import-failed", str(exc))
            return
        for trace in traces:
            label = f"{record.label}#{trace['trace_id']}"
            yield label, read(trace, label), None
    else:
        yield record.label, Rollout.of(record.label, examine(record.text, record.label, True)), None


def _guarded(record: Record) -> list[Item]:
    """The items of RECORD; one that orchtrace fails on is a row that says so."""
    try:
        return list(_rollouts(record))
    except Exception as exc:
        return [(record.label, None, _internal(exc))]


def _batched(lines: list[tuple[str, bytes]]) -> list[Item]:
    """The items of LINES read together (batch.py); if that fails, each alone."""
    try:
        return [(r.label, r, None) for r in batch.rollouts(lines)]
    except Exception:
        return [i for label, text in lines for i in _guarded(Record(label, text))]


class _Columns(dict[str, list[Any]]):
    def __init__(self, schema: pa.Schema) -> None:
        super().__init__((name, []) for name in schema.names)
        self.schema = schema

    def table(self) -> pa.Table:
        try:
            return pa.Table.from_pydict(dict(self), schema=self.schema)
        except (ValueError, TypeError, OverflowError):  # a cell its type cannot hold
            arrays = [_fitted(self[f.name], f.type) for f in self.schema]
            return pa.Table.from_arrays(arrays, schema=self.schema)


def _fitted(values: list[Any], kind: pa.DataType) -> pa.Array:
    """VALUES as an array of KIND, each value that KIND cannot hold made null."""
    try:
        return pa.array(values, type=kind)
    except (ValueError, TypeError, OverflowError):
        return pa.array([_fit(v, kind) for v in values], type=kind)


def _fit(value: Any, kind: pa.DataType) -> Any:
    """VALUE if a cell of KIND holds it (a number for a float, an integer within 64 bits...)."""
    if value is None:
        return None
    if pa.types.is_map(kind):
        pairs = value.items() if isinstance(value, dict) else value
        kept = [(k, _fit(v, kind.item_type)) for k, v in pairs if isinstance(k, str)]
        return [(k, v) for k, v in kept if v is not None]
    if pa.types.is_list(kind):
        return [_fit(v, kind.value_type) for v in value] if isinstance(value, list) else None
    if isinstance(value, bool) or pa.types.is_boolean(kind):
        return value if isinstance(value, bool) and pa.types.is_boolean(kind) else None
    if pa.types.is_string(kind):
        return value if isinstance(value, str) else None
    if pa.types.is_integer(kind):
        return value if isinstance(value, int) and -(2**63) <= value < 2**63 else None
    if isinstance(value, int | float):
        try:
            return float(value)
        except OverflowError:
            return None
    return None


def _trace_row(source: str, r: Rollout | None, failed: Failure | None) -> dict[str, Any]:
    data = r.data if r is not None else None
    m = r.measures if r is not None else None
    problems = r.problems if r is not None else []
    codes = sorted({p.code for p in problems} | ({failed[0]} if failed else set()))
    errors = sum(p.severity == "error" for p in problems) + (1 if failed else 0)
    recorded = {
        f"{u}/{c}": v for u, ch in (m or {}).get("rewards", {}).items() for c, v in ch.items()
    }
    reported = _get(data, "metrics")
    reported = reported if hasattr(reported, "items") else {}
    values = all_rewards(r) if r is not None and r.ok else {}
    kinds = r.replay.table.kinds if r is not None and m is not None else {}
    row: dict[str, Any] = {
        "source": source,
        "trace_id": _get(data, "trace_id"),
        "task_id": _get(data, "task", "id") or _get(data, "task_id"),
        "system": _get(data, "system"),
        "topology": _get(data, "topology"),
        "ok": m is not None,
        "problems": codes,
        "message": failed[1] if failed else _first_message(problems),
        "errors": errors,
        "warnings": len(problems) + (1 if failed else 0) - errors,
        "events": m and m["events"],
        "edges": m and m["edges"],
        "agents": m and m["agents"],
        "aggregates": kinds.get("aggregate", 0) if m else None,
        "messages": m and m["messages"]["total"],
        "mode": m and m["mode"],
        "work": m and m["work"],
        "critical_path": m and m["critical_path"],
        "makespan": m and m["makespan"],
        "peak_concurrency": m and m["peak_concurrency"],
        "stop_cause": (m.get("stop") or {}).get("cause") if m else None,
        "task_success": reported.get("task_success"),
        "recorded_reward": sum(recorded.values()) if recorded else None,
        "recorded_rewards": list(recorded.items()),
        "reported_metrics": list(reported.items()),
        "unavailable": [(k, v.code) for k, v in values.items() if v.value is None],
    }
    for name in REWARD_COLUMNS:
        row[name] = values[name].value if name in values else None
    return row


def _first_message(problems: list[TraceProblem]) -> str | None:
    """The first error's message, else the first warning's, with the JSON path it concerns."""
    if not problems:
        return None
    first = next((p for p in problems if p.severity == "error"), problems[0])
    return first.message if first.pointer == "$" else f"{first.pointer}: {first.message}"


def _event_columns(r: Rollout) -> dict[str, list[Any]]:
    """The events table's columns of R, but source, trace_id and seq."""
    if isinstance(r.replay, batch.View):
        return r.replay.event_columns(EVENT_FIELDS)
    tb = r.replay.table
    _, chain, marks = r.replay.walk()
    critical = np.zeros(len(tb.ids), dtype=bool)
    critical[chain] = True
    columns = {
        "id": tb.ids,
        "type": tb.types,
        "agent": tb.agents,
        "t": tb.times.tolist(),
        "critical": critical.tolist(),
        "useful": ((np.frombuffer(marks, dtype=np.uint8) & 1) > 0).tolist(),
    }
    columns.update((name, tb.field(name)) for name in EVENT_FIELDS)
    return columns


def _event_rows(rows: _Columns, source: str, r: Rollout, columns: dict[str, list[Any]]) -> None:
    n = len(columns["id"])
    rows["source"] += [source] * n
    rows["trace_id"] += [_get(r.data, "trace_id")] * n
    rows["seq"] += range(n)
    for name, values in columns.items():
        rows[name] += values


def _chunk_rollouts(chunk: Chunk, batched: bool) -> Iterator[Item]:
    """(source, rollout, failure) of each trace of CHUNK, in order; the lines of traces read
    together (batch.py), up to BATCH_BYTES at a time, when BATCHED, else one by one."""
    lines: list[tuple[str, bytes]] = []
    held = 0
    for record in records(chunk):
        if batched and record.failed is None and not record.spans:
            lines.append((record.label, record.text))
            held += len(record.text)
            if held >= BATCH_BYTES:
                yield from _batched(lines)
                lines, held = [], 0
            continue
        yield from _batched(lines)
        lines, held = [], 0
        yield from _guarded(record)
    yield from _batched(lines)


def chunk_tables(chunk: Chunk, batched: bool = True) -> tuple[pa.Table, pa.Table]:
    """The traces and events tables of CHUNK (the same whether BATCHED or not)."""
    traces, events = _Columns(TRACE_SCHEMA), _Columns(EVENT_SCHEMA)
    for source, rollout, failed in _chunk_rollouts(chunk, batched):
        try:
            ok = rollout is not None and rollout.ok
            columns = _event_columns(rollout) if rollout is not None and ok else None
            row = _trace_row(source, rollout, failed)
        except Exception as exc:
            columns, row = None, _trace_row(source, None, _internal(exc))
        for name, value in row.items():
            traces[name].append(value)
        if rollout is not None and columns is not None:
            _event_rows(events, source, rollout, columns)
    return traces.table(), events.table()


def _ipc(table: pa.Table) -> bytes:
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return bytes(sink.getvalue().to_pybytes())


def run_chunk(parts: str, index: int, chunk: dict[str, Any]) -> int:
    """Makes the parts of one chunk in folder PARTS (events first: a traces part marks the
    chunk done) and returns its number of traces. What workers and Ray tasks run."""
    from safewrite.files import write_file

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
    from safewrite.files import write_file

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
        from safewrite.files import writing

        # both written beside their targets, then renamed one after the other
        with writing(events_path(out)) as events, writing(out) as traces:
            _join(parts, "events", EVENT_SCHEMA, events, chunks)
            ok = _join(parts, "traces", TRACE_SCHEMA, traces, chunks)
        shutil.rmtree(parts)
    return Summary(len(ok), ok.count(False), len(chunks), resumed)
