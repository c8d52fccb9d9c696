"""Replays a trace's dependency graph: the critical path and each event's ancestry.

Reads the event columns (table.py) and writes plain values: the critical path's length and events,
and ancestry marks. Dependencies are every edge except safety_flow, plus each agent's own sequence:
an event depends on the agent's events that end by its start and started before it (in steps mode,
which has no ends, those that start before it). Events of one agent that overlap, or start together,
are parallel, so a critical path never exceeds the makespan and the order events are listed in does
not matter. A large trace's second process (worker.py) runs the replay beside the checks: it reads
the trace again for its ids, resolves the edge ends, and walks the graph once it has the weights.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from ..checks.semantics import find_cycle
from ..core.model import decode_ids
from ..core.table import EventTable, locate
from ..core.worker import Worker

NON_DEPENDENCY = frozenset({"safety_flow"})


def _chunks(*columns: np.ndarray, size: int = 1 << 18) -> Iterator[list[list[Any]]]:
    """The columns as Python lists, a slice at a time: loops run fastest over lists, and a
    slice keeps the memory of a few hundred thousand numbers rather than millions."""
    for start in range(0, len(columns[0]), size):
        yield [c[start : start + size].tolist() for c in columns]


def _lanes(
    codes: np.ndarray, t: np.ndarray, end: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each agent's own sequence as edges: an event depends on every event of its agent that ends by
    its start and started before it, and one that takes time on the agent's instants at its start
    too (events of one agent that overlap, or start together, run side by side). Rather than an edge
    for every such pair, the lane's events in order of their ends hand on through a chain of prefix
    nodes: the k-th stands for the first k+1 events, and is the k-th event itself when that event
    depends on all before it (a lane of one thing after another needs no other node), else a joint
    node (numbered from len(codes) on) fed by the one before and by the k-th event. An event depends
    on the prefix node of the events that end before it starts. Returns sources, targets, and each
    joint node's place in a topological order that file order extends (see _dependencies)."""
    n = len(codes)
    none = np.zeros(0, np.int64)
    if not n:
        return none, none, none
    end = np.maximum(end, t)  # an event never ends before it starts
    # the lane's events by (end, start), stable in file order, with each event's query
    # (start, start) placed before any event of an equal key: what sorts before an event's
    # query ends by its start and started before it
    # (an event that takes time also waits for its agent's instants at its start)
    lasts = (end > t).astype(np.int8)
    both = np.lexsort((np.repeat([1, 0], n), np.concatenate((np.zeros(n, np.int8), lasts)),
                       np.tile(t, 2), np.concatenate((end, t)), np.tile(codes, 2)))  # fmt: skip
    is_event = both < n
    before: np.ndarray = np.cumsum(is_event) - is_event  # events sorted before each position
    order = both[is_event]  # events by lane, then (end, start)
    lane = codes[order]
    heads = np.flatnonzero(np.append(True, lane[1:] != lane[:-1]))
    lane_start = np.repeat(heads, np.diff(np.append(heads, n)))  # per sorted position
    position = np.empty(n, np.int64)
    position[order] = np.arange(n)
    queries = both[~is_event] - n
    prefix = np.empty(n, np.int64)  # per event: how many of its lane's events precede it
    prefix[queries] = before[~is_event] - lane_start[position[queries]]
    k = np.arange(n) - lane_start  # each sorted position's index in its lane
    joint = prefix[order] != k
    node = order.copy()  # the prefix node of each sorted position
    node[joint] = n + np.arange(np.count_nonzero(joint))
    waits = np.flatnonzero(prefix > 0)  # events after some of their lane's
    at = lane_start[position[waits]] + prefix[waits] - 1
    fed = np.flatnonzero(joint)
    source = np.concatenate((node[at], node[fed - 1], order[fed]))
    target = np.concatenate((waits, node[fed], node[fed]))
    # a joint node sits after the latest (in file order) of the events it stands for
    offset = lane.astype(np.int64) * n
    latest = np.maximum.accumulate(order + offset) - offset
    return source, target, latest[fed]


