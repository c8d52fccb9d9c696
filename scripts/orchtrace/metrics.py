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

import itertools
import operator
import statistics
from collections import Counter, defaultdict, deque
from collections.abc import Iterator
from typing import Any

import numpy as np

from .table import EventTable, aligned, column, event_table

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


def _spawn_depth(parent: dict[str, str], agents: list[str]) -> int:
    """The longest chain of parents above any of AGENTS (a loop of parents ends a chain)."""
    known: dict[str, int] = {}  # depths of agents whose chain reaches a root
    best = 0
    for x in agents:
        chain, seen, up = [], set(), x
        while up in parent and up not in known and up not in seen:
            seen.add(up)
            chain.append(up)
            up = parent[up]
        if up in seen:  # a loop: count steps until a parent repeats
            steps, seen, up = 0, {x}, x
            while up in parent and parent[up] not in seen:
                up = parent[up]
                seen.add(up)
                steps += 1
            best = max(best, steps)
            continue
        base = known.get(up, 0)
        for k, agent in enumerate(reversed(chain), start=1):
            known[agent] = base + k
        best = max(best, known.get(x, 0))
    return best


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 4)


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
        raise ValueError("the dependency graph has a cycle; run orchtrace validate")
    rank = np.empty(n, dtype=np.int64)
    rank[np.array(order, dtype=np.int64)] = np.arange(n)
    return rank


