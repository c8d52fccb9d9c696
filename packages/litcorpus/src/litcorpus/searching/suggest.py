"""Tag suggestions for drafted entries: for each axis of the paper kind, a classifier trained on
the curated entries (title, summary and notes) proposes a value from a new record's title and
abstract, with its confidence and the sentence it rests on. Suggestions are never tags: a
draft carries them as comments, and only a maintainer who has read the paper writes a tag.

`evaluate` measures the suggestions honestly, by time: trained on the entries of one release
and tested on the entries added after it, each axis against the majority baseline (accuracy;
micro-F1 for list axes, whose baseline gives every label more than half the entries carry).
Only the axes where the classifier beats its baseline are suggested.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..model.corpus import Corpus, Record

_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def _given(rec: Record) -> str:
    """What a new record offers, as near as a curated entry can stand for it: its title and
    summary (abstracts are not kept in the repository)."""
    return f"{rec.data.get('title') or ''}. {rec.data.get('summary') or ''}"


def _text(rec: Record) -> str:
    d = rec.data
    return f"{d.get('title') or ''}. {d.get('summary') or ''} {d.get('notes') or ''}"


def _labels(value: Any, multi: bool) -> Any:
    if multi:
        return sorted(str(v) for v in value) if isinstance(value, list) else []
    return "|".join(sorted(map(str, value))) if isinstance(value, list) else str(value)


def rules_of(corpus: Corpus) -> dict[str, dict[str, list[str]]]:
    """Each paper axis's `only_when` rules, as the taxonomy declares them."""
    return {a.id: a.only_when for a in corpus.taxonomy.axes.values() if a.only_when}


def axes_of(corpus: Corpus) -> list[tuple[str, bool]]:
    """The paper kind's axes a suggestion may fill: (axis id, whether it holds a list); an
    axis the text cannot tell (a curator's judgment) is dropped by `evaluate`, as it does not
    beat its baseline."""
    return [(a.id, a.multi) for a in corpus.taxonomy.axes.values() if a.applies_to == "paper"]


@dataclass(slots=True)
class Suggestion:
    axis: str
    value: Any  # a value id, or a list of them
    confidence: float
    sentence: str


@dataclass(slots=True)
class Suggester:
    vectorizer: Any
    models: dict[str, tuple[Any, bool, list[str]]] = field(default_factory=dict)
    # the taxonomy's `only_when` rules: an axis suggested only where the others allow it
    only_when: dict[str, dict[str, list[str]]] = field(default_factory=dict)

    def suggest(self, text: str) -> list[Suggestion]:
        """One suggestion per axis the models cover, from TEXT (a title and abstract)."""
        sentences = [s for s in _SENTENCE.split(text) if s.strip()] or [text]
        X = self.vectorizer.transform([text])
        S = self.vectorizer.transform(sentences)
        out = []
        for axis, (model, multi, classes) in self.models.items():
            probs = model.predict_proba(X)[0]
            chosen: Any
            if multi:
                chosen = [c for c, p in zip(classes, probs, strict=True) if p >= 0.5]
                confidence = float(np.prod([max(p, 1 - p) for p in probs]))
                best = int(np.argmax(probs))
            else:
                best = int(np.argmax(probs))
                chosen, confidence = classes[best], float(probs[best])
            scores = np.asarray(S @ _weights(model, best, multi))
            sentence = sentences[int(np.argmax(scores.ravel()))] if len(sentences) else ""
            out.append(Suggestion(axis, chosen, round(confidence, 3), sentence.strip()[:300]))
        said = {s.axis: s.value for s in out}
        return [s for s in out if _allowed(self.only_when.get(s.axis, {}), said)]


def _allowed(rules: dict[str, list[str]], said: dict[str, Any]) -> bool:
    """Whether the other suggestions meet an axis's `only_when` rules (an axis not suggested
    meets none)."""
    return all(
        bool(set(v if isinstance(v, list) else [v]) & set(allowed))
        for other, allowed in rules.items()
        if (v := said.get(other)) is not None
    ) and all(other in said for other in rules)


