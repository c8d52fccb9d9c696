"""Replays a valid orchestration trace as an event graph and measures its orchestration.

Definitions (also in traces/METRICS.md):
- Dependencies: every edge except safety_flow, plus each agent's own sequence: an event
  depends on the agent's events at the latest earlier start time (events of one agent that
  start together are parallel, so the order they are listed in does not matter).
- Weight of an event: its duration (t_end - t) when every event has t_end, else 1 (a step).
- Work W: total weight. Critical path S: the heaviest dependency chain; ideal speedup W / S.
- Observed speedup: W / makespan (last t_end - first t), duration traces only.
- Peak concurrency: most agents alive at once (spawn, or first event, to return or despawn, or
  last event). Fan-out: spawns per spawn decision (the decision with an edge into the spawn,
  else the spawning agent's spawns at one instant). Spawn depth: longest parent chain.
- Finish rate: spawned agents that return or are despawned. Message density: distinct
  sender-receiver pairs over k(k-1) for k agents.
- Final answer: the stop event, else the last aggregate, else the last event. Aggregation
  coverage: spawned agents with an event among the ancestors of the last aggregate. Wasted
  work: weight outside the final answer's ancestry.
- Critical steps (Kimi PARL): per stage, the orchestrator's steps plus the longest sub-agent's
  steps, summed over stages; a stage ends at each orchestrator aggregate.
"""

from __future__ import annotations

import statistics
from collections import defaultdict, deque
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from .model import decode_ids
from .table import EventTable, aligned, event_table, first_of, locate
from .trace import Document, TraceProblem
from .validate import find_cycle, validate_table
from .worker import Worker

NON_DEPENDENCY = frozenset({"safety_flow"})


def _chunks(*columns: np.ndarray, size: int = 1 << 18) -> Iterator[list[list[Any]]]:
    """The columns as Python lists, a slice at a time: loops run fastest over lists, and a
    slice keeps the memory of a few hundred thousand numbers rather than millions."""
    for start in range(0, len(columns[0]), size):
        yield [c[start : start + size].tolist() for c in columns]


