"""The `litcorpus` command: parses arguments, calls one library function, prints, sets the exit."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from contextlib import nullcontext
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import click

from . import __version__
from .progress import Progress

F = TypeVar("F", bound=Callable[..., Any])


ROOT_HELP = "Repository root (default: the nearest folder above that holds taxonomy.yaml)."
ROOT_KEY = "litcorpus.root"  # where `litcorpus --root DIR COMMAND` leaves DIR for the command


def _group_root(ctx: click.Context, _param: click.Parameter, value: Path | None) -> Path | None:
    """A command's --root, else the one given before the command's name."""
    return value if value is not None else ctx.find_root().meta.get(ROOT_KEY)


def root_option(func: F) -> F:
    return click.option(
        "--root",
        type=click.Path(file_okay=False, path_type=Path),
        default=None,
        callback=_group_root,
        help=ROOT_HELP,
    )(func)


def resolve_root(root: Path | None) -> Path:
    from .model.corpus import find_root

    if root is None:
        return find_root()
    if not (root / "taxonomy.yaml").is_file():
        raise click.UsageError(f"{root} holds no taxonomy.yaml", None)
    return root


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="litcorpus")
@click.option(
    "--root", "group_root", type=click.Path(file_okay=False, path_type=Path), help=ROOT_HELP
)
@click.pass_context
def cli(ctx: click.Context, group_root: Path | None) -> None:
    """Validate, count and publish a living literature corpus."""
    if group_root is not None:
        ctx.meta[ROOT_KEY] = group_root


@cli.command()
@root_option
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="Output format.",
)
@click.option("--strict", is_flag=True, help="Fail on warnings too.")
def check(root: Path | None, fmt: str, strict: bool) -> None:
    """Validate taxonomy, papers and exclusions; report every problem."""
    from .entry import run_check

    sys.exit(run_check(resolve_root(root), fmt, strict))


def _fail(command: str, exc: Exception) -> NoReturn:
    """Print one line for an error that ends COMMAND; a refused path is a usage error (2)."""
    click.echo(f"litcorpus {command}: {exc}", err=True)
    usage = getattr(exc, "usage", False) or getattr(exc, "code", "").startswith("output-")
    sys.exit(2 if usage else 1)


def _valid_result(
    root: Path,
    progress: Progress | None = None,
    stats: bool = True,
    as_of: str | None = None,
    output: tuple[str, Path] | None = None,
) -> Any:
    """Load, check and analyse the corpus once (as it stood at AS_OF, when given); on errors
    print them and exit 1 (nothing is written). OUTPUT, (command, folder), is checked first,
    so that a refused folder costs no analysis."""
    from safewrite.errors import OutputError
    from safewrite.paths import check_dir_output

    from .analysis.result import analyse, analyse_as_of
    from .model.corpus import load_corpus
    from .model.releases import AsOfError
    from .publish import outputs

    corpus = load_corpus(root, progress)
    if output is not None:
        command, folder = output
        try:
            check_dir_output(
                folder, outputs.TOOL, command, outputs.keep(corpus), outputs.input_folders(corpus)
            )
        except OutputError as exc:
            _fail(command, exc)
    if as_of is None:
        result = analyse(corpus, progress=progress, stats=stats)
    else:
        live = analyse(corpus, progress=progress, stats=False)
        if not live.report.ok:  # a release is reproduced from a valid corpus only
            result = live
        else:
            try:
                result = analyse_as_of(corpus, as_of, progress)
            except AsOfError as exc:
                click.echo(f"litcorpus stats: bad-as-of: {exc}", err=True)
                sys.exit(1)
    if not result.report.ok:
        click.echo(result.report.to_text(), err=True)
        click.echo("litcorpus: fix the problems above first; nothing was written.", err=True)
        sys.exit(1)
    result.corpus.forget_positions()
    return result


@cli.command()
@root_option
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default=None,
    help="Output folder (default: ROOT/stats).",
)
@click.option(
    "--check",
    "check_only",
    is_flag=True,
    help="Write nothing; exit 1 if the committed stats are stale.",
)
@click.option(
    "--as-of",
    "as_of",
    default=None,
    metavar="VERSION|DATE",
    help="The statistics of a release (2026.05) or of a day (YYYY-MM-DD): the records added "
    "up to then, with their tags as they are now. Needs --out.",
)
def stats(root: Path | None, out: Path | None, check_only: bool, as_of: str | None) -> None:
    """Compute statistics, gap tables, claims and figures into stats/."""
    from safewrite.errors import OutputError

    from .progress import terminal_progress
    from .publish.statsdir import stale_stats, write_stats

    root = resolve_root(root)
    if as_of is not None and out is None and not check_only:
        raise click.UsageError("--as-of writes a release's statistics: give --out DIR too")
    progress = terminal_progress()
    target = out or root / "stats"
    result = _valid_result(root, progress, as_of=as_of, output=("stats", target))
    if check_only:
        changed = stale_stats(result, target)
        for rel in changed:
            click.echo(f"stale: {target.name}/{rel}")
        click.echo(
            f"{len(changed)} stale file(s); run 'make stats'"
            if changed
            else f"{target.name}/ is up to date"
        )
        sys.exit(1 if changed else 0)
    try:
        write_stats(result, target, progress)
    except OutputError as exc:
        _fail("stats", exc)
    finally:
        if progress:
            progress.close()
    stats = result.stats
    broken = [c.claim.id for c in result.claims if not c.held]
    c = stats["corpus"]
    click.echo(
        f"wrote {target}: {c['retained']} retained, {c['excluded']} excluded, "
        f"{len(stats['tables'])} tables, {len(stats['figures'])} figures"
        + (f"; BROKEN claims: {', '.join(broken)}" if broken else "")
    )


@cli.command()
@root_option
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
def claims(root: Path | None, fmt: str) -> None:
    """Evaluate claims.yaml: each claim held or broken, with its entries."""
    from .analysis.result import analyse
    from .model.corpus import load_corpus

    result = analyse(load_corpus(resolve_root(root)), stats=False)
    results = result.claims
    problems = [p for p in result.claims_file.problems if p.severity == "error"]
    if problems:
        click.echo("\n".join(p.text() for p in problems), err=True)
        sys.exit(1)
    if fmt == "json":
        click.echo(json.dumps([r.to_dict() for r in results], indent=2, ensure_ascii=False))
    else:
        for r in results:
            state = "revised" if r.revised else "held  " if r.held else "BROKEN"
            click.echo(f"{state} {r.claim.id}: {r.claim.text}")
            click.echo(f"       {r.summary()}; expected {r.at.expected}")
            if r.at.keys and r.at.keys != r.at.actual.split(", "):
                more = f" and {len(r.at.keys) - 20} more" if len(r.at.keys) > 20 else ""
                click.echo(f"       entries: {', '.join(r.at.keys[:20])}{more}")
        held = sum(r.held for r in results)
        click.echo(f"{held} of {len(results)} claims held at their release")
    sys.exit(0 if all(r.held for r in results) else 1)


@cli.command()
@root_option
@click.argument("file", type=click.Path(dir_okay=False, exists=True, path_type=Path))
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
def agreement(root: Path | None, file: Path, fmt: str) -> None:
    """Compare the corpus's tags with a second reader's CSV (columns key, ann_<axis>)."""
    from .analysis.agreement import agreement as compute
    from .analysis.agreement import agreement_text
    from .model.corpus import load_corpus

    result, problems = compute(load_corpus(resolve_root(root)), file)
    for p in problems:
        click.echo(p.text(), err=True)
    if result is None:
        sys.exit(1)
    click.echo(
        json.dumps(result, indent=2, ensure_ascii=False)
        if fmt == "json"
        else agreement_text(result)
    )
    sys.exit(1 if problems else 0)


@cli.command()
@root_option
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default=None,
    help="Output folder (default: ROOT/site).",
)
def site(root: Path | None, out: Path | None) -> None:
    """Build the static site (list, paper pages, taxonomy, gap map, stats, claims)."""
    from safewrite.errors import OutputError

    from .model.errors import CommandError
    from .progress import terminal_progress
    from .publish.site import write_site

    root = resolve_root(root)
    progress = terminal_progress()
    target = out or root / "site"
    result = _valid_result(root, progress, output=("site", target))
    try:
        total, written = write_site(result, target, progress)
    except (OutputError, CommandError) as exc:
        _fail("site", exc)
    finally:
        if progress:
            progress.close()
    click.echo(f"wrote {target}: {total} files, {written} changed; open {target / 'index.html'}")


@cli.command()
@root_option
@click.option(
    "--check",
    "check_only",
    is_flag=True,
    help="Write nothing; exit 1 if README.md's generated list is stale.",
)
def readme(root: Path | None, check_only: bool) -> None:
    """Regenerate the awesome list in README.md between its markers."""
    from safewrite.errors import OutputError

    from .publish.outputs import corpus_lock
    from .publish.readme import ReadmeError, update_readme

    root = resolve_root(root)
    result = _valid_result(root, stats=False)
    try:
        with corpus_lock(root) if not check_only else nullcontext():
            changed = update_readme(result.corpus, root / "README.md", check_only, result.claims)
    except (ReadmeError, OutputError) as exc:
        _fail("readme", exc)
    if check_only:
        click.echo("README.md is stale; run 'make'" if changed else "README.md is up to date")
        sys.exit(1 if changed else 0)
    click.echo("README.md updated" if changed else "README.md already up to date")


@cli.command()
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
    from safewrite.errors import OutputError

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
        _fail("add", exc)
    for path in written:
        click.echo(f"wrote {path.relative_to(root)}")
    click.echo("next: fill the empty fields, then run 'litcorpus check'")


@cli.command()
@root_option
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["bibtex", "csl-json", "ris", "csv", "json"]),
    required=True,
)
@click.option(
    "--records",
    type=click.Choice(["entries", "exclusions"]),
    default="entries",
    show_default=True,
    help="The retained entries, or the screening decisions (csv, json, ris).",
)
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default=None,
    help="Write to FILE instead of standard output.",
)
def export(root: Path | None, fmt: str, records: str, out: Path | None) -> None:
    """Export the retained corpus (BibTeX, CSL-JSON, RIS, CSV, JSON) or its screening
    decisions (CSV, JSON, RIS)."""
    from safewrite.errors import OutputError
    from safewrite.files import write_file
    from safewrite.paths import check_file_output

    from .publish.export import DECISION_EXPORTERS, EXPORTERS
    from .publish.outputs import input_folders, inputs

    exporters = EXPORTERS if records == "entries" else DECISION_EXPORTERS
    if fmt not in exporters:
        raise click.UsageError(f"the exclusions export as {', '.join(DECISION_EXPORTERS)}")
    root = resolve_root(root)
    corpus = _valid_result(root, stats=False).corpus
    try:
        target = out and check_file_output(out, input_folders(corpus), inputs(corpus))
        text = exporters[fmt](corpus)
        if target is None:
            click.echo(text, nl=False)
        else:
            write_file(target, text.encode())
    except OutputError as exc:
        _fail("export", exc)


@cli.command()
@root_option
@click.option("--force", is_flag=True, help="Build even when nothing changed.")
def build(root: Path | None, force: bool) -> None:
    """Check strictly, then write stats/, the README list and site/ from one analysis
    (what `make` runs); when nothing changed since the last build, only say so."""
    from safewrite.errors import OutputError

    from .model.errors import CommandError
    from .progress import terminal_progress
    from .workflow.build import build as run_build

    root = resolve_root(root)
    progress = terminal_progress()
    try:
        built = run_build(root, progress, force)
    except (OutputError, CommandError) as exc:
        _fail("build", exc)
    finally:
        if progress:
            progress.close()
    if built.report is not None:
        click.echo(built.report.to_text(), err=True)
        click.echo("litcorpus build: fix the problems above first; nothing was written.", err=True)
        sys.exit(1)
    if built.broken:
        click.echo(
            f"litcorpus build: claims broken at their release: {', '.join(built.broken)} "
            "(see 'litcorpus claims'); nothing was written",
            err=True,
        )
        sys.exit(1)
    if built.up_to_date:
        click.echo("up to date: nothing changed since the last build")
        return
    click.echo(
        f"built: stats/ ({built.written['stats']} files changed), README.md "
        f"({'updated' if built.readme else 'unchanged'}), site/ "
        f"({built.written['site']} files changed; open {root / 'site' / 'index.html'})"
    )


@cli.command(name="init")
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path))
@click.option("--name", default=None, help="The survey's name (default: the folder's name).")
def init_command(folder: Path, name: str | None) -> None:
    """Write a new survey into FOLDER (new or empty): a commented taxonomy, an example entry,
    README, CONTRIBUTING, CITATION.cff, a Makefile and the CI and Pages workflows."""
    from safewrite.errors import OutputError

    from .model.errors import CommandError
    from .workflow.init import init_survey

    try:
        written = init_survey(folder, name)
    except (OutputError, CommandError) as exc:
        _fail("init", exc)
    click.echo(f"wrote {len(written)} files into {folder}: " + ", ".join(written))
    click.echo(f"next: cd {folder} && make && make test; then open site/index.html")


@cli.command(name="release")
@root_option
@click.argument("version")
@click.option("--date", "day", default=None, metavar="YYYY-MM-DD", help="Default: today.")
@click.option("--title", default="", help="One line on the release (default: 'Release V').")
def release_command(root: Path | None, version: str, day: str | None, title: str) -> None:
    """Record release VERSION: releases.yaml, a CHANGELOG.md section, CITATION.cff."""
    from safewrite.errors import OutputError

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
        _fail("release", exc)
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


@cli.command(name="diff")
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
        _fail("diff", exc)
    if fmt == "json":
        click.echo(json.dumps(result, indent=2, ensure_ascii=False, default=str))
    else:
        click.echo(
            to_markdown(result) if fmt == "markdown" else to_text(result), nl=fmt != "markdown"
        )


@cli.command()
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
            _fail("links", exc)
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


def _register() -> None:
    from . import screenteam  # noqa: F401 (adds its commands to screen)
    from .screencli import screen
    from .searchcli import search

    cli.add_command(search)
    cli.add_command(screen)


_register()
