"""The interactive screen: the queue one record at a time, most relevant first (re-ranked after
every decision), with the stopping rule's verdict; each decision is written at once, so
quitting or being killed loses none that was confirmed."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from surewrite.errors import OutputError

from ..model.corpus import load_corpus
from ..model.errors import CommandError
from ..model.queue import line_warnings, load_queue
from ..publish.outputs import corpus_lock
from .decide import Decided, MissingValue, decide
from .present import render
from .rank import rank, said_estimate
from .store import Store

PROMPT = "[i]nclude  [m]aybe  [e]xclude  [s]kip  [q]uit > "


def session(
    root: Path,
    reviewer: str,
    ask: Callable[[str], str] = input,
    say: Callable[[str], None] = print,
    color: bool | None = None,
) -> int:
    """Screen until the queue is empty or the reviewer quits; returns the exit code."""
    if color is None:
        color = sys.stdout.isatty() and not os.environ.get("NO_COLOR")
    skipped: set[str] = set()
    decided = 0
    while True:
        corpus = load_corpus(root)
        queue = load_queue(root, corpus.taxonomy)
        if not queue.whole:
            p = queue.problems[0]
            say(f"litcorpus screen: queue-invalid: {p.path}: {p.message}")
            return 1
        for line in line_warnings(queue) if not decided else []:
            say(f"litcorpus screen: warning: {line}")
        store = Store(root).abstracts()
        ranked = rank(corpus, queue, store)
        todo = [(q, s) for q, s in ranked.records if q.id not in skipped]
        if not todo:
            say(f"nothing left to screen ({decided} decided in this session)")
            return 0
        q, score = todo[0]
        rules = corpus.taxonomy.views.screening
        position = f"relevance {score:.2f} · {len(ranked.records)} left"
        say("")
        twin = _twin(corpus, queue, str(q.data.get("possible_duplicate", "")))
        abstract = store.get(q.id, "")
        say(render(q, abstract, rules.criteria, rules.highlight, position, color, twin=twin))
        v = ranked.verdict()
        say(
            f"stopping rule: {v['consecutive_irrelevant']} consecutive irrelevant of "
            f"{v['threshold']}{' -- it says stop' if v['says_stop'] else ''}; estimated relevant "
            f"left: {said_estimate(v)}"
        )
        try:
            choice = ask(PROMPT).strip().lower()[:1]
            if choice == "q":
                say(f"stopped; {decided} decided in this session")
                return 0
            if choice == "s":
                skipped.add(q.id)
                continue
            if choice not in ("i", "m", "e"):
                say("type i, m, e, s or q")
                continue
            reason, note = None, ""
            if choice == "e":
                axis = corpus.taxonomy.axes[rules.axes["reason_axis"]]
                say("  " + "  ".join(f"{v.code} {v.label}" for v in axis.values))
                reason = ask("reason (X1..X10) > ").strip()
                note = ask("note: why it is out, one sentence in your own words > ").strip()
            if choice == "m":
                note = ask("note: why it is undecided, what would decide it > ").strip()
            decision = {"i": "include", "m": "maybe", "e": "exclude"}[choice]
            done = _decide_asking(root, q.id, decision, reviewer, reason, note, ask, say)
        except EOFError:
            say(f"\nend of input; {decided} decided in this session")
            return 0
        except (CommandError, OutputError) as exc:
            say(f"not recorded: {exc}")
            continue
        decided += 1
        say(f"{done.id}: {done.message}")


def _decide_asking(
    root: Path,
    qid: str,
    decision: str,
    reviewer: str,
    reason: str | None,
    note: str,
    ask: Callable[[str], str],
    say: Callable[[str], None],
) -> Decided:
    """`decide`, asking the reviewer once for each value it finds missing (outside the lock)."""
    given: dict[str, str] = {}
    while True:
        try:
            with corpus_lock(root):
                corpus = load_corpus(root)
                return decide(corpus, qid, decision, reviewer, reason, note,
                              family=given.get("family"), url=given.get("url"))  # fmt: skip
        except MissingValue as exc:
            if exc.option in given:  # asked already: refused as any other decision
                raise
            say(f"  {exc.hint}")
            given[exc.option] = ask(f"{exc.prompt} > ").strip()


def _twin(corpus: Any, queue: Any, where: str) -> str:
    """One line on the record WHERE names (a queue id or a record file): title, year, ids."""
    if not where:
        return ""
    if where in queue.items:
        d = queue.items[where].data
    else:
        d = next((r.data for r in corpus if r.path == where), {})
    ids = ", ".join(f"{k} {v}" for k, v in (d.get("ids") or {}).items()) or "no ids"
    return f"  {where}: {d.get('title', '?')} ({d.get('year') or 'year unknown'}; {ids})"