def _walk(
    pred_of: np.ndarray,
    node: np.ndarray,
    weights: np.ndarray,
    n: int,
    final: int,
    last_aggregate: int,
) -> tuple[float, list[int], bytes]:
    """The two passes over the dependencies PRED_OF -> NODE (sorted by the rank of NODE):
    the critical path's length and events, and each event's ancestry marks (1: an ancestor of
    FINAL, 2: of LAST_AGGREGATE; a node counts as its own ancestor)."""
    top, best = longest(pred_of, node, weights)
    dist = np.array(top[:n]) + weights[:n]
    end = int(np.flatnonzero(dist == dist.max())[-1]) if n else -1
    span = float(dist[end]) if n else 0.0
    chain = []
    while end != -1:
        if end < n:
            chain.append(end)
        end = best[end]
    chain.reverse()
    mark = ancestry(pred_of, node, len(weights), [final], [last_aggregate])
    return span, chain, bytes(mark[:n])


def longest(
    pred_of: np.ndarray, node: np.ndarray, weights: np.ndarray
) -> tuple[list[float], list[int]]:
    """The longest path's length into each node (its own weight left out) and the predecessor
    it comes through (-1 for none), over the dependencies PRED_OF -> NODE sorted by the rank
    of NODE: each edge sees its source finished."""
    size = len(weights)
    top, best = [0.0] * size, [-1] * size
    for pred_chunk, node_chunk, pred_weight in _chunks(pred_of, node, weights[pred_of]):
        for p, v, w in zip(pred_chunk, node_chunk, pred_weight, strict=True):
            d = top[p] + w
            if d > top[v]:
                top[v], best[v] = d, p
    return top, best


def ancestry(
    pred_of: np.ndarray, node: np.ndarray, size: int, finals: list[int], aggregates: list[int]
) -> bytearray:
    """Each node's marks: 1 if it is an ancestor of one of FINALS, 2 of one of AGGREGATES (-1:
    none); the same edges as `longest` in reverse, so a node's marks are complete before it
    passes them on."""
    mark = bytearray(size)
    for seeds, bit in ((finals, 1), (aggregates, 2)):
        for x in seeds:
            if x >= 0:
                mark[x] |= bit
    for pred_chunk, node_chunk in _chunks(pred_of[::-1], node[::-1]):
        for p, v in zip(pred_chunk, node_chunk, strict=True):
            if mark[v]:
                mark[p] |= mark[v]
    return mark


class DependencyCycle(ValueError):
    """The dependencies loop, which the checks allow: edges that are not causal, spawn, return
    or aggregate, among events that start together (or from an event to itself)."""

    def __init__(self, nodes: list[int]) -> None:
        super().__init__("the dependencies form a cycle")
        self.nodes = nodes


def _ranks(n: int, source: np.ndarray, target: np.ndarray) -> np.ndarray:
    """A topological rank of every node (Kahn's algorithm); raises on a cycle."""
    succ: list[list[int]] = [[] for _ in range(n)]
    indegree = [0] * n
    for s, d in zip(source.tolist(), target.tolist(), strict=True):
        succ[s].append(d)
        indegree[d] += 1
    queue = deque(i for i, d in enumerate(indegree) if d == 0)
    order = []
    while queue:
        node = queue.popleft()
        order.append(node)
        for nxt in succ[node]:
            indegree[nxt] -= 1
            if indegree[nxt] == 0:
                queue.append(nxt)
    if len(order) != n:
        raise DependencyCycle(find_cycle(n, succ) or [])
    rank = np.empty(n, dtype=np.int64)
    rank[np.array(order, dtype=np.int64)] = np.arange(n)
    return rank


def _dependencies(
    t: np.ndarray, end: np.ndarray, codes: np.ndarray, source: np.ndarray, target: np.ndarray
) -> tuple[np.ndarray, np.ndarray, int]:
    """The dependency graph of events at times T to END by agents CODES, with the edges
    SOURCE -> TARGET: every edge of it as (pred_of, node), sorted so that a node's
    predecessors come before it, and the node count (events, then joint nodes)."""
    n = len(t)
    lane_source, lane_target, latest = _lanes(codes, t, end)
    size = n + len(latest)  # events, then the joint nodes of each lane
    source = np.concatenate([source, lane_source])
    target = np.concatenate([target, lane_target])
    # one edge per pair of nodes (an edge often repeats a lane step), first one kept in place
    first_of_pair = np.unique(target * max(size, 1) + source, return_index=True)[1]
    first_of_pair.sort()
    source, target = source[first_of_pair], target[first_of_pair]
    # an event at twice its file position; a joint node just after the latest event it
    # stands for, joint nodes of one lane in their order
    scale = n + 1
    place = np.concatenate(
        (2 * np.arange(n) * scale, (2 * latest + 1) * scale + np.arange(len(latest)))
    )
    if np.all(place[source] < place[target]):  # file order is already a topological order
        by_target = np.argsort(place[target], kind="stable")
    else:
        by_target = np.argsort(_ranks(size, source, target)[target], kind="stable")
    return source[by_target], target[by_target], size


