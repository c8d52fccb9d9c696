"""Checks, and measures, one trace: the one place that parses it, runs a second process for a
large one, validates it and replays it.

Reads a trace's text (or a parsed Document); returns its problems, its measures when they
were asked for and it has no errors, and its data in our names (for the HTML view). A trace of
PARALLEL_BYTES or more gets a second process (worker.py), forked before decoding, that reads it
again for its ids, resolves the edge ends and replays the dependency graph while this one runs
the checks; if it fails, this process does its work (the answers are the same either way). The
check for repeated keys waits until the worker has what it replays, and a trace that fails it is
read again as plain JSON, as a small one is at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..checks.semantics import semantics
from ..checks.validate import Report, structure
from ..core.formats import current_view
from ..core.lineage import Lineage
from ..core.model import Item
from ..core.table import columns, edge_ends, locate, resolve_ends
from ..core.trace import Document, TraceProblem, parse
from ..core.worker import Worker
from .metrics import metrics
from .replay import DependencyCycle, Replay, second_reading, start_replay

PARALLEL_BYTES = 16 * 1024 * 1024  # below this, a second process costs more than it saves


@dataclass(slots=True)
class Examined:
    problems: list[TraceProblem]
    measures: dict[str, Any] | None  # when asked for, of a trace without errors
    data: Any  # the trace in our names; None when it could not be read
    replay: Replay | None = None  # the replay behind the measures (its walk is kept)

    @property
    def failed(self) -> bool:
        return any(p.severity == "error" for p in self.problems)


def examine(text: bytes | str, label: str, measure: bool = False) -> Examined:
    """Every problem of the trace TEXT, and its measures if MEASURE."""
    worker = Worker.start(second_reading, text) if len(text) >= PARALLEL_BYTES else None
    try:
        return examine_document(parse(text, label, defer_keys=worker is not None), measure, worker)
    finally:
        if worker is not None:
            worker.close(kill=True)  # whatever it still computes is not wanted


def examine_document(
    doc: Document, measure: bool = False, worker: Worker | None = None
) -> Examined:
    """Every problem of DOC, and its measures if MEASURE; WORKER, when given, reads the same
    trace (see the module docstring)."""
    if not isinstance(doc.data, Item):
        worker = None  # it reads typed structs only: plain data is checked item by item here
    rep = Report(doc.label, doc.format)
    for p in doc.problems:
        rep.add(p.pointer, p.code, p.message, p.hint)
    data = doc.data
    if data is None:
        return Examined(rep.finish(), None, None)
    if not isinstance(data, dict | Item):
        rep.add("$", "schema", "a trace is a JSON object")
        return Examined(rep.finish(), None, None)
    bad = structure(rep, data)
    if rep.counts["non-finite"]:
        return Examined(rep.finish(), None, None)
    if doc.format == "artifact" and isinstance(data, dict):
        data = current_view(data, bad.get("events", set()))
    # the sections that are lists, with their malformed items left out
    listed = {k: data[k] if k in bad else [] for k in ("events", "edges", "agents")}
    tb = columns(
        listed, bad.get("events", set()), bad.get("edges", set()), bad.get("agents", set())
    )
    replay = None
    if measure and not any(bad.values()):  # the worker replays while the checks run
        replay = start_replay(tb, worker)
    located = worker.receive() if worker is not None else None  # frees it to replay
    if (again := _rechecked(doc, measure)) is not None:  # while the worker replays
        return again
    if located is None:
        located = locate(tb.ids, edge_ends(listed, bad.get("edges", set())))
    resolve_ends(tb, located)
    lineage = Lineage.of(tb, data.get("agents") if "agents" in bad else None, bad)
    semantics(rep, data, bad, tb, lineage)
    if not measure or rep.errors():
        return Examined(rep.finish(), None, data)
    try:
        measures = metrics(data, tb, replay, lineage)
    except DependencyCycle as exc:
        loop = [*exc.nodes, *exc.nodes[:1]]
        events = " -> ".join(tb.ids[i] for i in loop if i < len(tb.ids))
        message = f"the dependencies form a cycle, so no critical path exists: {events}"
        rep.add("$.edges", "dependency-cycle", message)
        return Examined(rep.finish(), None, data)
    return Examined(rep.finish(), measures, data, replay)


def validate(doc: Document) -> list[TraceProblem]:
    """Every problem of one parsed trace (parse problems included), as `orchtrace validate`
    reports them."""
    return examine_document(doc).problems


def _rechecked(doc: Document, measure: bool) -> Examined | None:
    """The plain reading's answer when DOC's deferred key check fails (a key repeated: what a
    worker computes is not wanted), else None."""
    plain = doc.recheck() if doc.recheck is not None else None
    return examine_document(plain, measure) if plain is not None else None