def metrics(trace: Any, table: EventTable | None = None) -> dict[str, Any]:
    """The measures of a valid trace; TABLE, when given, holds its columns already."""
    tb = table or event_table(trace)
    events, agents = trace["events"], trace.get("agents", [])
    ids, who, t = tb.ids, tb.agents, tb.t
    n = len(events)
    ends = tb.field("t_end")
    targets = tb.field("target")
    durations = n > 0 and None not in ends
    weight = list(map(operator.sub, ends, t)) if durations else [1] * n
    t_arr = np.array(t, dtype=np.float64)

    # dependencies: the edges (but safety flows), then each agent's lane in time order
    names = list(dict.fromkeys(who))  # agents in order of their first event
    code_of = dict(zip(names, range(len(names)), strict=True))
    codes = np.fromiter(map(code_of.__getitem__, who), dtype=np.int64, count=n)
    lane_order = np.lexsort((t_arr, codes))  # stable: equal times keep file order
    lane_source, lane_target, joints = _lanes(codes, t_arr, lane_order)
    size = n + len(joints)  # events, then the joint nodes of events that start together
    keep = ~np.fromiter(map(NON_DEPENDENCY.__contains__, tb.edge_types), bool, len(tb.edge_types))
    all_source, all_target = tb.source, tb.target
    source = np.concatenate([all_source[keep], lane_source])
    target = np.concatenate([all_target[keep], lane_target])
    # one edge per pair of nodes (an edge often repeats a lane step), first one kept in place
    first_of_pair = np.unique(target * max(size, 1) + source, return_index=True)[1]
    first_of_pair.sort()
    source, target = source[first_of_pair], target[first_of_pair]
    place = np.r_[2 * np.arange(n), 2 * joints + 1]  # a joint node sits after its group
    if np.all(place[source] < place[target]):  # file order is already a topological order
        by_target = np.argsort(place[target], kind="stable")
    else:
        by_target = np.argsort(_ranks(size, source, target)[target], kind="stable")
    pred_of, node = source[by_target], target[by_target]
    del source, target, by_target

    # longest path: edges sorted by the rank of their target see their source finished
    top, best = [0.0] * size, [-1] * size
    weights = np.r_[np.array(weight, dtype=np.float64), np.zeros(len(joints))]
    for pred_chunk, node_chunk, pred_weight in _chunks(pred_of, node, weights[pred_of]):
        for p, v, w in zip(pred_chunk, node_chunk, pred_weight, strict=True):
            d = top[p] + w
            if d > top[v]:
                top[v], best[v] = d, p
    dist = np.array(top[:n]) + weights[:n]
    work = float(sum(weight))
    end = int(np.flatnonzero(dist == dist.max())[-1]) if n else -1
    span = float(dist[end]) if n else 0.0
    chain = []
    while end != -1:
        if end < n:
            chain.append(ids[end])
        end = best[end]
    chain.reverse()
    makespan = max(ends) - min(t) if durations else None

    listed = column(agents, "id")
    spawns = tb.of_type("spawn")
    spawning = [(targets[i], who[i], t[i]) for i in spawns if targets[i] is not None]
    # a declared parent, else the first spawner (reversed: the first pair written last wins)
    parent = {x: y for x, y, _ in reversed(spawning)}
    parent.update((x, y) for x, y in zip(listed, aligned(agents, "parent"), strict=True) if y)
    spawned = parent.keys()
    all_agents = set(listed).union(names)

    # lifetimes: from spawn or first event to the last event's end
    first: dict[str, float] = {}
    last: dict[str, float] = {}
    if n:
        sorted_codes = codes[lane_order]
        starts = np.flatnonzero(np.r_[True, sorted_codes[1:] != sorted_codes[:-1]])
        end_arr = (
            np.array(ends, dtype=np.float64)
            if durations
            else np.array([x if e is None else e for x, e in zip(t, ends, strict=True)])
        )
        firsts = t_arr[lane_order[starts]].tolist()
        lasts = np.maximum.reduceat(end_arr[lane_order], starts).tolist()
        first, last = dict(zip(names, firsts, strict=True)), dict(zip(names, lasts, strict=True))
    for x, _, at in spawning:
        first[x] = min(first.get(x, at), at)
    finished = {who[i] for i in tb.of_type("return")}
    finished.update(targets[i] or who[i] for i in tb.of_type("despawn"))
    peak = 0
    if first:
        times = np.fromiter(
            itertools.chain(first.values(), map(last.get, first, first.values())), dtype=float
        )
        closing = np.r_[np.zeros(len(first)), np.ones(len(first))]
        sweep = np.lexsort((closing, times))  # at one instant, arrivals before departures
        peak = max(0, int(np.cumsum(1 - 2 * closing[sweep]).max()))

    is_decision = np.zeros(n, dtype=bool)
    is_decision[tb.of_type("decision")] = True
    is_spawn = np.zeros(n, dtype=bool)
    is_spawn[spawns] = True
    chosen = np.flatnonzero(is_decision[all_source] & is_spawn[all_target])  # decision -> spawn
    decision_of = dict(  # the first such edge of each spawn (reversed: written last, wins)
        zip(
            all_target[chosen[::-1]].tolist(),
            map(ids.__getitem__, all_source[chosen[::-1]].tolist()),
            strict=True,
        )
    )
    fan = list(
        Counter(decision_of[i] if i in decision_of else f"{who[i]}@{t[i]}" for i in spawns).values()
    )

    matrix: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for i in tb.of_type("message"):
        if targets[i] is not None:
            matrix[who[i]][targets[i]] += 1
    pairs = sum(len(row) for row in matrix.values())
    k = len(all_agents)

    stops = tb.of_type("stop")
    aggregates = tb.of_type("aggregate")
    last_aggregate = max(aggregates, key=lambda i: (t[i], i)) if aggregates else -1
    final = -1
    if stops:
        final = stops[0]
    elif aggregates:
        final = last_aggregate
    elif n:
        final = int(np.flatnonzero(t_arr == t_arr.max())[-1])
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
    marks = np.frombuffer(mark, dtype=np.uint8)[:n]
    outside = (marks & 1) == 0
    wasted = sum(weights[:n][outside].tolist()) if durations else int(np.count_nonzero(outside))
    feeds = np.zeros(len(names), dtype=bool)
    feeds[codes[(marks & 2) > 0]] = True
    covered = {names[c] for c in np.flatnonzero(feeds).tolist()}

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

    parents = set(parent.values())
    roots = sorted(x for x in all_agents if x not in parent)
    orchestrator = next((x for x in roots if x in parents), roots[0] if roots else None)
    stages: list[dict[str, Any]] = []
    if n:  # stage k holds the events with boundary[k-1] < t <= boundary[k]
        bounds = np.sort(
            np.array([t[i] for i in aggregates if who[i] == orchestrator], dtype=float)
        )
        stage = np.searchsorted(bounds, t_arr, side="left").astype(np.int64)
        keys, counts = np.unique(stage * len(code_of) + codes, return_counts=True)
        key_stage, key_code = keys // len(code_of), keys % len(code_of)
        starts = np.flatnonzero(np.r_[True, key_stage[1:] != key_stage[:-1]])
        mine = key_code == (-1 if orchestrator is None else code_of.get(orchestrator, -1))
        main = np.add.reduceat(np.where(mine, counts, 0), starts).tolist()
        longest = np.maximum.reduceat(np.where(mine, 0, counts), starts).tolist()
        stages = [
            {"orchestrator_steps": x, "longest_subagent_steps": y, "critical_steps": x + y}
            for x, y in zip(main, longest, strict=True)
        ]

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
            "mean": _round(statistics.fmean(fan)) if fan else None,
            "max": max(fan, default=0),
        },
        "spawn_depth": _spawn_depth(parent, list(all_agents)),
        "spawned_agents": len(spawned),
        "finish_rate": _round(len(finished & spawned) / len(spawned)) if spawned else None,
        "messages": {
            "matrix": {x: dict(row) for x, row in sorted(matrix.items())},
            "total": sum(sum(r.values()) for r in matrix.values()),
            "density": _round(pairs / (k * (k - 1))) if k > 1 else None,
        },
        "aggregation_coverage": (
            _round(len(covered & spawned) / len(spawned)) if spawned and aggregates else None
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