def _lanes(
    codes: np.ndarray, t: np.ndarray, order: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each agent's own sequence as edges: an event depends on the agent's events at the latest
    earlier start time. Events of one agent that start together run in parallel; a group of
    them hands on through one joint node (numbered from len(codes) on) rather than through an
    edge for every pair. Returns sources, targets, and each joint node's group's last file
    position, which places it in file order."""
    n = len(codes)
    if not n:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64)
    lane, start = codes[order], t[order]
    new = np.r_[True, (lane[1:] != lane[:-1]) | (start[1:] != start[:-1])]
    group = np.cumsum(new) - 1  # the group of each event, in lane order
    heads = np.flatnonzero(new)
    sizes = np.diff(np.r_[heads, n])
    has_next = np.r_[lane[heads][1:] == lane[heads][:-1], False]
    joint = (sizes > 1) & has_next
    joint_id = np.full(len(heads), -1, dtype=np.int64)
    joint_id[joint] = n + np.arange(np.count_nonzero(joint))
    hands_on = np.where(sizes > 1, joint_id, order[heads])  # a group's single event, or joint
    follows = (group > 0) & has_next[group - 1]  # events with an earlier group in their lane
    into_joint = joint[group]
    source = np.r_[hands_on[group[follows] - 1], order[into_joint]]
    target = np.r_[order[follows], joint_id[group[into_joint]]]
    return source, target, np.maximum.reduceat(order, heads)[joint]


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
    size = len(weights)
    # longest path: edges sorted by the rank of their target see their source finished
    top, best = [0.0] * size, [-1] * size
    for pred_chunk, node_chunk, pred_weight in _chunks(pred_of, node, weights[pred_of]):
        for p, v, w in zip(pred_chunk, node_chunk, pred_weight, strict=True):
            d = top[p] + w
            if d > top[v]:
                top[v], best[v] = d, p
    dist = np.array(top[:n]) + weights[:n]
    end = int(np.flatnonzero(dist == dist.max())[-1]) if n else -1
    span = float(dist[end]) if n else 0.0
    chain = []
    while end != -1:
        if end < n:
            chain.append(end)
        end = best[end]
    chain.reverse()
    # ancestry: the same edges in reverse, so a node's marks are complete before it passes them on
    mark = bytearray(size)
    if final >= 0:
        mark[final] |= 1
    if last_aggregate >= 0:
        mark[last_aggregate] |= 2
    for pred_chunk, node_chunk in _chunks(pred_of[::-1], node[::-1]):
        for p, v in zip(pred_chunk, node_chunk, strict=True):
            if mark[v]:
                mark[p] |= mark[v]
    return span, chain, bytes(mark[:n])


def _spawn_depth(parent: np.ndarray, starts: np.ndarray) -> int:
    """The longest chain of parents above any agent in STARTS (codes; PARENT[c] is the parent
    of agent c, or -1). Where parents loop, a chain ends before its first repeated agent."""
    if not starts.size:
        return 0
    # pointer jumping: each round doubles the steps every agent has looked up
    up, depth = parent.copy(), (parent >= 0).astype(np.int64)
    for _ in range(len(parent).bit_length() + 1):
        live = np.flatnonzero(up >= 0)
        if not live.size:
            break
        above = up[live]
        depth[live] += depth[above]
        up[live] = up[above]
    best = int(depth[starts[up[starts] < 0]].max(initial=0))
    # agents still looking up lead into a loop: count the agents on their way, each loop once
    steps: dict[int, int] = {}
    for x in starts[up[starts] >= 0].tolist():
        path: dict[int, int] = {}  # agent -> position on this walk
        node = x
        while node not in steps and node not in path:
            path[node] = len(path)
            node = int(parent[node])
        walk = list(path)
        if node in path:  # a new loop: each of its agents reaches the others in len - 1 steps
            loop = walk[path[node] :]
            steps.update(dict.fromkeys(loop, len(loop) - 1))
            walk = walk[: path[node]]
        for agent in reversed(walk):
            steps[agent] = steps[int(parent[agent])] + 1
        best = max(best, steps[x])
    return best


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 4)


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


def _group_sizes(*columns: np.ndarray) -> np.ndarray:
    """How many rows share each distinct combination of the COLUMNS' values."""
    if not columns[0].size:
        return np.zeros(0, dtype=np.int64)
    order = np.lexsort(columns)
    starts = np.zeros(len(order), dtype=bool)
    starts[0] = True
    for column in columns:
        ordered = column[order]
        starts[1:] |= ordered[1:] != ordered[:-1]
    return np.diff(np.r_[np.flatnonzero(starts), len(order)])


def _dependencies(
    t: np.ndarray, codes: np.ndarray, source: np.ndarray, target: np.ndarray
) -> tuple[np.ndarray, np.ndarray, int]:
    """The dependency graph of events at times T by agents CODES, with the edges SOURCE ->
    TARGET: every edge of it as (pred_of, node), sorted so that a node's predecessors come
    before it, and the node count (events, then joint nodes)."""
    n = len(t)
    # each agent's lane in time order (stable: equal times keep file order), then the edges
    lane_source, lane_target, joints = _lanes(codes, t, np.lexsort((t, codes)))
    size = n + len(joints)  # events, then the joint nodes of events that start together
    source = np.concatenate([source, lane_source])
    target = np.concatenate([target, lane_target])
    # one edge per pair of nodes (an edge often repeats a lane step), first one kept in place
    first_of_pair = np.unique(target * max(size, 1) + source, return_index=True)[1]
    first_of_pair.sort()
    source, target = source[first_of_pair], target[first_of_pair]
    place = np.r_[2 * np.arange(n), 2 * joints + 1]  # a joint node sits after its group
    if np.all(place[source] < place[target]):  # file order is already a topological order
        by_target = np.argsort(place[target], kind="stable")
    else:
        by_target = np.argsort(_ranks(size, source, target)[target], kind="stable")
    return source[by_target], target[by_target], size


def _replay(
    t: np.ndarray,
    codes: np.ndarray,
    source: np.ndarray,
    target: np.ndarray,
    weights: np.ndarray,
    final: int,
    last_aggregate: int,
) -> tuple[float, list[int], bytes]:
    """Builds the dependency graph and walks it (see `_walk`); arrays in, plain values out, so
    that it can run in a second process."""
    pred_of, node, size = _dependencies(t, codes, source, target)
    weights = np.r_[weights, np.zeros(size - len(t))]
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
    weights: np.ndarray
    final: int
    last_aggregate: int

    def walk(self) -> tuple[float, list[int], bytes]:
        """The critical path's length and events, and the ancestry marks (see `_walk`)."""
        sent = self.worker.receive() if self.worker else None
        if sent is not None:
            return cast(tuple[float, list[int], bytes], sent)
        tb = self.table
        keep = _dependency_edges(tb)
        return _replay(
            tb.times,
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
    if worker is not None:
        who = tb.who.astype(np.int32)  # half the bytes through the pipe
        worker.send((t, who, weights, final, last_aggregate, _dependency_edges(tb)))
    return Replay(tb, worker, ends, durations, weights, final, last_aggregate)


def second_reading(text: str | bytes) -> Generator[Any, Any, None]:
    """The work of a large trace's worker process (see trace.parse). It reads TEXT again for
    its ids alone and yields the edge ends resolved to events (as `event_table` needs them);
    sent the replay's inputs (see `start_replay`), it yields the walk (as `Replay.walk`)."""
    ids, wanted = decode_ids(text)
    ends, repeats = locate(ids, wanted)
    del ids, wanted
    t, who, weights, final, last_aggregate, keep = yield ends, repeats
    m = len(keep)
    yield _replay(t, who, ends[:m][keep], ends[m:][keep], weights, final, last_aggregate)


def metrics(
    trace: Any, table: EventTable | None = None, replay: Replay | None = None
) -> dict[str, Any]:
    """The measures of a valid trace; TABLE, when given, holds its columns already, and
    REPLAY its replay started by `start_replay`."""
    tb = table or event_table(trace)
    rp = replay or start_replay(tb)
    events, agents = trace["events"], trace.get("agents", [])
    ids, who, t = tb.ids, tb.agents, tb.t
    n = len(events)
    t_arr, codes = tb.times, tb.who
    durations, weights, final = rp.durations, rp.weights, rp.final
    stops, aggregates = tb.of_type("stop").tolist(), tb.of_type("aggregate")
    work = float(sum(weights.tolist()))
    ends = tb.field("t_end")
    makespan = ends[int(rp.ends.argmax())] - t[int(t_arr.argmin())] if durations else None

    # agents by code: those with events first, then the listed ones, spawned ones and parents
    listed_codes = tb.listed
    spawns = tb.of_type("spawn")
    spawned_codes = tb.target_codes()[spawns]
    declared = tb.agent_codes([x or None for x in aligned(agents, "parent")])
    despawns = tb.of_type("despawn")
    named_gone = tb.target_codes()[despawns]
    named_gone[named_gone == tb.agent_code.get("", -2)] = -1  # an empty target names no one
    gone = np.where(named_gone >= 0, named_gone, codes[despawns])
    k_all = len(tb.agent_names)
    is_agent = np.zeros(k_all, dtype=bool)
    is_agent[: tb.event_agents] = True
    is_agent[listed_codes] = True
    k = int(np.count_nonzero(is_agent))
    # a declared parent, else the first spawner
    named = spawned_codes >= 0
    parent = first_of(spawned_codes[named], codes[spawns[named]], k_all)
    has = declared >= 0
    parent_declared = first_of(listed_codes[has], declared[has], k_all, last=True)
    parent = np.where(parent_declared >= 0, parent_declared, parent)
    spawned = parent >= 0

    # lifetimes: from spawn or first event to the last event's end
    born, dies = np.full(k_all, np.inf), np.full(k_all, -np.inf)
    np.minimum.at(born, codes, t_arr)
    np.maximum.at(dies, codes, np.where(np.isnan(rp.ends), t_arr, rp.ends))
    np.minimum.at(born, spawned_codes[named], t_arr[spawns[named]])
    alive = born < np.inf
    finished = np.zeros(k_all, dtype=bool)
    finished[codes[tb.of_type("return")]] = True
    finished[gone] = True
    peak = 0
    if alive.any():
        times = np.r_[born[alive], np.where(dies == -np.inf, born, dies)[alive]]
        closing = np.r_[np.zeros(np.count_nonzero(alive)), np.ones(np.count_nonzero(alive))]
        sweep = np.lexsort((closing, times))  # at one instant, arrivals before departures
        peak = max(0, int(np.cumsum(1 - 2 * closing[sweep]).max()))

    # fan-out: spawns per decision (the first decision with an edge into a spawn), else per
    # spawning agent and instant
    is_decision = np.zeros(n, dtype=bool)
    is_decision[tb.of_type("decision")] = True
    is_spawn = np.zeros(n, dtype=bool)
    is_spawn[spawns] = True
    all_source, all_target = tb.source, tb.target
    chosen = np.flatnonzero(is_decision[all_source] & is_spawn[all_target])  # decision -> spawn
    decision = first_of(all_target[chosen], all_source[chosen], n)[spawns]
    undecided = spawns[decision < 0]
    fan = np.r_[
        _group_sizes(decision[decision >= 0]), _group_sizes(t_arr[undecided], codes[undecided])
    ]

    matrix: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    names, receivers = tb.agent_names, tb.target_codes()
    for i in tb.of_type("message").tolist():
        if receivers[i] >= 0:
            matrix[who[i]][names[receivers[i]]] += 1
    pairs = sum(len(row) for row in matrix.values())

    stop = None
    if stops:
        i = stops[0]
        stop = {
            "id": ids[i],
            "agent": who[i],
            "t": t[i],
            "cause": events[i].get("cause"),
            "events_after": int(np.count_nonzero(t_arr > t_arr[i])),
        }

    rewards: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for r in trace.get("rewards", []):
        rewards[r["unit"]][r["channel"]] += r["value"]

    # the orchestrator: the first root (by name) that spawned someone, else the first root
    is_parent = np.zeros(k_all, dtype=bool)
    is_parent[parent[spawned]] = True
    roots = sorted(np.flatnonzero(is_agent & ~spawned).tolist(), key=names.__getitem__)
    boss = next((c for c in roots if is_parent[c]), roots[0] if roots else -1)
    orchestrator = names[boss] if boss >= 0 else None
    stages: list[dict[str, Any]] = []
    if n:  # stage k holds the events with boundary[k-1] < t <= boundary[k]
        bounds = np.sort(t_arr[aggregates[codes[aggregates] == boss]])
        stage = np.searchsorted(bounds, t_arr, side="left").astype(np.int64)
        keys, counts = np.unique(stage * tb.event_agents + codes, return_counts=True)
        key_stage, key_code = keys // tb.event_agents, keys % tb.event_agents
        starts = np.flatnonzero(np.r_[True, key_stage[1:] != key_stage[:-1]])
        mine = key_code == boss
        main = np.add.reduceat(np.where(mine, counts, 0), starts).tolist()
        longest = np.maximum.reduceat(np.where(mine, 0, counts), starts).tolist()
        stages = [
            {"orchestrator_steps": x, "longest_subagent_steps": y, "critical_steps": x + y}
            for x, y in zip(main, longest, strict=True)
        ]
    span, critical, mark = rp.walk()
    chain = list(map(ids.__getitem__, critical))
    marks = np.frombuffer(mark, dtype=np.uint8)[:n]
    outside = (marks & 1) == 0
    wasted = sum(weights[:n][outside].tolist()) if durations else int(np.count_nonzero(outside))
    covered = np.zeros(k_all, dtype=bool)
    covered[codes[(marks & 2) > 0]] = True
    n_spawned = int(np.count_nonzero(spawned))

    return {
        "events": n,
        "edges": len(trace.get("edges", [])),
        "agents": k,
        "mode": "durations" if durations else "steps",
        "work": _round(work),
        "critical_path": _round(span),
        "critical_chain": chain,
        "ideal_speedup": _round(work / span) if span else None,
        "observed_speedup": _round(work / makespan) if makespan else None,
        "makespan": _round(makespan),
        "peak_concurrency": peak,
        "fan_out": {
            "decisions": len(fan),
            "mean": _round(statistics.fmean(fan.tolist())) if fan.size else None,
            "max": int(fan.max(initial=0)),
        },
        "spawn_depth": _spawn_depth(parent, np.flatnonzero(is_agent)),
        "spawned_agents": n_spawned,
        "finish_rate": (
            _round(np.count_nonzero(finished & spawned) / n_spawned) if n_spawned else None
        ),
        "messages": {
            "matrix": {x: dict(row) for x, row in sorted(matrix.items())},
            "total": sum(sum(r.values()) for r in matrix.values()),
            "density": _round(pairs / (k * (k - 1))) if k > 1 else None,
        },
        "aggregation_coverage": (
            _round(np.count_nonzero(covered & spawned) / n_spawned)
            if n_spawned and aggregates.size
            else None
        ),
        "final_event": ids[final] if final >= 0 else None,
        "wasted_work": _round(wasted),
        "wasted_fraction": _round(wasted / work) if work else None,
        "stop": stop,
        "rewards": {u: dict(c) for u, c in sorted(rewards.items())},
        "critical_steps": {
            "orchestrator": orchestrator,
            "stages": stages,
            "total": sum(x["critical_steps"] for x in stages),
        },
    }


def measured(doc: Document) -> tuple[list[TraceProblem], dict[str, Any] | None]:
    """Every problem of DOC, and its measures when it has no errors. The replay starts (in a
    second process, for a large trace) as soon as the columns are read, while the checks
    across items run."""
    replays: list[Replay] = []

    def begin(tb: EventTable) -> None:
        replays.append(start_replay(tb, doc.worker))

    problems, table = validate_table(doc, then=begin)
    failed = table is None or any(p.severity == "error" for p in problems)
    try:
        return problems, None if failed else metrics(doc.data, table, *replays)
    except DependencyCycle as exc:
        assert table is not None
        loop = [*exc.nodes, *exc.nodes[:1]]
        events = " -> ".join(table.ids[i] for i in loop if i < len(table.ids))
        message = f"the dependencies form a cycle, so no critical path exists: {events}"
        return [*problems, TraceProblem(doc.label, "$.edges", "dependency-cycle", message)], None
    finally:
        if doc.worker is not None:
            doc.worker.close(kill=failed)


def metrics_text(label: str, m: dict[str, Any]) -> str:
    lines = [
        f"{label}: {m['events']} events, {m['edges']} edges, {m['agents']} agents ({m['mode']})",
        f"  work W = {m['work']}, critical path S = {m['critical_path']}, ideal speedup "
        f"W/S = {m['ideal_speedup']}, observed speedup = {m['observed_speedup']}",
        f"  critical chain: {' -> '.join(m['critical_chain'])}",
        f"  peak concurrency {m['peak_concurrency']}; fan-out mean {m['fan_out']['mean']}, "
        f"max {m['fan_out']['max']} over {m['fan_out']['decisions']} spawn decision(s); "
        f"spawn depth {m['spawn_depth']}",
        f"  finish rate {m['finish_rate']} of {m['spawned_agents']} spawned; aggregation "
        f"coverage {m['aggregation_coverage']}; wasted work {m['wasted_work']} "
        f"({m['wasted_fraction']})",
        f"  messages {m['messages']['total']}, density {m['messages']['density']}",
    ]
    for sender, row in m["messages"]["matrix"].items():
        lines.append(f"    {sender} -> " + ", ".join(f"{r}: {c}" for r, c in row.items()))
    stop = m["stop"]
    lines.append(
        f"  stop: {stop['id']} by {stop['agent']} at t={stop['t']}, cause "
        f"{stop['cause']}, {stop['events_after']} event(s) after it"
        if stop
        else "  stop: none recorded"
    )
    for unit, channels in m["rewards"].items():
        lines.append(f"  reward to {unit}: " + ", ".join(f"{c}={v:g}" for c, v in channels.items()))
    cs = m["critical_steps"]
    lines.append(
        f"  critical steps (PARL) {cs['total']} over {len(cs['stages'])} stage(s): "
        + ", ".join(str(s["critical_steps"]) for s in cs["stages"])
    )
    return "\n".join(lines)
