"""`make bench`: times the toolkit against floors and peers measured in the same run.

Each measurement runs in its own child process (median wall time of several repetitions, and
the child's peak resident memory from wait4). Prints a table and writes .cache/bench/results.json.
Corpus sizes: the shipped corpus (84) and synthetic corpora from gencorpus.py; traces from
gentrace.py.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from loop import bench_loop, report  # noqa: E402
from runtables import bench_tables  # noqa: E402

REPO = HERE.parents[1]
CACHE = REPO / ".cache" / "bench"
BIN = Path(sys.executable).parent
FLOOR = (
    "import sys, glob, yaml\n"
    "root = sys.argv[1]\n"
    "for f in sorted(glob.glob(root + '/papers/*.yaml') + glob.glob(root + '/exclusions/*.yaml')"
    " + [root + '/taxonomy.yaml']):\n"
    "    yaml.load(open(f, 'rb'), Loader=yaml.CSafeLoader)\n"
)


# As installed: Python keeps compiled bytecode (some sandboxes switch that off for everyone).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def run_once(cmd: list[str], ok: tuple[int, ...] = (0,)) -> tuple[float, float]:
    """Seconds and peak memory (MiB) of one run of CMD."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=ENV)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code not in ok:
        err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
        raise SystemExit(f"{' '.join(cmd)} exited {code}: {err[-2000:]}")
    return seconds, usage.ru_maxrss / 1024


def summary(runs: list[tuple[float, float]]) -> dict[str, float]:
    """Median seconds and largest peak memory of several runs."""
    return {
        "seconds": round(statistics.median(s for s, _ in runs), 3),
        "peak_mib": round(max(m for _, m in runs), 1),
    }


def measure(cmd: list[str], reps: int, ok: tuple[int, ...] = (0,)) -> dict[str, float]:
    """Median seconds and peak memory (MiB) of running CMD REPS times."""
    return summary([run_once(cmd, ok) for _ in range(reps)])


def alternating(commands: dict[str, list[str]], reps: int) -> dict[str, dict[str, float]]:
    """Each command REPS times, taking turns, so a slow spell of the machine hits them all."""
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for _ in range(reps):
        for name, cmd in commands.items():
            runs[name].append(run_once(cmd))
    return {name: summary(r) for name, r in runs.items()}


def corpus(size: int) -> Path:
    if size == 84:
        return REPO
    target = CACHE / f"corpus-{size}"
    stamp = target / ".generated"
    if not stamp.exists():
        subprocess.run(
            [sys.executable, str(HERE / "gencorpus.py"), str(size), str(target)], check=True
        )
        stamp.write_text(str(size))
    return target


def bench_corpus(sizes: list[int], reps: int, peers: bool) -> list[dict[str, Any]]:
    rows = []
    for size in sizes:
        root = corpus(size)
        r = reps if size <= 10_000 else 1
        out = CACHE / "out"
        row: dict[str, Any] = {"entries": size}
        row["floor_yaml"] = measure([sys.executable, "-c", FLOOR, str(root)], r)
        row["check"] = measure([str(BIN / "litcorpus"), "check", "--root", str(root)], r)
        if peers:
            row["yamllint"] = measure(
                [
                    str(BIN / "yamllint"),
                    "-d",
                    "relaxed",
                    "-f",
                    "parsable",
                    str(root / "papers"),
                    str(root / "exclusions"),
                ],
                r,
                ok=(0, 1, 2),
            )
        for command in ("stats", "site"):
            shutil.rmtree(out, ignore_errors=True)
            row[command] = measure(
                [str(BIN / "litcorpus"), command, "--root", str(root), "--out", str(out)], r
            )
        row["check_vs_floor"] = round(row["check"]["seconds"] / row["floor_yaml"]["seconds"], 2)
        if peers:
            row["check_vs_yamllint"] = round(
                row["check"]["seconds"] / row["yamllint"]["seconds"], 2
            )
        rows.append(row)
        print(json.dumps(row), flush=True)
    for small, big in itertools.pairwise(rows):
        for command in ("stats", "site"):
            big[f"{command}_growth"] = round(big[command]["seconds"] / small[command]["seconds"], 2)
    return rows


