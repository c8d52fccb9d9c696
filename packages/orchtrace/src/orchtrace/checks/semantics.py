"""The checks across the items of a trace: what its schema cannot say.

Reads a trace in our names (a trace read from the artifact's format is viewed in them) with
its columns (table.py) and writes problems into a Report: repeated ids, unknown agents,
dangling edges, time running backwards along an edge, cycles among causal/spawn/return/
aggregate edges, agents' parents that loop, returns from agents never spawned (errors), and
suspicious but legal patterns (warnings).
"""

from __future__ import annotations

from collections import Counter
from functools import partial
from operator import is_not
from typing import Any

import numpy as np

from ..core.lineage import Lineage
from ..core.table import EventTable, first_of
from .validate import Report, _number

TIME_TOLERANCE = 1e-6
ORDERING_EDGES = frozenset({"causal", "spawn", "return", "aggregate"})
# edges that say their target comes after their source has finished
AFTER_EDGES = frozenset({"temporal", "causal", "return", "aggregate", "tool_dependency"})


def find_cycle(n: int, succ: list[list[int]]) -> list[int] | None:
    """One directed cycle (as node indexes), by iterative depth-first search."""
    color = bytearray(n)  # 0 new, 1 on stack, 2 done
    parent = [-1] * n
    for start in range(n):
        if color[start]:
            continue
        stack = [(start, 0)]
        color[start] = 1
        while stack:
            node, k = stack[-1]
            if k < len(succ[node]):
                stack[-1] = (node, k + 1)
                nxt = succ[node][k]
                if color[nxt] == 0:
                    color[nxt], parent[nxt] = 1, node
                    stack.append((nxt, 0))
                elif color[nxt] == 1:
                    cycle, cur = [nxt], node
                    while cur != nxt:
                        cycle.append(cur)
                        cur = parent[cur]
                    return cycle[::-1]
            else:
                color[node] = 2
                stack.pop()
    return None


