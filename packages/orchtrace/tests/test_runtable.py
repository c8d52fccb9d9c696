"""orchtrace table and query: every kind of input (JSON, JSON Lines, gzip, zstd, globs, URIs,
the survey artifact's format, exported spans), bad traces as rows with their codes, the rows'
rewards equal to orchtrace.rewards', a run killed and started again, the Ray Data path on a
local Ray with two CPUs giving the same rows as the processes, DuckDB queries, and the README:
its schema tables, its commands on 10,000 generated rollouts and its Python snippet. Then what
must never happen: SQL that reaches past the two tables (files, folders, writes, extensions,
settings), a pattern in a table's name read as one, a trace that stops the run (values no
column holds, orchtrace's own failure), a compressed input that fills a worker's memory, two
runs sharing one output, an import whose trace id is too long for a file name, and a broken
rollout's row that does not say where it broke."""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
import zstandard

from orchtrace import rewards
from orchtrace.runs.runinputs import InputError, expand, plan
from orchtrace.runs.runrows import EVENT_COLUMNS, TRACE_COLUMNS
from orchtrace.runs.runtable import (
    _prepare,
    build,
    events_path,
    parts_dir,
    run_chunk,
)

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]  # the repository: its traces/ and tests/bench/
sys.path.insert(0, str(REPO / "tests" / "bench"))
from genrollouts import rollout, write  # noqa: E402

FIXTURES = HERE / "fixtures"
BIN = Path(sys.executable).parent


def orchtrace(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "orchtrace", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
    )


def rows(path: Path) -> list[dict[str, Any]]:
    return pq.read_table(path).to_pylist()


@pytest.fixture
def mixed(tmp_path: Path) -> Path:
    """A folder of every kind of input, with one bad trace of each kind of badness."""
    import random

    rng = random.Random(1)
    folder = tmp_path / "in"
    (folder / "deep").mkdir(parents=True)
    lines = [json.dumps(rollout(n, rng)) for n in range(3)]
    lines.insert(1, "{not json")
    (folder / "shard.jsonl").write_text("\n".join(lines) + "\n")
    (folder / "deep" / "one.json.gz").write_bytes(
        gzip.compress(json.dumps(rollout(3, rng)).encode())
    )
    (folder / "deep" / "two.jsonl.zst").write_bytes(
        zstandard.ZstdCompressor().compress((json.dumps(rollout(4, rng)) + "\n").encode())
    )
    shutil.copy(FIXTURES / "artifact" / "example_trace.json", folder / "artifact.json")
    shutil.copy(FIXTURES / "exports" / "openinference-langgraph.pb", folder / "spans.pb")
    shutil.copy(FIXTURES / "exports" / "langfuse-openai-agents.json", folder / "langfuse.json")
    bad = rollout(5, rng)
    bad["events"].append(dict(bad["events"][0]))  # a repeated event id
    (folder / "bad.json").write_text(json.dumps(bad))
    (folder / "broken.json.gz").write_bytes(b"not gzip at all")
    (folder / "notes.txt").write_text("not an input")
    return folder


