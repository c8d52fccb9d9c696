"""orchtrace table on what breaks runs elsewhere: values no column holds, a trace orchtrace fails
on, a decompression bomb, two runs on one output, a long trace id, a broken rollout, files no
reader takes; each is a row or a clear refusal, never a stopped run."""

from __future__ import annotations

import gzip
import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from orchtrace.runs.runtable import (
    build,
    events_path,
    parts_dir,
)
from runhelp import (  # noqa: F401 (mixed_fixture: the mixed fixture)
    FIXTURES,
    mixed_fixture,
    rows,
    write,
)
from tracehelp import REPO, orchtrace


def swarm() -> dict[str, Any]:
    return json.loads((REPO / "traces" / "examples" / "swarm.json").read_text())


def with_(change: Any) -> dict[str, Any]:
    trace = swarm()
    change(trace)
    return trace


ODD_VALUES = {
    # JSON integers have no size; `validate` accepts these counts, which no int64 holds
    "event-tokens-1e30": (lambda t: t["events"][0].update(tokens=10**30), True),
    "event-tokens-1e400": (lambda t: t["events"][0].update(tokens=10**400), True),
    "costs-tokens-1e400": (lambda t: t["costs"].update(tokens=10**400), True),
    # traces with errors keep their row, whatever their other fields hold
    "trace-id-a-number": (lambda t: t.update(trace_id=5), False),
    "metric-a-string": (lambda t: t.update(metrics={"task_success": "yes"}), False),
    "metric-huge": (lambda t: t.update(metrics={"task_success": 10**400}), False),
    "system-an-object": (lambda t: t.update(system={"name": "x"}), False),
    "metrics-a-list": (lambda t: t.update(metrics=[1, 2]), False),
}


@pytest.mark.parametrize("case", sorted(ODD_VALUES))
def test_a_value_no_column_holds_is_a_row_not_a_stopped_run(case: str, tmp_path: Path) -> None:
    change, ok = ODD_VALUES[case]
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "a.json").write_text(json.dumps(swarm()))
    (folder / "b.json").write_text(json.dumps(with_(change)))
    out = tmp_path / "run.parquet"
    summary = build([str(folder)], out, jobs=1)
    assert (summary.traces, summary.failed) == (2, 0 if ok else 1)
    a, b = rows(out)
    assert a["ok"] and a["critical_steps"] == 5.0
    assert b["ok"] is ok and b["source"].endswith("b.json")
    if case == "event-tokens-1e30":
        assert b["tokens"] == 1e30 and b["critical_steps"] == 5.0
        first = pq.read_table(events_path(out)).to_pylist()[len(swarm()["events"])]
        assert first["id"] == "e1" and first["tokens"] is None  # beyond int64: a null cell
    if case.endswith("1e400"):
        assert b["tokens"] is None and dict(b["unavailable"])["tokens"] == "out-of-range"
    if case == "trace-id-a-number":
        assert b["trace_id"] is None and "schema" in b["problems"]


def test_a_trace_orchtrace_fails_on_is_a_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import orchtrace.runs.runrows as runrows

    folder = tmp_path / "in"
    folder.mkdir()
    for name in ("a", "b", "c"):
        (folder / f"{name}.json").write_text(
            json.dumps(with_(lambda t, n=name: t.update(trace_id=n)))
        )
    real = runrows.all_rewards

    def failing(r: Any, **options: Any) -> Any:
        if r.data["trace_id"] == "b":
            raise ZeroDivisionError("a bug")
        return real(r, **options)

    monkeypatch.setattr(runrows, "all_rewards", failing)
    out = tmp_path / "run.parquet"
    assert build([str(folder)], out, jobs=1).traces == 3
    got = {r["source"][-6:]: r for r in rows(out)}
    assert [got[k]["ok"] for k in ("a.json", "b.json", "c.json")] == [True, False, True]
    assert got["b.json"]["problems"] == ["internal-error"]
    assert got["b.json"]["message"].startswith("ZeroDivisionError: a bug (test_runtable_faults.py")
    # a batch that fails is read again trace by trace
    monkeypatch.setattr(runrows, "all_rewards", real)
    monkeypatch.setattr(runrows.batch, "rollouts", lambda items: 1 / 0)
    assert build([str(folder)], out, jobs=1).failed == 0