# the schema jsonschema checks each format against: ours, and the one the artifact published
PEER_SCHEMA = {
    "current": REPO / "traces" / "trace.schema.json",
    "artifact": REPO / "packages/orchtrace/tests/fixtures/artifact/trace_schema.json",
}


ONE_PROCESS = (
    "import sys; import orchtrace.measures.examine as e; from orchtrace.cli import main;"
    "e.PARALLEL_BYTES = 1 << 62; sys.argv = ['orchtrace', 'metrics', sys.argv[1], '--format',"
    " 'json']; main()"
)


def trace_file(events: int, fmt: str) -> Path:
    """The generated trace of EVENTS events in format FMT (the artifact's: converted)."""
    path = CACHE / f"trace-{events}.json"
    if not path.exists():
        subprocess.run(
            [sys.executable, str(HERE / "gentrace.py"), str(events), str(path)], check=True
        )
    if fmt == "current":
        return path
    theirs = CACHE / f"trace-{events}-{fmt}.json"
    if not theirs.exists():
        convert = [str(BIN / "orchtrace"), "convert", "--to", fmt, str(path), "--out", str(theirs)]
        subprocess.run(convert, check=True, stderr=subprocess.DEVNULL)
    return theirs


def bench_traces(events: int, reps: int, jsonschema_peer: bool, fmt: str) -> dict[str, Any]:
    path = trace_file(events, fmt)
    py = sys.executable
    row: dict[str, Any] = {"format": fmt, "events": events, "bytes": path.stat().st_size}
    read = "orjson.loads(open(sys.argv[1],'rb').read())"
    row.update(
        alternating(
            {
                "orjson_loads": [py, "-c", f"import orjson,sys; {read}", str(path)],
                "validate": [str(BIN / "orchtrace"), "validate", str(path)],
                # `metrics` validates first: one run is validate + metrics together
                "validate_and_metrics": [
                    str(BIN / "orchtrace"),
                    "metrics",
                    str(path),
                    "--format",
                    "json",
                ],
                # the same held to one process: is the second one still worth having?
                "validate_and_metrics_one_process": [py, "-c", ONE_PROCESS, str(path)],
            },
            reps,
        )
    )
    row["json_load"] = measure(
        [py, "-c", "import json,sys; json.load(open(sys.argv[1]))", str(path)], 1
    )
    both = row["validate_and_metrics"]
    row["validate_and_metrics_vs_orjson"] = round(
        both["seconds"] / row["orjson_loads"]["seconds"], 2
    )
    alone = row["validate_and_metrics_one_process"]["seconds"]
    row["one_process_vs_orjson"] = round(alone / row["orjson_loads"]["seconds"], 2)
    row["peak_vs_json_load"] = round(both["peak_mib"] / row["json_load"]["peak_mib"], 2)
    if jsonschema_peer:
        code = (
            "import json,sys; from jsonschema import Draft202012Validator as V;"
            "s=json.load(open(sys.argv[2])); d=json.load(open(sys.argv[1]));"
            "list(V(s).iter_errors(d))"
        )
        # the best of as many runs as ours, so that neither side gains from noise
        row["jsonschema"] = measure([py, "-c", code, str(path), str(PEER_SCHEMA[fmt])], reps)
        peer = row["jsonschema"]["seconds"]
        row["jsonschema_vs_validate"] = round(peer / row["validate"]["seconds"], 2)
        row["jsonschema_vs_validate_and_metrics"] = round(peer / both["seconds"], 2)
    print(json.dumps(row), flush=True)
    return row


