"""Who spawned whom: each agent's parent, its spawn depth, and parents that loop.

Reads a trace's columns (table.py) and its agent list. An agent's parent is its declared
`parent`, else the agent that first spawned it. Depths come from one walk up the parents that
remembers every agent it has measured, so each agent is visited once; a walk that comes back
to an agent on its own way has found a loop, which the validator reports as `parent-cycle`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .table import EventTable, aligned, first_of


def depths(parent: list[int]) -> tuple[list[int], list[int] | None]:
    """Each agent's number of ancestors (-1 for agents on a loop of parents or below one), and
    one such loop, child before parent, if there is one. PARENT[c] is c's parent or -1."""
    depth = [-2] * len(parent)  # -2: not measured yet
    loop = None
    for start in range(len(parent)):
        up = parent[start]
        if depth[start] != -2:
            continue
        if up < 0 or depth[up] >= 0:  # most agents: a root, or one step below a measured one
            depth[start] = 0 if up < 0 else depth[up] + 1
            continue
        path: dict[int, int] = {}  # agent -> its place on this walk
        x = start
        while x >= 0 and depth[x] == -2 and x not in path:
            path[x] = len(path)
            x = parent[x]
        walked = list(path)
        if x >= 0 and x in path:  # back on this walk: a loop
            if loop is None:
                loop = walked[path[x] :]
            d = -1
        else:
            d = -1 if x < 0 else depth[x]
        for agent in reversed(walked):
            d = -1 if d == -1 and x >= 0 else d + 1
            depth[agent] = d
    return depth, loop


@dataclass(slots=True)
class Lineage:
    """The parents of every agent of a table, by agent code (-1 where there is none)."""

    parent: np.ndarray
    spawner: np.ndarray  # the agent that first spawned each one
    spawned_at: np.ndarray  # the event of that spawn
    declared_at: np.ndarray  # the index in $.agents of the declared parent
    depth: list[int]
    loop: list[int] | None

    @classmethod
    def of(cls, tb: EventTable, agents: list[Any] | None, bad: dict[str, set[int]]) -> Lineage:
        """The lineage of TB's agents; AGENTS is the trace's agent list (None when it has
        none), whose items in BAD['agents'] are malformed and left out."""
        spawns = tb.of_type("spawn")
        spawned = tb.target_codes()[spawns]
        names = aligned(agents or [], "parent", bad.get("agents", set()))
        declared = tb.agent_codes([x or None for x in names])  # an empty name names no one
        k = len(tb.agent_names)
        named = spawned >= 0
        spawner = first_of(spawned[named], tb.who[spawns[named]], k)
        spawned_at = first_of(spawned[named], spawns[named], k)
        has = (declared >= 0) & (tb.listed >= 0)
        declared_parent = first_of(tb.listed[has], declared[has], k, last=True)
        declared_at = first_of(tb.listed[has], np.flatnonzero(has), k, last=True)
        parent = np.where(declared_parent >= 0, declared_parent, spawner)
        depth, loop = depths(parent.tolist())
        return cls(parent, spawner, spawned_at, declared_at, depth, loop)

    def describe_loop(self, tb: EventTable) -> tuple[str, str]:
        """Where the loop is said (the first declared parent on it, else the first spawn) and
        what it is."""
        assert self.loop is not None
        loop = self.loop
        named = " -> ".join(tb.agent_names[c] for c in [*loop, loop[0]])
        declared = [c for c in loop if self.declared_at[c] >= 0]
        if declared:
            pointer = f"$.agents[{self.declared_at[declared[0]]}].parent"
        else:
            pointer = f"$.events[{self.spawned_at[loop[0]]}].target"
        if len(loop) == 1:
            return pointer, f"agent '{tb.agent_names[loop[0]]}' is its own parent"
        return pointer, f"agents' parents loop: {named} (each one's parent follows it)"
