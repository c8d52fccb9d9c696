"""The `litcorpus search` and `litcorpus screen` commands: each parses its arguments, calls one
library function under the corpus lock, prints, and sets the exit code."""

from __future__ import annotations

import datetime as dt
import getpass
import json
import os
import sys
from pathlib import Path
from typing import Any, NoReturn

import click

from .cli import resolve_root, root_option

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


def _fail(command: str, exc: Exception) -> NoReturn:
    from .screening.present import safe

    click.echo(f"litcorpus {command}: {safe(exc)}", err=True)
    sys.exit(2 if getattr(exc, "usage", False) else 1)


def _day(value: str | None, option: str) -> dt.date:
    if value is None:
        return dt.date.today()
    try:
        if len(value) != 10:
            raise ValueError
        return dt.date.fromisoformat(value)
    except ValueError:
        raise click.BadParameter(
            f"'{value}' is not a day (YYYY-MM-DD)", param_hint=option
        ) from None


def _reviewer(given: str | None) -> str:
    return given or os.environ.get("LITCORPUS_REVIEWER") or getpass.getuser()


reviewer_option = click.option(
    "--reviewer",
    default=None,
    help="Who decides (default: $LITCORPUS_REVIEWER, else the login name).",
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
    from safewrite.errors import OutputError

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
    from safewrite.errors import OutputError

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
    from safewrite.errors import OutputError

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
    from safewrite.errors import OutputError

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
    from safewrite.errors import OutputError
    from safewrite.files import write_file
    from safewrite.paths import check_file_output

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


@click.group(invoke_without_command=True)
@root_option
@reviewer_option
@click.pass_context
def screen(ctx: click.Context, root: Path | None, reviewer: str | None) -> None:
    """Screen the queue one record at a time, most relevant first (or use a subcommand)."""
    if ctx.invoked_subcommand is None:
        from .screening.interactive import session

        sys.exit(session(resolve_root(root), _reviewer(reviewer)))


def _readable(queue: Any) -> Any:
    """QUEUE, its bad lines said on standard error; exit 1 when it cannot be read at all."""
    from .model.queue import line_warnings
    from .screening.present import safe

    if not queue.whole:
        p = queue.problems[0]
        click.echo(f"litcorpus screen: queue-invalid: {p.path}: {safe(p.message)}", err=True)
        sys.exit(1)
    for line in line_warnings(queue):
        click.echo(f"litcorpus screen: warning: {safe(line)}", err=True)
    return queue


def _ranked(root: Path) -> Any:
    from .model.corpus import load_corpus
    from .model.queue import load_queue
    from .screening.rank import rank
    from .screening.store import Store

    corpus = load_corpus(root)
    queue = _readable(load_queue(root, corpus.taxonomy))
    return rank(corpus, queue, Store(root).abstracts())


@screen.command(name="list")
@root_option
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
def list_command(root: Path | None, fmt: str) -> None:
    """The records still to screen, most relevant first, and the stopping rule's verdict."""
    ranked = _ranked(resolve_root(root))
    rows = [
        {
            "id": q.id,
            "title": q.data.get("title"),
            "ids": q.data.get("ids") or {},
            "search": q.data.get("search"),
            "state": q.state,
            "relevance": round(score, 4),
            **({"possible_duplicate": q.data["possible_duplicate"]}
               if q.data.get("possible_duplicate") else {}),
        }
        for q, score in ranked.records
    ]  # fmt: skip
    if fmt == "json":
        click.echo(json.dumps(rows, ensure_ascii=False, indent=2))
        return
    from .screening.present import safe
    from .screening.rank import said_estimate

    for r in rows:
        twin = (
            f"  (possible duplicate of {r['possible_duplicate']})"
            if "possible_duplicate" in r
            else ""
        )
        click.echo(
            f"{r['id']}  {r['relevance']:.2f}  {r['state']:<8} {safe(r['title'])[:90]}{twin}"
        )
    v = ranked.verdict()
    click.echo(
        f"{v['left']} to screen; {v['consecutive_irrelevant']} consecutive irrelevant of "
        f"{v['threshold']} ({'the rule says stop' if v['says_stop'] else 'keep screening'}); "
        f"estimated relevant left: {said_estimate(v)}"
    )


def _decision_options(func: Any) -> Any:
    for option in reversed(
        [
            click.option("--reason", default=None, help="Exclusion reason: X1..X10 or its id."),
            click.option("--note", default="", help="One sentence, in your own words."),
            click.option(
                "--stage", default=None, help="Screening stage (default: the taxonomy's)."
            ),
            click.option("--family", default=None, help="Query family (default: the search's)."),
            click.option(
                "--source", default=None, help="Exclusion source (default: from its ids)."
            ),
            click.option("--key", default="", help="Include: the new entry's key (a free slug)."),
            click.option(
                "--url", default=None, help="Exclude: the record's address, where it has none."
            ),
            reviewer_option,
        ]
    ):
        func = option(func)
    return func


def _decide(root: Path | None, resolve: bool, **kw: Any) -> None:
    from safewrite.errors import OutputError

    from .model.corpus import load_corpus
    from .model.errors import CommandError
    from .publish.outputs import corpus_lock
    from .screening.decide import decide

    root = resolve_root(root)
    kw["reviewer"] = _reviewer(kw["reviewer"])
    try:
        with corpus_lock(root):
            done = decide(load_corpus(root), resolve=resolve, **kw)
    except (CommandError, OutputError) as exc:
        _fail("screen resolve" if resolve else "screen decide", exc)
    click.echo(f"{done.id}: {done.message}")


@screen.command(name="decide")
@root_option
@click.argument("qid", metavar="ID")
@click.argument("decision", type=click.Choice(["include", "maybe", "exclude"]))
@_decision_options
def decide_command(root: Path | None, qid: str, decision: str, **kw: Any) -> None:
    """Decide queued record ID: include (scaffolds papers/KEY.yaml), maybe, or exclude
    (writes exclusions/E0NN.yaml)."""
    _decide(root, False, qid=qid, decision=decision, **kw)


@screen.command(name="resolve")
@root_option
@click.argument("qid", metavar="ID")
@click.argument("decision", type=click.Choice(["include", "maybe", "exclude"]))
@_decision_options
def resolve_command(root: Path | None, qid: str, decision: str, **kw: Any) -> None:
    """Settle a conflict of the dual sample with the decision both reviewers agree on."""
    _decide(root, True, qid=qid, decision=decision, **kw)


@screen.command(name="not-retrieved")
@root_option
@click.argument("qid", metavar="ID")
@click.option("--note", required=True, help="Where the full text and the abstract were sought.")
@reviewer_option
def not_retrieved_command(root: Path | None, qid: str, note: str, reviewer: str | None) -> None:
    """Mark queued record ID as sought but not retrieved (PRISMA 2020: reports not
    retrieved); it can still be decided once it is found."""
    from safewrite.errors import OutputError

    from .model.corpus import load_corpus
    from .model.errors import CommandError
    from .publish.outputs import corpus_lock
    from .screening.decide import not_retrieved

    root = resolve_root(root)
    try:
        with corpus_lock(root):
            done = not_retrieved(load_corpus(root), qid, _reviewer(reviewer), note)
    except (CommandError, OutputError) as exc:
        _fail("screen not-retrieved", exc)
    click.echo(f"{done.id}: {done.message}")


def _queue_of(root: Path) -> tuple[Any, Any]:
    from .model.corpus import load_corpus
    from .model.queue import load_queue

    corpus = load_corpus(root)
    queue = _readable(load_queue(root, corpus.taxonomy))
    return corpus, queue


@screen.command(name="sample")
@root_option
@click.option("--size", type=click.IntRange(1), default=None, help="How many records.")
@click.option("--fraction", type=click.FloatRange(0, 1, min_open=True), default=None)
@click.option("--seed", type=int, default=0, show_default=True)
def sample_command(root: Path | None, size: int | None, fraction: float | None, seed: int) -> None:
    """Mark a random sample of the undecided records for two blind reviewers."""
    from safewrite.errors import OutputError

    from .model.corpus import load_corpus
    from .model.errors import CommandError
    from .publish.outputs import corpus_lock
    from .screening.dual import sample

    if (size is None) == (fraction is None):
        raise click.UsageError("give exactly one of --size N and --fraction F")
    root = resolve_root(root)
    try:
        with corpus_lock(root):
            chosen = sample(load_corpus(root), size, fraction, seed)
    except (CommandError, OutputError) as exc:
        _fail("screen sample", exc)
    click.echo(f"{len(chosen)} records need two reviewers: {', '.join(chosen)}")


@screen.command(name="conflicts")
@root_option
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
def conflicts_command(root: Path | None, fmt: str) -> None:
    """The records of the dual sample the two reviewers decided differently."""
    from .screening.dual import conflicts
    from .screening.present import safe

    _, queue = _queue_of(resolve_root(root))
    rows = conflicts(queue)
    if fmt == "json":
        click.echo(json.dumps(rows, ensure_ascii=False, indent=2))
        return
    for r in rows:
        said = "; ".join(f"{who}: {d['decision']}" for who, d in r["decisions"].items())
        click.echo(f"{r['id']}  {safe(r['title'])[:70]}  ({safe(said)})")
    click.echo(f"{len(rows)} conflicts" + ("; settle each with screen resolve" if rows else ""))


@screen.command(name="agreement")
@root_option
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
def agreement_command(root: Path | None, fmt: str) -> None:
    """Cohen's kappa of the blind dual sample, per pair of reviewers."""
    from .screening.dual import agreement

    _, queue = _queue_of(resolve_root(root))
    result = agreement(queue)
    if fmt == "json":
        click.echo(json.dumps(result, indent=2))
        return
    click.echo(result["method"])
    for p in result["pairs"]:
        click.echo(
            f"{' and '.join(p['reviewers'])}: {p['records']} records, observed "
            f"{p['observed']:.2f}, chance {p['expected']:.2f}, kappa {p['kappa']}"
        )
    if not result["pairs"]:
        click.echo(f"no record of the dual sample ({result['sampled']}) has two decisions yet")


@screen.command(name="stopping")
@root_option
@reviewer_option
@click.option("--apply", "apply_it", is_flag=True, help="Set the undecided records aside.")
@click.option("--force", is_flag=True, help="With --apply: even when the rule says go on.")
def stop_command(root: Path | None, reviewer: str | None, apply_it: bool, force: bool) -> None:
    """The stopping rule's verdict; with --apply, leave the undecided records unscreened
    (PRISMA 2020 counts them as marked ineligible by an automation tool)."""
    from safewrite.errors import OutputError

    from .model.corpus import load_corpus
    from .model.errors import CommandError
    from .publish.outputs import corpus_lock
    from .screening.decide import set_aside
    from .screening.rank import said_estimate

    root = resolve_root(root)
    v = _ranked(root).verdict()
    click.echo(
        f"{v['rule']}: {v['consecutive_irrelevant']} of {v['threshold']}; "
        f"{'time to stop' if v['says_stop'] else 'keep screening'}; {v['left']} left, "
        f"estimated relevant among them: {said_estimate(v)}"
    )
    if not apply_it:
        return
    try:
        with corpus_lock(root):
            left = set_aside(load_corpus(root), _reviewer(reviewer), force)
    except (CommandError, OutputError) as exc:
        _fail("screen stopping", exc)
    click.echo(f"set aside {len(left)} records")


@screen.command(name="simulate")
@root_option
@click.argument("labelled", metavar="LABELLED")
@click.option("--seeds", type=click.IntRange(1, 100), default=5, show_default=True)
@click.option(
    "--step", type=click.IntRange(1), default=None, help="Records screened between refits."
)
@click.option(
    "--figure",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write the recall curves (.svg or .png).",
)
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
def simulate_command(
    root: Path | None, labelled: str, seeds: int, step: int | None, figure: Path | None, fmt: str
) -> None:
    """Replay LABELLED decisions under the ranking (an ASReview labelled CSV, or 'corpus' for
    the corpus's own): WSS@95, WSS@100 and recall at 10%, against random order."""
    from safewrite.errors import OutputError
    from safewrite.files import write_file
    from safewrite.paths import check_file_output

    from .model.corpus import load_corpus
    from .model.errors import CommandError
    from .screening.simulate import corpus_labelled, read_labelled, simulate
    from .screening.simulate import figure as draw
    from .sources.detect import decode, read_bytes

    try:
        if labelled == "corpus":
            data = corpus_labelled(load_corpus(resolve_root(root)))
        else:
            path = Path(labelled)
            data = read_labelled(decode(read_bytes(path), labelled), labelled)
        if figure is not None and figure.suffix not in (".svg", ".png"):
            raise click.BadParameter("name a .svg or .png file", param_hint="--figure")
        if figure is not None:
            check_file_output(figure, [], [])
        result = simulate(data, seeds, step)
        if figure is not None:
            from .publish.plots import figure_files

            write_file(figure, figure_files(draw(result))[figure.suffix[1:]])
    except (CommandError, OutputError) as exc:
        _fail("screen simulate", exc)
    if fmt == "json":
        click.echo(json.dumps(result, indent=2))
        return
    r, rnd = result["ranking"], result["random"]
    click.echo(
        f"{result['dataset']}: {result['records']} records, {result['relevant']} relevant, "
        f"{result['seeds']} seeds, refit every {result['step']}"
    )
    for k in ("wss@95", "wss@100", "recall@10%"):
        click.echo(f"  {k:<11} ranking {r[k]:.3f}   random {rnd[k]:.3f}")


@screen.command(name="export")
@root_option
@click.option("--format", "fmt", type=click.Choice(["asreview-csv", "ris"]), required=True)
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), required=True)
def export_command(root: Path | None, fmt: str, out: Path) -> None:
    """Write the queue as an ASReview-ready dataset (decided records carry their label). It
    holds abstracts: keep it out of the repository."""
    from safewrite.errors import OutputError
    from safewrite.files import write_file
    from safewrite.paths import check_file_output

    from .publish.outputs import input_folders, inputs
    from .screening.asreview import export_csv, export_ris
    from .screening.store import Store

    root = resolve_root(root)
    corpus, queue = _queue_of(root)
    abstracts = Store(root).abstracts()
    data = export_csv(queue, abstracts) if fmt == "asreview-csv" else export_ris(queue, abstracts)
    try:
        target = check_file_output(out, input_folders(corpus), inputs(corpus))
        write_file(target, data)
    except OutputError as exc:
        _fail("screen export", exc)
    click.echo(f"wrote {out} ({len(queue.items)} records)")


