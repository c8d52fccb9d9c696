"""`litcorpus search report`: the body of the update's pull request, in Markdown: what each
saved search's latest run found (records, duplicates, new, unscreenable) and which saved
searches are behind, the top of the queue with relevance and suggested tags, the stopping
rule's estimate, and the PRISMA 2020 update flow as it would stand. Reads the corpus, the
search log, the queue and the drafts; writes nothing (the command writes the file).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from ..model.corpus import Corpus
from ..model.queue import load_queue
from ..model.saved import load_saved, query_families
from ..model.searches import load_searches
from ..publish.escape import md_text
from ..screening.rank import rank, said_estimate
from ..screening.store import Store
from .draft import DRAFTS, suggester_for

SHOWN = 20


def report(corpus: Corpus, today: dt.date | None = None) -> str:
    """The pull request's body for CORPUS as it stands after an update."""
    from ..analysis.result import analyse

    today = today or dt.date.today()
    root, tax = corpus.root, corpus.taxonomy
    saved = load_saved(root, query_families(tax))
    searches = load_searches(root, today, tax.views.screening.axes.get("family_axis", ""))
    runs = [s for s in searches.items.values() if s.saved]
    last = max((s.date_run for s in runs), default=None)
    lines = ["## Saved searches", ""]
    if last is None:
        lines.append("No saved search has run yet (`litcorpus search add`, then `search update`).")
    else:
        lines += [
            f"Runs of {last}:",
            "",
            "| search | saved | window | found | duplicates | untitled | new |",
            "| --- | --- | --- | ---: | ---: | ---: | ---: |",
        ]
        for s in runs:
            if s.date_run != last or s.window is None:
                continue
            new = s.records_found - s.duplicates - s.unscreenable
            lines.append(
                f"| {s.id} | {s.saved} | {s.window[0]} to {s.window[1]} | {s.records_found} | "
                f"{s.duplicates} | {s.unscreenable} | {new} |"
            )
    ends = {s.saved: s.window[1] for s in runs if s.window}
    behind = [x for x in saved.items.values() if ends.get(x.id, x.start) < today]
    if behind:
        lines += ["", "Behind (failed or never run; `litcorpus search update` goes on from here):"]
        lines += [f"- {x.id} ({x.source}): searched to {ends.get(x.id, 'never')}" for x in behind]
    queue = load_queue(root, tax)
    ranked = rank(corpus, queue, Store(root).abstracts())
    verdict = ranked.verdict()
    lines += ["", "## The queue, most relevant first", ""]
    lines.append(
        f"{verdict['left']} records to screen. Estimated relevant among them: "
        f"{said_estimate(verdict)}. Stopping rule: {verdict['consecutive_irrelevant']} "
        f"consecutive irrelevant of {verdict['threshold']}."
    )
    top = ranked.records[:SHOWN]
    if top:
        suggester, _ = suggester_for(corpus)
        lines += [
            "",
            "| id | relevance | title | suggested tags | draft |",
            "| --- | ---: | --- | --- | --- |",
        ]
        for q, score in top:
            tags = _tags(suggester.suggest(str(q.data.get("title", ""))))
            draft = f"`{DRAFTS}/{q.id}.yaml`" if (root / DRAFTS / f"{q.id}.yaml").exists() else ""
            title = md_text(str(q.data.get("title", "")))[:120]
            lines.append(f"| {q.id} | {score:.2f} | {title} | {tags} | {draft} |")
    lines += ["", "## PRISMA 2020 update flow", ""]
    flow = analyse(corpus, stats=False).update
    lines += _flow(flow) if flow else ["No release to update from."]
    lines += ["", "Suggested tags are a classifier's guesses, never tags: read each paper."]
    return "\n".join(lines) + "\n"


def _tags(suggestions: list[Any]) -> str:
    parts = []
    for s in suggestions:
        value = ", ".join(s.value) if isinstance(s.value, list) else s.value
        if value:
            parts.append(f"{s.axis} {md_text(str(value))} ({s.confidence:.2f})")
    return "; ".join(parts)


def _flow(update: dict[str, Any]) -> list[str]:
    s, o, before = update["searches"], update["other"], update["previous"]
    return [
        f"- previous release {before['version']}: {before['studies']} studies",
        f"- databases: {s['identified']} identified, {s['duplicates']} duplicates and "
        f"{s['unscreenable']} untitled removed, {s['automation']} set aside by the stopping "
        f"rule, {s['awaiting']} awaiting screening, {s['included']} included",
        f"- other methods: {o['identified']} identified, {o['duplicates']} duplicates removed, "
        f"{o['awaiting']} awaiting, {o['included']} included",
        f"- new studies {update['new_studies']}, total {update['total_studies']}",
    ]
