"""`make bench`, run tables: `orchtrace table` on generated rollouts (genrollouts.py, 20 to
200 events each, JSON Lines shards of 1,000) against the floor measured in the same run:
reading the same files and `orjson.loads` of every line, plus a pyarrow write of the same rows
(the traces and the events tables `table` wrote). One process, all cores and Ray Data on a local
Ray with the same cores, taking turns; then the time and peak memory of all cores as the run
grows; then each reward's time per call on one rollout (its budget); then what reading one
shard's JSON costs in each reader at hand, on one thread: the floor's `orjson.loads`, the typed
decode `table` does, and the two readers of our dependencies that decode JSON Lines straight
into columns (pyarrow's and DuckDB's), which a compiled design would start from.
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
import timeit
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from genrollouts import rollout, write  # noqa: E402

BIN = Path(sys.executable).parent
FLOOR = """
import glob, sys, time, orjson, pyarrow.parquet as pq
start, cpu = time.perf_counter(), time.process_time()
for name in sorted(glob.glob(sys.argv[1] + "/*.jsonl")):
    with open(name, "rb") as f:
        for line in f:
            orjson.loads(line)
read, read_cpu = time.perf_counter() - start, time.process_time() - cpu
tables = [pq.read_table(p) for p in sys.argv[2:4]]
start, cpu = time.perf_counter(), time.process_time()
for table, target in zip(tables, sys.argv[4:6]):
    pq.write_table(table, target)
print(read, time.perf_counter() - start, read_cpu, time.process_time() - cpu)
"""
BUDGET_US = 50  # per reward call on a rollout already read
CPU: list[float] = []  # processor seconds of each run, in order


def rollouts(count: int, cache: Path) -> Path:
    folder = cache / f"rollouts-{count}"
    stamp = folder / ".generated"
    if not stamp.exists():
        shutil.rmtree(folder, ignore_errors=True)
        write(count, folder)
        stamp.write_text(str(count))
    return folder


def _run(cmd: list[str]) -> tuple[float, float, str]:
    """Seconds, the peak memory of the largest process (MiB) and stdout of one run of CMD."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    out = proc.stdout.read().decode() if proc.stdout else ""
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {err[-2000:]}")
    CPU.append(usage.ru_utime + usage.ru_stime)  # its own and its waited-for children's
    return seconds, usage.ru_maxrss / 1024, out


def _table(folder: Path, out: Path, *options: str) -> list[str]:
    return [str(BIN / "orchtrace"), "table", str(folder), "--out", str(out), *options]


def compare(count: int, reps: int, cache: Path) -> dict[str, Any]:
    """One process, all cores, Ray and the floor on COUNT rollouts, REPS rounds in turn."""
    folder, out = rollouts(count, cache), cache / "table" / "run.parquet"
    out.parent.mkdir(exist_ok=True)
    cores = os.cpu_count() or 1
    commands = {
        "one_process": _table(folder, out, "--jobs", "1"),
        "all_cores": _table(folder, out, "--jobs", str(cores)),
        "ray": _table(folder, out, "--engine", "ray", "--jobs", str(cores)),
    }
    runs: dict[str, list[tuple[float, float]]] = {k: [] for k in [*commands, "floor"]}
    parts: list[tuple[float, float]] = []
    cpu: dict[str, list[float]] = {k: [] for k in commands}
    floor_cpu: list[float] = []
    for _ in range(reps):
        for name, cmd in commands.items():
            seconds, peak, _ = _run(cmd)
            runs[name].append((seconds, peak))
            cpu[name].append(CPU[-1])
        floor = [
            sys.executable,
            "-c",
            FLOOR,
            str(folder),
            str(out),
            str(out.with_name("run.events.parquet")),
        ]
        floor += [str(out.with_name("floor.parquet")), str(out.with_name("floor.events.parquet"))]
        seconds, peak, printed = _run(floor)
        read, written, read_cpu, written_cpu = map(float, printed.split())
        runs["floor"].append((read + written, peak))
        parts.append((read, written))
        floor_cpu.append(read_cpu + written_cpu)
    row: dict[str, Any] = {"rollouts": count, "cores": cores, "reps": reps}
    for name, r in runs.items():
        row[name] = {
            "seconds": round(statistics.median(s for s, _ in r), 2),
            "peak_mib": round(max(m for _, m in r)),
        }
        if name in cpu:
            row[name]["cpu_seconds"] = round(statistics.median(cpu[name]), 2)
    row["floor_read_and_loads_s"] = round(statistics.median(p[0] for p in parts), 2)
    row["floor_write_s"] = round(statistics.median(p[1] for p in parts), 2)
    row["floor"]["cpu_seconds"] = round(statistics.median(floor_cpu), 2)
    floor = row["floor"]["seconds"]
    for name in commands:
        row[f"{name}_vs_floor_throughput"] = round(floor / row[name]["seconds"], 3)
    # on a machine that others share, processor time tells the work apart from the waiting
    one_cpu = row["one_process"]["cpu_seconds"]
    row["one_process_vs_floor_cpu"] = round(row["floor"]["cpu_seconds"] / one_cpu, 3)
    one, many = row["one_process"]["seconds"], row["all_cores"]["seconds"]
    row["scaling_of_linear"] = round(one / (cores * many), 3)
    row["ray_vs_all_cores"] = round(row["ray"]["seconds"] / many, 3)
    row["per_core_rollouts_per_s"] = round(count / one, 1)
    print(json.dumps(row), flush=True)
    return row