def bomb(size: int) -> bytes:
    return gzip.compress(b"0" * size, compresslevel=1)


def test_a_decompression_bomb_is_too_large(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import orchtrace.runs.runinputs as runinputs

    # caps made small: what a 13 MB gzip bomb does to the real 512 MiB ones, in a second
    monkeypatch.setattr(runinputs, "MAX_INPUT_BYTES", 1 << 20)
    monkeypatch.setattr(runinputs, "MAX_CHUNK_BYTES", 3 << 20)
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "a-bomb.json.gz").write_bytes(bomb(64 << 20))  # 64 MiB of zeros, no line end
    (folder / "b-bomb.jsonl.gz").write_bytes(bomb(64 << 20))
    lines = [json.dumps(swarm())] * 3 + ["0" * (2 << 20)]  # three traces, then a huge line
    (folder / "c-lines.jsonl.gz").write_bytes(gzip.compress("\n".join(lines).encode()))
    (folder / "d-fine.json.gz").write_bytes(gzip.compress(json.dumps(swarm()).encode()))
    started = time.monotonic()
    out = tmp_path / "run.parquet"
    build([str(folder)], out, jobs=1)
    assert time.monotonic() - started < 20
    got = [(Path(r["source"]).name, r["problems"], r["message"]) for r in rows(out)]
    per_input = "decompresses to more than 1,048,576 bytes, the limit for one input"
    assert [(name, problems) for name, problems, _ in got] == [
        ("a-bomb.json.gz", ["too-large"]),
        ("b-bomb.jsonl.gz", ["too-large"]),
        ("c-lines.jsonl.gz:1", []),
        ("c-lines.jsonl.gz:2", []),
        ("c-lines.jsonl.gz:3", []),
        ("c-lines.jsonl.gz", ["too-large"]),
        ("d-fine.json.gz", []),
    ]
    assert all(message.startswith(per_input) for _, p, message in got if p)
    # the inputs of one chunk together: 4 files of 0.9 MiB each, over a 3 MiB budget
    monkeypatch.setattr(runinputs, "MAX_CHUNK_BYTES", 3 << 20)
    many = tmp_path / "many"
    many.mkdir()
    padded = json.dumps(swarm()) + " " * (900 << 10)
    for n in range(4):
        (many / f"{n}.json.gz").write_bytes(gzip.compress(padded.encode()))
    build([str(many)], out, jobs=1)
    got = rows(out)
    assert [r["ok"] for r in got] == [True, True, True, False]
    assert got[3]["message"].startswith("the chunk's inputs decompress to more than 3,145,728")