def semantics(
    rep: Report, trace: Any, bad: dict[str, set[int]], tb: EventTable, lineage: Lineage
) -> None:
    """The checks across the items of TRACE (in our names), whose columns TB and LINEAGE hold;
    malformed items (BAD, by section) are left out, though their ids still resolve edges."""
    bad_events = bad.get("events", set())
    raw_events: list[Any] = trace["events"] if "events" in bad else []
    ids, types, who, t = tb.ids, tb.types, tb.agents, tb.t
    for i, first in tb.repeats:
        rep.add(
            f"$.events[{i}].id", "duplicate-id", f"event id '{ids[i]}' is also $.events[{first}]"
        )
    listed = tb.listed
    if np.bincount(listed[listed >= 0]).max(initial=0) > 1:
        seen: set[int] = set()
        for i, code in enumerate(listed.tolist()):
            if code in seen:
                name = tb.agent_names[code]
                rep.add(f"$.agents[{i}].id", "duplicate-id", f"agent id '{name}' is used twice")
            elif code >= 0:
                seen.add(code)
    is_listed = np.zeros(len(tb.agent_names), dtype=bool)
    is_listed[listed[listed >= 0]] = True
    if "agents" in bad and not is_listed[: tb.event_agents].all():
        for i, code in enumerate(tb.who.tolist()):
            if code >= 0 and not is_listed[code]:
                rep.add(
                    f"$.events[{i}].agent", "unknown-agent", f"agent '{who[i]}' is not in $.agents"
                )
    if "edges" in bad:
        _edges(rep, trace["edges"], tb, raw_events, bad)
    if lineage.loop:
        pointer, message = lineage.describe_loop(tb)
        rep.add(pointer, "parent-cycle", message, "give the loop a root: an agent no one spawned")
    returns, despawns = tb.of_type("return"), tb.of_type("despawn")
    # the first spawner of each agent, and each agent's earliest despawn, by agent code
    targets = tb.target_codes()
    returned_to, spawner = targets[returns], lineage.spawner
    gone = np.where(targets[despawns] >= 0, targets[despawns], tb.who[despawns])
    # each agent's earliest despawn (the first listed of equal times), as an event and a time
    by_time = np.lexsort((despawns, tb.times[despawns]))
    despawn_event = first_of(gone[by_time], despawns[by_time], len(tb.agent_names))
    despawned = np.full(len(tb.agent_names), np.inf)
    despawned[despawn_event >= 0] = tb.times[despawn_event[despawn_event >= 0]]
    # pick the events that break a rule, then report them in order
    from_spawner = spawner[tb.who[returns]]
    visit = set(
        returns[(from_spawner < 0) | ((returned_to >= 0) & (returned_to != from_spawner))].tolist()
    )
    if despawns.size:
        acting = tb.who >= 0
        late = np.zeros(len(who), dtype=bool)
        late[acting] = tb.times[acting] > despawned[tb.who[acting]] + TIME_TOLERANCE
        visit.update(np.flatnonzero(late).tolist())
    tools = "tool_call" in tb.kinds or "tool_result" in tb.kinds
    call_id = tb.field("call_id") if tools else []
    sender = tb.field("sender") if "message" in tb.kinds else []
    visit.update(i for i in tb.of_type("message").tolist() if sender[i] not in (None, who[i]))
    calls = Counter(call_id[i] for i in tb.of_type("tool_call").tolist())
    results = Counter(call_id[i] for i in tb.of_type("tool_result").tolist())
    for kind, answered in (("tool_call", results), ("tool_result", calls)):
        visit.update(
            i
            for i in tb.of_type(kind).tolist()
            if call_id[i] is not None and not answered[call_id[i]]
        )
    names = tb.agent_names
    for i in sorted(visit):
        kind, name, code = types[i], who[i], int(tb.who[i])
        if kind == "return":
            if spawner[code] < 0:
                rep.add(
                    f"$.events[{i}]",
                    "return-unspawned",
                    f"agent '{name}' returns but was never spawned",
                )
            elif targets[i] >= 0 and targets[i] != spawner[code]:
                rep.add(
                    f"$.events[{i}].target",
                    "return-not-to-spawner",
                    f"'{name}' returns to '{names[targets[i]]}', but '{names[spawner[code]]}' "
                    "spawned it",
                )
        if kind != "despawn" and code >= 0 and t[i] > despawned[code] + TIME_TOLERANCE:
            rep.add(
                f"$.events[{i}]",
                "after-despawn",
                f"agent '{name}' acts at t={t[i]} after its despawn at t={t[despawn_event[code]]}",
            )
        if kind == "message" and sender[i] is not None and sender[i] != name:
            rep.add(
                f"$.events[{i}].sender",
                "sender-mismatch",
                f"message sent by '{name}' names sender '{sender[i]}'",
            )
        if kind == "tool_call" and call_id[i] is not None and not results[call_id[i]]:
            rep.add(
                f"$.events[{i}]",
                "unmatched-tool-call",
                f"tool call '{call_id[i]}' has no result",
            )
        if kind == "tool_result" and call_id[i] is not None and not calls[call_id[i]]:
            rep.add(
                f"$.events[{i}]",
                "unmatched-tool-result",
                f"tool result '{call_id[i]}' answers no call",
            )
    costs = trace.get("costs")
    if isinstance(costs, dict) and "events" in bad and not bad_events:
        check_costs(rep, costs, tb.kinds, tb.field("tokens") if "tokens" in costs else [])


