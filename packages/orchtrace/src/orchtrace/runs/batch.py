"""Checks and measures many small traces at once, as a run table's chunk holds them: one pass
of array operations over all of them rather than some three hundred small ones per trace.

The traces of a batch are joined into one. Each trace's edges are resolved among its own
events, and its agent names and tool call ids are prefixed with its number in the batch, so
that nothing of one trace can name another's; the union is then checked by semantics.py as
one trace is. It has no problem exactly when none of its traces has one, since every check
relates items that name each other. The traces that a union's problems name are examined
alone (examine.py) and the rest joined again; a union whose problems name no trace (a cycle
among its edges) is halved. Traces a batch does not take (see `_taken`) are examined alone
too. The measures of a clean union's traces are reduced from its columns by segments, and its
dependency graph is walked once for all of them: a trace's relaxations keep their order, so
ties break as they do alone. Run tables hold the same rows either way; tests/test_batch.py
compares both readings, and the measures with `metrics`, on every trace it has.
"""

from __future__ import annotations

import operator
import re
from itertools import repeat
from typing import Any

import msgspec
import numpy as np

from ..checks.semantics import check_costs, semantics
from ..checks.validate import Report
from ..core.lineage import Lineage
from ..core.model import Item, decode
from ..core.table import TARGETED, aligned, column, table_of
from ..measures.examine import PARALLEL_BYTES, examine
from ..measures.replay import DependencyCycle, _dependencies, _dependency_edges, ancestry, longest
from ..rewards import Rollout
from .batchmeasures import measures_of

Entry = tuple[int, str, bytes, Any]  # place, label, text and typed data of a trace
PREFIXED = ("call_id", "sender")  # fields of the events that name things
ITEM = re.compile(r"\$\.(events|edges|agents)\[(\d+)\]")


def _decoded(text: bytes) -> Any:
    """TEXT as typed structs in our format, with every key kept, else None. A trace that does
    is read so by trace.parse too: the survey artifact's format has no place for `agents`,
    which ours requires."""
    if len(text) >= PARALLEL_BYTES:  # examine.py gives it a second process
        return None
    try:
        return decode(text, "current")
    except msgspec.DecodeError:
        return None


def _taken(data: Any) -> bool:
    """Whether a typed trace in our format can join a batch: one with events."""
    return isinstance(data, Item) and bool(data.get("events"))


def rollouts(items: list[tuple[str, bytes]]) -> list[Rollout]:
    """The Rollout of each (label, text), in order, as `rewards.read` gives it for the rows of
    a run table (runtable.py): problems, data, the measures the rows and rewards read, and the
    replay they read."""
    out: list[Rollout | None] = [None] * len(items)
    batch: list[Entry] = []
    for i, (label, text) in enumerate(items):
        data = _decoded(text)
        if data is not None and _taken(data):
            batch.append((i, label, text, data))
        else:
            out[i] = Rollout.of(label, examine(text, label, True))
    for i, rollout in _measured(batch):
        out[i] = rollout
    return [r for r in out if r is not None]


def _alone(batch: list[Entry]) -> list[tuple[int, Rollout]]:
    return [(i, Rollout.of(label, examine(text, label, True))) for i, label, text, _ in batch]


def _measured(batch: list[Entry], tries: int = 3) -> list[tuple[int, Rollout]]:
    """The rollouts of BATCH, read together where they can be. The traces its problems name
    are examined alone, up to TRIES times (some checks name one trace a pass); then, or when
    they name none, it is halved."""
    if not batch:
        return []
    union = _Union([data for *_, data in batch])
    if union.clean:
        labels = [label for _, label, _, _ in batch]
        return [(e[0], r) for e, r in zip(batch, union.rollouts(labels), strict=True)]
    if len(batch) == 1:
        return _alone(batch)
    culprits = union.culprits() if tries else set()
    if not culprits:
        half = len(batch) // 2
        return _measured(batch[:half]) + _measured(batch[half:])
    rest = [entry for k, entry in enumerate(batch) if k not in culprits]
    return _alone([batch[k] for k in sorted(culprits)]) + _measured(rest, tries - 1)


