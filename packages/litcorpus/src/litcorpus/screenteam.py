"""The `litcorpus screen` commands for screening with others: a second reviewer's blind sample
(sample, conflicts, agreement) and ASReview LAB (export, import-labels, simulate). They are
registered on the `screen` group when this module is imported (cli.py does)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from .cli import resolve_root, root_option
from .screencli import _queue_of, _reviewer, fail, reviewer_option, screen


@screen.command(name="sample")
@root_option
@click.option("--size", type=click.IntRange(1), default=None, help="How many records.")
@click.option("--fraction", type=click.FloatRange(0, 1, min_open=True), default=None)
@click.option("--seed", type=int, default=0, show_default=True)
def sample_command(root: Path | None, size: int | None, fraction: float | None, seed: int) -> None:
    """Mark a random sample of the undecided records for two blind reviewers."""
    from surewrite.errors import OutputError

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
        fail("screen sample", exc)
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
            + (f" (95% CI {p['ci95'][0]} to {p['ci95'][1]})" if p.get("ci95") else "")
        )
    if not result["pairs"]:
        click.echo(f"no record of the dual sample ({result['sampled']}) has two decisions yet")


@screen.command(name="audit-sample")
@root_option
@click.option("--size", type=click.IntRange(1), default=100, show_default=True)
@click.option(
    "--seed", type=int, default=None, help="Default: the taxonomy's screening_audit seed."
)
def audit_sample_command(root: Path | None, size: int, seed: int | None) -> None:
    """Print a blind worksheet of SIZE decided records (entries and exclusions, stratified by
    decision) for a second screener: neutral ids and facts, no decision."""
    from .analysis.screenaudit import draw, frame, worksheet
    from .model.corpus import load_corpus

    corpus = load_corpus(resolve_root(root))
    review = corpus.taxonomy.views.screening_audit
    seed = seed if seed is not None else (review.seed if review else 0)
    decided = frame(corpus, review.skip_stages if review else [])
    click.echo(worksheet(draw(decided, size, seed), seed), nl=False)


@screen.command(name="audit")
@root_option
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
@click.option("--freeze", is_flag=True, help="Write the corpus's decisions into the worksheet "
              "first, so later corrections of the corpus leave the measure as it was.")  # fmt: skip
def audit_command(root: Path | None, fmt: str, freeze: bool) -> None:
    """Cohen's kappa of the blind second screening declared in taxonomy.yaml
    (stats.screening_audit), with its interval, the conflicts and their resolutions."""
    from surewrite.errors import OutputError
    from surewrite.files import write_file

    from .analysis.screenaudit import audit_text, compare
    from .analysis.screenaudit import freeze as frozen
    from .model.corpus import load_corpus
    from .model.errors import CommandError
    from .publish.outputs import corpus_lock

    corpus = load_corpus(resolve_root(root))
    review = corpus.taxonomy.views.screening_audit
    if review is None:
        fail("screen audit", CommandError("audit-undeclared", "taxonomy.yaml declares no "
             "stats.screening_audit file", "add one with file, seed and method"))  # fmt: skip
    if freeze:
        text = frozen(corpus, corpus.root / review.file, review.seed, review.skip_stages)
        if text is not None:
            try:
                with corpus_lock(corpus.root):
                    write_file(corpus.root / review.file, text.encode("utf-8"))
            except OutputError as exc:
                fail("screen audit", exc)
    result, problems = compare(corpus, corpus.root / review.file, review.seed, review.skip_stages)
    for p in problems:
        click.echo(p.text(), err=True)
    if result is None or problems:
        sys.exit(1)
    click.echo(json.dumps(result, indent=2) if fmt == "json" else audit_text(result))


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
    from surewrite.errors import OutputError
    from surewrite.files import write_file
    from surewrite.paths import check_file_output

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
        fail("screen simulate", exc)
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
    from surewrite.errors import OutputError
    from surewrite.files import write_file
    from surewrite.paths import check_file_output

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
        fail("screen export", exc)
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
    from surewrite.errors import OutputError

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
        fail("screen import-labels", exc)
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
