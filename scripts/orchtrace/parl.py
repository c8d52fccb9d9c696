"""Critical steps as Kimi K2.5's Agent Swarm section defines them (arXiv 2602.02276): over the
main agent's stages t, CriticalSteps = sum_t (S_main(t) + max_i S_sub,i(t)), where S_main(t) is
the main agent's steps in stage t and S_sub,i(t) those of its i-th sub-agent there; a step is
an agent turn. The report uses it as a latency budget for the orchestrator, not as its reward.

Where the report leaves room, this reading is ours (traces/METRICS.md states it too):
- A turn is an event of type step (an imported span's own time, `attributes.own_time`, is
  not one: it is waiting), decision, message, aggregate, stop or
  human_intervention; an agent's turn events at one instant are one turn. A tool call and its
  result belong to the turn that issued them, the agent's last turn before the call; a tool
  call with no turn of its agent since the agent's last tool result, and made while no model
  step of its agent is under way, stands for the turn that issued it (traces written by hand
  often record only the call). Spawn, despawn and return
  are what a turn does, not turns of their own.
- Imported steps: one model call is one turn however many stretches its span was cut into
  (one `span_id`); a step marked `attributes.turn` false (a span that is not a model call: a
  chain's leaf, a retriever, a span of no convention) is none, and so is a span's own time
  unless it carries tokens (an agent span that reports its model's tokens itself).
- A stage is a batch of sub-agents that run side by side, as the definition assumes: the
  main agent's spawns with no turn of its own and no return of a sub-agent of the batch
  between them; it holds the main agent's turns since the previous batch up to the batch's
  first spawn, and the turns after the last batch are a last stage.
- A sub-agent's steps are its own critical steps over its run: from its spawn to its return
  (or despawn) after it, so a sub-agent spawned twice counts each run in its own stage, and
  one that spawns counts its longest sub-agent per stage too. Agents that are not the main
  agent's descendants are not counted.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections import defaultdict

import numpy as np

from .lineage import Lineage
from .table import EventTable

TURN_TYPES = ("step", "decision", "message", "aggregate", "stop", "human_intervention")


def own_time(tb: EventTable) -> np.ndarray:
    """Which events are steps over a span's own time (`attributes.own_time`, as import marks
    them): an agent's time between its calls, or waiting on a tool, rather than a turn."""
    try:
        marks = tb.field("attributes")
    except AttributeError:  # the artifact's events, which have no attributes of ours
        return np.zeros(len(tb.ids), dtype=bool)
    return np.fromiter(
        (type(a) is dict and a.get("own_time") is True for a in marks), bool, len(marks)
    )


def turns(tb: EventTable) -> np.ndarray:
    """The indices of the events that are turns: those of TURN_TYPES (a step once per span,
    none marked `turn` false), and each tool call that no turn of its agent precedes since
    the agent's last tool result (or its start) and no model step of its agent is under way
    at, which stands for the turn that issued it."""
    kind = np.full(len(tb.ids), -1, dtype=np.int8)  # at one instant: turn, call, result
    for name in TURN_TYPES:
        kind[tb.of_type(name)] = 0
    kind[tb.of_type("tool_call")] = 1
    kind[tb.of_type("tool_result")] = 2
    steps = tb.of_type("step")
    if steps.size:
        try:
            marks, spans, tokens = tb.field("attributes"), tb.field("span_id"), tb.field("tokens")
        except AttributeError:  # the artifact's events, which have none of them
            marks = spans = tokens = [None] * len(tb.ids)
        seen: set[tuple[int, str]] = set()
        for i, who in zip(steps.tolist(), tb.who[steps].tolist(), strict=True):
            a, span = marks[i], spans[i]
            if type(a) is dict and (
                a.get("turn") is False or (a.get("own_time") is True and not tokens[i])
            ):
                kind[i] = -1
            elif type(span) is str:
                if (who, span) in seen:
                    kind[i] = -1
                seen.add((who, span))
    at = np.flatnonzero((kind >= 0) & (tb.who >= 0))
    order = at[np.lexsort((kind[at], tb.times[at], tb.who[at]))]
    k = kind[order]
    first = np.append(True, tb.who[order][1:] != tb.who[order][:-1])
    after_result = first | np.append(False, k[:-1] == 2)
    calls = order[(k == 1) & after_result]
    return np.sort(np.concatenate((order[k == 0], _outside_model_calls(tb, kind, calls))))


def _outside_model_calls(tb: EventTable, kind: np.ndarray, calls: np.ndarray) -> np.ndarray:
    """The tool calls of CALLS that no model step of their agent is under way at (a call made
    while the model that issued it still streams is part of that turn, however its results
    came back in between)."""
    steps = tb.of_type("step")
    steps = steps[kind[steps] == 0]
    if not calls.size or not steps.size:
        return calls
    try:
        ends = tb.field("t_end")
    except AttributeError:
        return calls
    spans: dict[int, list[tuple[float, float]]] = defaultdict(list)
    for i, who in zip(steps.tolist(), tb.who[steps].tolist(), strict=True):
        end = ends[i]
        if type(end) in (int, float):
            spans[who].append((float(tb.times[i]), float(end)))
    keep = []
    for i, who in zip(calls.tolist(), tb.who[calls].tolist(), strict=True):
        t = float(tb.times[i])
        if not any(lo <= t <= hi for lo, hi in spans.get(who, ())):
            keep.append(i)
    return np.array(keep, dtype=np.int64)


