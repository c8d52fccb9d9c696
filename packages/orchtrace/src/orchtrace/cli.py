"""The `orchtrace` command: validate, measure, import and document orchestration traces."""

from __future__ import annotations

import gc
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NoReturn

import click

from . import __version__, runcli


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="orchtrace")
def cli() -> None:
    """Validate and replay orchestration traces of LLM multi-agent systems."""
    # Traces parse into trees without reference cycles, so reference counting frees everything;
    # the cycle collector would only rescan millions of live objects, again and again.
    gc.disable()


def _target(out: Path | None, command: str, inputs: tuple[Path, ...] = ()) -> Path | None:
    """The file OUT, checked before any work is done: refused when writing it could destroy
    what orchtrace did not write (a link, a folder, a pipe, an input of the run, a file under
    version control, anything in .git)."""
    from surewrite.errors import OutputError
    from surewrite.paths import check_file_output

    try:
        return None if out is None else check_file_output(out, inputs=inputs)
    except OutputError as exc:
        _fail(command, exc)


def _write(target: Path | None, text: str, command: str) -> None:
    """Writes TEXT to TARGET (from _target), or to standard output: every file a command
    writes goes through here, atomically, so a failure leaves nothing behind."""
    from surewrite.errors import OutputError
    from surewrite.files import write_file

    if target is None:
        click.echo(text, nl=False)
        return
    try:
        write_file(target, text.encode())
    except OutputError as exc:
        _fail(command, exc)


def _fail(command: str, exc: Any) -> NoReturn:
    """One line for an output that is refused (exit 2) or cannot be written (exit 1)."""
    click.echo(f"orchtrace {command}: {exc}", err=True)
    sys.exit(2 if exc.code.startswith("output-") else 1)


def _examined(file: Path, measure: bool, max_bytes: int | None = None) -> Iterator[Any]:
    """(label, Examined) for every trace in FILE."""
    from .core.trace import MAX_BYTES, read_inputs
    from .measures.examine import Examined, examine

    for label, text, failed in read_inputs(file, MAX_BYTES if max_bytes is None else max_bytes):
        if failed is not None:
            yield failed.label, Examined(failed.problems, None, None)
        else:
            yield label, examine(text, label, measure)


@cli.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
@click.option("--strict", is_flag=True, help="Fail on warnings too.")
@click.option(
    "--max-bytes",
    type=click.IntRange(min=1),
    default=None,
    help="Refuse JSON files above this size (default: 512 MiB).",
)
def validate(files: tuple[Path, ...], fmt: str, strict: bool, max_bytes: int | None) -> None:
    """Check traces, in our format or the survey artifact's (JSON, or JSON Lines with one trace
    per line); report every problem."""
    problems, traces = [], 0
    for file in files:
        for _, examined in _examined(file, False, max_bytes):
            traces += 1
            problems += examined.problems
    failing = [p for p in problems if strict or p.severity == "error"]
    if fmt == "json":
        click.echo(
            json.dumps(
                {"ok": not failing, "traces": traces, "problems": [p.to_dict() for p in problems]},
                indent=2,
            )
        )
    else:
        for p in problems:
            click.echo(p.text())
        errors = sum(p.severity == "error" for p in problems)
        click.echo(f"{traces} trace(s): {errors} error(s), {len(problems) - errors} warning(s)")
    sys.exit(1 if failing else 0)


@cli.command()
@click.argument("file", type=click.Path(dir_okay=False, exists=True, path_type=Path))
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
@click.option(
    "--html",
    "html_out",
    type=click.Path(path_type=Path),
    default=None,
    help="Also write a self-contained timeline view to this file.",
)
def metrics(file: Path, fmt: str, html_out: Path | None) -> None:
    """Replay a trace and report its orchestration metrics (see traces/METRICS.md)."""
    from .measures.html import render_html
    from .measures.metrics import metrics_text

    html_target = _target(html_out, "metrics", (file,))
    results = []
    for label, examined in _examined(file, True):
        if examined.measures is None:
            for p in examined.problems:
                if p.severity == "error":
                    click.echo(p.text(), err=True)
            click.echo("orchtrace: the trace is invalid; nothing measured", err=True)
            sys.exit(1)
        results.append((label, examined.data, examined.measures))
    if fmt == "json":
        payload = [{"trace": label, **m} for label, _, m in results]
        click.echo(json.dumps(payload[0] if len(payload) == 1 else payload, indent=2))
    else:
        click.echo("\n".join(metrics_text(label, m) for label, _, m in results))
    if html_out is not None:
        label, data, m = results[0]
        _write(html_target, render_html(label, data, m), "metrics")


