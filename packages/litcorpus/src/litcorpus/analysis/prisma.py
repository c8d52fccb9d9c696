"""The screening flow (PRISMA 2020): computed from the records, checked against the flow the
survey declares in claims.yaml, and extended, for a living review, by the update flow since
the previous release (publish.prisma2020 writes them in the PRISMA2020 package's template).

Every record is identified once; each screening stage, in the taxonomy's order, removes the
exclusions coded with it; what survives the last stage is included. The declared flow speaks
of one release (or of the live corpus), so records added later never break it. The update
flow splits the records added since the previous release by how they were found: through a
logged search (searches.yaml; its counts must add up with the records that name it) or
through other methods. A record decided again since the declared flow's release is counted
there as it stood, by the flow's corrections.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Iterable
from typing import Any, NamedTuple

from ..model.claimsfile import CLAIMS_FILE, ClaimsFile, Correction
from ..model.corpus import Corpus, Record
from ..model.problems import Problem
from ..model.queue import DUPLICATES_FILE, QUEUE_FILE, Queue, Queued
from ..model.releases import LIVE, Release
from ..model.searches import SEARCHES_FILE, Search, Searches
from ..model.sections import Section
from ..model.text import parse_day
from ..model.views import Views


class _Stood(NamedTuple):
    """A record as it stood at a release, where a correction has moved it since."""

    kind: str
    data: dict[str, Any]


def _stages(records: Iterable[Record | _Stood], corpus: Corpus, views: Views) -> dict[str, Any]:
    """Identified, each stage (assessed, excluded by reason) and included, for RECORDS."""
    tax, p = corpus.taxonomy, views.prisma
    stage_axis, reason_axis = tax.axes[p["stage_axis"]], tax.axes[p["reason_axis"]]
    records = list(records)
    excluded = [r.data for r in records if r.kind == p["kind"]]
    included = sum(r.kind != p["kind"] for r in records)
    remaining = len(records)
    flow: dict[str, Any] = {"identified": remaining, "stages": [], "included": included}
    for stage in stage_axis.values:
        here = [d for d in excluded if d.get(stage_axis.id) == stage.id]
        reasons = Counter(str(d.get(reason_axis.id)) for d in here)
        flow["stages"].append(
            {
                "id": stage.id,
                "label": stage.label,
                "assessed": remaining,
                "excluded": len(here),
                "reasons": {v.id: reasons[v.id] for v in reason_axis.values if reasons[v.id]},
            }
        )
        remaining -= len(here)
    return flow


def compute_flow(corpus: Corpus, views: Views) -> dict[str, Any] | None:
    """The flow of every record of CORPUS (a release's view of it, or the live corpus)."""
    return _stages(corpus.records, corpus, views) if views.prisma else None


def declared_corpus(loaded: ClaimsFile, corpus: Corpus) -> Corpus:
    """The corpus the declared flow speaks of: its release's records, or all of them."""
    snapshot = (loaded.prisma or {}).get("snapshot", LIVE)
    release = corpus.releases.get(str(snapshot))
    return corpus.at(release) if release else corpus


def _as_declared(
    records: Iterable[Record], corrections: tuple[Correction, ...], views: Views
) -> list[Record | _Stood]:
    """RECORDS with the moves since undone: a record now of another kind is counted as the kind
    it was (an exclusion at the stage it left at), whether or not the release holds it now."""
    moved = {x.now for x in corrections}
    out: list[Record | _Stood] = [r for r in records if f"{r.kind}:{r.stem}" not in moved]
    stage_axis = views.prisma["stage_axis"]
    out += [_Stood(x.was, {stage_axis: x.left_at} if x.left_at else {}) for x in corrections]
    return out


def flow_problems(loaded: ClaimsFile, corpus: Corpus) -> list[Problem]:
    """The declared flow must add up box by box, and equal the flow its release's records
    give, with the moves its corrections declare undone."""
    declared, views = loaded.prisma, corpus.taxonomy.views
    if declared is None or not views.prisma:
        return []
    released = declared_corpus(loaded, corpus).records
    flow = _stages(_as_declared(released, loaded.flow_corrections, views), corpus, views)
    r = Section(loaded.doc, CLAIMS_FILE, "prisma-mismatch")
    hint = "fix the declared numbers or the records' stages"

    def bad(path: tuple[str, ...], message: str) -> None:
        r.bad(("prisma", *path), message, hint)

    raw_stages = declared.get("stages")
    stages: dict[str, Any] = raw_stages if isinstance(raw_stages, dict) else {}
    order = [s["id"] for s in flow["stages"]]
    if list(stages) != order:
        bad(("stages",), f"stages must be {', '.join(order)} in this order")
        return r.problems
    carried = declared.get("identified")
    for name, box in stages.items():
        assessed = box.get("assessed") if isinstance(box, dict) else None
        excluded = box.get("excluded") if isinstance(box, dict) else None
        if assessed != carried:
            bad(
                ("stages", name, "assessed"),
                f"{name}: {assessed} assessed, but the box before leaves {carried}",
            )
        if not isinstance(assessed, int) or not isinstance(excluded, int):
            bad(("stages", name), f"{name} needs whole-number assessed and excluded")
            return r.problems
        carried = assessed - excluded
    if declared.get("included") != carried:
        bad(
            ("included",),
            f"{declared.get('included')} included, but the last stage leaves {carried}",
        )
    computed = {"identified": flow["identified"], "included": flow["included"]}
    for s in flow["stages"]:
        computed[f"stages.{s['id']}.assessed"] = s["assessed"]
        computed[f"stages.{s['id']}.excluded"] = s["excluded"]
    for name, value in computed.items():
        parts = tuple(name.split("."))
        node: Any = declared
        for part in parts:
            node = node.get(part) if isinstance(node, dict) else None
        if node != value:
            bad(parts, f"declared {node}, but the records give {value}")
    return r.problems


def _queue_naming(queue: Queue) -> Counter[str]:
    """Per search, its records the queue holds and no record file stands for yet: those still
    to screen, and those a stopping rule set aside."""
    return Counter(
        str(q.data.get("search")) for q in queue.items.values() if not q.data.get("record")
    )


def search_problems(
    corpus: Corpus, searches: Searches, queue: Queue | None = None
) -> list[Problem]:
    """Every record names a logged search or none; each search's records found, less its
    duplicates, are exactly the records that name it (entries, exclusions, and queued records
    not yet decided); an imported search's duplicates are each listed; no record names a
    search run after it entered the corpus."""
    out: list[Problem] = []
    queue = queue or Queue()
    naming: Counter[str] = _queue_naming(queue)
    for q in queue.items.values():
        if str(q.data.get("search")) not in searches.items:
            message = (
                f"{q.id} names search '{q.data.get('search')}', which {SEARCHES_FILE} does not log"
            )
            out.append(Problem(QUEUE_FILE, "search-invalid", message, q.line, None, "search"))
    for rec in corpus:
        sid = rec.data.get("search")
        if sid is None:
            continue
        search = searches.items.get(str(sid))
        line, col = rec.doc.where(("search",))
        if search is None:
            known = ", ".join(searches.items) or f"none; log it in {SEARCHES_FILE}"
            message = f"names search '{sid}', which {SEARCHES_FILE} does not log"
            out.append(
                Problem(rec.path, "search-invalid", message, line, col, "search", f"{known}")
            )
            continue
        naming[search.id] += 1
        if rec.added and search.date_run > rec.added:
            message = f"entered the corpus on {rec.added}, before search {sid} ran"
            out.append(Problem(rec.path, "search-invalid", message, line, col, "search"))
    listed = Counter(str(d.get("search")) for d in queue.duplicates)
    r = Section(searches.doc, SEARCHES_FILE, "search-mismatch")
    for i, search in enumerate(searches.items.values()):
        expected = search.records_found - search.duplicates - search.unscreenable
        if naming[search.id] != expected:
            untitled = f" and {search.unscreenable} unscreenable" if search.unscreenable else ""
            r.bad(
                ("searches", i),
                f"search {search.id} found {search.records_found} records, "
                f"{search.duplicates} of them duplicates{untitled}, so {expected} were screened; "
                f"{naming[search.id]} records name it",
                "log every screened record (retained or excluded) with search: "
                f"{search.id}, or correct the counts",
            )
        if search.imported and listed[search.id] != search.duplicates:
            r.bad(
                ("searches", i, "duplicates"),
                f"search {search.id} removed {search.duplicates} duplicates, but "
                f"{DUPLICATES_FILE} lists {listed[search.id]}",
                "an imported search's counts come from its import: do not edit them by hand",
            )
    return out + r.problems


def queue_record_problems(corpus: Corpus, queue: Queue) -> list[Problem]:
    """A decided queued record names the record file of its decision, of the kind its state
    says: a decision taken again moves the record, and the queue follows it, or the flow loses
    it."""
    kinds = {rec.path: rec.kind for rec in corpus}
    excluded = corpus.taxonomy.views.prisma.get("kind")
    out = []
    for q in queue.items.values():
        record = q.data.get("record")
        if not isinstance(record, str) or q.state not in ("included", "excluded"):
            continue
        kind = kinds.get(record)
        if kind is None or (excluded and (kind == excluded) != (q.state == "excluded")):
            held = "not in the corpus" if kind is None else f"a record of kind {kind}"
            out.append(Problem(
                QUEUE_FILE, "queue-invalid", f"{q.id} is {q.state} as {record}, {held}",
                q.line, None, "record", "point record and state at the file that holds its "
                "decision now, with the decision that moved it"))  # fmt: skip
    return out


def update_flow(
    corpus: Corpus, searches: Searches, previous: Release, queue: Queue | None = None
) -> dict[str, Any] | None:
    """The PRISMA 2020 flow of an updated review: the studies included in the previous
    release, the records found since, in the databases arm (searches of databases, with the
    count of each) and the other-methods arm (websites and citation searching, and records
    that name no search), and the new total. Records a stopping rule set aside are counted as
    marked ineligible by an automation tool, records sought but not found as reports not
    retrieved (they passed the title screen: counted there and among those sought); records
    not yet screened are named apart, and records an earlier window's search found that are
    screened only now (awaiting then, or decided again since) are carried over into the arm of
    their search, so each arm's boxes add up."""
    views = corpus.taxonomy.views
    if not views.prisma:
        return None
    queue = queue or Queue()
    day = corpus.as_of_day or dt.date.max
    before = corpus.at(previous)
    old = {id(r) for r in before.records}
    new = [r for r in corpus if id(r) not in old]
    run = {s.id: s for s in _window(searches, before, corpus, previous.date, day)}
    arms: dict[str, list[Record]] = {"database": [], "other": []}
    carried: Counter[str] = Counter()  # screened now, found by a search of an earlier window
    for r in new:
        search = searches.items.get(str(r.data.get("search")))
        arm = "database" if search and search.method == "database" else "other"
        arms[arm].append(r)
        carried[arm] += bool(search and search.id not in run)
    waiting = [q for q in queue.items.values() if str(q.data.get("search")) in run]
    held = {r.path for r in corpus}
    flows = {}
    for arm, records in arms.items():
        logged = [s for s in run.values() if (s.method == "database") == (arm == "database")]
        flow = _stages(records, corpus, views)
        unlogged = 0 if arm == "database" else sum(1 for r in records if "search" not in r.data)
        flow["identified"] = sum(s.records_found for s in logged) + unlogged
        flow["duplicates"] = sum(s.duplicates for s in logged)
        flow["unscreenable"] = sum(s.unscreenable for s in logged)
        flow["searches"] = [s.id for s in logged]
        flow["carried"] = carried[arm]
        mine = Counter(
            _state_on(q, held, day) for q in waiting if run[str(q.data["search"])] in logged
        )
        flow["automation"] = mine["set_aside"]
        flow["not_retrieved"] = mine["not_retrieved"]
        flow["awaiting"] = mine["awaiting"]
        flow["sources"] = _sources(logged)
        flows[arm] = flow
    previous_studies = sum(r.kind != views.prisma["kind"] for r in before.records)
    new_studies = flows["database"]["included"] + flows["other"]["included"]
    return {
        "previous": {
            "version": previous.version,
            "date": previous.date.isoformat(),
            "studies": previous_studies,
        },
        "searches": flows["database"],
        "other": flows["other"],
        "new_studies": new_studies,
        "total_studies": previous_studies + new_studies,
    }


def _window(
    searches: Searches, before: Corpus, now: Corpus, start: dt.date, day: dt.date
) -> list[Search]:
    """The searches run after the release of day START and by DAY. A search run on a release's
    day is in it when it comes (in the log's order) no later than the last search the
    release's records name: searches are logged in the order they are run."""
    rank = {sid: i for i, sid in enumerate(searches.items)}

    def last(corpus: Corpus) -> int:
        named = (rank.get(str(r.data.get("search")), -1) for r in corpus)
        return max(named, default=-1)

    released = last(before)
    ends_at_release = any(r.date == day for r in now.releases.items) and now.as_of_day == day
    kept = last(now) if ends_at_release else len(rank)
    out = []
    for sid, s in searches.items.items():
        if s.date_run < start or s.date_run > day:
            continue
        if s.date_run == start and rank[sid] <= released:
            continue
        if s.date_run == day and rank[sid] > kept:
            continue
        out.append(s)
    return out


def _state_on(q: Queued, held: set[str], day: dt.date) -> str:
    """What queued record Q was on DAY, for the flow: decided (its record is in the corpus
    then), set aside, not retrieved, or awaiting (what happened to it came later; a state set
    on DAY itself counts as set by then)."""
    if q.data.get("record"):
        return "decided" if q.data["record"] in held else "awaiting"
    if q.state in ("set_aside", "not_retrieved"):
        said = q.data.get(q.state)
        when = parse_day(said.get("date")) if isinstance(said, dict) else None
        return q.state if when is None or when <= day else "awaiting"
    return "awaiting"


def _sources(logged: list[Search]) -> list[dict[str, Any]]:
    """Records found and duplicates removed per source (PRISMA 2020's database-specific
    counts), in the order the sources were first searched."""
    out: dict[str, dict[str, Any]] = {}
    for s in logged:
        blank = {"database": s.database, "method": s.method, "searches": 0}
        box = out.setdefault(
            s.database, {**blank, "records_found": 0, "duplicates": 0, "unscreenable": 0}
        )
        box["searches"] += 1
        box["records_found"] += s.records_found
        box["duplicates"] += s.duplicates
        box["unscreenable"] += s.unscreenable
    return list(out.values())