def span_export(spans: int) -> Path:
    """An OTLP/JSON export of one agent span with SPANS model spans below it, tokens on each."""
    path = CACHE / f"spans-{spans}.json"
    if path.exists():
        return path

    def attrs(**values: str) -> list[dict[str, Any]]:
        return [{"key": f"gen_ai.{k}", "value": {"stringValue": v}} for k, v in values.items()]

    tokens = [
        {"key": f"gen_ai.usage.{k}_tokens", "value": {"intValue": "7"}} for k in ("input", "output")
    ]
    listed = [
        {"traceId": "c" * 32, "spanId": "0" * 16, "name": "invoke_agent", "startTimeUnixNano": "0",
         "endTimeUnixNano": str(10**9 * (spans + 1)),
         "attributes": attrs(**{"operation.name": "invoke_agent", "agent.name": "lead"})},
        *({"traceId": "c" * 32, "spanId": f"{i + 1:016x}", "parentSpanId": "0" * 16, "name": "chat",
           "startTimeUnixNano": str(10**9 * i), "endTimeUnixNano": str(10**9 * i + 5 * 10**8),
           "attributes": attrs(**{"operation.name": "chat"}) + tokens} for i in range(spans)),
    ]  # fmt: skip
    path.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": listed}]}]}))
    return path


def bench_import(spans: int, reps: int) -> dict[str, Any]:
    """`orchtrace import` of a GenAI export, its input and output checked, against orjson."""
    path, out = span_export(spans), CACHE / "imported.json"
    read = "import orjson,sys; orjson.loads(open(sys.argv[1],'rb').read())"
    row: dict[str, Any] = {"spans": spans, "bytes": path.stat().st_size}
    runs: dict[str, list[tuple[float, float]]] = {"orjson_loads": [], "import": []}
    for _ in range(reps):
        runs["orjson_loads"].append(run_once([sys.executable, "-c", read, str(path)]))
        out.unlink(missing_ok=True)
        runs["import"].append(
            run_once([str(BIN / "orchtrace"), "import", str(path), "--out", str(out)])
        )
    row.update({name: summary(r) for name, r in runs.items()})
    row["import_vs_orjson"] = round(row["import"]["seconds"] / row["orjson_loads"]["seconds"], 2)
    print(json.dumps(row), flush=True)
    return row


