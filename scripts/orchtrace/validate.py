"""Validates orchestration traces and reports every problem with its JSON path and a code.

A fast structural pass checks each agent, event, edge and reward; items it flags are explained
by jsonschema against traces/trace.schema.json. Semantic checks follow: duplicate ids, dangling
edges, cycles among causal/spawn/return/aggregate edges, time running backwards along an edge,
returns from agents never spawned (errors) and suspicious but legal patterns (warnings). Each
code is reported at most MAX_PER_CODE times per trace, then summarized.
"""

from __future__ import annotations

import itertools
import math
import sys
from collections import Counter
from collections.abc import Callable
from functools import lru_cache, partial
from operator import is_not, itemgetter
from typing import TYPE_CHECKING, Any

import numpy as np

from .model import Item

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator
from .table import EventTable, event_table, first_of
from .trace import NON_FINITE, Document, TraceProblem, non_finite, schema

MAX_PER_CODE = 50
FLOAT_MAX = sys.float_info.max
OUT_OF_RANGE = "integer too large for a 64-bit float (times and rewards are computed as floats)"
TIME_TOLERANCE = 1e-6
ORDERING_EDGES = frozenset({"causal", "spawn", "return", "aggregate"})
SECTIONS = ("agents", "events", "edges", "rewards")


@lru_cache(maxsize=1)
def _spec() -> dict[str, Any]:
    s = schema()
    props = s["properties"]
    items = {name: props[name]["items"] for name in SECTIONS}
    return {
        "schema": s,
        "items": items,
        "fields": {name: set(items[name]["properties"]) for name in SECTIONS},
        "required": {name: tuple(items[name].get("required", [])) for name in SECTIONS},
        # field -> (JSON type, minimum or minLength, enum): what the fast pass checks
        "rules": {
            name: {
                k: (
                    v.get("type"),
                    v.get("minimum", v.get("minLength")),
                    set(v["enum"]) if "enum" in v else None,
                )
                for k, v in items[name]["properties"].items()
            }
            for name in SECTIONS
        },
    }


@lru_cache(maxsize=8)
def _validator(section: str | None) -> Draft202012Validator:
    from jsonschema import Draft202012Validator  # only traces with problems need it

    spec = _spec()
    if section is None:  # the top level, with the big arrays' items left to the fast pass
        shallow = dict(spec["schema"])
        shallow["properties"] = {
            k: ({"type": "array"} if k in SECTIONS else v)
            for k, v in spec["schema"]["properties"].items()
        }
        return Draft202012Validator(shallow)
    return Draft202012Validator(spec["items"][section])


def _pointer(base: str, path: Any) -> str:
    out = base
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _integral(value: int | float) -> bool:
    """Whether JSON Schema counts VALUE as an integer: 3 and 3.0 alike."""
    return isinstance(value, int) or value.is_integer()


def _huge_integer(value: Any) -> bool:
    return _number(value) and isinstance(value, int) and not -FLOAT_MAX <= value <= FLOAT_MAX


class _Report:
    def __init__(self, label: str) -> None:
        self.label, self.items, self.counts = label, list[TraceProblem](), Counter[str]()
        self.non_finite: set[str] = set()

    def add(self, pointer: str, code: str, message: str) -> None:
        if code == "non-finite":  # the parser and the item checks may both flag one path
            if pointer in self.non_finite:
                return
            self.non_finite.add(pointer)
        self.counts[code] += 1
        if self.counts[code] <= MAX_PER_CODE:
            self.items.append(TraceProblem(self.label, pointer, code, message))

    def finish(self) -> list[TraceProblem]:
        for code, n in sorted(self.counts.items()):
            if n > MAX_PER_CODE:
                more = f"... and {n - MAX_PER_CODE:,} more"
                self.items.append(TraceProblem(self.label, "$", code, more))
        return self.items