def test_every_kind_of_input_is_a_row(mixed: Path, tmp_path: Path) -> None:
    out = tmp_path / "run.parquet"
    summary = build([str(mixed)], out, jobs=1)
    got = {r["source"].removeprefix(str(mixed) + "/"): r for r in rows(out)}
    langgraph = "spans.pb#18a126ecf755b4dc2a04b7f602759d11"
    langfuse = "langfuse.json#fee618f96dc31e0ca38b2f7b26eb8b29"
    assert sorted(got) == sorted(
        [
            "artifact.json",
            "bad.json",
            "broken.json.gz",
            "deep/one.json.gz",
            "deep/two.jsonl.zst:1",
            langfuse,
            langgraph,
            "shard.jsonl:1",
            "shard.jsonl:2",
            "shard.jsonl:3",
            "shard.jsonl:4",
        ]
    )
    assert (summary.traces, summary.failed, summary.resumed) == (11, 3, 0)
    assert (got["shard.jsonl:2"]["ok"], got["shard.jsonl:2"]["problems"]) == (
        False,
        ["malformed-json"],
    )
    assert (
        got["bad.json"]["problems"] == ["duplicate-id"]
        and got["bad.json"]["critical_steps"] is None
    )
    assert got["broken.json.gz"]["problems"] == ["unreadable"]
    assert got["bad.json"]["unavailable"] == []  # no rewards were computed at all
    # the rows' rewards are the library's, and each null names its code
    for source, trace in ((langgraph, None), ("artifact.json", mixed / "artifact.json")):
        if trace is None:
            from orchtrace.readers.importers import to_traces
            from orchtrace.readers.spanfiles import read_spans

            (trace,), _ = to_traces(read_spans((mixed / "spans.pb").read_bytes()), "auto")
        expected = rewards.all_rewards(trace)
        row = got[source]
        assert {k: row[k] for k in expected} == {k: r.value for k, r in expected.items()}
        assert dict(row["unavailable"]) == {
            k: r.code for k, r in expected.items() if r.value is None
        }
    assert got[langgraph]["critical_steps"] == 6.0 and got["artifact.json"]["task_success"] == 1.0
    # the artifact's rewards {team: 1.0, orchestration: 0.3, tool: 0.1}, by unit
    assert got["artifact.json"]["recorded_rewards"] == [
        ("orchestrator/orchestration", 0.3),
        ("team/team", 1.0),
        ("tool/tool", 0.1),
    ]
    assert got["artifact.json"]["recorded_reward"] == pytest.approx(1.4)
    # the events of the traces without errors, one row each, with their ancestry
    events = rows(events_path(out))
    ok = [r for r in got.values() if r["ok"]]
    assert len(events) == sum(r["events"] for r in ok)
    artifact = [e for e in events if e["source"].endswith("artifact.json")]
    assert [e["id"] for e in artifact] == [f"e{i}" for i in range(1, 9)]
    assert all(e["critical"] and e["useful"] for e in artifact)  # one chain, all of it needed
    assert (
        artifact[5]["agent"] == "browser.search" and artifact[0]["type"] == "orchestrator_decision"
    )
    assert pq.read_schema(out).names == [n for n, _, _ in TRACE_COLUMNS]
    assert not parts_dir(out).exists()


def test_inputs_that_name_nothing_are_a_usage_error(tmp_path: Path, mixed: Path) -> None:
    with pytest.raises(InputError, match="no trace files"):
        expand([str(tmp_path / "nothing-*.jsonl")])
    assert expand([str(mixed / "**" / "*.gz")]) == [
        str(mixed / "broken.json.gz"),
        str(mixed / "deep" / "one.json.gz"),
    ]
    assert expand([f"file://{mixed}/shard.jsonl"]) == [f"file://{mixed}/shard.jsonl"]
    done = orchtrace("table", str(tmp_path / "missing"), "--out", str(tmp_path / "run.parquet"))
    assert done.returncode == 2 and "missing: no trace files" in done.stderr
    assert not (tmp_path / "run.parquet").exists()
    done = orchtrace("table", str(mixed / "shard.jsonl"), "--out", str(mixed / "shard.jsonl"))
    assert done.returncode == 2 and "output-refused" in done.stderr