def check_costs(
    rep: Report, costs: dict[str, Any], kinds: dict[str, int], tokens: list[Any]
) -> None:
    """The totals COSTS declares against what the events count: KINDS (events per type) and
    their TOKENS (None where absent; summed when costs declares tokens)."""
    declared = {"tool_calls": kinds.get("tool_call", 0), "messages": kinds.get("message", 0)}
    counted = list(filter(partial(is_not, None), tokens))
    if counted:
        declared["tokens"] = sum(counted)
    for name, count in declared.items():
        if name in costs and _number(costs[name]) and costs[name] != count:
            rep.add(
                f"$.costs.{name}",
                "cost-mismatch",
                f"declares {costs[name]}, the events count {count}",
            )


def _before_end(
    tb: EventTable, resolved: np.ndarray, late: set[int]
) -> list[tuple[int, str, str, str]]:
    """Edges that say their target follows their source, whose target starts before the
    source ends: the order they claim would let a critical path outrun the clock."""
    raw = tb.field("t_end")
    try:
        ends = np.array(raw, dtype=np.float64)  # None becomes NaN
    except (TypeError, ValueError, OverflowError):  # a malformed end, which the schema reports
        ends = np.array([x if _number(x) else np.nan for x in raw], dtype=np.float64)
    if not resolved.size or np.isnan(ends).all():
        return []
    source, target, times = tb.source[resolved], tb.target[resolved], tb.times
    early = times[target] < ends[source] - TIME_TOLERANCE  # NaN compares False
    found = []
    for j in resolved[early].tolist():
        kind = tb.edge_types[j]
        if kind not in AFTER_EDGES or j in late:
            continue
        s, d = int(tb.source[j]), int(tb.target[j])
        msg = (
            f"{kind} edge from {tb.ids[s]} (ends t={raw[s]}) to {tb.ids[d]}, "
            f"which starts at t={tb.t[d]}, before its source ends"
        )
        found.append((j, f"$.edges[{j}]", "starts-before-source-ends", msg))
    return found


def _edges(
    rep: Report,
    edges: list[Any],
    tb: EventTable,
    raw_events: list[Any],
    bad: dict[str, set[int]],
) -> None:
    """Dangling ends, time running backwards, and one cycle among the ordering edges."""
    source, target, t = tb.source, tb.target, tb.t
    resolved = (source >= 0) & (target >= 0)
    both = source[resolved], target[resolved]
    times = tb.times
    late = np.flatnonzero(resolved)[times[both[1]] < times[both[0]] - TIME_TOLERANCE].tolist()
    found: list[tuple[int, str, str, str]] = []  # reported in edge order, as read
    if not resolved.all():
        known = set(tb.ids)
        for i in bad.get("events", ()):
            if isinstance(raw_events[i], dict) and isinstance(raw_events[i].get("id"), str):
                known.add(raw_events[i]["id"])
        for j in np.flatnonzero(~resolved).tolist():
            if j in bad["edges"]:
                continue
            for end, name in ((source[j], "source"), (target[j], "target")):
                if end < 0 and edges[j][name] not in known:
                    msg = f"no event '{edges[j][name]}'"
                    found.append((j, f"$.edges[{j}].{name}", "dangling-edge", msg))
    for j in late:
        s, d = int(source[j]), int(target[j])
        msg = f"{tb.edge_types[j]} edge from t={t[s]} to t={t[d]}"
        found.append((j, f"$.edges[{j}]", "time-backwards", msg))
    found += _before_end(tb, np.flatnonzero(resolved), set(late))
    for _, pointer, code, msg in sorted(found, key=lambda f: f[0]):
        rep.add(pointer, code, msg)
    if np.all(both[0] < both[1]):  # every edge points forward in file order: no cycle
        return
    succ: list[list[int]] = [[] for _ in t]
    for j in np.flatnonzero(resolved).tolist():
        if tb.edge_types[j] in ORDERING_EDGES:
            succ[int(source[j])].append(int(target[j]))
    cycle = find_cycle(len(t), succ)
    if cycle:
        ids = " -> ".join(tb.ids[i] for i in [*cycle, cycle[0]])
        rep.add("$.edges", "cycle", f"causal/spawn/return/aggregate edges form a cycle: {ids}")
