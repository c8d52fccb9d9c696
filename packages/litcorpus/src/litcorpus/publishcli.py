"""The `litcorpus` commands that publish the corpus: `stats`, `site`, `readme`, `export` and
`build` (all of them from one strict analysis), and the reports `claims` and `agreement`. Each
parses its arguments, calls one library function, prints and sets the exit code; cli.py
registers them."""

from __future__ import annotations

import json
import sys
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import click

from .cli import fail, resolve_root, root_option
from .progress import Progress


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
    from surewrite.errors import OutputError
    from surewrite.paths import check_dir_output

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
            fail(command, exc)
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


@click.command()
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
    from surewrite.errors import OutputError

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
        fail("stats", exc)
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


@click.command()
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


@click.command()
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


@click.command()
@root_option
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default=None,
    help="Output folder (default: ROOT/site).",
)
def site(root: Path | None, out: Path | None) -> None:
    """Build the static site (list, paper pages, taxonomy, gap map, stats, claims)."""
    from surewrite.errors import OutputError

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
        fail("site", exc)
    finally:
        if progress:
            progress.close()
    click.echo(f"wrote {target}: {total} files, {written} changed; open {target / 'index.html'}")


@click.command()
@root_option
@click.option(
    "--check",
    "check_only",
    is_flag=True,
    help="Write nothing; exit 1 if README.md's generated list is stale.",
)
def readme(root: Path | None, check_only: bool) -> None:
    """Regenerate the awesome list in README.md between its markers."""
    from surewrite.errors import OutputError

    from .publish.outputs import corpus_lock
    from .publish.readme import ReadmeError, update_readme

    root = resolve_root(root)
    result = _valid_result(root, stats=False)
    try:
        with corpus_lock(root) if not check_only else nullcontext():
            changed = update_readme(result.corpus, root / "README.md", check_only, result.claims)
    except (ReadmeError, OutputError) as exc:
        fail("readme", exc)
    if check_only:
        click.echo("README.md is stale; run 'make'" if changed else "README.md is up to date")
        sys.exit(1 if changed else 0)
    click.echo("README.md updated" if changed else "README.md already up to date")


@click.command()
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
    from surewrite.errors import OutputError
    from surewrite.files import write_file
    from surewrite.paths import check_file_output

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
        fail("export", exc)


@click.command()
@root_option
@click.option("--force", is_flag=True, help="Build even when nothing changed.")
def build(root: Path | None, force: bool) -> None:
    """Check strictly, then write stats/, the README list and site/ from one analysis
    (what `make` runs); when nothing changed since the last build, only say so."""
    from surewrite.errors import OutputError

    from .model.errors import CommandError
    from .progress import terminal_progress
    from .workflow.build import build as run_build

    root = resolve_root(root)
    progress = terminal_progress()
    try:
        built = run_build(root, progress, force)
    except (OutputError, CommandError) as exc:
        fail("build", exc)
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


COMMANDS = [stats, claims, agreement, site, readme, export, build]
