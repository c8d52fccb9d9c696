"""Screening decisions: include, maybe or exclude a queued record, by a named reviewer.

An include scaffolds papers/<key>.yaml exactly as `add` does, naming its search and dated
today; an exclude writes exclusions/E0NN.yaml with its stage, coded reason, note and search.
The record file and the queue change together (one change, under the corpus lock), so a run
killed at any point loses no decision it confirmed and writes none it did not.

A record in the dual sample needs two reviewers, each blind to the other: the decision takes
effect when both have decided alike; when they differ the record waits in `conflict` for
`resolve`. Every decision carries a sequence number, the order the stopping rule reads.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from ..model.corpus import Corpus
from ..model.errors import CommandError
from ..model.queue import QUEUE_FILE, Queue, Queued, usable_queue
from ..model.screeningrules import Screening
from ..model.searches import load_searches
from ..model.text import option_problem, url_problem
from ..publish.outputs import commit_changes
from ..workflow.add import make_key, render_entry


class DecisionRefused(CommandError):
    """The decision cannot be taken; nothing was written."""


class MissingValue(DecisionRefused):
    """The decision needs a value the record and its search do not give: OPTION, which the
    interactive screen asks for as PROMPT."""

    def __init__(self, option: str, prompt: str, message: str, hint: str) -> None:
        super().__init__("decision-refused", message, hint, usage=True)
        self.option, self.prompt = option, prompt


@dataclass(slots=True)
class Decided:
    id: str
    state: str
    record: str | None  # the file the decision wrote, when it took effect
    message: str


def _rules(corpus: Corpus) -> Screening:
    rules = corpus.taxonomy.views.screening
    if not rules.kind:
        raise DecisionRefused(
            "decision-refused", "taxonomy.yaml declares no screening.decisions: nothing to write"
        )
    return rules


def _plain(**options: str) -> None:
    """Refuse an option whose text no file of the corpus may hold: it would be written as is."""
    for name, value in options.items():
        if (bad := option_problem(value)) is not None:
            where = "--reviewer or $LITCORPUS_REVIEWER" if name == "reviewer" else f"--{name}"
            raise DecisionRefused("decision-refused", f"{where} {bad}", "type it again", usage=True)


def _queued(corpus: Corpus, qid: str) -> tuple[Queue, Queued]:
    """The queue, and its record QID; refused when the queue is broken or lacks it."""
    queue = usable_queue(corpus.root, corpus.taxonomy, "decision-refused")
    q = queue.items.get(qid)
    if q is None:
        raise DecisionRefused(
            "decision-refused", f"no queued record {qid}", "litcorpus screen list shows them"
        )
    return queue, q


def _reason(corpus: Corpus, given: str | None) -> str:
    """The reason id that GIVEN names (its id, or its code: X2 or single_agent)."""
    axis = corpus.taxonomy.axes[_rules(corpus).axes["reason_axis"]]
    for v in axis.values:
        if given and given.lower() in (v.id.lower(), str(v.code or "").lower()):
            return v.id
    listed = ", ".join(f"{v.code} {v.id}" for v in axis.values)
    raise DecisionRefused(
        "decision-refused",
        f"'{given}' is not an exclusion reason" if given else "an exclusion needs --reason",
        listed,
        usage=True,
    )


def _one_of(corpus: Corpus, role: str, value: str) -> str:
    axis_id = _rules(corpus).axes[role]
    ids = [v.id for v in corpus.taxonomy.axes[axis_id].values]
    if value not in ids:
        raise DecisionRefused(
            "decision-refused", f"'{value}' is not a {axis_id}", ", ".join(ids), usage=True
        )
    return value


def _q(value: Any) -> str:
    return json.dumps(str(value), ensure_ascii=False)


def _source_of(q: Queued, rules: Screening) -> str:
    """Where the record is, as the taxonomy maps its ids, then its address, to a source."""
    ids = q.data.get("ids") or {}
    for scheme, source in rules.source_by_scheme.items():
        if scheme in ids:
            return source
    host = urlsplit(str(q.data.get("url", ""))).hostname or ""
    for name, source in rules.source_by_host.items():
        if host == name or host.endswith("." + name):
            return source
    return rules.source_otherwise


def exclusion_text(
    eid: str, q: Queued, d: dict[str, Any], family: str, source: str, rules: Screening,
    today: dt.date,
) -> str:  # fmt: skip
    lines = [f"id: {eid}", f"title: {_q(q.data['title'])}"]
    ids = q.data.get("ids") or {}
    if ids:
        lines.append("ids:")
        lines += [f"  {s}: {_q(v)}" for s, v in ids.items()]
    a = rules.axes
    lines += [
        f"url: {_q(q.data.get('url'))}",
        f"{a['source_axis']}: {source}",
        f"{a['family_axis']}: {family}",
        f"date_screened: {_q(today.isoformat())}",
        f"{a['stage_axis']}: {d[a['stage_axis']]}",
        f"{a['reason_axis']}: {d[a['reason_axis']]}",
        f"note: {_q(d['note'])}",
        f"added: {_q(today.isoformat())}",
        f"search: {_q(q.data['search'])}",
    ]
    return "\n".join(lines) + "\n"


def _next_exclusion(corpus: Corpus) -> str:
    folder = corpus.root / corpus.taxonomy.kinds[_rules(corpus).kind].dir
    numbers = [
        int(m.group(1)) for p in folder.glob("E*.yaml") if (m := re.match(r"E(\d+)$", p.stem))
    ]
    return f"E{1 + max(numbers, default=0):03d}"


def _next_seq(queue: Queue) -> int:
    return 1 + max(
        (int(d.get("seq", 0)) for q in queue.items.values() for d in q.decisions), default=0
    )


def decide(
    corpus: Corpus,
    qid: str,
    decision: str,
    reviewer: str,
    reason: str | None = None,
    note: str = "",
    stage: str | None = None,
    family: str | None = None,
    source: str | None = None,
    resolve: bool = False,
    key: str = "",
    today: dt.date | None = None,
    url: str | None = None,
) -> Decided:
    """Record REVIEWER's DECISION on queued record QID and, when it takes effect, write the
    record it makes. RESOLVE settles a conflict of the dual sample. KEY proposes an included
    entry's key (used when it is a safe slug not yet taken). URL is the record's address where
    its export gave none (an exclusion names one)."""
    today = today or dt.date.today()
    _plain(reviewer=reviewer, note=note, url=url or "", key=key)
    if decision == "maybe" and not note.strip():
        raise DecisionRefused(
            "decision-refused",
            "--note is needed with maybe: why the record is undecided",
            "say what would decide it (the full text, a second reader, ...)",
            usage=True,
        )
    queue, q = _queued(corpus, qid)
    if decision not in ("include", "maybe", "exclude"):
        raise DecisionRefused("decision-refused", f"'{decision}' is not a decision", usage=True)
    if not reviewer.strip():
        raise DecisionRefused("decision-refused", "--reviewer is empty", usage=True)
    if q.data.get("record"):
        raise DecisionRefused(
            "decision-refused",
            f"{qid} is decided already ({q.state}: {q.data['record']})",
            "correct the record file itself",
        )
    if q.state == "set_aside":
        raise DecisionRefused("decision-refused", f"{qid} was set aside by the stopping rule")
    if resolve != (q.state == "conflict"):
        raise DecisionRefused(
            "decision-refused",
            f"{qid} is in conflict: settle it with screen resolve"
            if q.state == "conflict"
            else f"{qid} is not in conflict; nothing to resolve",
        )
    d: dict[str, Any] = {
        "reviewer": reviewer.strip(),
        "decision": decision,
        "date": today.isoformat(),
    }
    if decision == "exclude":
        rules = _rules(corpus)
        d[rules.axes["reason_axis"]] = _reason(corpus, reason)
        chosen = stage or rules.default_stage
        d[rules.axes["stage_axis"]] = _one_of(corpus, "stage_axis", chosen)
        if not note.strip():
            raise DecisionRefused(
                "decision-refused",
                "an exclusion needs --note: one sentence, in your own words, on why it is out",
                usage=True,
            )
    if note.strip():
        d["note"] = " ".join(note.split())
    if resolve:
        d["resolution"] = True
    d["seq"] = _next_seq(queue)
    others = [x for x in q.decisions if x["reviewer"] != d["reviewer"] or x.get("resolution")]
    q.data["decisions"] = [*others, d]
    effect = _effect(q, d, corpus.taxonomy.views.screening.axes.get("reason_axis", ""))
    changes: dict[str, bytes] = {}
    new: set[str] = set()
    record = None
    if effect == "include":
        folder = corpus.taxonomy.kinds["paper"].dir
        taken = {r.stem for r in corpus.of("paper")} | {
            p.stem for p in (corpus.root / folder).glob("*.yaml")
        }
        facts = {
            k: q.data[k]
            for k in ("title", "authors", "year", "venue", "ids", "url")
            if q.data.get(k)
        }
        if key and key in taken:
            raise DecisionRefused("decision-refused", f"key '{key}' is taken", usage=True)
        key = make_key(facts, taken, key)
        record = f"{folder}/{key}.yaml"
        changes[record] = render_entry(key, facts, corpus, today, str(q.data["search"])).encode()
    elif effect == "exclude":
        rules = _rules(corpus)
        eid = _next_exclusion(corpus)
        record = f"{corpus.taxonomy.kinds[rules.kind].dir}/{eid}.yaml"
        if url:
            if (bad := url_problem(url.strip())) is not None:
                raise DecisionRefused("decision-refused", f"--url: {bad[0]}", bad[1], usage=True)
            q.data["url"] = url.strip()
        if not q.data.get("url"):
            raise MissingValue(
                "url",
                "address (the record has no id or URL)",
                f"{qid} has no address (its export gave no id or URL); give --url",
                "the page it was screened at: the publisher's, a preprint server's or an index's",
            )
        fam = family or _search_family(corpus, str(q.data["search"]))
        if fam is None:
            raise MissingValue(
                "family",
                f"query family (search {q.data['search']} names none)",
                f"search {q.data['search']} names no query family; give --family",
                ", ".join(v.id for v in corpus.taxonomy.axes[rules.axes["family_axis"]].values),
            )
        src = _one_of(corpus, "source_axis", source or _source_of(q, rules))
        fam = _one_of(corpus, "family_axis", fam)
        changes[record] = exclusion_text(eid, q, d, fam, src, rules, today).encode()
    if record:
        new.add(record)
        q.data["record"] = record
        q.data["state"] = "included" if effect == "include" else "excluded"
    else:
        q.data["state"] = effect
    changes[QUEUE_FILE] = queue.to_bytes()
    commit_changes(corpus.root, changes, new)
    message = {
        "include": f"included: wrote {record} (fill in its tags, then litcorpus check)",
        "exclude": f"excluded: wrote {record}",
        "maybe": "kept as maybe: it stays in the queue",
        "awaiting": "recorded; it waits for the second reviewer of the dual sample",
        "conflict": "recorded; the two reviewers disagree: settle it with screen resolve",
    }[effect]
    return Decided(qid, q.state, record, message)


def _effect(q: Queued, d: dict[str, Any], reason_axis: str) -> str:
    """What DECISION does now: include, exclude, maybe, or (dual sample) awaiting or conflict.
    Two exclusions for different reasons are a conflict too: PRISMA counts the reasons."""
    if d.get("resolution") or not q.data.get("dual"):
        return str(d["decision"])
    by = {
        x["reviewer"]: (x["decision"], x.get(reason_axis) if x["decision"] == "exclude" else None)
        for x in q.decisions
        if not x.get("resolution")
    }
    if len(by) < 2:
        return "awaiting"
    first, second = list(by.values())[:2]
    return str(first[0]) if first == second else "conflict"


def _search_family(corpus: Corpus, sid: str) -> str | None:
    """The query family the search was logged with (its field is named after the axis)."""
    searches = load_searches(corpus.root, family_field=_rules(corpus).axes.get("family_axis", ""))
    doc = searches.doc.data if isinstance(searches.doc.data, dict) else {}
    axis = _rules(corpus).axes["family_axis"]
    for item in doc.get("searches") or []:
        if isinstance(item, dict) and str(item.get("id")) == sid:
            fam = item.get(axis)
            return str(fam) if fam else None
    return None


def set_aside(
    corpus: Corpus, reviewer: str, force: bool = False, today: dt.date | None = None
) -> list[str]:
    """Leave the records nobody has decided unscreened, as the stopping rule advises (FORCE:
    whatever it says); they count as marked ineligible by an automation tool. Returns their
    ids."""
    from .rank import rank
    from .store import Store

    today = today or dt.date.today()
    _plain(reviewer=reviewer)
    queue = usable_queue(corpus.root, corpus.taxonomy, "decision-refused")
    verdict = rank(corpus, queue, Store(corpus.root).abstracts()).verdict()
    if not verdict["says_stop"] and not force:
        raise DecisionRefused(
            "decision-refused",
            f"the stopping rule says keep screening: {verdict['consecutive_irrelevant']} "
            f"consecutive irrelevant of {verdict['threshold']}; nothing was set aside",
            "screen on, or give --force to stop anyway",
        )
    left = [q for q in queue.items.values() if q.state == "pending" and not q.decisions]
    for q in left:
        q.data["state"] = "set_aside"
        q.data["set_aside"] = {
            "rule": verdict["rule"],
            "consecutive_irrelevant": verdict["consecutive_irrelevant"],
            "forced": not verdict["says_stop"],
            "by": reviewer,
            "date": today.isoformat(),
        }
    if left:
        commit_changes(corpus.root, {QUEUE_FILE: queue.to_bytes()})
    return [q.id for q in left]


def not_retrieved(
    corpus: Corpus, qid: str, reviewer: str, note: str, today: dt.date | None = None
) -> Decided:
    """Record that QID was sought but neither its full text nor its abstract could be read;
    NOTE says where it was sought. PRISMA 2020 counts it among the reports not retrieved; it
    leaves the queue's open records and can still be decided once it is found."""
    today = today or dt.date.today()
    _plain(reviewer=reviewer, note=note)
    queue, q = _queued(corpus, qid)
    if q.state not in ("pending", "maybe"):
        raise DecisionRefused(
            "decision-refused",
            f"{qid} is {q.state}; only a pending or maybe record can be marked not retrieved",
        )
    if not reviewer.strip():
        raise DecisionRefused("decision-refused", "--reviewer is empty", usage=True)
    if not note.strip():
        raise DecisionRefused(
            "decision-refused",
            "--note is needed: where the full text and the abstract were sought",
            usage=True,
        )
    q.data["state"] = "not_retrieved"
    q.data["not_retrieved"] = {
        "by": reviewer.strip(),
        "date": today.isoformat(),
        "note": " ".join(note.split()),
    }
    commit_changes(corpus.root, {QUEUE_FILE: queue.to_bytes()})
    return Decided(qid, q.state, None, "marked not retrieved: PRISMA counts it as such")
