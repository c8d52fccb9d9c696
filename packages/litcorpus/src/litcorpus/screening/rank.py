"""Ranks the queue by relevance, retrained on every decision so far, and reports the stopping
heuristic's verdict.

The model is the family of ASReview's default: TF-IDF over word 1- and 2-grams (sublinear
term frequency) and a linear support vector machine (scikit-learn's LinearSVC, squared hinge
loss, C 0.3). Relevant records weigh RELEVANT_RATIO times as much in all as the irrelevant ones,
the weights scaled to average 1, which is how ASReview's default balances a few inclusions
against many exclusions (its C is 0.11; 0.3 ranked better on the benchmark's four review sets,
see BENCHMARKS.md). It is trained on the corpus's own decisions as prior knowledge (each
retained entry's title and summary as relevant, each exclusion's title and note as irrelevant;
these are the corpus's words) and on every decided queue record (its title, with its abstract
where the local store has it). A record's relevance is the margin through the logistic function:
a score in 0..1 that orders the queue, not a probability.

Stopping (it informs; the maintainer decides): the data-driven heuristic of ASReview's
documentation and the SAFE procedure (Boetje and van de Schoot, Systematic Reviews 13:81,
2024): stop after N consecutive irrelevant records screened in ranked order; N is the
taxonomy's screening.stopping.consecutive_irrelevant. Beside it, an estimate of the relevant
records left: the sum of an unweighted logistic regression's probabilities over the records
not yet screened (unweighted, so that they are not inflated toward inclusion).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..model.corpus import Corpus
from ..model.queue import Queue, Queued

MIN_CLASS = 1  # the model needs at least one relevant and one irrelevant example


def vectorizer() -> Any:
    from sklearn.feature_extraction.text import TfidfVectorizer

    return TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, strip_accents="unicode")


RELEVANT_RATIO = 9.8  # the relevant records' total weight over the irrelevant ones'


def sample_weights(labels: np.ndarray) -> np.ndarray:
    """Each record's weight: RELEVANT_RATIO to 1 between the classes' totals, averaging 1."""
    relevant = labels == 1
    n1, n0 = int(relevant.sum()), int((~relevant).sum())
    w = np.where(relevant, 1.0, n1 / (RELEVANT_RATIO * max(n0, 1)))
    return np.asarray(w * (len(w) / w.sum()))


class Classifier:
    """The ranking model: a weighted linear SVM, fitted on texts' vectors and 0/1 labels."""

    def __init__(self) -> None:
        from sklearn.svm import LinearSVC

        self.model = LinearSVC(C=0.3)

    def fit(self, X: Any, y: np.ndarray) -> Classifier:
        self.model.fit(X, y, sample_weight=sample_weights(y))
        return self

    def decision_function(self, X: Any) -> np.ndarray:
        return np.asarray(self.model.decision_function(X))


def estimator() -> Any:
    """An unweighted logistic regression, for the estimate of the relevant records left: its
    probabilities are not inflated toward inclusion."""
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression(C=10.0, max_iter=2000)


CAVEAT = (
    "a model's guess, not a count: the chance each open record is relevant, learnt from the "
    "corpus and shifted to the share of relevant records among the decisions on records of "
    "the same searches (the "
    "corpus holds far more relevant records than a search does), summed; the range is where "
    "95% of such sums fall if those chances are right, which a model never quite is"
)
MIN_QUEUE_DECISIONS = 5  # fewer decisions on search results: no share to shift to, no estimate


def estimate_left(
    prior: float, probs: np.ndarray, relevant: int, decided: int
) -> tuple[float, float, float]:
    """The relevant records expected among the open ones, with a 95% range. PROBS are the
    classifier's chances, trained where PRIOR of the records were relevant; they are shifted
    by Bayes' rule to the queue's own share (RELEVANT of DECIDED decisions, Laplace-smoothed),
    as the prior-shift adjustment of Saerens, Latinne and Decaestecker (2002) does with a
    known new prior, then summed; the range is that of a sum of independent Bernoulli trials."""
    prior = min(max(prior, 1e-6), 1 - 1e-6)
    share = (relevant + 1) / (decided + 2)
    p = np.clip(probs, 1e-9, 1 - 1e-9)
    up, down = share / prior * p, (1 - share) / (1 - prior) * (1 - p)
    adjusted = up / (up + down)
    total = float(adjusted.sum())
    spread = 1.96 * float(np.sqrt((adjusted * (1 - adjusted)).sum()))
    return total, max(0.0, total - spread), total + spread


def record_text(q: Queued, abstracts: dict[str, str]) -> str:
    return f"{q.data.get('title', '')}. {abstracts.get(q.id, '')}"


