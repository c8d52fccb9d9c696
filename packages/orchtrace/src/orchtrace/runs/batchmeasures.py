"""The measures of a batch of traces joined into one (batch.py's union), by segments: each
trace's peak concurrency, fan-out, spawn depth, finish rate, messages, critical path and
critical steps, wasted work and speedups, from the union's columns at once (metrics.py
defines them for one trace; tests/test_batch.py holds the two readings to the same rows).
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np

from ..core.lineage import Lineage
from ..core.table import EventTable, first_of
from ..measures.metrics import _rewards, _round
from ..measures.parl import as_measure, spawn_rows, stages, turns


class Union(Protocol):
    """What the measures read of batch.py's union of traces (its columns, once replayed)."""

    datas: list[Any]
    sizes: list[int]
    starts: np.ndarray
    seg: np.ndarray
    tb: EventTable
    lineage: Lineage
    no_one: set[int]
    durations: np.ndarray
    ends: np.ndarray
    weights: np.ndarray
    first_stop: np.ndarray
    last_aggregate: np.ndarray
    span: np.ndarray
    marks: np.ndarray

    def field(self, key: str) -> list[Any]: ...


def _segment_first(mask: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Per segment (all non-empty), the first index where MASK holds, -1 if none."""
    big = len(mask)
    first = np.minimum.reduceat(np.where(mask, np.arange(big), big), starts)
    return np.where(first < big, first, -1)


def _peaks(u: Union, spawned: np.ndarray, at: np.ndarray, owner: np.ndarray) -> np.ndarray:
    """Each trace's peak concurrency (metrics._lifetimes): one sweep for all, by trace;
    the count of agents alive comes back to 0 at the end of each trace's stretch."""
    tb, count = u.tb, len(u.datas)
    k = len(tb.agent_names)
    born, dies = np.full(k, np.inf), np.full(k, -np.inf)
    np.minimum.at(born, tb.who, tb.times)
    np.maximum.at(dies, tb.who, np.where(np.isnan(u.ends), tb.times, u.ends))
    np.minimum.at(born, spawned, at)
    alive = born < np.inf
    peak = np.zeros(count, dtype=np.int64)
    m = int(np.count_nonzero(alive))
    if m:
        times = np.concatenate((born[alive], np.where(dies == -np.inf, born, dies)[alive]))
        closing = np.repeat([0.0, 1.0], m)
        trace = np.tile(owner[alive], 2)
        sweep = np.lexsort((closing, times, trace))
        level = np.cumsum(1 - 2 * closing[sweep])
        by = trace[sweep]
        heads = np.flatnonzero(np.append(True, by[1:] != by[:-1]))
        peak[by[heads]] = np.maximum.reduceat(level, heads).astype(np.int64)
    return np.maximum(peak, 0)


def _spawn_groups(u: Union, spawns: np.ndarray) -> np.ndarray:
    """Each trace's number of spawn decisions (metrics._fan_out): the decisions with an
    edge into a spawn, and the undecided spawns' distinct (instant, agent)."""
    tb, count, seg = u.tb, len(u.datas), u.seg
    n = len(tb.ids)
    is_decision = np.zeros(n, dtype=bool)
    is_decision[tb.of_type("decision")] = True
    is_spawn = np.zeros(n, dtype=bool)
    is_spawn[spawns] = True
    chosen = np.flatnonzero(is_decision[tb.source] & is_spawn[tb.target])
    decision = first_of(tb.target[chosen], tb.source[chosen], n)[spawns]
    groups = np.bincount(seg[np.unique(decision[decision >= 0])], minlength=count)
    undecided = spawns[decision < 0]
    if undecided.size:
        t, who = tb.times[undecided], tb.who[undecided]
        order = np.lexsort((who, t))
        t, who = t[order], who[order]
        heads = np.append(True, (t[1:] != t[:-1]) | (who[1:] != who[:-1]))
        groups += np.bincount(seg[undecided[order][heads]], minlength=count)
    return groups


def _critical_steps(u: Union, boss: list[int], owner: np.ndarray) -> list[dict[str, Any]]:
    """Each trace's critical steps (parl.py): the union's spawns and turns counted at once,
    then each trace's stages from its own spawn rows."""
    tb, count = u.tb, len(u.datas)
    rows, totals = spawn_rows(tb, u.lineage, turns(tb), np.array(boss, dtype=np.int64))
    trace = owner[rows[:, 0]]
    order = np.argsort(trace, kind="stable")
    cut = np.searchsorted(trace[order], np.arange(count + 1)).tolist()
    listed = list(map(tuple, rows[order].tolist()))
    names = tb.agent_names
    return [
        as_measure(
            names[c].split(":", 1)[1] if c >= 0 else None,
            stages(listed[cut[k] : cut[k + 1]], c, n),
        )
        for k, (c, n) in enumerate(zip(boss, totals.tolist(), strict=True))
    ]


def measures_of(u: Union) -> list[dict[str, Any]]:
    """Each trace's measures that a run table's rows and the rewards read (metrics.py
    defines them), from the union's columns by segments."""
    tb, lineage, seg, starts = u.tb, u.lineage, u.seg, u.starts
    count = len(u.datas)
    names = tb.agent_names
    owner = np.fromiter((int(x.split(":", 1)[0]) for x in names), np.int64, len(names))
    k_all = len(names)

    def per_trace(codes_mask: np.ndarray) -> np.ndarray:
        return np.bincount(owner[codes_mask], minlength=count)

    is_agent = np.zeros(k_all, dtype=bool)
    is_agent[: tb.event_agents] = True
    is_agent[tb.listed] = True
    spawned = lineage.parent >= 0
    n_spawned, n_agents = per_trace(spawned), per_trace(is_agent)
    despawns = tb.of_type("despawn")
    gone = tb.target_codes()[despawns]
    gone[[i in u.no_one for i in despawns.tolist()]] = -1  # an empty target names no one
    finished = np.zeros(k_all, dtype=bool)
    finished[tb.who[tb.of_type("return")]] = True
    finished[np.where(gone >= 0, gone, tb.who[despawns])] = True
    n_finished = per_trace(finished & spawned)
    depth = np.zeros(count, dtype=np.int64)
    np.maximum.at(depth, owner[is_agent], np.array(lineage.depth)[is_agent])
    covered = np.zeros(k_all, dtype=bool)
    covered[tb.who[(u.marks & 2) > 0]] = True
    n_covered = per_trace(covered & spawned)
    is_parent = np.zeros(k_all, dtype=bool)
    is_parent[lineage.parent[spawned]] = True
    roots: list[list[int]] = [[] for _ in range(count)]
    for c in np.flatnonzero(is_agent & ~spawned).tolist():
        roots[owner[c]].append(c)
    boss = []
    for r in roots:
        r.sort(key=names.__getitem__)
        boss.append(next((c for c in r if is_parent[c]), r[0] if r else -1))
    spawns = tb.of_type("spawn")
    spawned_codes = tb.target_codes()[spawns]
    named = spawned_codes >= 0
    peak = _peaks(u, spawned_codes[named], tb.times[spawns[named]], owner)
    groups = _spawn_groups(u, spawns)
    n_spawns = np.bincount(seg[spawns], minlength=count)
    receivers = tb.target_codes()[tb.of_type("message")]
    messages = np.bincount(seg[tb.of_type("message")][receivers >= 0], minlength=count)
    steps = _critical_steps(u, boss, owner)
    outside = (u.marks & 1) == 0
    weights = u.weights.tolist()
    wasted_weights = u.weights[outside].tolist()
    wasted_at = np.concatenate(([0], np.cumsum(np.bincount(seg[outside], minlength=count))))
    n_outside = np.diff(wasted_at).tolist()
    first_end = _segment_first(u.ends == np.maximum.reduceat(u.ends, starts)[seg], starts)
    first_t = _segment_first(tb.times == np.minimum.reduceat(tb.times, starts)[seg], starts)
    t_end, t, cause = u.field("t_end"), tb.t, u.field("cause")
    edges = [len(d.edges) for d in u.datas]
    out = []
    for k, data in enumerate(u.datas):
        a, n = int(starts[k]), u.sizes[k]
        durations = bool(u.durations[k])
        work = float(sum(weights[a : a + n]))
        makespan = t_end[first_end[k]] - t[first_t[k]] if durations else None
        span = float(u.span[k])
        if durations:
            lo = int(wasted_at[k])
            wasted: float = sum(wasted_weights[lo : lo + n_outside[k]])
        else:
            wasted = n_outside[k]
        spawned_k = int(n_spawned[k])
        stop = int(u.first_stop[k])
        fan = int(groups[k])
        out.append(
            {
                "events": n,
                "edges": edges[k],
                "agents": int(n_agents[k]),
                "mode": "durations" if durations else "steps",
                "work": _round(work),
                "critical_path": _round(span),
                "ideal_speedup": _round(work / span) if span else None,
                "observed_speedup": _round(work / makespan) if makespan else None,
                "makespan": _round(makespan),
                "peak_concurrency": int(peak[k]),
                "fan_out": {
                    "decisions": fan,
                    "mean": _round(float(n_spawns[k]) / fan) if fan else None,
                },
                "spawn_depth": int(depth[k]),
                "spawned_agents": spawned_k,
                "finish_rate": _round(int(n_finished[k]) / spawned_k) if spawned_k else None,
                "messages": {"total": int(messages[k])},
                "aggregation_coverage": (
                    _round(int(n_covered[k]) / spawned_k)
                    if spawned_k and u.last_aggregate[k] >= 0
                    else None
                ),
                "wasted_work": _round(wasted),
                "wasted_fraction": _round(wasted / work) if work else None,
                "stop": {"cause": cause[stop]} if stop >= 0 else None,
                "rewards": _rewards(data),
                "critical_steps": steps[k],
            }
        )
    return out