def _explain(rep: _Report, section: str | None, item: Any, base: str) -> None:
    for err in sorted(_validator(section).iter_errors(item), key=lambda e: list(e.path)):
        code = "negative-value" if err.validator in ("minimum", "exclusiveMinimum") else "schema"
        rep.add(_pointer(base, err.absolute_path), code, err.message)


def _column_ok(values: list[Any], rule: tuple[Any, Any, set[str] | None]) -> bool:
    """Whether every value passes the per-item check of one field; C-level passes only."""
    kind, minimum, allowed = rule
    if allowed is not None:
        return set(map(type, values)) <= {str} and set(values) <= allowed
    if kind == "string":
        return set(map(type, values)) <= {str} and (minimum is None or all(values))
    if kind in ("number", "integer"):
        types = set(map(type, values))
        if not types <= {int, float}:
            return False
        if kind == "integer" and float in types and not all(map(_integral, values)):
            return False
        if not values:
            return True
        low, high = min(values), max(values)
        in_range = kind == "integer" or (low >= -FLOAT_MAX and high <= FLOAT_MAX)  # floats
        return in_range and (minimum is None or low >= minimum)
    return True


def _section_ok(items: list[Any], section: str) -> bool:
    """Whether every item of a section passes the fast checks, tested column by column."""
    spec = _spec()
    if not items:
        return True
    if set(map(type, items)) != {dict}:
        return False
    present = set(itertools.chain.from_iterable(items))
    if not present <= spec["fields"][section]:
        return False
    required, rules = spec["required"][section], spec["rules"][section]
    for key in present:
        if key in required:
            try:
                values = list(map(itemgetter(key), items))
            except KeyError:
                return False
        else:
            values = [item[key] for item in items if key in item]
        if not _column_ok(values, rules[key]):
            return False
    return all(key in present for key in required)


def _item_ok(item: Any, fields: set[str], required: tuple[str, ...], rules: Any) -> bool:
    if not (
        isinstance(item, dict)
        and all(k in item for k in required)
        and all(k in fields for k in item)
    ):
        return False
    for k, value in item.items():
        kind, minimum, allowed = rules[k]
        if allowed is not None:
            ok = isinstance(value, str) and value in allowed
        elif kind == "string":
            ok = isinstance(value, str) and (minimum is None or len(value) >= 1)
        elif kind in ("number", "integer"):
            ok = (
                _number(value)
                and (kind == "number" or _integral(value))
                and (kind == "integer" or -FLOAT_MAX <= value <= FLOAT_MAX)  # a float holds it
                and (minimum is None or value >= minimum)
            )
        else:
            ok = True
        if not ok:
            return False
    return True


def _structure(rep: _Report, trace: Any) -> dict[str, set[int]]:
    """Fast checks; returns, per section present as a list, the indexes of malformed items."""
    if isinstance(trace, Item):  # decoded against the schema already
        return {name: set() for name in SECTIONS if isinstance(trace.get(name), list)}
    spec = _spec()
    top = dict(trace)
    for name in SECTIONS:
        if isinstance(top.get(name), list):
            top[name] = []
    if next(iter(_validator(None).iter_errors(top)), None) is not None:
        _explain(rep, None, top, "$")
    bad: dict[str, set[int]] = {}
    for section in SECTIONS:
        items = trace.get(section)
        if not isinstance(items, list):
            continue
        bad[section] = set()
        if isinstance(trace, Item) or _section_ok(items, section):
            continue
        fields, required, rules = (
            spec["fields"][section],
            spec["required"][section],
            spec["rules"][section],
        )
        for i, item in enumerate(items):
            if _item_ok(item, fields, required, rules):
                continue
            bad[section].add(i)
            pointer = f"$.{section}[{i}]"
            if len(bad[section]) <= MAX_PER_CODE:
                reported = rep.counts.total()
                paths: list[str] = []
                non_finite(item, pointer, paths)
                for where in paths:
                    rep.add(where, "non-finite", NON_FINITE)
                for key, value in item.items() if isinstance(item, dict) else ():
                    if key in rules and rules[key][0] == "number" and _huge_integer(value):
                        rep.add(f"{pointer}.{key}", "out-of-range", OUT_OF_RANGE)
                _explain(rep, section, item, pointer)
                if not paths and rep.counts.total() == reported:  # never leave one unexplained
                    rep.add(pointer, "schema", "item does not match the schema")
            else:
                rep.add(pointer, "schema", "item does not match the schema")
    costs = trace.get("costs")
    if isinstance(costs, dict):
        for k, v in costs.items():
            if isinstance(v, float) and not math.isfinite(v):  # costs are never made floats
                rep.add(f"$.costs.{k}", "non-finite", NON_FINITE)
            elif _number(v) and v < 0:
                rep.add(f"$.costs.{k}", "negative-value", f"{v} is less than the minimum of 0")
    return bad


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