def training_set(
    corpus: Corpus, queue: Queue, abstracts: dict[str, str]
) -> tuple[list[str], list[int]]:
    """Texts and labels (1 relevant, 0 irrelevant): the corpus's records, then the queue's
    decided ones."""
    texts: list[str] = []
    labels: list[int] = []
    screened = {q.data.get("record") for q in queue.items.values()}
    for rec in corpus:
        if rec.path in screened:
            continue  # its queue record (title and abstract) stands for it below
        d = rec.data
        said = d.get("summary") if rec.kind == "paper" else d.get("note")
        texts.append(f"{d.get('title') or ''}. {said or ''}")
        labels.append(1 if rec.kind == "paper" else 0)
    for q in queue.items.values():
        label = _label(q)
        if label is not None:
            texts.append(record_text(q, abstracts))
            labels.append(label)
    return texts, labels


def _label(q: Queued) -> int | None:
    """1, 0 or None (undecided, maybe, in conflict) from a record's effective decision."""
    if q.state == "included":
        return 1
    if q.state == "excluded":
        return 0
    return None


@dataclass(slots=True)
class Ranked:
    records: list[tuple[Queued, float]]  # open records, most relevant first
    consecutive_irrelevant: int
    threshold: int
    estimated_left: float | None
    screened: int
    estimated_range: tuple[float, float] | None = None

    @property
    def says_stop(self) -> bool:
        return self.consecutive_irrelevant >= self.threshold

    def verdict(self) -> dict[str, Any]:
        rule = (
            f"stop after {self.threshold} consecutive irrelevant records "
            "(data-driven heuristic; ASReview, SAFE procedure)"
        )
        return {
            "rule": rule,
            "consecutive_irrelevant": self.consecutive_irrelevant,
            "threshold": self.threshold,
            "says_stop": self.says_stop,
            "estimated_relevant_left": None
            if self.estimated_left is None
            else round(self.estimated_left, 2),
            "estimated_relevant_left_range": None
            if self.estimated_range is None
            else [round(x, 2) for x in self.estimated_range],
            "estimate_caveat": CAVEAT,
            "screened": self.screened,
            "left": len(self.records),
        }


def said_estimate(verdict: dict[str, Any]) -> str:
    """The estimate of a verdict as the screen prints it: value, range, and what it is."""
    value, span = verdict["estimated_relevant_left"], verdict["estimated_relevant_left_range"]
    if value is None:
        return f"not yet (it needs {MIN_QUEUE_DECISIONS} decisions on records of these searches)"
    return f"{value:.1f} (95% range {span[0]:.1f}-{span[1]:.1f}; a model's guess, not a count)"


def consecutive_irrelevant(queue: Queue) -> int:
    """How many records were excluded in a row, counting back from the latest decision."""
    latest = sorted(
        (d.get("seq", 0), d["decision"]) for q in queue.items.values() for d in q.decisions
    )
    n = 0
    for _, decision in reversed(latest):
        if decision != "exclude":
            break
        n += 1
    return n


def rank(corpus: Corpus, queue: Queue, abstracts: dict[str, str]) -> Ranked:
    """The open records of QUEUE in relevance order, with the stopping heuristic."""
    open_records = queue.open()
    texts, labels = training_set(corpus, queue, abstracts)
    screened = sum(1 for q in queue.items.values() if q.data.get("record"))
    threshold = corpus.taxonomy.views.screening.consecutive_irrelevant
    streak = consecutive_irrelevant(queue)
    if not open_records:
        return Ranked([], streak, threshold, 0.0, screened, (0.0, 0.0))  # nothing left: none
    if min(labels.count(0), labels.count(1)) < MIN_CLASS:
        # no model yet: the order the records were found in
        return Ranked([(q, 0.5) for q in open_records], streak, threshold, None, screened)
    vec = vectorizer()
    X = vec.fit_transform(texts + [record_text(q, abstracts) for q in open_records])
    train, test = X[: len(texts)], X[len(texts) :]
    y = np.asarray(labels)
    # the share of relevant records among decisions on records of the same searches as the
    # open ones: a new search's share is its own, not that of searches screened before it
    searches = {q.data.get("search") for q in open_records}
    labelled = [
        x
        for x in (_label(q) for q in queue.items.values() if q.data.get("search") in searches)
        if x is not None
    ]
    if len(labelled) < MIN_QUEUE_DECISIONS:
        return Ranked(_ordered(open_records, train, y, test), streak, threshold, None, screened)
    probs = estimator().fit(train, y).predict_proba(test)[:, 1]
    estimate, low, high = estimate_left(float(y.mean()), probs, sum(labelled), len(labelled))
    ranked = _ordered(open_records, train, y, test)
    return Ranked(ranked, streak, threshold, estimate, screened, (low, high))


def _ordered(
    open_records: list[Queued], train: Any, y: np.ndarray, test: Any
) -> list[tuple[Queued, float]]:
    """The open records, most relevant first by the ranking model; maybe and awaiting records
    come after the pending ones (they have been seen)."""
    scores = 1 / (1 + np.exp(-Classifier().fit(train, y).decision_function(test)))
    order = sorted(range(len(open_records)), key=lambda i: (-scores[i], open_records[i].id))
    ranked = [(open_records[i], float(scores[i])) for i in order]
    ranked.sort(key=lambda r: r[0].state != "pending")
    return ranked
