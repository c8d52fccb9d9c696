"""orchtrace query: DuckDB answers over the views `run` and `events`, says what is wrong, and sees
those two tables and nothing else (no file, folder, extension, setting or network)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from orchtrace.runs.runtable import (
    build,
    events_path,
)
from runhelp import write
from tracehelp import orchtrace


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