def _weights(model: Any, k: int, multi: bool) -> Any:
    """The coefficients of class K (a column vector), for the sentence a suggestion rests on."""
    if multi:
        return model.estimators_[k].coef_[0].reshape(-1, 1)
    coef = model.coef_
    return (
        coef[0] if coef.shape[0] == 1 and k == 1 else -coef[0] if coef.shape[0] == 1 else coef[k]
    ).reshape(-1, 1)


def train(
    records: list[Record],
    axes: list[tuple[str, bool]],
    only_when: dict[str, dict[str, list[str]]] | None = None,
) -> Suggester:
    """Classifiers for AXES fitted on RECORDS (axes with fewer than two values seen: none)."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.multiclass import OneVsRestClassifier
    from sklearn.preprocessing import MultiLabelBinarizer

    vec = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, min_df=2, strip_accents="unicode")
    X = vec.fit_transform([_text(r) for r in records])
    out = Suggester(vec, only_when=dict(only_when or {}))
    for axis, multi in axes:
        have = [
            (i, r.data[axis]) for i, r in enumerate(records) if r.data.get(axis) not in (None, "")
        ]
        if len(have) < 5:
            continue
        rows = X[[i for i, _ in have]]
        if multi:
            binar = MultiLabelBinarizer()
            Y = binar.fit_transform([_labels(v, True) for _, v in have])
            keep = [j for j in range(Y.shape[1]) if 0 < Y[:, j].sum() < len(have)]
            if not keep:
                continue
            model = OneVsRestClassifier(LogisticRegression(C=4.0, max_iter=2000))
            model.fit(rows, Y[:, keep])
            out.models[axis] = (model, True, [binar.classes_[j] for j in keep])
        else:
            y = [_labels(v, False) for _, v in have]
            if len(set(y)) < 2:
                continue
            model = LogisticRegression(C=4.0, max_iter=2000)
            model.fit(rows, y)
            out.models[axis] = (model, False, list(model.classes_))
    return out


def evaluate(
    train_on: list[Record], test_on: list[Record], axes: list[tuple[str, bool]]
) -> list[dict[str, Any]]:
    """Per axis: the classifier's score on TEST_ON (trained on TRAIN_ON) against the majority
    baseline's, and how many entries each side had."""
    suggester = train(train_on, axes)
    said = {
        id(r): {x.axis: x.value for x in suggester.suggest(_given(r))} for r in test_on
    }  # fmt: skip
    out = []
    for axis, multi in axes:
        truth = [(r, r.data[axis]) for r in test_on if r.data.get(axis) not in (None, "")]
        seen = [r.data[axis] for r in train_on if r.data.get(axis) not in (None, "")]
        if axis not in suggester.models or not truth:
            continue
        guesses = [said[id(r)][axis] for r, _ in truth]
        if multi:
            counts = Counter(v for value in seen for v in _labels(value, True))
            majority = [v for v, n in counts.items() if n > len(seen) / 2]
            gold = [set(_labels(v, True)) for _, v in truth]
            score = _micro_f1(gold, [set(g) for g in guesses])
            base = _micro_f1(gold, [set(majority)] * len(gold))
            measure = "micro-F1"
        else:
            majority_value = Counter(_labels(v, False) for v in seen).most_common(1)[0][0]
            gold_values = [_labels(v, False) for _, v in truth]
            score = sum(g == t for g, t in zip(guesses, gold_values, strict=True)) / len(truth)
            base = sum(t == majority_value for t in gold_values) / len(truth)
            measure = "accuracy"
        out.append({
            "axis": axis, "measure": measure, "classifier": round(score, 3),
            "baseline": round(base, 3), "train": len(seen), "test": len(truth),
            "suggested": score > base,
        })  # fmt: skip
    return out


def _micro_f1(gold: list[set[str]], guess: list[set[str]]) -> float:
    tp = sum(len(g & p) for g, p in zip(gold, guess, strict=True))
    fp = sum(len(p - g) for g, p in zip(gold, guess, strict=True))
    fn = sum(len(g - p) for g, p in zip(gold, guess, strict=True))
    return 0.0 if tp == 0 else 2 * tp / (2 * tp + fp + fn)
