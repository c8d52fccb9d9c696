"""Replays a valid orchestration trace as an event graph and measures its orchestration.

Definitions (also in traces/METRICS.md):
- Dependencies: every edge except safety_flow, plus each agent's own sequence (an event follows
  the agent's previous event when it starts strictly later).
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

import bisect
import itertools
import statistics
from collections import Counter, defaultdict, deque
from typing import Any

NON_DEPENDENCY = frozenset({"safety_flow"})


def _graph(trace: dict[str, Any]) -> tuple[list[list[int]], list[list[int]]]:
    events = trace["events"]
    index = {ev["id"]: i for i, ev in enumerate(events)}
    succ: list[list[int]] = [[] for _ in events]
    pred: list[list[int]] = [[] for _ in events]
    for edge in trace.get("edges", []):
        if edge["type"] in NON_DEPENDENCY:
            continue
        s, t = index[edge["source"]], index[edge["target"]]
        succ[s].append(t)
        pred[t].append(s)
    lanes: dict[str, list[int]] = defaultdict(list)
    for i, ev in enumerate(events):
        lanes[ev["agent"]].append(i)
    for lane in lanes.values():
        lane.sort(key=lambda i: (events[i]["t"], i))
        for a, b in itertools.pairwise(lane):
            if events[b]["t"] > events[a]["t"]:
                succ[a].append(b)
                pred[b].append(a)
    return succ, pred


def _topological(succ: list[list[int]], pred: list[list[int]]) -> list[int]:
    indegree = [len(p) for p in pred]
    queue = deque(i for i, d in enumerate(indegree) if d == 0)
    order = []
    while queue:
        node = queue.popleft()
        order.append(node)
        for nxt in succ[node]:
            indegree[nxt] -= 1
            if indegree[nxt] == 0:
                queue.append(nxt)
    if len(order) != len(succ):
        raise ValueError("the dependency graph has a cycle; run orchtrace validate")
    return order


def _ancestors(start: int, pred: list[list[int]]) -> set[int]:
    seen, stack = {start}, [start]
    while stack:
        for p in pred[stack.pop()]:
            if p not in seen:
                seen.add(p)
                stack.append(p)
    return seen


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 4)


def metrics(trace: dict[str, Any]) -> dict[str, Any]:
    events, agents = trace["events"], trace.get("agents", [])
    n = len(events)
    durations = n > 0 and all("t_end" in ev for ev in events)
    weight = [ev["t_end"] - ev["t"] if durations else 1 for ev in events]
    succ, pred = _graph(trace)
    order = _topological(succ, pred)
    dist = [0.0] * n
    best = [-1] * n
    for node in order:
        top, arg = 0.0, -1
        for p in pred[node]:
            if dist[p] > top:
                top, arg = dist[p], p
        dist[node], best[node] = top + weight[node], arg
    work = float(sum(weight))
    end = max(range(n), key=lambda i: (dist[i], i)) if n else -1
    span = dist[end] if n else 0.0
    chain = []
    while end != -1:
        chain.append(events[end]["id"])
        end = best[end]
    chain.reverse()
    makespan = (
        max(ev["t_end"] for ev in events) - min(ev["t"] for ev in events) if durations else None
    )

    parent = {a["id"]: a["parent"] for a in agents if "parent" in a}
    for ev in events:
        if ev["type"] == "spawn" and "target" in ev:
            parent.setdefault(ev["target"], ev["agent"])
    spawned = sorted(parent)
    all_agents = sorted({a["id"] for a in agents} | {ev["agent"] for ev in events})

    def depth(agent: str) -> int:
        d, seen = 0, {agent}
        while agent in parent and parent[agent] not in seen:
            agent = parent[agent]
            seen.add(agent)
            d += 1
        return d

    first: dict[str, float] = {}
    last: dict[str, float] = {}
    finished: set[str] = set()
    for ev in events:
        who, t = ev["agent"], ev["t"]
        first[who] = min(first.get(who, t), t)
        last[who] = max(last.get(who, t), ev.get("t_end", t))
        if ev["type"] == "spawn" and "target" in ev:
            first[ev["target"]] = min(first.get(ev["target"], t), t)
        if ev["type"] == "return":
            finished.add(who)
        if ev["type"] == "despawn":
            finished.add(ev.get("target", who))
    sweep = sorted([(first[a], 0) for a in first] + [(last[a], 1) for a in first])
    alive = peak = 0
    for _, kind in sweep:
        alive += 1 if kind == 0 else -1
        peak = max(peak, alive)

    index = {ev["id"]: i for i, ev in enumerate(events)}
    decision_of: dict[int, str] = {}
    for edge in trace.get("edges", []):
        s, t = index[edge["source"]], index[edge["target"]]
        if events[s]["type"] == "decision" and events[t]["type"] == "spawn":
            decision_of.setdefault(t, events[s]["id"])
    groups = Counter(
        decision_of.get(i, f"{ev['agent']}@{ev['t']}")
        for i, ev in enumerate(events)
        if ev["type"] == "spawn"
    )
    fan = list(groups.values())

    matrix: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for ev in events:
        if ev["type"] == "message" and "target" in ev:
            matrix[ev["agent"]][ev["target"]] += 1
    pairs = sum(len(row) for row in matrix.values())
    k = len(all_agents)

    stops = [i for i, ev in enumerate(events) if ev["type"] == "stop"]
    aggregates = [i for i, ev in enumerate(events) if ev["type"] == "aggregate"]
    by_time = sorted(range(n), key=lambda i: (events[i]["t"], i))
    final = (
        stops[0]
        if stops
        else (
            max(aggregates, key=lambda i: (events[i]["t"], i))
            if aggregates
            else (by_time[-1] if n else -1)
        )
    )
    ancestry = _ancestors(final, pred) if final >= 0 else set()
    wasted = sum(weight[i] for i in range(n) if i not in ancestry)
    last_aggregate = max(aggregates, key=lambda i: (events[i]["t"], i)) if aggregates else -1
    feeding = _ancestors(last_aggregate, pred) if last_aggregate >= 0 else set()
    covered = {events[i]["agent"] for i in feeding}

    stop = None
    if stops:
        ev = events[stops[0]]
        stop = {
            "id": ev["id"],
            "agent": ev["agent"],
            "t": ev["t"],
            "cause": ev.get("cause"),
            "events_after": sum(1 for e in events if e["t"] > ev["t"]),
        }

    rewards: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for r in trace.get("rewards", []):
        rewards[r["unit"]][r["channel"]] += r["value"]

    roots = [a for a in all_agents if a not in parent]
    orchestrator = next(
        (a for a in roots if any(p == a for p in parent.values())), roots[0] if roots else None
    )
    boundaries = sorted(events[i]["t"] for i in aggregates if events[i]["agent"] == orchestrator)
    per_stage: dict[int, Counter[str]] = defaultdict(Counter)
    for ev in events:  # stage k holds the events with boundary[k-1] < t <= boundary[k]
        per_stage[bisect.bisect_left(boundaries, ev["t"])][ev["agent"]] += 1
    stages: list[dict[str, Any]] = []
    for stage_no in sorted(per_stage):
        counts = per_stage[stage_no]
        main = counts.pop(orchestrator, 0) if orchestrator is not None else 0
        longest = max(counts.values(), default=0)
        stages.append(
            {
                "orchestrator_steps": main,
                "longest_subagent_steps": longest,
                "critical_steps": main + longest,
            }
        )

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
        "spawn_depth": max((depth(a) for a in all_agents), default=0),
        "spawned_agents": len(spawned),
        "finish_rate": _round(len(finished & set(spawned)) / len(spawned)) if spawned else None,
        "messages": {
            "matrix": {a: dict(row) for a, row in sorted(matrix.items())},
            "total": sum(sum(r.values()) for r in matrix.values()),
            "density": _round(pairs / (k * (k - 1))) if k > 1 else None,
        },
        "aggregation_coverage": (
            _round(len(covered & set(spawned)) / len(spawned)) if spawned and aggregates else None
        ),
        "final_event": events[final]["id"] if final >= 0 else None,
        "wasted_work": _round(wasted),
        "wasted_fraction": _round(wasted / work) if work else None,
        "stop": stop,
        "rewards": {u: dict(c) for u, c in sorted(rewards.items())},
        "critical_steps": {
            "orchestrator": orchestrator,
            "stages": stages,
            "total": sum(s["critical_steps"] for s in stages),
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