@cli.command()
@click.option("--to", "target", type=click.Choice(["artifact", "current"]), required=True)
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--out", type=click.Path(path_type=Path), default=None)
def convert(target: str, file: Path, out: Path | None) -> None:
    """Write a valid trace in the survey artifact's format or ours (JSON Lines: line by line)."""
    from .core.formats import ConvertError, convert_trace
    from .core.trace import read_inputs
    from .measures.examine import examine

    target_file = _target(out, "convert", (file,))
    lines = []
    for label, text, failed in read_inputs(file):
        examined = examine(text, label) if failed is None else failed
        if any(p.severity == "error" for p in examined.problems):
            for p in examined.problems:
                if p.severity == "error":
                    click.echo(p.text(), err=True)
            click.echo(f"orchtrace convert: {label}: the trace has errors; not converted", err=True)
            sys.exit(1)
        try:
            converted, dropped = convert_trace(json.loads(text), target)
        except ConvertError as exc:
            click.echo(f"orchtrace convert: {label}: {exc}", err=True)
            sys.exit(1)
        if dropped:
            click.echo(
                f"orchtrace convert: {label}: the {target} format has no place for "
                + ", ".join(dropped),
                err=True,
            )
        lines.append(converted)
    if file.suffix in (".jsonl", ".ndjson"):
        written = "".join(json.dumps(t, ensure_ascii=False) + "\n" for t in lines)
    else:
        written = json.dumps(lines[0], indent=2, ensure_ascii=False) + "\n"
    _write(target_file, written, "convert")


@cli.command(name="import")
@click.option(
    "--from",
    "source",
    type=click.Choice(["auto", "genai", "otlp", "openinference", "vercel", "langfuse"]),
    default="auto",
    show_default=True,
    help="The conventions the spans follow (otlp: the OpenTelemetry GenAI ones).",
)
@click.argument("file", type=click.Path(dir_okay=False, exists=True, path_type=Path))
@click.option("--trace-id", default=None, help="Import only this trace of the export.")
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default=None,
    help="A file, or a directory that gets one file per trace, named for its id (a long id "
    "cut, with a hash of the whole).",
)
def import_(source: str, file: Path, trace_id: str | None, out: Path | None) -> None:
    """Convert exported spans (OTLP JSON or protobuf, JSON Lines, Jaeger or Tempo responses,
    OpenTelemetry JS, Python and Go console output, Phoenix, Langfuse, Datadog and AgentOps
    exports, Zipkin v2 spans, any-agent traces, ATIF, SWE-agent and mini-SWE-agent
    trajectories, Claude Code transcripts) into orchestration traces, one per traceId; one that
    records no times is read in steps mode; an export that would import as other values, or as
    a trace `validate` rejects, is refused."""
    from .core.trace import read_inputs
    from .readers.importcheck import import_traces
    from .readers.spans import ImportError_

    out_file = None if out is None or out.is_dir() else _target(out, "import", (file,))
    try:
        ((_, text, failed),) = read_inputs(file, lines=False)  # a regular file, or why not
        if failed is not None:
            raise ImportError_(failed.problems[0].message)
        traces, note = import_traces(text, source, file.parent)
    except ImportError_ as exc:
        click.echo(f"orchtrace import: {file}: {exc}", err=True)
        sys.exit(1)
    if note:
        click.echo(f"orchtrace import: {file}: {note}", err=True)
    if trace_id is not None:
        traces = [t for t in traces if t["trace_id"] == trace_id]
        if not traces:
            click.echo(f"orchtrace import: {file}: no trace {trace_id!r} in the export", err=True)
            sys.exit(1)
    ids = [t["trace_id"] for t in traces]
    if out is not None and out.is_dir():
        _write_traces(out, traces)
        click.echo(f"wrote {len(traces)} trace(s) to {out}", err=True)
        return
    if len(traces) > 1:
        named = ", ".join(ids[:5]) + (f" and {len(ids) - 5} more" if len(ids) > 5 else "")
        click.echo(
            f"orchtrace import: {file}: the export holds {len(traces)} traces "
            f"({named}); give --trace-id ID, or --out DIR for one file each",
            err=True,
        )
        sys.exit(1)
    _write(out_file, json.dumps(traces[0], indent=2, ensure_ascii=False) + "\n", "import")


