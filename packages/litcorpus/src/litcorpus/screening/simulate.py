"""Replays labelled screening decisions under the ranking, as `asreview simulate` does: how
many records a reviewer would have screened to find the relevant ones, against random order.

The replay starts from prior knowledge of one relevant and one irrelevant record drawn at
random (ASReview's default), trains the ranking model on what is labelled, screens the most
relevant record, reveals its label, retrains, and so on until every record is screened (the
model is refitted after every STEP records; STEP is 1 unless the set is large). Prior records
count neither as screened nor as found, as asreview-insights counts them by default.

Measures, over N records (priors left out) and R relevant ones:
- recall after k records: relevant found / R;
- WSS@r (work saved over sampling, Cohen et al. 2006): r - k_r / N, where k_r is the least k
  whose recall reaches r; random order saves about 0;
- recall after 10% of the records are screened.
Random order is the same measures over random permutations, averaged over the seeds.
"""

from __future__ import annotations

import csv
import io
import math
import random
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..model.corpus import Corpus
from ..model.errors import CommandError
from .rank import Classifier, vectorizer

LABEL_COLUMNS = ("label_included", "included", "label", "asreview_label", "final_included")


@dataclass(slots=True)
class Labelled:
    texts: list[str]
    labels: list[int]
    name: str


def read_labelled(data: str, name: str) -> Labelled:
    """An ASReview labelled-dataset CSV: title, abstract and a 0/1 inclusion label."""
    rows = csv.DictReader(io.StringIO(data, newline=""))
    fields = {f.strip().lower(): f for f in rows.fieldnames or []}
    label = next((fields[c] for c in LABEL_COLUMNS if c in fields), None)
    if "title" not in fields or label is None:
        raise CommandError(
            "import-invalid",
            f"{name}:1: a labelled set needs a title column and a label column "
            f"({', '.join(LABEL_COLUMNS)})",
        )
    texts, labels = [], []
    for row in rows:
        raw = (row.get(label) or "").strip()
        if raw not in ("0", "1", "0.0", "1.0"):
            raise CommandError(
                "import-invalid",
                f"{name}:{rows.line_num}: label '{raw}' is not 0 or 1",
                "every record of a labelled set carries its decision",
            )
        texts.append(
            f"{row.get(fields['title']) or ''}. {row.get(fields.get('abstract', ''), '') or ''}"
        )
        labels.append(int(float(raw)))
    _enough(labels, name)
    return Labelled(texts, labels, name)


def corpus_labelled(corpus: Corpus) -> Labelled:
    """The corpus's own decisions: retained entries relevant, exclusions irrelevant (the
    texts are the corpus's: title and summary, title and note)."""
    texts, labels = [], []
    for rec in corpus:
        said = rec.data.get("summary") if rec.kind == "paper" else rec.data.get("note")
        texts.append(f"{rec.data.get('title') or ''}. {said or ''}")
        labels.append(1 if rec.kind == "paper" else 0)
    _enough(labels, "the corpus")
    return Labelled(texts, labels, "the corpus's decisions")


def _enough(labels: list[int], name: str) -> None:
    if labels.count(1) < 2 or labels.count(0) < 2:
        raise CommandError(
            "import-invalid",
            f"{name} needs at least two relevant and two irrelevant records to replay",
        )


def replay(data: Labelled, seed: int, step: int) -> list[int]:
    """The labels in the order the ranking screens them (priors left out)."""
    rng = random.Random(seed)
    y = np.asarray(data.labels)
    X = vectorizer().fit_transform(data.texts)
    relevant = [i for i, v in enumerate(data.labels) if v == 1]
    irrelevant = [i for i, v in enumerate(data.labels) if v == 0]
    labelled = [rng.choice(relevant), rng.choice(irrelevant)]
    left = np.ones(len(y), dtype=bool)
    left[labelled] = False
    order: list[int] = []
    while left.any():
        model = Classifier().fit(X[labelled], y[labelled])
        candidates = np.flatnonzero(left)
        scores = model.decision_function(X[candidates])
        best = candidates[np.argsort(-scores, kind="stable")[:step]]
        for i in best:
            left[i] = False
            labelled.append(int(i))
            order.append(int(y[i]))
    return order


def measures(order: list[int]) -> dict[str, Any]:
    n, r = len(order), sum(order)
    found = np.cumsum(order)
    out: dict[str, Any] = {"records": n, "relevant": r}
    for level in (0.95, 1.0):
        k = int(np.argmax(found >= math.ceil(level * r - 1e-9))) + 1
        out[f"wss@{round(level * 100)}"] = round(level - k / n, 4)
    tenth = max(1, math.ceil(0.1 * n))
    out["recall@10%"] = round(float(found[tenth - 1]) / r, 4)
    return out


def curve(order: list[int], points: int = 101) -> list[tuple[float, float]]:
    """(fraction screened, recall) at evenly spaced fractions."""
    n, r = len(order), sum(order)
    found = np.cumsum([0, *order])
    return [
        (p / (points - 1), float(found[round(p / (points - 1) * n)]) / r) for p in range(points)
    ]


def simulate(data: Labelled, seeds: int = 5, step: int | None = None) -> dict[str, Any]:
    """The ranking against random order, each averaged over SEEDS runs."""
    n = len(data.labels)
    step = step or max(1, math.ceil(n / 2000))
    runs = [replay(data, seed, step) for seed in range(seeds)]
    randoms = []
    for seed in range(seeds):
        labels = list(data.labels)
        labels.remove(1)  # the records a replay starts from: one relevant, one irrelevant
        labels.remove(0)
        random.Random(10_000 + seed).shuffle(labels)
        randoms.append(labels)
    model, rand = _mean([measures(o) for o in runs]), _mean([measures(o) for o in randoms])
    return {
        "dataset": data.name,
        "records": n,
        "relevant": sum(data.labels),
        "seeds": seeds,
        "step": step,
        "ranking": model,
        "random": rand,
        "curves": {
            "ranking": _mean_curve([curve(o) for o in runs]),
            "random": _mean_curve([curve(o) for o in randoms]),
        },
    }


def _mean(rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {k: round(sum(r[k] for r in rows) / len(rows), 4) for k in rows[0]}


def _mean_curve(curves: list[list[tuple[float, float]]]) -> list[list[float]]:
    return [
        [round(curves[0][i][0], 4), round(sum(c[i][1] for c in curves) / len(curves), 4)]
        for i in range(len(curves[0]))
    ]


def figure(result: dict[str, Any]) -> Any:
    """The recall curves of the ranking and of random order."""
    from ..publish.plots import setup

    setup()
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.2, 3.6))
    for name, style in (("ranking", "-"), ("random", "--")):
        xs, ys = zip(*result["curves"][name], strict=True)
        ax.plot(xs, ys, style, label=name)
    ax.set_xlabel("Share of records screened")
    ax.set_ylabel("Recall")
    ax.set_title(f"{result['dataset']}: {result['relevant']} of {result['records']} relevant")
    ax.legend(loc="lower right")
    return fig
