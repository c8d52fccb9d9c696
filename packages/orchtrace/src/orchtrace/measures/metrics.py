"""Replays a valid orchestration trace as an event graph and measures its orchestration.

Definitions (also in traces/METRICS.md):
- Dependencies: every edge except safety_flow, plus each agent's own sequence: an event
  depends on the agent's events that end by its start and started before it (steps mode, with
  no ends: that start before it). Events of one agent that overlap, or start together, are
  parallel: the critical path never exceeds the makespan, and the order events are listed in
  does not matter.
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
- Critical steps (Kimi K2.5's Agent Swarm): per stage, the orchestrator's turns plus the
  longest sub-agent's, summed over stages (parl.py states the reading).
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from typing import Any

import numpy as np

from ..core.formats import current_view, detect, reward_list
from ..core.lineage import Lineage
from ..core.table import EventTable, event_table, first_of
from .parl import critical_steps
from .replay import Replay, start_replay


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 4)


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
    return np.diff(np.append(np.flatnonzero(starts), len(order)))


def _work(tb: EventTable, rp: Replay, work: float) -> dict[str, Any]:
    """Work W, makespan and observed speedup."""
    makespan = None
    if rp.durations:
        makespan = tb.field("t_end")[int(rp.ends.argmax())] - tb.t[int(tb.times.argmin())]
    return {
        "mode": "durations" if rp.durations else "steps",
        "work": _round(work),
        "observed_speedup": _round(work / makespan) if makespan else None,
        "makespan": _round(makespan),
    }


def _critical_path(tb: EventTable, rp: Replay, spawned: np.ndarray, work: float) -> dict[str, Any]:
    """Critical path and chain, ideal speedup, wasted work, aggregation coverage and the final
    event, from the walk of the dependency graph."""
    n = len(tb.ids)
    span, critical, mark = rp.walk()
    marks = np.frombuffer(mark, dtype=np.uint8)[:n]
    outside = (marks & 1) == 0
    if rp.durations:
        wasted: float = sum(rp.weights[:n][outside].tolist())
    else:
        wasted = int(np.count_nonzero(outside))
    covered = np.zeros(len(spawned), dtype=bool)
    covered[tb.who[(marks & 2) > 0]] = True
    n_spawned = int(np.count_nonzero(spawned))
    return {
        "critical_path": _round(span),
        "critical_chain": list(map(tb.ids.__getitem__, critical)),
        "ideal_speedup": _round(work / span) if span else None,
        "aggregation_coverage": (
            _round(np.count_nonzero(covered & spawned) / n_spawned)
            if n_spawned and rp.last_aggregate >= 0
            else None
        ),
        "final_event": tb.ids[rp.final] if rp.final >= 0 else None,
        "wasted_work": _round(wasted),
        "wasted_fraction": _round(wasted / work) if work else None,
    }


def _lifetimes(tb: EventTable, rp: Replay, spawned: np.ndarray, at: np.ndarray) -> int:
    """Peak concurrency: most agents alive at once, each from its spawn or first event to the
    end of its last event."""
    codes, t = tb.who, tb.times
    k = len(tb.agent_names)
    born, dies = np.full(k, np.inf), np.full(k, -np.inf)
    np.minimum.at(born, codes, t)
    np.maximum.at(dies, codes, np.where(np.isnan(rp.ends), t, rp.ends))
    np.minimum.at(born, spawned, at)  # a spawned agent lives from its spawn
    alive = born < np.inf
    if not alive.any():
        return 0
    times = np.concatenate((born[alive], np.where(dies == -np.inf, born, dies)[alive]))
    closing = np.repeat([0.0, 1.0], np.count_nonzero(alive))
    sweep = np.lexsort((closing, times))  # at one instant, arrivals before departures
    return max(0, int(np.cumsum(1 - 2 * closing[sweep]).max()))


def _fan_out(tb: EventTable) -> dict[str, Any]:
    """Spawns per spawn decision (the first decision with an edge into a spawn), else per
    spawning agent and instant."""
    n, spawns = len(tb.ids), tb.of_type("spawn")
    is_decision = np.zeros(n, dtype=bool)
    is_decision[tb.of_type("decision")] = True
    is_spawn = np.zeros(n, dtype=bool)
    is_spawn[spawns] = True
    chosen = np.flatnonzero(is_decision[tb.source] & is_spawn[tb.target])  # decision -> spawn
    decision = first_of(tb.target[chosen], tb.source[chosen], n)[spawns]
    undecided = spawns[decision < 0]
    fan = np.concatenate(
        (
            _group_sizes(decision[decision >= 0]),
            _group_sizes(tb.times[undecided], tb.who[undecided]),
        )
    )
    return {
        "decisions": len(fan),
        "mean": _round(statistics.fmean(fan.tolist())) if fan.size else None,
        "max": int(fan.max(initial=0)),
    }


def _messages(tb: EventTable, k: int) -> dict[str, Any]:
    """The sender-receiver matrix of messages, their total and density."""
    matrix: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    names, receivers = tb.agent_names, tb.target_codes()
    for i in tb.of_type("message").tolist():
        if receivers[i] >= 0:
            matrix[tb.agents[i]][names[receivers[i]]] += 1
    pairs = sum(len(row) for row in matrix.values())
    return {
        "matrix": {x: dict(row) for x, row in sorted(matrix.items())},
        "total": sum(sum(r.values()) for r in matrix.values()),
        "density": _round(pairs / (k * (k - 1))) if k > 1 else None,
    }


def _stop(tb: EventTable) -> dict[str, Any] | None:
    """The first stop event, and how many events start after it."""
    stops = tb.of_type("stop")
    if not stops.size:
        return None
    i = int(stops[0])
    return {
        "id": tb.ids[i],
        "agent": tb.agents[i],
        "t": tb.t[i],
        "cause": tb.field("cause")[i],
        "events_after": int(np.count_nonzero(tb.times > tb.times[i])),
    }


def _rewards(trace: Any) -> dict[str, dict[str, float]]:
    """Reward values summed per credit unit and channel."""
    listed = trace.get("rewards") or []
    rewards: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for r in reward_list(listed) if isinstance(listed, dict) else listed:
        rewards[r["unit"]][r["channel"]] += r["value"]
    return {u: dict(c) for u, c in sorted(rewards.items())}


def metrics(
    trace: Any,
    table: EventTable | None = None,
    replay: Replay | None = None,
    lineage: Lineage | None = None,
) -> dict[str, Any]:
    """The measures of a valid trace in our names (plain data in the artifact's format is
    viewed in ours); TABLE, when given, holds the columns of the trace viewed in our names
    already, REPLAY its replay started by `start_replay`, and LINEAGE its agents' parents."""
    if table is None and isinstance(trace, dict) and detect(trace) == "artifact":
        trace = current_view(trace, set())
    tb = table or event_table(trace)
    rp = replay or start_replay(tb)
    lineage = lineage or Lineage.of(tb, trace.get("agents"), {})
    spawns = tb.of_type("spawn")
    spawned_codes = tb.target_codes()[spawns]
    named = spawned_codes >= 0
    # agents by code: those with events first, then the listed ones, spawned ones and parents
    k_all = len(tb.agent_names)
    is_agent = np.zeros(k_all, dtype=bool)
    is_agent[: tb.event_agents] = True
    is_agent[tb.listed] = True
    k = int(np.count_nonzero(is_agent))
    spawned = lineage.parent >= 0
    despawns = tb.of_type("despawn")
    named_gone = tb.target_codes()[despawns]
    named_gone[named_gone == tb.agent_code.get("", -2)] = -1  # an empty target names no one
    finished = np.zeros(k_all, dtype=bool)
    finished[tb.who[tb.of_type("return")]] = True
    finished[np.where(named_gone >= 0, named_gone, tb.who[despawns])] = True
    n_spawned = int(np.count_nonzero(spawned))
    # the orchestrator: the first root (by name) that spawned someone, else the first root
    is_parent = np.zeros(k_all, dtype=bool)
    is_parent[lineage.parent[spawned]] = True
    roots = sorted(np.flatnonzero(is_agent & ~spawned).tolist(), key=tb.agent_names.__getitem__)
    boss = next((c for c in roots if is_parent[c]), roots[0] if roots else -1)
    depth = [lineage.depth[c] for c in np.flatnonzero(is_agent).tolist()]
    total = float(sum(rp.weights.tolist()))
    work, path = _work(tb, rp, total), _critical_path(tb, rp, spawned, total)
    return {
        "events": len(tb.ids),
        "edges": len(tb.edge_types),
        "agents": k,
        "mode": work["mode"],
        "work": work["work"],
        "critical_path": path["critical_path"],
        "critical_chain": path["critical_chain"],
        "ideal_speedup": path["ideal_speedup"],
        "observed_speedup": work["observed_speedup"],
        "makespan": work["makespan"],
        "peak_concurrency": _lifetimes(tb, rp, spawned_codes[named], tb.times[spawns[named]]),
        "fan_out": _fan_out(tb),
        "spawn_depth": max(depth, default=0),
        "spawned_agents": n_spawned,
        "finish_rate": (
            _round(np.count_nonzero(finished & spawned) / n_spawned) if n_spawned else None
        ),
        "messages": _messages(tb, k),
        "aggregation_coverage": path["aggregation_coverage"],
        "final_event": path["final_event"],
        "wasted_work": path["wasted_work"],
        "wasted_fraction": path["wasted_fraction"],
        "stop": _stop(tb),
        "rewards": _rewards(trace),
        "critical_steps": critical_steps(tb, lineage, boss),
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