def _replay(
    t: np.ndarray,
    end: np.ndarray,
    codes: np.ndarray,
    source: np.ndarray,
    target: np.ndarray,
    weights: np.ndarray,
    final: int,
    last_aggregate: int,
) -> tuple[float, list[int], bytes]:
    """Builds the dependency graph and walks it (see `_walk`); arrays in, plain values out, so
    that it can run in a second process."""
    pred_of, node, size = _dependencies(t, end, codes, source, target)
    weights = np.concatenate((weights, np.zeros(size - len(t))))
    return _walk(pred_of, node, weights, len(t), final, last_aggregate)


def _dependency_edges(tb: EventTable) -> np.ndarray:
    """Which edges are dependencies: all but safety flows."""
    types = tb.edge_types
    return ~np.fromiter(map(NON_DEPENDENCY.__contains__, types), bool, len(types))


@dataclass(slots=True)
class Replay:
    """A replay under way: the event weights, and the walk of the dependency graph (critical
    path and ancestry), which a large trace's worker process computes meanwhile."""

    table: EventTable
    worker: Worker | None
    ends: np.ndarray  # t_end, NaN where absent
    durations: bool
    lane_ends: np.ndarray  # the ends the lanes order by: t_end in durations mode, else t
    weights: np.ndarray
    final: int
    last_aggregate: int
    walked: tuple[float, list[int], bytes] | None = None

    def walk(self) -> tuple[float, list[int], bytes]:
        """The critical path's length and events, and the ancestry marks (see `_walk`); walked
        once, then kept for whoever asks again (the rewards read the marks after the metrics)."""
        if self.walked is None:
            self.walked = self._walk()
        return self.walked

    def _walk(self) -> tuple[float, list[int], bytes]:
        sent = self.worker.receive() if self.worker else None
        if sent is not None:
            return cast(tuple[float, list[int], bytes], sent)
        tb = self.table
        keep = _dependency_edges(tb)
        return _replay(
            tb.times,
            self.lane_ends,
            tb.who,
            tb.source[keep],
            tb.target[keep],
            self.weights,
            self.final,
            self.last_aggregate,
        )


def start_replay(tb: EventTable, worker: Worker | None = None) -> Replay:
    """Starts replaying the events of TB, in WORKER if given (which reads the same trace);
    `metrics` finishes it. The edge ends need not be resolved yet."""
    t, n = tb.times, len(tb.times)
    ends = np.array(tb.field("t_end"), dtype=np.float64)  # None becomes NaN
    durations = n > 0 and not np.isnan(ends).any()
    weights = ends - t if durations else np.ones(n)
    stops, aggregates = tb.of_type("stop"), tb.of_type("aggregate")
    last_aggregate = (
        int(aggregates[np.lexsort((aggregates, t[aggregates]))[-1]]) if aggregates.size else -1
    )
    final = -1  # the stop event, else the last aggregate, else the last event
    if stops.size:
        final = int(stops[0])
    elif aggregates.size:
        final = last_aggregate
    elif n:
        final = int(np.flatnonzero(t == t.max())[-1])
    lane_ends = ends if durations else t
    if worker is not None:
        who = tb.who.astype(np.int32)  # half the bytes through the pipe
        worker.send((t, lane_ends, who, weights, final, last_aggregate, _dependency_edges(tb)))
    return Replay(tb, worker, ends, durations, lane_ends, weights, final, last_aggregate)


def second_reading(text: str | bytes) -> Generator[Any, Any, None]:
    """The work of a large trace's worker process (see examine.py). It reads TEXT again for
    its ids alone and yields the edge ends resolved to events (as `resolve_ends` needs them);
    sent the replay's inputs (see `start_replay`), it yields the walk (as `Replay.walk`)."""
    ids, wanted = decode_ids(text)
    ends, repeats = locate(ids, wanted)
    del ids, wanted
    t, lane_ends, who, weights, final, last_aggregate, keep = yield ends, repeats
    m = len(keep)
    yield _replay(t, lane_ends, who, ends[:m][keep], ends[m:][keep], weights, final, last_aggregate)
