"""Validates the corpus: every record's own checks (record.py), run in parallel slices, then
the checks across records (duplicates, dedupe.py).

Reads a loaded `Corpus`; returns a `Report` holding every problem found, never only the first.
"""

from __future__ import annotations

import datetime as dt

from ..model.corpus import Corpus
from ..model.problems import Problem, Report
from ..parallel import map_slices, no_cycle_collection
from ..progress import Progress
from .dedupe import find_duplicates
from .record import RecordCheck


def _check_slice(job: tuple[Corpus, dt.date], start: int, stop: int) -> list[Problem]:
    corpus, today = job
    out: list[Problem] = []
    for rec in corpus.records[start:stop]:
        out += rec.doc.problems
        out += RecordCheck(rec, corpus.taxonomy, today).run()
    return out


def validate_corpus(
    corpus: Corpus,
    today: dt.date | None = None,
    strict: bool = False,
    progress: Progress | None = None,
) -> Report:
    """Every problem of the records: loading (the taxonomy's own included), per record and
    across records. Claims, the screening flow and agreement are checked by analysis.result."""
    today = today or dt.date.today()
    report = Report(strict=strict)
    report.extend(corpus.problems)
    on_done = (lambda d, t: progress("checking records", d, t)) if progress else None
    with no_cycle_collection():
        report.extend(map_slices(_check_slice, (corpus, today), len(corpus.records), on_done))
        report.extend(find_duplicates(corpus))
    return report
