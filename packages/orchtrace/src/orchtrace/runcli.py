"""The `orchtrace table` and `orchtrace query` commands: a run's traces as Parquet tables, and
SQL over them with DuckDB. Registered in cli.py; the work is runtable.py's and runquery.py's."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, NoReturn

import click


def _fail(command: str, message: str, code: int = 1) -> NoReturn:
    click.echo(f"orchtrace {command}: {message}", err=True)
    sys.exit(code)


def _needs(command: str, extra: str, *modules: str) -> None:
    """Exit 2 naming the extra to install when one of MODULES is not installed."""
    from importlib.util import find_spec

    missing = [m for m in modules if find_spec(m) is None]
    if missing:
        _fail(command, f"needs {', '.join(missing)}: pip install 'orchtrace[{extra}]'", 2)


@click.command()
@click.argument("inputs", nargs=-1, required=True)
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help="The traces table (Parquet); the events go beside it, as NAME.events.parquet.",
)
@click.option(
    "--engine",
    type=click.Choice(["processes", "ray"]),
    default="processes",
    show_default=True,
    help="processes: worker processes on this machine; ray: a Ray Data pipeline (the cluster "
    "in RAY_ADDRESS, else a local Ray; needs the cluster extra).",
)
@click.option("--jobs", type=click.IntRange(min=1), default=None, help="Workers (default: cores).")
def table(inputs: tuple[str, ...], out: Path, engine: str, jobs: int | None) -> None:
    """One row per trace of INPUTS (directories, globs, files or URIs; JSON, JSON Lines, gzip
    or zstd, or exported spans as `import` reads them), with its metrics, rewards and problem
    codes. A killed run, started again, goes on where it stopped."""
    from surewrite.errors import OutputError
    from surewrite.paths import check_file_output

    _needs("table", "runs", "pyarrow")
    if engine == "ray":
        _needs("table", "ray", "ray")
    from .runs.runinputs import InputError, passed_over
    from .runs.runtable import Busy, build, events_path

    local = tuple(Path(i) for i in inputs if "://" not in i)
    try:
        for target in (out, events_path(out)):
            check_file_output(target, inputs=local)
    except OutputError as exc:
        _fail("table", str(exc), 2 if exc.code.startswith("output-") else 1)
    skipped = passed_over(inputs)
    if skipped:
        said = ", ".join(f"{n} {suffix}" for suffix, n in sorted(skipped.items()))
        click.echo(
            f"orchtrace table: passed over files no reader here takes ({said}); "
            "`orchtrace import --help` lists the formats read",
            err=True,
        )
    try:
        summary = build(list(inputs), out, engine, jobs)
    except InputError as exc:
        _fail("table", str(exc), 2)
    except Busy as exc:
        _fail("table", str(exc))
    except (OSError, OutputError) as exc:
        _fail("table", str(exc) or f"{type(exc).__name__} while reading the inputs")
    click.echo(
        f"{summary.traces} trace(s), {summary.failed} with errors, in {summary.chunks} chunk(s)"
        + (f" ({summary.resumed} done by an earlier run)" if summary.resumed else "")
        + f": {out} and {events_path(out)}",
        err=True,
    )


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, list | dict):
        return json.dumps(value, default=str)
    return str(value)


@click.command()
@click.argument("table_file", metavar="TABLE", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("sql")
@click.option(
    "--format", "fmt", type=click.Choice(["text", "csv", "json"]), default="text", show_default=True
)
def query(table_file: Path, sql: str, fmt: str) -> None:
    """Run SQL over a run table with DuckDB: the traces are the view `run`, the events beside
    them the view `events`. The SQL sees those two and nothing else: no file, folder,
    extension or network, and no setting that would give them back."""
    _needs("query", "runs", "duckdb", "pyarrow")
    import duckdb
    import pyarrow as pa

    from .runs.runquery import connect

    if not table_file.is_file():
        _fail("query", f"{table_file}: no such table", 2)
    try:
        db = connect(table_file)
    except (pa.ArrowException, OSError) as exc:
        _fail("query", f"{table_file}: not a run table: {str(exc).splitlines()[0]}")
    try:
        result = db.execute(sql)
        names = [d[0] for d in result.description or []]
        rows = result.fetchall()
    except duckdb.Error as exc:
        _fail("query", str(exc).splitlines()[0])
    if fmt == "json":
        click.echo(json.dumps([dict(zip(names, r, strict=True)) for r in rows], default=str))
        return
    if fmt == "csv":
        import csv

        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerows([names, *([_cell(v) for v in r] for r in rows)])
        return
    cells = [names, *([_cell(v) for v in r] for r in rows)]
    widths = [max(len(row[i]) for row in cells) for i in range(len(names))]
    for row in cells:
        click.echo("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())
