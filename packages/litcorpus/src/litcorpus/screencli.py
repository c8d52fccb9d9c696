"""The `litcorpus screen` commands: each parses its arguments, calls one library function
under the corpus lock, prints, and sets the exit code. `fail` and `day` serve the `search`
commands (searchcli) too."""

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


def fail(command: str, exc: Exception) -> NoReturn:
    from .screening.present import safe

    click.echo(f"litcorpus {command}: {safe(exc)}", err=True)
    sys.exit(2 if getattr(exc, "usage", False) else 1)


def day(value: str | None, option: str) -> dt.date:
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
    from surewrite.errors import OutputError

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
        fail("screen resolve" if resolve else "screen decide", exc)
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
    from surewrite.errors import OutputError

    from .model.corpus import load_corpus
    from .model.errors import CommandError
    from .publish.outputs import corpus_lock
    from .screening.decide import not_retrieved

    root = resolve_root(root)
    try:
        with corpus_lock(root):
            done = not_retrieved(load_corpus(root), qid, _reviewer(reviewer), note)
    except (CommandError, OutputError) as exc:
        fail("screen not-retrieved", exc)
    click.echo(f"{done.id}: {done.message}")


def _queue_of(root: Path) -> tuple[Any, Any]:
    from .model.corpus import load_corpus
    from .model.queue import load_queue

    corpus = load_corpus(root)
    queue = _readable(load_queue(root, corpus.taxonomy))
    return corpus, queue


@screen.command(name="stopping")
@root_option
@reviewer_option
@click.option("--apply", "apply_it", is_flag=True, help="Set the undecided records aside.")
@click.option("--force", is_flag=True, help="With --apply: even when the rule says go on.")
def stop_command(root: Path | None, reviewer: str | None, apply_it: bool, force: bool) -> None:
    """The stopping rule's verdict; with --apply, leave the undecided records unscreened
    (PRISMA 2020 counts them as marked ineligible by an automation tool)."""
    from surewrite.errors import OutputError

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
        fail("screen stopping", exc)
    click.echo(f"set aside {len(left)} records")