def _semantics(
    rep: _Report,
    doc: Document,
    bad: dict[str, set[int]],
    then: Callable[[EventTable], object] | None = None,
) -> EventTable:
    """Checks across items; malformed items are left out (their ids still resolve edges)."""
    trace = doc.data
    bad_events, bad_edges = bad.get("events", set()), bad.get("edges", set())
    raw_events: list[Any] = trace["events"] if "events" in bad else []
    edges = trace["edges"] if "edges" in bad else []
    agents = trace["agents"] if "agents" in bad else []
    tb = event_table(
        {"events": raw_events, "edges": edges, "agents": agents},
        bad_events,
        bad_edges,
        bad.get("agents", set()),
        doc.worker,
        None if any(bad.values()) else then,
    )
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
    spawns, returns, despawns = tb.of_type("spawn"), tb.of_type("return"), tb.of_type("despawn")
    # the first spawner of each agent, and each agent's earliest despawn, by agent code
    targets = tb.target_codes()
    spawned, returned_to = targets[spawns], targets[returns]
    gone = np.where(targets[despawns] >= 0, targets[despawns], tb.who[despawns])
    named = spawned >= 0
    spawner = first_of(spawned[named], tb.who[spawns[named]], len(tb.agent_names))
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
    if isinstance(costs, dict | Item) and "events" in bad and not bad_events:
        declared = {
            "tool_calls": tb.kinds.get("tool_call", 0),
            "messages": tb.kinds.get("message", 0),
        }
        if "tokens" in costs:
            tokens = list(filter(partial(is_not, None), tb.field("tokens")))
            if tokens:
                declared["tokens"] = sum(tokens)
        for name, counted in declared.items():
            if name in costs and _number(costs[name]) and costs[name] != counted:
                rep.add(
                    f"$.costs.{name}",
                    "cost-mismatch",
                    f"declares {costs[name]}, the events count {counted}",
                )
    return tb


def _edges(
    rep: _Report,
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


def validate_table(
    doc: Document, then: Callable[[EventTable], object] | None = None
) -> tuple[list[TraceProblem], EventTable | None]:
    """Every problem of one parsed trace, and its columns when the trace could be read. When
    every item is well formed, THEN(columns) is called as soon as the events' columns are read
    (edge ends unresolved), so a caller that will measure the trace can start early."""
    rep = _Report(doc.label)
    for p in doc.problems:
        rep.add(p.pointer, p.code, p.message)
    if doc.data is None:
        return rep.finish(), None
    if not isinstance(doc.data, dict | Item):
        rep.add("$", "schema", "a trace is a JSON object")
        return rep.finish(), None
    bad = _structure(rep, doc.data)
    table = None if rep.counts["non-finite"] else _semantics(rep, doc, bad, then)
    return rep.finish(), table


def validate(doc: Document) -> list[TraceProblem]:
    """Every problem of one parsed trace (parse problems included)."""
    try:
        return validate_table(doc)[0]
    finally:
        if doc.worker is not None:
            doc.worker.close(kill=True)  # its replay is not wanted