@screen.command(name="import-labels")
@root_option
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--reason", default=None, help="Reason for the records labelled irrelevant (X1..X10)."
)
@click.option("--note", default="", help="Their note: one sentence on why they are out.")
@reviewer_option
def import_labels_command(
    root: Path | None, file: Path, reason: str | None, note: str, reviewer: str | None
) -> None:
    """Take the labels of an ASReview LAB export (CSV) as decisions."""
    from safewrite.errors import OutputError

    from .model.errors import CommandError
    from .publish.outputs import corpus_lock
    from .screening.asreview import apply_labels, read_labels
    from .sources.detect import decode, read_bytes

    root = resolve_root(root)
    _, queue = _queue_of(root)
    try:
        labels = read_labels(decode(read_bytes(file), str(file)), str(file), queue)
        todo = labels.sort(queue)
        if any(d == "exclude" for _, d in todo) and (not reason or not note.strip()):
            raise CommandError(
                "decision-refused",
                "the export labels records irrelevant: give --reason and --note for them",
                usage=True,
            )
        with corpus_lock(root):
            apply_labels(root, todo, _reviewer(reviewer), reason, note)
    except (CommandError, OutputError) as exc:
        _fail("screen import-labels", exc)
    done = len(labels.decisions) - len(todo) - len(labels.conflicts)
    click.echo(
        f"{len(todo)} decisions taken ({done} already decided alike, {len(labels.conflicts)} "
        f"against a recorded decision, {labels.unlabelled} unlabelled, "
        f"{len(labels.unmatched)} not in the queue)"
    )
    for line in labels.conflicts:
        click.echo(f"  conflict: {line}: settle it by hand (the record file is the decision)")
    for line in labels.unmatched[:20]:
        click.echo(f"  not in the queue: {line}")
