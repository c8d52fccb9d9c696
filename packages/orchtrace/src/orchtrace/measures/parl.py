"""Critical steps as Kimi K2.5's Agent Swarm section defines them (arXiv 2602.02276): over the
main agent's stages t, CriticalSteps = sum_t (S_main(t) + max_i S_sub,i(t)), where S_main(t) is
the main agent's steps in stage t and S_sub,i(t) those of its i-th sub-agent there; a step is
an agent turn. The report uses it as a latency budget for the orchestrator, not as its reward.

Where the report leaves room, this reading is ours (traces/METRICS.md states it too):
- A turn is an event of type step, decision, message, aggregate, stop or human_intervention;
  an agent's turn events at one instant are one turn. A tool call and its result belong to the
  turn that issued them, the agent's last turn before the call; a tool call with no turn of
  its agent since the agent's last tool result, made while no model step of its agent is under
  way, stands for the turn that issued it (traces written by hand often record only the call).
  Spawn, despawn and return are what a turn does, not turns of their own.
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

from collections import defaultdict
from typing import Literal

import numpy as np

from ..core.lineage import Lineage
from ..core.table import EventTable

TURN_TYPES = ("step", "decision", "message", "aggregate", "stop", "human_intervention")


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
            marks, spans = tb.field("attributes"), tb.field("span_id")
        except AttributeError:  # the artifact's events, which have neither
            marks = spans = [None] * len(tb.ids)
        seen: set[tuple[int, str]] = set()
        marked = [i for i in steps.tolist() if marks[i] is not None or spans[i] is not None]
        for i, who in zip(marked, tb.who[marked].tolist(), strict=True):
            a, span = marks[i], spans[i]
            if type(a) is dict and (
                a.get("turn") is False or (a.get("own_time") is True and not tb.field("tokens")[i])
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
    came back in between). A call at t is under way in a step when more of its agent's steps
    start by t than end before t, counted on one integer key (agent, rank of the time)."""
    steps = tb.of_type("step")
    steps = steps[kind[steps] == 0]
    if not calls.size or not steps.size:
        return calls
    try:
        ends = np.array(tb.field("t_end"), dtype=np.float64)[steps]  # None is NaN
    except (AttributeError, TypeError, ValueError):
        return calls
    timed = ~np.isnan(ends)
    steps, ends = steps[timed], ends[timed]
    if not steps.size:
        return calls
    _, rank = np.unique(
        np.concatenate((tb.times[steps], ends, tb.times[calls])), return_inverse=True
    )
    width = int(rank.max()) + 2
    n = steps.size
    agent = tb.who[steps].astype(np.int64) * width
    starts = np.sort(agent + rank[:n])
    stops = np.sort(agent + rank[n : 2 * n])
    mine = tb.who[calls].astype(np.int64) * width
    at = mine + rank[2 * n :]
    begun = np.searchsorted(starts, at, side="right") - np.searchsorted(starts, mine)
    over = np.searchsorted(stops, at, side="left") - np.searchsorted(stops, mine)
    return np.asarray(calls[begun - over <= 0], dtype=np.int64)


# A spawn row: (parent, time, child, the parent's turns up to it, the child's turns before it,
# the child's turns up to the end of its run, that end), times as ranks (END_OPEN: no end).
Row = tuple[int, int, int, int, int, int, int]
END_OPEN = np.iinfo(np.int64).max