MAX_STEM_BYTES = 120  # well under the 255 bytes most file systems allow a name


def _file_stem(trace_id: str) -> str:
    """A file name for TRACE_ID: its letters, digits, dots, dashes and underscores (others as
    `_`); a longer one than MAX_STEM_BYTES (in UTF-8) is cut and ends with a short hash of the
    whole id, so that two long ids that share a beginning still differ."""
    safe = "".join(c if c.isalnum() or c in "._-" else "_" for c in trace_id)
    if len(safe.encode()) <= MAX_STEM_BYTES:
        return safe
    import hashlib

    digest = hashlib.sha256(trace_id.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    cut = safe.encode()[: MAX_STEM_BYTES - len(digest) - 1].decode(errors="ignore")
    return f"{cut}-{digest}"


def _write_traces(out: Path, traces: list[dict[str, Any]]) -> None:
    """One file per trace in folder OUT, which orchtrace replaces whole: it must be empty or
    hold an earlier import's output (see surewrite.paths)."""
    from surewrite.errors import OutputError
    from surewrite.tree import write_tree

    files: dict[str, bytes] = {}
    for t in traces:
        safe = _file_stem(t["trace_id"])
        name, n = f"{safe}.json", 2
        while name in files:  # two ids that differ only where the file name cannot follow
            name, n = f"{safe}-{n}.json", n + 1
        files[name] = (json.dumps(t, indent=2, ensure_ascii=False) + "\n").encode()
    try:
        write_tree(out, files, "orchtrace", "import")
    except OutputError as exc:
        _fail("import", exc)


@cli.command(name="schema-doc")
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=Path("traces/SCHEMA.md"),
    show_default=True,
    help="The Markdown file to write.",
)
@click.option("--check", "check_only", is_flag=True, help="Exit 1 if the file is stale.")
def schema_doc(out: Path, check_only: bool) -> None:
    """Write the Markdown reference of both trace formats (the schemas shipped with orchtrace),
    how their fields map, and the problem codes."""
    from .checks.schemadoc import schema_markdown
    from .core.schema import schema

    text = schema_markdown(schema(), schema("artifact"))
    current = out.read_text(encoding="utf-8") if out.is_file() else ""
    if check_only:
        click.echo(f"{out} is stale" if current != text else "up to date")
        sys.exit(1 if current != text else 0)
    from surewrite.files import write_file

    write_file(out, text.encode())
    click.echo(f"wrote {out}")


cli.add_command(runcli.table)
cli.add_command(runcli.query)


def main() -> None:
    """Run the command: one line for any error, no traceback; Ctrl-C ends it with 130."""
    from surewrite.interrupts import lasting_interrupts
    from surewrite.streams import standard_streams

    lasting_interrupts()
    try:
        standard_streams()
        code: Any = cli.main(prog_name="orchtrace", standalone_mode=False)
        code = code if isinstance(code, int) else 0
    except SystemExit as exc:
        code = exc.code
    except (click.exceptions.Abort, KeyboardInterrupt):
        code = 130
    except click.ClickException as exc:
        exc.show()
        code = exc.exit_code
    except MemoryError:
        print("orchtrace: out of memory; try a smaller trace or JSON Lines", file=sys.stderr)
        code = 1
    except Exception as exc:  # never a traceback: one line that says where to look
        import traceback

        frame = traceback.extract_tb(exc.__traceback__)[-1]
        where = f"{Path(frame.filename).name}, line {frame.lineno}"
        print(
            f"orchtrace: unexpected error ({where}): {type(exc).__name__}: {exc}", file=sys.stderr
        )
        code = 1
    if not isinstance(code, int):  # None is success; a message means failure
        if code is not None:
            print(code, file=sys.stderr)
        code = 0 if code is None else 1
    # Freeing a million-event trace object by object takes a quarter of a second, and the
    # process is ending anyway: flush what was written and leave without the teardown.
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except OSError:  # a closed pipe (`orchtrace ... | head`)
        code = code or 1
    os._exit(code)
