"""`litcorpus search draft`: ranks the queue with the model trained on every decision so far
and, for each open record at or above a relevance threshold, drafts the entry `screen decide
... include` would scaffold, in screening/drafts/<queue id>.yaml. A draft is not a record: check
reads none, and its tag suggestions stand in comments with their confidence and the sentence
they rest on, on the axes where the suggestions beat the majority baseline (suggest.evaluate,
trained on the entries up to the latest release and tested on those added since).

Writes screening/drafts/ only (drafts of records decided since are removed).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from ..model.corpus import Corpus
from ..model.queue import QUEUE_DIR, Queued, load_queue
from ..publish.outputs import commit_changes
from ..screening.rank import rank
from ..screening.store import Store
from ..workflow.add import make_key, render_entry
from .suggest import Suggester, Suggestion, axes_of, evaluate, rules_of, train

DRAFTS = f"{QUEUE_DIR}/drafts"
THRESHOLD = 0.5
TOP = 25


@dataclass(slots=True)
class Drafted:
    written: list[str] = field(default_factory=list)  # queue ids
    removed: list[str] = field(default_factory=list)
    axes: list[dict[str, Any]] = field(default_factory=list)  # the time-split evaluation


def suggester_for(corpus: Corpus) -> tuple[Suggester, list[dict[str, Any]]]:
    """Classifiers trained on every curated entry, kept to the axes where a time split (the
    latest release's entries against those added since) shows them above the baseline."""
    papers = corpus.of("paper")
    releases = [r.date for r in corpus.releases.items]
    cut = max(releases) if releases else None
    before = [r for r in papers if cut and r.added and r.added <= cut]
    after = [r for r in papers if cut and r.added and r.added > cut]
    if len(before) < 20 or len(after) < 10:  # too few either side: the split before it
        earlier = sorted(releases)[:-1]
        cut = earlier[-1] if earlier else None
        before = [r for r in papers if cut and r.added and r.added <= cut]
        after = [r for r in papers if cut and r.added and r.added > cut]
    axes = axes_of(corpus)
    measured = evaluate(before, after, axes) if before and after else []
    good = {m["axis"] for m in measured if m["suggested"]}
    chosen = [(a, multi) for a, multi in axes if a in good]
    return train(papers, chosen, rules_of(corpus)), measured


def comments(suggestions: list[Suggestion]) -> list[str]:
    """A draft's suggestions as YAML comments (never values)."""
    lines = ["# Suggested tags: a classifier's guesses from the title and abstract, not curated."]
    lines.append("# Read the paper; write each tag above yourself (`litcorpus check` reads none).")
    for s in suggestions:
        value = ", ".join(s.value) if isinstance(s.value, list) else s.value
        said = " ".join(s.sentence.split())[:160]
        lines.append(f"#   {s.axis}: {value or '(none)'}  (confidence {s.confidence:.2f})")
        if said:
            lines.append(f"#     rests on: {said!r}")
    return lines


def draft(
    corpus: Corpus, threshold: float = THRESHOLD, top: int = TOP, today: dt.date | None = None
) -> Drafted:
    """Draft an entry for each of the TOP most relevant open records at or above THRESHOLD.
    Call it holding the corpus lock."""
    today = today or dt.date.today()
    root = corpus.root
    queue = load_queue(root, corpus.taxonomy)
    abstracts = Store(root).abstracts()
    ranked = rank(corpus, queue, abstracts)
    chosen = [q for q, score in ranked.records if score >= threshold and q.state == "pending"][:top]
    suggester, measured = suggester_for(corpus)
    taken = {r.path.rsplit("/", 1)[-1].removesuffix(".yaml") for r in corpus.of("paper")}
    out = Drafted(axes=measured)
    changes: dict[str, bytes] = {}
    for q in chosen:
        facts = _facts(q)
        key = make_key(facts, taken)
        taken.add(key)
        text = render_entry(key, facts, corpus, today, str(q.data.get("search")))
        said = suggester.suggest(f"{q.data.get('title', '')}. {abstracts.get(q.id, '')}")
        head = f"# Draft for {q.id}: `litcorpus screen decide {q.id} include` writes the entry."
        body = "\n".join([head, *comments(said), text.rstrip(), ""])
        changes[f"{DRAFTS}/{q.id}.yaml"] = body.encode("utf-8")
        out.written.append(q.id)
    folder = root / DRAFTS
    for old in sorted(folder.glob("Q*.yaml")) if folder.is_dir() else []:
        if old.stem not in out.written:
            old.unlink()
            out.removed.append(old.stem)
    if changes:
        commit_changes(root, changes)
    return out


def _facts(q: Queued) -> dict[str, Any]:
    return {
        k: q.data[k] for k in ("title", "authors", "year", "venue", "ids", "url") if q.data.get(k)
    }
