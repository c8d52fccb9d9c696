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

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

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
from runhelp import (  # noqa: F401 (mixed_fixture: the mixed fixture)
    BIN,
    FIXTURES,
    mixed_fixture,
    rows,
    write,
)
from tracehelp import REPO, orchtrace


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
