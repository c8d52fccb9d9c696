"""The `litcorpus search` commands: import an export, run a query online, save searches and
re-run them (update), draft entries and write the update's report. Each parses its arguments,
calls one library function, prints, and sets the exit code."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import click

from .cli import resolve_root, root_option
from .screencli import day as _day
from .screencli import fail as _fail

SERVICES = ("arxiv", "openalex", "semanticscholar", "crossref")  # as model.saved names them
SHOWN = 50  # merges listed on the terminal; duplicates.jsonl keeps every one
FORMATS = (
    "arxiv",
    "openalex",
    "semanticscholar",
    "crossref",
    "ris",
    "bibtex",
    "csl-json",
    "csv",
    "wos",
    "medline",
)


@click.group()
def search() -> None:
    """Log searches and queue the records they found."""


def _import(
    root: Path,
    raw: bytes,
    name: str,
    fmt: str,
    query: str,
    date_run: str | None,
    database: str,
    method: str,
    family: str | None,
    allow_empty: bool = False,
) -> None:
    from surewrite.errors import OutputError

    from .model.corpus import load_corpus
    from .model.errors import CommandError
    from .publish.outputs import corpus_lock
    from .screening.imports import import_search, read_export

    day = _day(date_run, "--date-run")
    try:
        found = read_export(raw, name, fmt, allow_empty)  # refused before any lock
        with corpus_lock(root):
            done = import_search(
                load_corpus(root), found, raw, name, fmt, query, day, database, method, family
            )
    except (CommandError, OutputError) as exc:
        _fail("search import", exc)
    from .screening.present import safe

    unscreenable = len(done.unscreenable)
    click.echo(
        f"logged search {done.search}: {done.found} records found, {len(done.merges)} "
        f"duplicates removed, {len(done.queued)} queued"
        + (f", {unscreenable} kept out with no title to screen" if unscreenable else "")
    )
    said = [f"{f.where}: {clash}" for f in found for clash in f.clashes] + done.warnings
    said += [f"{where}: no title: kept out of the queue (counted)" for where in done.unscreenable]
    for line in said[:SHOWN]:
        click.echo(f"litcorpus search import: warning: {safe(line)}", err=True)
    if len(said) > SHOWN:
        click.echo(f"litcorpus search import: ... and {len(said) - SHOWN} more warnings", err=True)
    for m in done.merges[:SHOWN]:
        joined = f" (joined: {', '.join(sorted(m.joined))})" if m.joined else ""
        title = safe(m.found.title[:70])
        click.echo(f"  duplicate: {m.found.where}: {title!r} = {m.of.where}: {m.reason}{joined}")
    if len(done.merges) > SHOWN:
        click.echo(
            f"  ... and {len(done.merges) - SHOWN} more: screening/duplicates.jsonl lists all"
        )
    click.echo("next: litcorpus screen")


def _common(func: Any) -> Any:
    for option in reversed(
        [
            click.option("--query", required=True, help="The query as it was run."),
            click.option("--date-run", default=None, metavar="YYYY-MM-DD", help="Default: today."),
            click.option(
                "--database",
                default="",
                help="Where the records came from (PRISMA counts per source).",
            ),
            click.option(
                "--method",
                type=click.Choice(["database", "website", "citations"]),
                default="database",
                show_default=True,
                help="How PRISMA 2020 counts the search.",
            ),
            click.option(
                "--family",
                default=None,
                help="The query family of the taxonomy (query_family axis).",
            ),
        ]
    ):
        func = option(func)
    return func


@search.command(name="import")
@root_option
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True, path_type=Path))
@click.option(
    "--source", "fmt", type=click.Choice(FORMATS), required=True, help="The export's format."
)
@click.option("--allow-empty", is_flag=True, help="Log a search whose export holds no record.")
@_common
def import_command(
    root: Path | None,
    file: Path,
    fmt: str,
    allow_empty: bool,
    query: str,
    date_run: str | None,
    database: str,
    method: str,
    family: str | None,
) -> None:
    """Log a search from its export FILE ('-': standard input) and queue its new records."""
    from .model.errors import CommandError
    from .sources.detect import read_bytes

    try:
        raw = read_bytes(file)
    except CommandError as exc:
        _fail("search import", exc)
    name = "standard input" if str(file) == "-" else str(file)
    root = resolve_root(root)
    _import(root, raw, name, fmt, query, date_run, database, method, family, allow_empty)


@search.command(name="run")
@root_option
@click.option("--source", "fmt", type=click.Choice(["arxiv", "openalex"]), required=True)
@click.option("--max", "limit", type=click.IntRange(1, 2000), default=100, show_default=True)
@_common
def run_command(
    root: Path | None,
    fmt: str,
    limit: int,
    query: str,
    date_run: str | None,
    database: str,
    method: str,
    family: str | None,
) -> None:
    """Run QUERY against the arXiv or OpenAlex API (online) and import what it returns."""
    from .model.errors import CommandError
    from .screening.online import fetch

    try:
        raw, name = fetch(fmt, query, limit)
    except CommandError as exc:
        _fail("search run", exc)
    _import(resolve_root(root), raw, name, fmt, query, date_run, database, method, family)


@search.command(name="add")
@root_option
@click.option(
    "--source",
    type=click.Choice(SERVICES),
    required=True,
    help="The service whose API re-runs it.",
)
@click.option("--query", required=True, help="The query in the service's own syntax.")
@click.option("--family", default=None, help="The query family of the taxonomy.")
@click.option(
    "--from", "start", default=None, metavar="YYYY-MM-DD", help="First day its first run covers."
)
def add_command(
    root: Path | None, source: str, query: str, family: str | None, start: str | None
) -> None:
    """Save a search that `search update` re-runs for the days since its last run."""
    from surewrite.errors import OutputError

    from .model.corpus import load_corpus
    from .model.errors import CommandError
    from .model.saved import query_families
    from .publish.outputs import corpus_lock
    from .searching.define import add_saved

    root = resolve_root(root)
    day = _day(start, "--from")
    families = query_families(load_corpus(root).taxonomy)
    try:
        with corpus_lock(root):
            saved = add_saved(root, source, query, family, day, families)
    except (CommandError, OutputError) as exc:
        _fail("search add", exc)
    click.echo(f"saved {saved.id}: {source} from {saved.start}; next: litcorpus search update")


@search.command(name="update")
@root_option
@click.option(
    "--source",
    type=click.Choice(SERVICES),
    default=None,
    help="Only the saved searches of this service.",
)
@click.option("--family", default=None, help="Only the saved searches of this query family.")
@click.option("--since", default=None, metavar="YYYY-MM-DD", help="Start every window here.")
@click.option("--until", default=None, metavar="YYYY-MM-DD", help="End the windows here.")
@click.option(
    "--max-pages", type=click.IntRange(1, 10_000), default=50, show_default=True,
    help="Pages one saved search may fetch in one run.",
)  # fmt: skip
def update_command(
    root: Path | None,
    source: str | None,
    family: str | None,
    since: str | None,
    until: str | None,
    max_pages: int,
) -> None:
    """Re-run the saved searches on their services for the days since their last run, and
    import what they found (addresses: LITCORPUS_ARXIV_API, LITCORPUS_OPENALEX_API,
    LITCORPUS_S2_API, LITCORPUS_CROSSREF_API)."""
    from surewrite.errors import OutputError

    from .model.corpus import load_corpus
    from .model.errors import CommandError
    from .searching.services import Clock
    from .searching.update import update

    root = resolve_root(root)
    start = _day(since, "--since") if since else None
    end = _day(until, "--until") if until else None
    clock = Clock(float(os.environ.get("LITCORPUS_POLITENESS", "1")))
    try:
        done = update(load_corpus(root), source, family, start, end, max_pages, clock)
    except (CommandError, OutputError) as exc:
        _fail("search update", exc)
    for o in done.outcomes:
        days = f"{o.window[0]}..{o.window[1]}"
        if o.imported is not None:
            i = o.imported
            click.echo(
                f"{o.saved} {days}: logged {i.search}: {i.found} records found in {o.pages} "
                f"pages, {len(i.merges)} duplicates removed, {len(i.queued)} queued"
            )
        elif o.status == "up-to-date":
            click.echo(f"{o.saved}: up to date ({o.message})")
        else:
            line = f"{o.saved} {days}: {o.status}" + (f": {o.message}" if o.message else "")
            click.echo(line, err=o.status in ("failed", "capped"))
    counts = {s: sum(o.status == s for o in done.outcomes) for s in ("logged", "up-to-date")}
    failed = len(done.outcomes) - sum(counts.values())
    click.echo(
        f"{counts['logged']} logged, {counts['up-to-date']} up to date, {failed} failed, in "
        f"{done.seconds:.1f} s ({done.politeness:.1f} s of it the APIs' politeness delays)"
    )
    if done.not_api:
        click.echo(
            f"{done.not_api} logged searches are on no API (web pages, paper lists, citation "
            "chasing) and are not re-run; `litcorpus search add` saves a query on a service"
        )
    if not done.ok:
        sys.exit(1)


@search.command(name="draft")
@root_option
@click.option("--threshold", type=click.FloatRange(0, 1), default=0.5, show_default=True)
@click.option("--top", type=click.IntRange(0, 1000), default=25, show_default=True)
def draft_command(root: Path | None, threshold: float, top: int) -> None:
    """Rank the queue and draft an entry, with suggested tags as comments, for each of the
    most relevant records (screening/drafts/; check reads none)."""
    from surewrite.errors import OutputError

    from .model.corpus import load_corpus
    from .model.errors import CommandError
    from .publish.outputs import corpus_lock
    from .searching.draft import DRAFTS, draft

    root = resolve_root(root)
    try:
        with corpus_lock(root):
            done = draft(load_corpus(root), threshold, top)
    except (CommandError, OutputError) as exc:
        _fail("search draft", exc)
    kept = [a["axis"] for a in done.axes if a["suggested"]]
    click.echo(
        f"drafted {len(done.written)} entries in {DRAFTS}/ ({len(done.removed)} stale drafts "
        f"removed); tags suggested on: {', '.join(kept) or 'no axis (none beats its baseline)'}"
    )


@search.command(name="report")
@root_option
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write the Markdown here (default: standard output).")  # fmt: skip
def report_command(root: Path | None, out: Path | None) -> None:
    """The update's pull-request body: what the saved searches found, the top of the queue
    with suggested tags, the stopping estimate and the PRISMA update flow."""
    from surewrite.errors import OutputError
    from surewrite.files import write_file
    from surewrite.paths import check_file_output

    from .model.corpus import load_corpus
    from .model.errors import CommandError
    from .publish.outputs import input_folders, inputs
    from .searching.report import report

    root = resolve_root(root)
    try:
        corpus = load_corpus(root)
        text = report(corpus)
        if out is None:
            click.echo(text, nl=False)
            return
        write_file(check_file_output(out, input_folders(corpus), inputs(corpus)), text.encode())
    except (CommandError, OutputError) as exc:
        _fail("search report", exc)
    click.echo(f"wrote {out}")