class Runs:
    """One trace's turns, spawns and returns, by agent code, for `stages`."""

    def __init__(self) -> None:
        self.turns: dict[int, list[float]] = defaultdict(list)
        self.spawns: dict[int, list[tuple[float, int]]] = defaultdict(list)
        self.ends: dict[int, list[float]] = defaultdict(list)

    def sort(self) -> Runs:
        for a, times in self.turns.items():
            self.turns[a] = sorted(set(times))  # an agent's turns at one instant are one turn
        for x in (self.spawns, self.ends):
            for v in x.values():
                v.sort()
        return self


def runs(tb: EventTable, lineage: Lineage, at: np.ndarray) -> np.ndarray:
    """The (kind, agent, other, time) rows that make a trace's Runs: kind 0 a turn of agent,
    1 a spawn of other by agent, 2 an end of agent's run; AT are its turns. A child that a
    declared parent has, with no spawn, is spawned at its first event."""
    spawns = tb.of_type("spawn")
    target = tb.target_codes()[spawns]
    ok = target >= 0
    gone = tb.of_type("despawn")
    gone_who = tb.target_codes()[gone]
    gone_who = np.where(gone_who >= 0, gone_who, tb.who[gone])
    back = tb.of_type("return")
    first = np.full(len(tb.agent_names), np.inf)
    has = tb.who >= 0
    np.minimum.at(first, tb.who[has], tb.times[has])
    child = np.flatnonzero((lineage.parent >= 0) & (lineage.spawned_at < 0))
    child = child[np.isfinite(first[child])]
    parts = [
        (0, tb.who[at], np.full(at.size, -1), tb.times[at]),
        (1, tb.who[spawns[ok]], target[ok], tb.times[spawns[ok]]),
        (1, lineage.parent[child], child, first[child]),
        (2, tb.who[back], np.full(back.size, -1), tb.times[back]),
        (2, gone_who, np.full(gone.size, -1), tb.times[gone]),
    ]
    return np.concatenate(
        [np.column_stack((np.full(len(w), k), w, o, t)) for k, w, o, t in parts]
    ).reshape(-1, 4)


def collect(rows: list[list[float]]) -> Runs:
    """A trace's Runs from its rows (see `runs`)."""
    r = Runs()
    for kind, agent, other, t in rows:
        if kind == 0:
            r.turns[int(agent)].append(t)
        elif kind == 1:
            r.spawns[int(agent)].append((t, int(other)))
        else:
            r.ends[int(agent)].append(t)
    return r.sort()


DEEPEST = 200  # sub-agents nested deeper count their own turns only (no recursion past it)


def stages(r: Runs, main: int) -> list[tuple[int, int]]:
    """The main agent's stages as (its steps, its longest sub-agent's steps)."""
    if main < 0:
        return []

    def total(agent: int, lo: float, hi: float, path: tuple[int, ...]) -> int:
        return sum(x + y for x, y in of(agent, lo, hi, path))

    def of(agent: int, lo: float, hi: float, path: tuple[int, ...]) -> list[tuple[int, int]]:
        mine = r.turns.get(agent, [])
        left = bisect_left(mine, lo)
        found: list[tuple[int, int]] = []
        done = left  # turns counted so far
        batch_end = -1.0  # the earliest end of a run in the batch (inf: none)
        for t, c in r.spawns.get(agent, []):
            if not lo <= t <= hi or c in path:
                continue
            ends = r.ends.get(c, [])
            j = bisect_left(ends, t)
            end = ends[j] if j < len(ends) else math.inf
            cost = (
                total(c, t, end, (*path, c))
                if len(path) < DEEPEST
                else bisect_right(r.turns.get(c, []), end) - bisect_left(r.turns.get(c, []), t)
            )
            k = bisect_right(mine, t)
            if found and k == done and t < batch_end:  # the same batch
                found[-1] = (found[-1][0], max(found[-1][1], cost))
                batch_end = min(batch_end, end)
            else:
                found.append((k - done, cost))
                done, batch_end = k, end
        right = bisect_right(mine, hi)
        if right > done:
            found.append((right - done, 0))
        return found

    return of(main, -math.inf, math.inf, (main,))


def as_measure(name: str | None, found: list[tuple[int, int]]) -> dict[str, object]:
    return {
        "orchestrator": name,
        "stages": [
            {"orchestrator_steps": x, "longest_subagent_steps": y, "critical_steps": x + y}
            for x, y in found
        ],
        "total": sum(x + y for x, y in found),
    }


def critical_steps(tb: EventTable, lineage: Lineage, main: int) -> dict[str, object]:
    """The measure for one trace's table, MAIN being its orchestrator's code (-1: none)."""
    found = stages(collect(runs(tb, lineage, turns(tb)).tolist()), main)
    return as_measure(tb.agent_names[main] if main >= 0 else None, found)