def spawn_rows(
    tb: EventTable, lineage: Lineage, at: np.ndarray, mains: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Every spawn of TB as a Row (one array, a row each), and the turns of each agent of MAINS,
    counted in one pass of sorts and searches over the whole table (AT are its turns; an
    agent's turns at one instant are one). A child that a declared parent has, with no spawn,
    is spawned at its first event; a run ends at the child's first return or despawn after its
    spawn."""
    spawns = tb.of_type("spawn")
    target = tb.target_codes()[spawns]
    ok = target >= 0
    first = np.full(len(tb.agent_names), np.inf)
    has = tb.who >= 0
    np.minimum.at(first, tb.who[has], tb.times[has])
    declared = np.flatnonzero((lineage.parent >= 0) & (lineage.spawned_at < 0))
    declared = declared[np.isfinite(first[declared])]
    parent = np.concatenate((tb.who[spawns[ok]], lineage.parent[declared])).astype(np.int64)
    child = np.concatenate((target[ok], declared)).astype(np.int64)
    when = np.concatenate((tb.times[spawns[ok]], first[declared]))
    gone = tb.of_type("despawn")
    gone_who = tb.target_codes()[gone]
    back = tb.of_type("return")
    ender = np.concatenate((tb.who[back], np.where(gone_who >= 0, gone_who, tb.who[gone])))
    ended = np.concatenate((tb.times[back], tb.times[gone]))
    _, rank = np.unique(np.concatenate((tb.times[at], when, ended)), return_inverse=True)
    rank = rank.astype(np.int64)
    width = int(rank.max(initial=0)) + 2
    turn = np.unique(tb.who[at].astype(np.int64) * width + rank[: at.size])
    t = rank[at.size : at.size + when.size]
    stop = np.sort(ender.astype(np.int64) * width + rank[at.size + when.size :])

    def count(agent: np.ndarray, r: np.ndarray, before: bool = False) -> np.ndarray:
        """How many turns AGENT takes at or before rank R (before it, if BEFORE)."""
        side: Literal["left", "right"] = "left" if before else "right"
        out = np.searchsorted(turn, agent * width + r, side=side)
        return np.asarray(out - np.searchsorted(turn, agent * width), dtype=np.int64)

    j = np.searchsorted(stop, child * width + t)
    end_key = stop[np.minimum(j, stop.size - 1)] if stop.size else np.zeros(j.size, np.int64)
    found = (j < stop.size) & (end_key // width == child)
    end = np.where(found, end_key - child * width, END_OPEN)
    rows = np.column_stack(
        (
            parent,
            t,
            child,
            count(parent, t),
            count(child, t, before=True),
            count(child, np.where(found, end, width - 1)),  # an open run: all the child's turns
            end,
        )
    )
    mains = mains.astype(np.int64)
    totals = np.searchsorted(turn, (mains + 1) * width) - np.searchsorted(turn, mains * width)
    return rows.reshape(-1, 7), np.where(mains >= 0, totals, 0)


DEEPEST = 200  # sub-agents nested deeper count their own turns only (no recursion past it)


def stages(rows: list[Row], main: int, turns: int) -> list[tuple[int, int]]:
    """The stages of agent MAIN (TURNS turns in all) as (its steps, its longest sub-agent's
    steps), from the ROWS of its trace's spawns."""
    if main < 0:
        return []
    below: dict[int, list[Row]] = defaultdict(list)
    for row in sorted(rows, key=lambda r: r[1]):
        below[row[0]].append(row)

    def of(
        agent: int, lo: int, hi: int, base: int, top: int, path: tuple[int, ...]
    ) -> list[tuple[int, int]]:
        found: list[tuple[int, int]] = []
        done = base  # the agent's turns counted so far (those before LO are not its run's)
        batch_end = -1  # the earliest end of a run in the batch
        for _, t, c, k, c_lo, c_hi, end in below.get(agent, ()):
            if not lo <= t <= hi or c in path:
                continue
            if len(path) < DEEPEST:
                cost = sum(x + y for x, y in of(c, t, end, c_lo, c_hi, (*path, c)))
            else:
                cost = c_hi - c_lo
            if found and k == done and t < batch_end:  # the same batch
                found[-1] = (found[-1][0], max(found[-1][1], cost))
                batch_end = min(batch_end, end)
            else:
                found.append((k - done, cost))
                done, batch_end = k, end
        if top > done:
            found.append((top - done, 0))
        return found

    return of(main, -1, END_OPEN, 0, turns, (main,))


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
    rows, totals = spawn_rows(tb, lineage, turns(tb), np.array([main]))
    found = stages([tuple(r) for r in rows.tolist()], main, int(totals[0]))
    return as_measure(tb.agent_names[main] if main >= 0 else None, found)
