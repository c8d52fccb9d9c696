"""The rows of a run table: the two tables' columns (name, type, meaning; the README's
schema tables are checked against them) and how one chunk of inputs becomes them. Each trace is
read (together with the traces beside it, batch.py, when it can be), checked, measured and
rewarded into a row; a trace that cannot be read or has errors is a row with its problem codes
and the first problem's message and no measures; a value a column's type cannot hold is null
in its cell; a trace that orchtrace itself fails on is a row with the code `internal-error`.
Reads a chunk's inputs (runinputs.py); writes nothing (runtable.py writes the parts).
"""

from __future__ import annotations

import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from ..core.trace import TraceProblem
from ..measures.examine import examine
from ..rewards import FAMILIES, REWARDS, Rollout, all_rewards, read
from . import batch
from .runinputs import Chunk, Record, records

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
        from ..readers.importcheck import beside, settle_spans
        from ..readers.importers import to_traces
        from ..readers.spanfiles import read_spans
        from ..readers.spans import ImportError_

        local = Path(record.label)  # its folder holds a session's sub-agents, a run's parts
        try:
            with beside(local.parent if local.is_file() else None):
                spans = settle_spans(read_spans(record.text))[0]
            traces, _ = to_traces(spans, "auto")
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
