"""The `litcorpus` commands that change or look beyond the corpus rather than publish it:
`add` (scaffold entries), `init` (a new survey), `release`, `diff` against a git ref and
`links` (check every address). Each parses its arguments, calls one library function, prints
and sets the exit code; cli.py registers them."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from .cli import fail, resolve_root, root_option


@click.command()
@root_option
@click.option(
    "--bibtex",
    "bibtex_file",
    type=click.Path(allow_dash=True, path_type=Path),
    default=None,
    help="BibTeX file with one or more entries ('-' reads standard input).",
)
@click.option("--arxiv", "arxiv_id", default=None, help="An arXiv id; metadata from the arXiv API.")
def add(root: Path | None, bibtex_file: Path | None, arxiv_id: str | None) -> None:
    """Scaffold papers/<key>.yaml from BibTeX or arXiv; never overwrites."""
    from surewrite.errors import OutputError

    from .model.corpus import load_corpus
    from .publish.outputs import corpus_lock
    from .workflow.add import (
        AddError,
        add_entries,
        drafts_from_arxiv,
        drafts_from_bibtex,
        fetch_arxiv,
        read_bibtex,
    )

    if (bibtex_file is None) == (arxiv_id is None):
        raise click.UsageError("give exactly one of --bibtex FILE and --arxiv ID")
    root = resolve_root(root)
    try:
        if bibtex_file is not None:
            drafts = drafts_from_bibtex(read_bibtex(bibtex_file))
        else:
            drafts = drafts_from_arxiv(fetch_arxiv(str(arxiv_id)), str(arxiv_id))
        with corpus_lock(root):  # a second run waits, then sees what this one wrote
            written = add_entries(load_corpus(root), drafts)
    except (AddError, OutputError) as exc:
        fail("add", exc)
    for path in written:
        click.echo(f"wrote {path.relative_to(root)}")
    click.echo("next: fill the empty fields, then run 'litcorpus check'")


@click.command(name="init")
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path))
@click.option("--name", default=None, help="The survey's name (default: the folder's name).")
def init_command(folder: Path, name: str | None) -> None:
    """Write a new survey into FOLDER (new or empty): a commented taxonomy, an example entry,
    README, CONTRIBUTING, CITATION.cff, a Makefile and the CI and Pages workflows."""
    from surewrite.errors import OutputError

    from .model.errors import CommandError
    from .workflow.init import init_survey

    try:
        written = init_survey(folder, name)
    except (OutputError, CommandError) as exc:
        fail("init", exc)
    click.echo(f"wrote {len(written)} files into {folder}: " + ", ".join(written))
    click.echo(f"next: cd {folder} && make && make test; then open site/index.html")


@click.command(name="release")
@root_option
@click.argument("version")
@click.option("--date", "day", default=None, metavar="YYYY-MM-DD", help="Default: today.")
@click.option("--title", default="", help="One line on the release (default: 'Release V').")
def release_command(root: Path | None, version: str, day: str | None, title: str) -> None:
    """Record release VERSION: releases.yaml, a CHANGELOG.md section, CITATION.cff."""
    from surewrite.errors import OutputError

    from .model.releases import TAG
    from .model.text import parse_day
    from .publish.outputs import corpus_lock
    from .workflow.release import ReleaseError, release

    root = resolve_root(root)
    date = parse_day(day) if day else None
    if day and date is None:
        raise click.UsageError(f"--date {day} is not a date (YYYY-MM-DD)")
    try:
        with corpus_lock(root):
            changes = release(root, version, date, title)
    except (ReleaseError, OutputError) as exc:
        fail("release", exc)
    click.echo(
        f"release {version}: {len(changes.added)} added, {len(changes.removed)} removed, "
        f"{len(changes.retagged)} retags; "
        + (
            "finished it: CHANGELOG.md and CITATION.cff now record it"
            if changes.finished
            else "wrote releases.yaml, CHANGELOG.md, CITATION.cff"
        )
    )
    click.echo(f"next: commit, then tag the commit: git tag {TAG.format(version=version)}")


@click.command(name="diff")
@root_option
@click.argument("ref")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "markdown"]),
    default="text",
    show_default=True,
)
def diff_command(root: Path | None, ref: str, fmt: str) -> None:
    """What changed since a git REF: entries, tags, counts, gap cells, claims."""
    from .workflow.diff import DiffError, diff, to_markdown, to_text

    try:
        result = diff(resolve_root(root), ref)
    except DiffError as exc:
        fail("diff", exc)
    if fmt == "json":
        click.echo(json.dumps(result, indent=2, ensure_ascii=False, default=str))
    else:
        click.echo(
            to_markdown(result) if fmt == "markdown" else to_text(result), nl=fmt != "markdown"
        )


@click.command()
@root_option
@click.option(
    "--changed-since",
    "since",
    default=None,
    metavar="REF",
    help="Check only URLs that the change since git REF adds.",
)
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
@click.option(
    "--timeout",
    type=click.FloatRange(0, 600, min_open=True),
    default=10.0,
    show_default=True,
    help="Seconds for a whole request, however slowly the server answers.",
)
@click.option("--retries", type=click.IntRange(0, 10), default=2, show_default=True)
@click.option(
    "--workers",
    type=click.IntRange(1, 64),
    default=8,
    show_default=True,
    help="Requests in flight at once.",
)
@click.option("--no-cache", is_flag=True, help="Ignore and do not write .cache/links.json.")
@click.option(
    "--unverifiable-host",
    "hosts",
    multiple=True,
    metavar="HOST",
    help="Treat 401/403/429/503 from HOST as bot protection (repeatable).",
)
def links(
    root: Path | None,
    since: str | None,
    fmt: str,
    timeout: float,
    retries: int,
    workers: int,
    no_cache: bool,
    hosts: tuple[str, ...],
) -> None:
    """Check every URL in the corpus: ok, redirected, dead, unverifiable or error."""
    import tempfile

    from .model.corpus import load_corpus
    from .workflow.diff import DiffError, corpus_at
    from .workflow.links import BOT_PROTECTED, CACHE, check_links, collect_urls, report_text

    root = resolve_root(root)
    urls = collect_urls(load_corpus(root))
    if since:
        try:
            with tempfile.TemporaryDirectory() as tmp:
                old = set(collect_urls(corpus_at(root, since, Path(tmp))))
        except DiffError as exc:
            fail("links", exc)
        urls = {u: r for u, r in urls.items() if u not in old}
    results = check_links(
        urls,
        None if no_cache else root / CACHE,
        workers,
        timeout,
        retries,
        BOT_PROTECTED | frozenset(hosts),
    )
    if fmt == "json":
        from dataclasses import asdict

        click.echo(json.dumps([asdict(r) for r in results], indent=2))
    else:
        click.echo(report_text(results))
    sys.exit(1 if any(r.status in ("dead", "error") for r in results) else 0)


COMMANDS = [add, init_command, release_command, diff_command, links]