def test_a_second_run_on_the_same_output_is_refused(tmp_path: Path) -> None:
    write(40, tmp_path / "in", shards=1)
    out = tmp_path / "run.parquet"
    # the first run, slowed to a tenth of a second a chunk so that the second meets it
    slow = (
        "import sys, time; import orchtrace.runs.runinputs as r; r.CHUNK_BYTES = 1;"
        "import orchtrace.runs.runtable as t; run = t.run_chunk;"
        "t.run_chunk = lambda *a: (time.sleep(0.1), run(*a))[1];"
        "from orchtrace.cli import main; sys.argv = ['orchtrace', *sys.argv[1:]]; main()"
    )
    first = subprocess.Popen(
        [
            sys.executable,
            "-c",
            slow,
            "table",
            str(tmp_path / "in"),
            "--out",
            str(out),
            "--jobs",
            "1",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    parts = parts_dir(out)
    deadline = time.monotonic() + 60
    while len(list(parts.glob("*.traces.arrow"))) < 2 and time.monotonic() < deadline:
        time.sleep(0.02)
    second = orchtrace("table", str(tmp_path / "in"), "--out", str(out))
    still = first.poll() is None
    _, err = first.communicate(timeout=120)
    assert still, "the first run ended before the second started: slow it more"
    assert second.returncode == 1
    assert (
        second.stderr == f"orchtrace table: another run is writing {out}; wait for it, or stop it\n"
    )
    assert first.returncode == 0, err
    assert err.startswith("40 trace(s), 0 with errors, in 40 chunk(s)")
    assert pq.read_table(out).num_rows == 40 and not parts.exists()
    # once it is done, the output is free again
    assert orchtrace("table", str(tmp_path / "in"), "--out", str(out)).returncode == 0


def otlp(*trace_ids: str) -> bytes:
    """An OTLP JSON export of one chat span per trace id."""
    spans = [
        {
            "traceId": trace_id,
            "spanId": f"s{n}",
            "name": "chat",
            "startTimeUnixNano": "1000000000",
            "endTimeUnixNano": "2000000000",
            "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}}],
        }
        for n, trace_id in enumerate(trace_ids)
    ]
    batch = {"resource": {"attributes": []}, "scopeSpans": [{"spans": spans}]}
    return json.dumps({"resourceSpans": [batch]}).encode()


def test_a_long_trace_id_gets_a_bounded_file_name(tmp_path: Path) -> None:
    ids = ["a" * 300, "a" * 299 + "b", "é" * 200, "short", "x/y"]
    src = tmp_path / "export.json"
    src.write_bytes(otlp(*ids))
    out = tmp_path / "out"
    out.mkdir()
    done = orchtrace("import", str(src), "--out", str(out))
    assert done.returncode == 0, done.stderr
    files = sorted(p for p in out.iterdir() if p.suffix == ".json")
    assert len(files) == 5 and all(len(p.name.encode()) <= 130 for p in files)
    assert {json.loads(p.read_text())["trace_id"] for p in files} == set(ids)
    names = {p.name for p in files}
    assert {"short.json", "x_y.json"} <= names  # short ids keep the names they had
    long = sorted(n for n in names if n.startswith("aaa"))
    assert len(long) == 2 and long[0][:100] == long[1][:100] and long[0] != long[1]


def test_a_broken_rollout_says_which_line_and_field(mixed: Path, tmp_path: Path) -> None:
    lines = (FIXTURES / "exports" / "phoenix-kalibra-spans.jsonl").read_text().splitlines()
    (mixed / "spans.jsonl").write_text("\n".join([*lines[:2], '{"broken', *lines[2:]]) + "\n")
    out = tmp_path / "run.parquet"
    build([str(mixed)], out, jobs=1)
    got = {r["source"].removeprefix(str(mixed) + "/"): r for r in rows(out)}
    broken = got["spans.jsonl"]
    assert broken["problems"] == ["import-failed"]
    assert broken["message"] == (
        "not JSON Lines: line 3, column 2: Unterminated string starting at"
    )
    assert (
        got["shard.jsonl:2"]["message"]
        == "Expecting property name enclosed in double quotes at line 1, column 2"
    )
    assert re.fullmatch(
        r"\$\.events\[\d+\]\.id: event id 'e0' is also \$\.events\[0\]", got["bad.json"]["message"]
    )
    assert got["broken.json.gz"]["message"] == "Not a gzipped file (b'no')"
    assert got["artifact.json"]["message"] is None and got["artifact.json"]["ok"]


def test_files_no_reader_takes_are_said_not_skipped(tmp_path: Path) -> None:
    # a folder of rollouts with SWE-agent trajectories beside the traces (real ones, see
    # fixtures/exports/PROVENANCE): the .traj files are rows, read in steps mode
    # (5 and 12 steps, each with its action as a tool call), and a file no reader takes is
    # named as passed over

    runs = tmp_path / "runs"
    runs.mkdir()
    shutil.copy(REPO / "traces" / "examples" / "swarm.json", runs / "swarm.json")
    exports = FIXTURES / "exports"
    for name in ("sweagent-testrepo-function-calling.traj", "sweagent-pydicom-1458.traj"):
        shutil.copy(exports / name, runs / name)
    (runs / ".hidden").write_text("x")
    (runs / "notes.txt").write_text("x")
    out = tmp_path / "run.parquet"
    done = orchtrace("table", str(runs), "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert "passed over files no reader here takes (1 .txt)" in done.stderr
    got = {Path(r["source"]).name: r for r in rows(out)}  # file#trace id for an import
    assert {k: (r["ok"], r["tool_calls"]) for k, r in got.items() if ".traj" in k} == {
        "sweagent-testrepo-function-calling.traj#swe-agent": (True, 5.0),
        "sweagent-pydicom-1458.traj#swe-agent": (True, 12.0),
    }