def run_table(folder: Path, out: Path, *more: str) -> subprocess.Popen[str]:
    # chunks of one line each, so that a run is many chunks
    code = (
        "import sys; import orchtrace.runs.runinputs as r; r.CHUNK_BYTES = 1; r.CHUNK_FILES = 1;"
        "from orchtrace.cli import main; sys.argv = ['orchtrace', *sys.argv[1:]]; main()"
    )
    return subprocess.Popen(
        [sys.executable, "-c", code, "table", str(folder), "--out", str(out), *more],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_a_killed_run_goes_on_where_it_stopped(tmp_path: Path) -> None:
    write(120, tmp_path / "in", shards=1)
    whole = tmp_path / "whole.parquet"
    assert run_table(tmp_path / "in", whole, "--jobs", "1").wait(timeout=300) == 0
    out = tmp_path / "run.parquet"
    proc = run_table(tmp_path / "in", out, "--jobs", "1")
    parts = parts_dir(out)
    deadline = time.monotonic() + 120
    while len(list(parts.glob("*.traces.arrow"))) < 20 and time.monotonic() < deadline:
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    done_before = len(list(parts.glob("*.traces.arrow")))
    assert 20 <= done_before < 120 and not out.exists()
    again = run_table(tmp_path / "in", out, "--jobs", "2")
    _, err = again.communicate(timeout=300)
    assert again.returncode == 0, err
    assert f"in 120 chunk(s) ({done_before} done by an earlier run)" in err
    assert pq.read_table(out).equals(pq.read_table(whole))
    assert pq.read_table(events_path(out)).equals(pq.read_table(events_path(whole)))


def test_a_part_torn_by_a_crash_is_made_again(tmp_path: Path) -> None:
    # parts are not flushed to disk (a killed process keeps them, a failed machine may not)
    write(30, tmp_path / "in", shards=3)
    whole = tmp_path / "whole.parquet"
    build([str(tmp_path / "in")], whole, jobs=1)
    out = tmp_path / "run.parquet"
    chunks, digest = plan(expand([str(tmp_path / "in")]))
    parts = parts_dir(out)
    _prepare(parts, digest)
    run_chunk(str(parts), 1, chunks[1].to_json())
    (parts / "000001.traces.arrow").write_bytes(b"torn")
    summary = build([str(tmp_path / "in")], out, jobs=1)
    assert (summary.resumed, summary.traces) == (1, 30)
    assert pq.read_table(out).equals(pq.read_table(whole))


def test_ray_data_gives_the_rows_the_processes_give(tmp_path: Path, mixed: Path) -> None:
    folder = tmp_path / "run"
    write(300, folder, shards=3)
    (folder / "extra").mkdir()
    shutil.copy(mixed / "bad.json", folder / "extra" / "bad.json")
    local = tmp_path / "local.parquet"
    build([str(folder)], local, engine="processes", jobs=2)
    on_ray = tmp_path / "ray.parquet"
    done = orchtrace(
        "table", f"file://{folder}", "--out", str(on_ray), "--engine", "ray", "--jobs", "2"
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith("301 trace(s), 1 with errors")
    theirs, ours = pq.read_table(on_ray), pq.read_table(local)
    assert theirs.drop(["source"]).equals(ours.drop(["source"]))  # sources: file:// URIs
    assert [s.removeprefix("file://") for s in theirs.column("source").to_pylist()] == ours.column(
        "source"
    ).to_pylist()
    assert pq.read_table(events_path(on_ray)).num_rows == pq.read_table(events_path(local)).num_rows


def test_the_ray_engine_without_ray_names_the_extra(tmp_path: Path, mixed: Path) -> None:
    code = (
        "import sys; sys.modules['ray'] = None; from orchtrace.cli import main;"
        "sys.argv = ['orchtrace', *sys.argv[1:]]; main()"
    )
    out = tmp_path / "run.parquet"
    args = [str(mixed / "bad.json"), "--out", str(out), "--engine", "ray"]
    done = subprocess.run(
        [sys.executable, "-c", code, "table", *args], capture_output=True, text=True
    )
    assert done.returncode == 2
    assert done.stderr == ("orchtrace table: needs ray: pip install 'orchtrace[ray]'\n")
    assert not out.exists()


def test_query_answers_with_duckdb_and_says_what_is_wrong(tmp_path: Path) -> None:
    write(50, tmp_path / "in", shards=1)
    out = tmp_path / "run.parquet"
    build([str(tmp_path / "in")], out, jobs=1)
    done = orchtrace(
        "query", str(out), "SELECT count(*) AS n, count_if(ok) AS ok FROM run", "--format", "json"
    )
    assert json.loads(done.stdout) == [{"n": 50, "ok": 50}]
    done = orchtrace(
        "query", str(out), "SELECT type, count(*) AS n FROM events GROUP BY 1 ORDER BY 1"
    )
    stops = next(line for line in done.stdout.splitlines() if line.startswith("stop"))
    assert stops.split() == ["stop", "50"]
    done = orchtrace("query", str(out), "SELECT nothing FROM run")
    assert done.returncode == 1 and done.stderr.startswith("orchtrace query: Binder Error")
    assert len(done.stderr.splitlines()) == 1
    assert orchtrace("query", str(tmp_path / "none.parquet"), "SELECT 1").returncode == 2


def readme_block(marker: str) -> str:
    text = (REPO / "README.md").read_text()
    found = re.search(rf"<!-- {marker}.*?-->\n```\w+\n(.*?)```", text, re.S)
    assert found, marker
    return found.group(1)


def test_the_readme_documents_every_column() -> None:
    text = (REPO / "README.md").read_text()
    documented = [
        tuple(c.strip() for c in line.strip("|").split("|"))
        for line in text.splitlines()
        if line.startswith("| `")
    ]
    for columns in (TRACE_COLUMNS, EVENT_COLUMNS):
        table = [(f"`{n}`", str(t), d) for n, t, d in columns]
        at = documented.index(table[0])
        assert documented[at : at + len(table)] == table
    for name in rewards.REWARDS:
        assert f"`{name}`" in text.split("## Training runs")[1]


def test_the_readme_commands_on_10000_rollouts(tmp_path: Path) -> None:
    script = readme_block("run-table commands").replace(".venv/bin/", f"{BIN}/")
    script = script.replace("tests/bench/", f"{REPO}/tests/bench/")
    env = {**os.environ, "PATH": f"{BIN}:{os.environ['PATH']}"}
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert "10000 trace(s), 0 with errors" in done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split() == ["speedup", "rollouts", "reward"]
    speedup_rows = [
        line.split()
        for line in lines[1 : lines.index(next(x for x in lines if x.startswith("trace_id")))]
    ]
    assert sum(int(r[1]) for r in speedup_rows) == 10000
    never = lines[lines.index(next(x for x in lines if x.startswith("trace_id"))) + 1 :][:5]
    assert len(never) == 5 and all(int(line.split()[1]) > 0 for line in never)
    assert lines[-2].split() == ["usd_per_solved", "tokens_per_solved"]
    usd, tokens = map(float, lines[-1].split())
    assert 0 < usd < 1 and tokens > 1000


def test_the_readme_rewards_snippet(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    exec(compile(readme_block("rewards snippet"), "README.md", "exec"), {})


def test_exports_that_name_edges_deeper_down_are_spans(tmp_path: Path) -> None:
    """Graph metadata in a span's attributes (LangGraph's nodes and edges, say) does not make
    an export a trace: only an edge list at the top does."""
    folder = tmp_path / "in"
    folder.mkdir()
    graph = {"graph": {"nodes": ["agent", "tools"], "edges": [["agent", "tools"]]}}
    lines = (FIXTURES / "exports" / "phoenix-kalibra-spans.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    first["attributes"].update(graph)
    (folder / "phoenix.jsonl").write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
    export = json.loads((FIXTURES / "exports" / "langfuse-openai-agents.json").read_text())
    export["observations"][0]["metadata"] = {
        **(export["observations"][0]["metadata"] or {}),
        **graph,
    }
    (folder / "langfuse.json").write_text(json.dumps(export))
    out = tmp_path / "run.parquet"
    build([str(folder)], out, jobs=1)
    got = rows(out)
    assert got and all(r["ok"] and "#" in r["source"] for r in got), [
        (r["source"], r["problems"]) for r in got
    ]
    assert {r["source"].split("/")[-1].split("#")[0] for r in got} == {
        "phoenix.jsonl",
        "langfuse.json",
    }


# -- orchtrace query: the views run and events, and nothing else --------------------------


@pytest.fixture
def small_table(tmp_path: Path) -> Path:
    write(5, tmp_path / "in", shards=1)
    out = tmp_path / "tables" / "run.parquet"
    out.parent.mkdir()
    build([str(tmp_path / "in")], out, jobs=1)
    return out


REFUSALS = re.compile(
    r"orchtrace query: (Permission Error: .* disabled (by|through) configuration"
    r"|Invalid Input Error: Cannot change configuration option .* has been locked"
    r"|Catalog Error: Table with name .* does not exist!)\n"
)


def refused(table: Path, sql: str) -> subprocess.CompletedProcess[str]:
    """orchtrace query TABLE SQL, which must be refused for what it reaches for (not for
    a network that is down), in one line, exit 1."""
    done = orchtrace("query", str(table), sql)
    assert done.returncode == 1, (sql, done.stdout, done.stderr)
    assert done.stdout == "" and REFUSALS.fullmatch(done.stderr), done.stderr
    return done


ESCAPES = [
    "SELECT * FROM read_csv('/etc/passwd')",
    "SELECT * FROM read_csv('{tmp}/secret.csv')",
    "SELECT * FROM '{tmp}/secret.csv'",
    "SELECT * FROM read_text('/etc/hostname')",
    "SELECT * FROM read_blob('/etc/hostname')",
    "SELECT * FROM glob('/*')",
    "SELECT * FROM sniff_csv('/etc/passwd')",
    "COPY (SELECT 1) TO '{tmp}/x.csv'",
    "COPY run TO '{tmp}/run.csv'",
    "ATTACH '{tmp}/x.db' AS x",
    "EXPORT DATABASE '{tmp}/d'",
    "INSTALL httpfs",
    "LOAD httpfs",
    "SELECT * FROM read_parquet('https://example.com/x.parquet')",
    "SET enable_external_access = true",
    "SET lock_configuration = false",
    "RESET enable_external_access",
    "SET allowed_directories = ['/']",
]


@pytest.mark.parametrize("sql", ESCAPES)
def test_query_sees_the_two_tables_and_nothing_else(
    sql: str, small_table: Path, tmp_path: Path
) -> None:
    (tmp_path / "secret.csv").write_text("who,what\nme,secret\n")
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    refused(small_table, sql.format(tmp=tmp_path))
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before


def test_query_reads_the_table_named_and_no_other(small_table: Path, tmp_path: Path) -> None:
    # a `*` in the table's name is a character of the name, not a pattern over its folder
    starred = small_table.with_name("run*.parquet")
    shutil.copy(small_table, starred)
    shutil.copy(events_path(small_table), events_path(starred))
    other = tmp_path / "in2"
    write(7, other, shards=1)
    build([str(other)], small_table.with_name("run-more.parquet"), jobs=1)  # matches run*
    done = orchtrace("query", str(starred), "SELECT count(*) AS n FROM run", "--format", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [{"n": 5}]
    # ordinary SQL over both views, joined
    sql = (
        "SELECT r.trace_id, count(e.id) AS n, any_value(r.events) AS events FROM run r "
        "JOIN events e USING (source) GROUP BY 1 ORDER BY 1"
    )
    done = orchtrace("query", str(starred), sql, "--format", "json")
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert len(got) == 5 and all(r["n"] == r["events"] > 0 for r in got)
    done = orchtrace("query", str(small_table), "SELECT count(*) FROM run", "--format", "csv")
    assert done.stdout.splitlines()[1] == "5"


# -- one bad trace never stops a run table ------------------------------------------------


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
    assert got["b.json"]["message"].startswith("ZeroDivisionError: a bug (test_runtable.py")
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
    import shutil

    runs = tmp_path / "runs"
    runs.mkdir()
    shutil.copy(REPO / "traces" / "examples" / "swarm.json", runs / "swarm.json")
    exports = HERE / "fixtures" / "exports"
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
