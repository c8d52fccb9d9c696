"""The one computation every output is published from: the corpus checked, its claims read and
evaluated, its screening flows computed (the declared one, and the update since the previous
release), its agreement with second readers and a second screener, and, for a valid corpus,
its statistics.

`analyse` returns a `Result`; `check`, `claims`, `stats`, `readme`, `site` and `build` all
publish from it, so one run reads and computes the corpus once. `analyse_as_of` does the same
for the corpus as it stood at a release or on a day. The statistics (pandas) are imported only
when they are asked for.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..check.validate import validate_corpus
from ..model.claimsfile import ClaimsFile, load_claims
from ..model.corpus import Corpus, load_corpus
from ..model.problems import Problem, Report
from ..model.queue import load_queue
from ..model.releases import resolve
from ..model.saved import SAVED_FILE, load_saved, query_families
from ..model.searches import SEARCHES_FILE, Searches, last_searched, load_searches
from ..progress import Progress
from .agreement import agreement
from .claims import ClaimResult, evaluate
from .prisma import (
    compute_flow,
    flow_problems,
    queue_record_problems,
    search_problems,
    update_flow,
)
from .screenaudit import compare


@dataclass(slots=True)
class Result:
    corpus: Corpus  # the records analysed (a release's view, for an as-of result)
    report: Report
    claims_file: ClaimsFile
    claims: list[ClaimResult]
    flow: dict[str, Any] | None  # the screening flow of the records analysed
    update: dict[str, Any] | None  # the flow since the previous release
    reviews: dict[str, dict[str, Any] | None]  # agreement, blind_agreement, screening_audit
    version: str  # the release the result stands for, '+N' for N records added since
    stats: dict[str, Any] | None = None  # stats.json; computed for a valid corpus when asked
    searched: list[dict[str, str]] | None = None  # each source's last day searched


def analyse(
    corpus: Corpus,
    strict: bool = False,
    today: dt.date | None = None,
    progress: Progress | None = None,
    stats: bool = True,
    stats_if_invalid: bool = False,
) -> Result:
    """Check CORPUS and compute what it says; STATS asks for the statistics as well (for a
    valid corpus, or any corpus with STATS_IF_INVALID)."""
    report = validate_corpus(corpus, today, strict, progress)
    family = corpus.taxonomy.views.screening.axes.get("family_axis", "")
    searches = load_searches(corpus.root, today, family)
    queue = load_queue(corpus.root, corpus.taxonomy)
    if corpus.as_of_day is None:  # a search's records may enter over days: check them whole
        report.extend(searches.problems)
        report.extend(queue.problems)
        report.extend(search_problems(corpus, searches, queue))
        report.extend(queue_record_problems(corpus, queue))
        report.extend(saved_problems(corpus, searches))
    claims_file = load_claims(corpus)
    report.extend(claims_file.problems)
    report.extend(flow_problems(claims_file, corpus))
    views = corpus.taxonomy.views
    reviewed: dict[str, dict[str, Any] | None] = {}
    # the blind checks speak of the live corpus: a past release's view leaves them out
    live = corpus.as_of_day is None
    for name, review in (("agreement", views.agreement),
                         ("blind_agreement", views.blind_agreement if live else None),
                         ("screening_audit", views.screening_audit if live else None)):  # fmt: skip
        found: dict[str, Any] | None = None
        if review and name == "screening_audit":
            found, problems = compare(corpus, corpus.root / review.file, review.seed,
                                      review.skip_stages)  # fmt: skip
        elif review:
            found, problems = agreement(corpus, corpus.root / review.file, name != "agreement")
        if review:
            report.extend(problems)
        if found is not None and review:
            found["method"] = review.method
        reviewed[name] = found
    day = corpus.as_of_day or dt.date.max
    included = [r for r in corpus.releases.items if r.date <= day]
    if corpus.as_of_release is not None:  # a release's own view, though later ones share its day
        versions = [r.version for r in included]
        included = included[: versions.index(corpus.as_of_release.version) + 1]
    release = included[-1] if included else None
    # the update flow runs from the previous release: the one before, when this is a release;
    # the live corpus still in an update's state (nothing added, no search run since) is that
    # update, so it shows the update's own flow rather than an empty one
    unchanged = (
        corpus.as_of_day is None
        and release is not None
        and len(included) > 1
        and not corpus.after(release)
        and not any(s.date_run > release.date for s in searches.items.values())
    )
    is_release = release is not None and (release.date == corpus.as_of_day or unchanged)
    previous = (included[-2] if len(included) > 1 else None) if is_release else release
    update = update_flow(corpus, searches, previous, queue) if previous else None
    result = Result(
        corpus,
        report,
        claims_file,
        evaluate(claims_file.claims, corpus),
        compute_flow(corpus, views),
        update,
        reviewed,
        corpus.version(),
        searched=last_searched(searches, corpus.as_of_day),
    )
    if stats and (report.ok or stats_if_invalid):
        from .stats import compute_stats  # pandas: only when statistics are asked for

        result.stats = compute_stats(result)
    return result


def analyse_as_of(corpus: Corpus, as_of: str, progress: Progress | None = None) -> Result:
    """The result of the corpus as it stood at release (or on the day) AS_OF: the records
    added up to then, with their tags as they are now. Raises AsOfError for an unknown
    release or a day before the first record."""
    release = corpus.releases.get(as_of)
    view = (
        corpus.at(release)
        if release is not None
        else corpus.as_of(resolve(corpus.releases, as_of, corpus.first_added()))
    )
    return analyse(view, progress=progress)


def check(
    root: Path,
    strict: bool = False,
    today: dt.date | None = None,
    progress: Progress | None = None,
) -> Report:
    """Load and check the corpus below ROOT: every problem, no statistics (`litcorpus check`)."""
    return analyse(load_corpus(root, progress), strict, today, progress, stats=False).report


def saved_problems(corpus: Corpus, searches: Searches) -> list[Problem]:
    """saved-searches.yaml's own problems, and a logged run of a saved search it lacks."""
    saved = load_saved(corpus.root, query_families(corpus.taxonomy))
    out = list(saved.problems)
    for s in searches.items.values():
        if s.saved and s.saved not in saved.items and not saved.problems:
            message = f"search {s.id} ran saved search {s.saved}, which {SAVED_FILE} lacks"
            out.append(Problem(SEARCHES_FILE, "search-invalid", message, hint="keep it there"))
    return out