def bench_fold(reps: int = 7) -> dict[str, Any]:
    """The search index's word folding (publish.search.fold) on a summary that is one word of
    64 KB and of 128 KB, against its floor, lower-casing the same text: linear folding takes
    about twice as long on twice the text (a pattern that retried at every position took
    quadratic time: four times as long)."""
    from litcorpus.publish.search import fold

    out: dict[str, Any] = {}
    for kb in (64, 128):
        text = "a" * (kb * 1024)
        times = []
        floors = []
        for _ in range(reps):
            start = time.perf_counter()
            fold(text)
            times.append(time.perf_counter() - start)
            start = time.perf_counter()
            text.lower().split()
            floors.append(time.perf_counter() - start)
        out[f"{kb}kb"] = {"seconds": statistics.median(times), "floor": statistics.median(floors)}
    out["growth_64_to_128"] = round(out["128kb"]["seconds"] / out["64kb"]["seconds"], 2)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="84,1000,10000,100000")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--trace-events", type=int, default=1_000_000)
    parser.add_argument("--trace-reps", type=int, default=7)
    parser.add_argument(
        "--trace-formats", default="current,artifact", help="Trace formats to time, by name."
    )
    parser.add_argument("--import-spans", type=int, default=20_000, help="0 skips import.")
    parser.add_argument("--no-peers", action="store_true", help="Skip yamllint and jsonschema.")
    parser.add_argument("--loop-reps", type=int, default=7, help="0 skips the contributor loop.")
    parser.add_argument(
        "--peer",
        type=Path,
        default=os.environ.get("LITCORPUS_PEER"),
        help="A clone (or bare git directory) of xxzcc/awesome-llm-mas-rl, whose statistics "
        "script is the contributor loop's peer (default: $LITCORPUS_PEER).",
    )
    parser.add_argument(
        "--rollouts", type=int, default=100_000, help="Run-table rollouts to compare (0 skips)."
    )
    parser.add_argument(
        "--rollout-sizes",
        default="10000,100000",
        help="Run sizes for the growth of time and memory.",
    )
    parser.add_argument("--rollout-reps", type=int, default=1)
    parser.add_argument(
        "--search-records",
        type=int,
        default=100_000,
        help="Records of the search-import benchmark (screening.py, which also replays the "
        "labelled sets in .cache/labelled against ASReview); 0 skips it.",
    )
    parser.add_argument("--out", type=Path, default=CACHE / "results.json")
    args = parser.parse_args()
    CACHE.mkdir(parents=True, exist_ok=True)
    machine = {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "processor": platform.machine(),
    }
    results: dict[str, Any] = {"machine": machine, "fold": bench_fold()}
    f = results["fold"]
    print(
        f"search fold, one-word summary: 64 KB {f['64kb']['seconds'] * 1000:.2f} ms, 128 KB "
        f"{f['128kb']['seconds'] * 1000:.2f} ms ({f['growth_64_to_128']}x for twice the text)",
        flush=True,
    )
    if args.loop_reps:
        results["loop"] = bench_loop(args.loop_reps, args.peer, CACHE)
        print(report(results["loop"]), flush=True)
    results["corpus"] = bench_corpus(
        [int(s) for s in args.sizes.split(",") if s], args.reps, not args.no_peers
    )
    if args.trace_events:
        results["traces"] = [
            bench_traces(args.trace_events, args.trace_reps, not args.no_peers, fmt)
            for fmt in args.trace_formats.split(",")
        ]
    if args.import_spans:
        results["import"] = bench_import(args.import_spans, args.trace_reps)
    if args.rollouts:
        sizes = [int(s) for s in args.rollout_sizes.split(",") if s]
        results["tables"] = bench_tables(args.rollouts, sizes, args.rollout_reps, CACHE)
    subprocess.run([sys.executable, str(HERE / "suggest.py")], check=True)  # tag suggestions
    subprocess.run([sys.executable, str(HERE / "update.py")], check=True)  # 50 saved searches
    if args.search_records:  # a script of its own, with its own results file
        cmd = [sys.executable, str(HERE / "screening.py"), "--records", str(args.search_records)]
        subprocess.run([*cmd, "--reps", str(args.reps)], check=True)
    args.out.write_text(json.dumps(results, indent=2))
    print(
        f"\n{'entries':>8} {'floor s':>8} {'check s':>8} {'x floor':>8} {'yamllint s':>10} "
        f"{'stats s':>8} {'site s':>8} {'check MiB':>9} {'stats MiB':>9} {'site MiB':>9}"
    )
    for r in results["corpus"]:
        print(
            f"{r['entries']:>8} {r['floor_yaml']['seconds']:>8} {r['check']['seconds']:>8} "
            f"{r['check_vs_floor']:>8} {r.get('yamllint', {}).get('seconds', '-'):>10} "
            f"{r['stats']['seconds']:>8} {r['site']['seconds']:>8} "
            f"{r['check']['peak_mib']:>9} {r['stats']['peak_mib']:>9} {r['site']['peak_mib']:>9}"
        )
    for t in results.get("traces", []):
        print(
            f"\ntrace ({t['format']}) {t['events']:,} events: orjson "
            f"{t['orjson_loads']['seconds']} s, validate {t['validate']['seconds']} s, validate "
            f"+ metrics {t['validate_and_metrics']['seconds']} s "
            f"({t['validate_and_metrics_vs_orjson']}x orjson, peak {t['peak_vs_json_load']}x "
            "json.load)"
        )
        if "jsonschema" in t:
            print(
                f"jsonschema {t['jsonschema']['seconds']} s: {t['jsonschema_vs_validate']}x "
                f"validate, {t['jsonschema_vs_validate_and_metrics']}x validate + metrics"
            )
    if "loop" in results:
        print(report(results["loop"]))
    print(f"results: {args.out}")


if __name__ == "__main__":
    main()