def _prefixed(prefixes: list[str], values: list[Any]) -> list[Any]:
    return [v if v is None else p + v for p, v in zip(prefixes, values, strict=True)]


def _spread(prefixes: list[str], sizes: list[int]) -> list[str]:
    out: list[str] = []
    for p, n in zip(prefixes, sizes, strict=True):
        out += [p] * n
    return out


def _segment_last(mask: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Per segment (all non-empty), the last index where MASK holds, -1 if none."""
    return np.maximum.reduceat(np.where(mask, np.arange(len(mask)), -1), starts)


class _Union:
    """The traces DATAS joined into one table, checked, and when clean, replayed."""

    def __init__(self, datas: list[Any]) -> None:
        self.datas = datas
        prefixes = [f"{k}:" for k in range(len(datas))]
        events: list[Any] = []
        edges: list[Any] = []
        agents: list[Any] = []
        for d in datas:
            events += d.events
            edges += d.edges
            agents += d.agents
        sizes = [len(d.events) for d in datas]
        ev_prefix = _spread(prefixes, sizes)
        ag_prefix = _spread(prefixes, [len(d.agents) for d in datas])
        self.events, self.sizes = events, sizes
        self.starts = np.cumsum([0, *sizes[:-1]])
        self.seg = np.repeat(np.arange(len(datas)), sizes)
        ids, who = column(events, "id"), column(events, "agent")
        tb = table_of(  # the union's counts per type are no trace's: see kinds()
            events,
            ids=ids,  # as written: edges are resolved trace by trace (see _resolve)
            types=column(events, "type"),
            agents=list(map(operator.add, ev_prefix, who)),
            t=column(events, "t"),
            edge_types=column(edges, "type"),
            listed=list(map(operator.add, ag_prefix, column(agents, "id"))),
        )
        self.ids, self.who = ids, who
        codes, code = tb.codes, tb.code
        at = np.flatnonzero(np.isin(codes, [code[k] for k in TARGETED if k in code]))
        chosen = at.tolist()
        targets = aligned([events[i] for i in chosen], "target")
        tb.targets = np.full(len(ids), -1, dtype=np.int64)
        tb.targets[at] = tb.agent_codes(_prefixed([ev_prefix[i] for i in chosen], targets))
        self.no_one = {i for i, x in zip(chosen, targets, strict=True) if x == ""}  # targets ""
        # names that the checks match within a trace
        tb.fields.update((k, _prefixed(ev_prefix, aligned(events, k))) for k in PREFIXED)
        self.tb, self.report = tb, Report("batch", "current")
        self.failing: set[int] = set()  # traces found failing outside the report
        self.counted: list[dict[str, int]] | None = None
        self.walked: list[list[int]] | None = None
        self.columns: dict[str, list[Any]] | None = None
        self.offsets = {
            "events": np.cumsum(sizes),
            "edges": np.cumsum([len(d.edges) for d in datas]),
            "agents": np.cumsum([len(d.agents) for d in datas]),
        }
        self.resolved = self._resolve(edges)
        if self.resolved:
            self.clean = False
            return
        parents = [
            {"parent": None if not x else p + x}  # an empty name names no one
            for p, x in zip(ag_prefix, aligned(agents, "parent"), strict=True)
        ]
        bad: dict[str, set[int]] = {"events": set(), "edges": set(), "agents": set()}
        self.lineage = Lineage.of(tb, parents, bad)
        rep = self.report
        semantics(rep, {"events": events, "edges": edges, "agents": agents}, bad, tb, self.lineage)
        self.clean = not rep.counts and self._costs_hold() and self._replay()

    def _resolve(self, edges: list[Any]) -> set[int]:
        """Resolves the edge ends of each trace among its own events; returns the traces with
        a repeated event id or an edge end that names no event (errors of theirs)."""
        tb, sizes, ids = self.tb, self.sizes, self.ids
        sources, targets = column(edges, "source"), column(edges, "target")
        found: list[int] = []
        found_targets: list[int] = []
        failed = set()
        a = e = 0
        for k, d in enumerate(self.datas):
            n, m = sizes[k], len(d.edges)
            index = dict(zip(ids[a : a + n], range(a, a + n), strict=True))
            if len(index) < n:
                failed.add(k)
            found += map(index.get, sources[e : e + m], repeat(-1, m))
            found_targets += map(index.get, targets[e : e + m], repeat(-1, m))
            a, e = a + n, e + m
        tb.source = np.array(found, dtype=np.int64)
        tb.target = np.array(found_targets, dtype=np.int64)
        if failed or (tb.source.size and min(tb.source.min(), tb.target.min()) < 0):
            failed.update(
                np.unique(
                    np.searchsorted(
                        self.offsets["edges"],
                        np.flatnonzero((tb.source < 0) | (tb.target < 0)),
                        side="right",
                    )
                ).tolist()
            )
        return failed

    def culprits(self) -> set[int]:
        """Traces with problems: those the union's problems name by the items they point at
        (not every one, when a problem names no item or a code was reported past the limit)."""
        if self.resolved:
            return self.resolved
        found = set(self.failing)
        for p in self.report.items:
            where = ITEM.match(p.pointer)
            if where is not None:
                section, index = where.groups()
                found.add(int(np.searchsorted(self.offsets[section], int(index), side="right")))
        return found

    def field(self, key: str) -> list[Any]:
        """The events' values under KEY as written (the table holds PREFIXED ones prefixed)."""
        return aligned(self.events, key) if key in PREFIXED else self.tb.field(key)

    def _replay(self) -> bool:
        """The walk of the union's dependency graph; False when it loops."""
        tb, starts, seg = self.tb, self.starts, self.seg
        n, times = len(tb.ids), tb.times
        ends = np.array(self.field("t_end"), dtype=np.float64)  # None becomes NaN
        self.durations = np.add.reduceat(np.isnan(ends), starts) == 0
        durations = self.durations[seg]
        self.ends = ends
        self.weights = np.where(durations, ends - times, 1.0)
        lane_ends = np.where(durations, ends, times)
        stops, aggregates = tb.of_type("stop"), tb.of_type("aggregate")
        first_stop = np.full(len(self.datas), -1, dtype=np.int64)
        has_stop, first = np.unique(seg[stops], return_index=True)
        first_stop[has_stop] = stops[first]
        self.first_stop = first_stop
        last_aggregate = np.full(len(self.datas), -1, dtype=np.int64)
        if aggregates.size:  # the latest of each trace, the last listed of those at one time
            by = aggregates[np.lexsort((aggregates, times[aggregates], seg[aggregates]))]
            is_last = np.append(seg[by][1:] != seg[by][:-1], True)
            last_aggregate[seg[by[is_last]]] = by[is_last]
        self.last_aggregate = last_aggregate
        latest = _segment_last(times == np.maximum.reduceat(times, starts)[seg], starts)
        # the stop event, else the last aggregate, else the last event
        final = np.where(
            first_stop >= 0, first_stop, np.where(last_aggregate >= 0, last_aggregate, latest)
        )
        keep = _dependency_edges(tb)
        try:
            pred_of, node, size = _dependencies(
                times, lane_ends, tb.who, tb.source[keep], tb.target[keep]
            )
        except DependencyCycle as exc:  # an error of the trace the loop runs through
            events = [x for x in exc.nodes if x < n]
            self.failing = {int(seg[events[0]])} if events else set()
            return False
        weights = np.concatenate((self.weights, np.zeros(size - n)))
        top, best = longest(pred_of, node, weights)
        dist = np.array(top[:n]) + self.weights
        self.end = _segment_last(dist == np.maximum.reduceat(dist, starts)[seg], starts)
        self.span = dist[self.end]
        self.best = best
        marks = ancestry(pred_of, node, size, final.tolist(), last_aggregate.tolist())
        self.marks = np.frombuffer(bytes(marks[:n]), dtype=np.uint8)
        return True

    def chains(self) -> list[list[int]]:
        """Each trace's critical chain, as indexes of its events (see replay._walk)."""
        if self.walked is None:
            n, best, starts = len(self.ids), self.best, self.starts.tolist()
            self.walked = []
            for a, end in zip(starts, self.end.tolist(), strict=True):
                chain = []
                while end != -1:
                    if end < n:
                        chain.append(end - a)
                    end = best[end]
                chain.reverse()
                self.walked.append(chain)
        return self.walked

    def event_columns(self, fields: tuple[str, ...]) -> dict[str, list[Any]]:
        """The union's columns of a run table's events table (runrows.py), but source,
        trace_id and seq: each event's id, type, agent, start, place on its trace's critical
        chain, usefulness, and its FIELDS."""
        if self.columns is None:
            critical = np.zeros(len(self.ids), dtype=bool)
            for a, chain in zip(self.starts.tolist(), self.chains(), strict=True):
                critical[[a + i for i in chain]] = True
            self.columns = {
                "id": self.ids,
                "type": self.tb.types,
                "agent": self.who,
                "t": self.tb.times.tolist(),
                "critical": critical.tolist(),
                "useful": ((self.marks & 1) > 0).tolist(),
            }
            self.columns.update((name, self.field(name)) for name in fields)
        return self.columns

    def rollouts(self, labels: list[str]) -> list[Rollout]:
        """The Rollout of each trace, labelled LABELS: measures as `_measures` gives them."""
        kinds, measures = self.kinds(), measures_of(self)
        return [
            Rollout(label, [], data, measures[k], View(self, k, kinds[k]))
            for k, (label, data) in enumerate(zip(labels, self.datas, strict=True))
        ]

    def kinds(self) -> list[dict[str, int]]:
        """Each trace's events per type (the types it has)."""
        if self.counted is None:
            tb, count = self.tb, len(self.datas)
            width = len(tb.code)
            flat = np.bincount(self.seg * width + tb.codes, minlength=count * width)
            kinds = list(tb.code)
            self.counted = [
                {kinds[c]: x for c, x in enumerate(row) if x}
                for row in flat.reshape(count, width).tolist()
            ]
        return self.counted

    def _costs_hold(self) -> bool:
        """Whether each trace's declared cost totals match its events (semantics.check_costs,
        a check of the trace's own); the traces they do not are failing."""
        for k, d in enumerate(self.datas):
            costs = d.get("costs")
            if costs is not None:
                a = int(self.starts[k])
                tokens = self.field("tokens")[a : a + self.sizes[k]] if "tokens" in costs else []
                rep = Report("trace", "current")
                check_costs(rep, costs, self.kinds()[k], tokens)
                if rep.counts:
                    self.failing.add(k)
        return not self.failing


class View:
    """Trace K of a union, read as runrows.py and rewards.py read a Replay and its table
    (both are this object)."""

    __slots__ = ("a", "agents", "b", "ends", "ids", "k", "kinds", "times", "types", "union")

    def __init__(self, union: _Union, k: int, kinds: dict[str, int]) -> None:
        self.union, self.k, self.kinds = union, k, kinds
        a = self.a = int(union.starts[k])
        b = self.b = a + union.sizes[k]
        self.ids, self.types, self.agents = union.ids[a:b], union.tb.types[a:b], union.who[a:b]
        self.times, self.ends = union.tb.times[a:b], union.ends[a:b]

    @property
    def table(self) -> View:
        return self

    @property
    def last_aggregate(self) -> int:
        last = int(self.union.last_aggregate[self.k])
        return last - self.a if last >= 0 else -1

    def field(self, key: str) -> list[Any]:
        return self.union.field(key)[self.a : self.b]

    def of_type(self, kind: str) -> np.ndarray:
        code = self.union.tb.code.get(kind)
        if code is None:
            return np.zeros(0, dtype=np.int64)
        return np.flatnonzero(self.union.tb.codes[self.a : self.b] == code)

    def walk(self) -> tuple[float, list[int], bytes]:
        """As Replay.walk: the critical path's length and events, and the ancestry marks."""
        u = self.union
        return float(u.span[self.k]), u.chains()[self.k], u.marks[self.a : self.b].tobytes()

    def event_columns(self, fields: tuple[str, ...]) -> dict[str, list[Any]]:
        """The trace's part of `_Union.event_columns`."""
        columns = self.union.event_columns(fields)
        return {name: values[self.a : self.b] for name, values in columns.items()}
