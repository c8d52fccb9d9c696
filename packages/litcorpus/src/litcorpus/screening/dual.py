"""Dual screening: a sample of the queue screened by two reviewers, each blind to the other's
decision; the records they disagree on; and their agreement.

Agreement is Cohen's kappa (Cohen 1960) for each pair of reviewers over the records both
screened: observed agreement against the agreement expected by chance from each reviewer's
own rates of include, maybe and exclude. The decisions are blind (neither reviewer sees the
other's before deciding), which is what makes a chance-corrected statistic meaningful here;
the tag check of a second reader, who saw the first reader's tags, stays percent agreement.
"""

from __future__ import annotations

import random
from itertools import combinations
from typing import Any

from ..analysis.kappa import kappa as cohen
from ..model.corpus import Corpus
from ..model.errors import CommandError
from ..model.queue import QUEUE_FILE, Queue, usable_queue
from ..publish.outputs import commit_changes

CATEGORIES = ("include", "maybe", "exclude")
METHOD = (
    "Cohen's kappa per pair of reviewers over the records both screened, each blind to the "
    "other's decision (the dual sample): observed agreement on include, maybe or exclude, "
    "corrected by the agreement each reviewer's own rates would give by chance (Cohen 1960)."
)


def sample(corpus: Corpus, size: int | None, fraction: float | None, seed: int) -> list[str]:
    """Mark SIZE pending records (or FRACTION of them), drawn at random with SEED, for two
    reviewers; returns their ids."""
    queue = usable_queue(corpus.root, corpus.taxonomy, "decision-refused")
    pending = [q for q in queue.items.values() if q.state == "pending" and not q.decisions]
    n = size if size is not None else round(len(pending) * (fraction or 0.0))
    if n < 1 or n > len(pending):
        raise CommandError(
            "decision-refused",
            f"cannot sample {n} of {len(pending)} undecided records",
            "give --size between 1 and the number of pending records",
            usage=True,
        )
    chosen = random.Random(seed).sample(pending, n)
    for q in chosen:
        q.data["dual"] = True
    commit_changes(corpus.root, {QUEUE_FILE: queue.to_bytes()})
    return sorted(q.id for q in chosen)


def blind(queue: Queue) -> dict[str, dict[str, str]]:
    """Each dual record's first decision by each reviewer (resolutions left out)."""
    out: dict[str, dict[str, str]] = {}
    for q in queue.items.values():
        if not q.data.get("dual"):
            continue
        for d in sorted(q.decisions, key=lambda d: d.get("seq", 0)):
            if not d.get("resolution"):
                out.setdefault(q.id, {}).setdefault(d["reviewer"], d["decision"])
    return out


def conflicts(queue: Queue) -> list[dict[str, Any]]:
    return [
        {
            "id": q.id,
            "title": q.data.get("title"),
            "decisions": {
                d["reviewer"]: {k: d[k] for k in ("decision", "reason", "note") if k in d}
                for d in q.decisions
            },
        }
        for q in queue.items.values()
        if q.state == "conflict"
    ]


def kappa(pairs: list[tuple[str, str]]) -> dict[str, Any]:
    """Cohen's kappa of PAIRS (one reviewer's decision, the other's), with its 95% interval."""
    return cohen(pairs, CATEGORIES)


def agreement(queue: Queue) -> dict[str, Any]:
    """Kappa for each pair of reviewers of the dual sample, with the method."""
    by_record = blind(queue)
    reviewers = sorted({r for d in by_record.values() for r in d})
    pairs = []
    for a, b in combinations(reviewers, 2):
        both = [(d[a], d[b]) for d in by_record.values() if a in d and b in d]
        if both:
            pairs.append({"reviewers": [a, b], **kappa(both)})
    return {
        "method": METHOD,
        "sampled": sum(1 for q in queue.items.values() if q.data.get("dual")),
        "pairs": pairs,
        "conflicts": sum(1 for q in queue.items.values() if q.state == "conflict"),
    }