def growth(sizes: list[int], cache: Path) -> list[dict[str, Any]]:
    """All cores on runs of SIZES rollouts: time and peak memory."""
    rows = []
    cores = str(os.cpu_count() or 1)
    for count in sizes:
        folder, out = rollouts(count, cache), cache / "table" / f"grow-{count}.parquet"
        seconds, peak, _ = _run(_table(folder, out, "--jobs", cores))
        rows.append(
            {
                "rollouts": count,
                "seconds": round(seconds, 1),
                "cpu_seconds": round(CPU[-1], 1),
                "peak_mib": round(peak),
            }
        )
        out.unlink()
        out.with_name(f"grow-{count}.events.parquet").unlink()
        print(json.dumps(rows[-1]), flush=True)
    for small, big in itertools.pairwise(rows):
        big["time_growth"] = round(big["seconds"] / small["seconds"], 2)
        big["size_growth"] = big["rollouts"] / small["rollouts"]
    return rows


def budgets(calls: int = 2000) -> dict[str, Any]:
    """Microseconds per call: reading one rollout of about a hundred events, then each reward
    on the rollout read."""
    import random

    import orjson

    from orchtrace import rewards

    rng = random.Random(3)
    text = orjson.dumps(
        next(t for t in (rollout(n, rng) for n in range(100)) if 90 <= len(t["events"]) <= 110)
    )
    start = time.perf_counter()
    for _ in range(calls // 10):
        r = rewards.read(text)
    out: dict[str, Any] = {"events": len(orjson.loads(text)["events"])}
    out["read_us"] = round((time.perf_counter() - start) / (calls // 10) * 1e6)
    for name, function in rewards.REWARDS.items():
        start = time.perf_counter()
        for _ in range(calls):
            function(r)
        out[name] = round((time.perf_counter() - start) / calls * 1e6, 1)
    out["budget_us"] = BUDGET_US
    out["over_budget"] = [k for k in rewards.REWARDS if out[k] > BUDGET_US]
    print(json.dumps(out), flush=True)
    return out


def readers(shard: Path, reps: int = 5) -> dict[str, Any]:
    """Milliseconds per rollout, best of REPS, to read SHARD's lines in each reader on one
    thread, and each against `orjson.loads` timed in the same run."""
    import duckdb
    import orjson
    import pyarrow as pa
    import pyarrow.json as pj

    from orchtrace.core.model import decode

    data = shard.read_bytes()
    lines = data.splitlines()
    con = duckdb.connect(config={"threads": 1})
    options = pj.ReadOptions(use_threads=False, block_size=len(data) + 1)
    ways = {
        "orjson_loads": lambda: [orjson.loads(line) for line in lines],
        "typed_decode_with_key_check": lambda: [decode(line, "current") for line in lines],
        "pyarrow_json_to_columns": lambda: pj.read_json(pa.py_buffer(data), read_options=options),
        "duckdb_json_to_columns": lambda: con.execute(  # into DuckDB's own columns
            "CREATE OR REPLACE TABLE shard AS "
            "SELECT * FROM read_json(?, format = 'newline_delimited')",
            [str(shard)],
        ),
    }
    out: dict[str, Any] = {"rollouts": len(lines), "megabytes": round(len(data) / 1e6, 1)}
    for name, way in ways.items():
        # the collector on, as in the floor
        best = min(timeit.repeat(way, "gc.enable()", number=1, repeat=reps))
        out[name] = round(best / len(lines) * 1e3, 4)
    for name in list(ways)[1:]:
        out[f"{name}_vs_orjson"] = round(out[name] / out["orjson_loads"], 2)
    print(json.dumps(out), flush=True)
    return out


def bench_tables(count: int, sizes: list[int], reps: int, cache: Path) -> dict[str, Any]:
    return {
        "compare": compare(count, reps, cache),
        "growth": growth(sizes, cache),
        "budgets": budgets(),
        "readers": readers(min(rollouts(count, cache).glob("*.jsonl"))),
    }
