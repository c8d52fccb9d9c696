"""Validates orchestration traces and reports every problem with its JSON path and a code.

A fast structural pass checks each agent, event, edge and reward; items it flags are explained
by jsonschema against traces/trace.schema.json. Semantic checks follow: duplicate ids, dangling
edges, cycles among causal/spawn/return/aggregate edges, time running backwards along an edge,
returns from agents never spawned (errors) and suspicious but legal patterns (warnings). Each
code is reported at most MAX_PER_CODE times per trace, then summarized.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from typing import Any

from jsonschema import Draft202012Validator

from .trace import Document, TraceProblem, schema

MAX_PER_CODE = 50
TIME_TOLERANCE = 1e-6
ORDERING_EDGES = frozenset({"causal", "spawn", "return", "aggregate"})
SECTIONS = ("agents", "events", "edges", "rewards")
WARNINGS = {
    "return-not-to-spawner",
    "after-despawn",
    "unmatched-tool-call",
    "unmatched-tool-result",
    "sender-mismatch",
    "cost-mismatch",
}


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


class _Report:
    def __init__(self, label: str) -> None:
        self.label, self.items, self.counts = label, list[TraceProblem](), Counter[str]()

    def add(self, pointer: str, code: str, message: str) -> None:
        self.counts[code] += 1
        if self.counts[code] <= MAX_PER_CODE:
            severity = "warning" if code in WARNINGS else "error"
            self.items.append(TraceProblem(self.label, pointer, code, message, severity))

    def finish(self) -> list[TraceProblem]:
        for code, n in sorted(self.counts.items()):
            if n > MAX_PER_CODE:
                severity = "warning" if code in WARNINGS else "error"
                self.items.append(
                    TraceProblem(
                        self.label, "$", code, f"... and {n - MAX_PER_CODE:,} more", severity
                    )
                )
        return self.items


def _explain(rep: _Report, section: str | None, item: Any, base: str) -> None:
    for err in sorted(_validator(section).iter_errors(item), key=lambda e: list(e.path)):
        code = "negative-value" if err.validator in ("minimum", "exclusiveMinimum") else "schema"
        rep.add(_pointer(base, err.absolute_path), code, err.message)


def _structure(rep: _Report, trace: dict[str, Any]) -> dict[str, set[int]]:
    """Fast checks; returns, per section present as a list, the indexes of malformed items."""
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
        fields, required, rules = (
            spec["fields"][section],
            spec["required"][section],
            spec["rules"][section],
        )
        flagged = 0
        for i, item in enumerate(items):
            ok = (
                isinstance(item, dict)
                and all(k in item for k in required)
                and all(k in fields for k in item)
            )
            if ok:
                for k, value in item.items():
                    kind, minimum, allowed = rules[k]
                    if allowed is not None:
                        ok = isinstance(value, str) and value in allowed
                    elif kind == "string":
                        ok = isinstance(value, str) and (minimum is None or len(value) >= 1)
                    elif kind in ("number", "integer"):
                        ok = (
                            _number(value)
                            and (kind == "number" or isinstance(value, int))
                            and (minimum is None or value >= minimum)
                        )
                    if not ok:
                        break
            if not ok:
                bad[section].add(i)
                flagged += 1
                if flagged <= MAX_PER_CODE:
                    _explain(rep, section, item, f"$.{section}[{i}]")
                else:
                    rep.add(f"$.{section}[{i}]", "schema", "item does not match the schema")
    costs = trace.get("costs")
    if isinstance(costs, dict):
        for k, v in costs.items():
            if _number(v) and v < 0:
                rep.add(f"$.costs.{k}", "negative-value", f"{v} is less than the minimum of 0")
    return bad


def _find_cycle(n: int, succ: list[list[int]]) -> list[int] | None:
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


def _semantics(rep: _Report, trace: dict[str, Any], bad: dict[str, set[int]]) -> None:
    """Checks across items; malformed items are left out (their ids still resolve edges)."""
    raw_events: list[Any] = trace["events"] if "events" in bad else []
    # malformed events stay as None so that every pointer keeps its index
    events: list[Any] = [
        None if i in bad.get("events", ()) else ev for i, ev in enumerate(raw_events)
    ]
    agents = [a for i, a in enumerate(trace.get("agents") or []) if i not in bad.get("agents", ())]
    known_ids = {
        ev["id"] for ev in raw_events if isinstance(ev, dict) and isinstance(ev.get("id"), str)
    }
    index: dict[str, int] = {}
    for i, ev in enumerate(events):
        if ev is None:
            continue
        if ev["id"] in index:
            rep.add(
                f"$.events[{i}].id",
                "duplicate-id",
                f"event id '{ev['id']}' is also $.events[{index[ev['id']]}]",
            )
        else:
            index[ev["id"]] = i
    agent_ids: dict[str, int] = {}
    for i, ag in enumerate(agents):
        if ag["id"] in agent_ids:
            rep.add(f"$.agents[{i}].id", "duplicate-id", f"agent id '{ag['id']}' is used twice")
        agent_ids.setdefault(ag["id"], i)
    if "agents" in bad:
        for i, ev in enumerate(events):
            if ev is not None and ev["agent"] not in agent_ids:
                rep.add(
                    f"$.events[{i}].agent",
                    "unknown-agent",
                    f"agent '{ev['agent']}' is not in $.agents",
                )
    succ: list[list[int]] = [[] for _ in events]
    if "edges" in bad:
        for j, edge in enumerate(trace["edges"]):
            if j in bad["edges"]:
                continue
            s, t = index.get(edge["source"]), index.get(edge["target"])
            for end, name in ((s, "source"), (t, "target")):
                if end is None and edge[name] not in known_ids:
                    rep.add(f"$.edges[{j}].{name}", "dangling-edge", f"no event '{edge[name]}'")
            if s is None or t is None:
                continue
            if events[t]["t"] < events[s]["t"] - TIME_TOLERANCE:
                rep.add(
                    f"$.edges[{j}]",
                    "time-backwards",
                    f"{edge['type']} edge from t={events[s]['t']} to t={events[t]['t']}",
                )
            if edge["type"] in ORDERING_EDGES:
                succ[s].append(t)
        cycle = _find_cycle(len(events), succ)
        if cycle:
            ids = " -> ".join(events[i]["id"] for i in [*cycle, cycle[0]])
            rep.add("$.edges", "cycle", f"causal/spawn/return/aggregate edges form a cycle: {ids}")
    spawner: dict[str, str] = {}
    despawned: dict[str, float] = {}
    calls, results = Counter[str](), Counter[str]()
    good = [(i, ev) for i, ev in enumerate(events) if ev is not None]
    for _, ev in good:
        kind = ev["type"]
        if kind == "spawn" and "target" in ev:
            spawner.setdefault(ev["target"], ev["agent"])
        elif kind == "despawn":
            who = ev.get("target", ev["agent"])
            despawned[who] = min(despawned.get(who, ev["t"]), ev["t"])
        elif kind == "tool_call" and "call_id" in ev:
            calls[ev["call_id"]] += 1
        elif kind == "tool_result" and "call_id" in ev:
            results[ev["call_id"]] += 1
    for i, ev in good:
        kind, who = ev["type"], ev["agent"]
        if kind == "return":
            if who not in spawner:
                rep.add(
                    f"$.events[{i}]",
                    "return-unspawned",
                    f"agent '{who}' returns but was never spawned",
                )
            elif "target" in ev and ev["target"] != spawner[who]:
                rep.add(
                    f"$.events[{i}].target",
                    "return-not-to-spawner",
                    f"'{who}' returns to '{ev['target']}', but '{spawner[who]}' spawned it",
                )
        if who in despawned and ev["t"] > despawned[who] + TIME_TOLERANCE and kind != "despawn":
            rep.add(
                f"$.events[{i}]",
                "after-despawn",
                f"agent '{who}' acts at t={ev['t']} after its despawn at t={despawned[who]}",
            )
        if kind == "message" and "sender" in ev and ev["sender"] != who:
            rep.add(
                f"$.events[{i}].sender",
                "sender-mismatch",
                f"message sent by '{who}' names sender '{ev['sender']}'",
            )
        if kind == "tool_call" and "call_id" in ev and not results[ev["call_id"]]:
            rep.add(
                f"$.events[{i}]",
                "unmatched-tool-call",
                f"tool call '{ev['call_id']}' has no result",
            )
        if kind == "tool_result" and "call_id" in ev and not calls[ev["call_id"]]:
            rep.add(
                f"$.events[{i}]",
                "unmatched-tool-result",
                f"tool result '{ev['call_id']}' answers no call",
            )
    costs = trace.get("costs")
    if isinstance(costs, dict) and "events" in bad and not bad["events"]:
        kinds = Counter(ev["type"] for _, ev in good)
        declared = {"tool_calls": kinds["tool_call"], "messages": kinds["message"]}
        if any("tokens" in ev for _, ev in good):
            declared["tokens"] = sum(ev.get("tokens", 0) for _, ev in good)
        for name, counted in declared.items():
            if name in costs and _number(costs[name]) and costs[name] != counted:
                rep.add(
                    f"$.costs.{name}",
                    "cost-mismatch",
                    f"declares {costs[name]}, the events count {counted}",
                )


def validate(doc: Document) -> list[TraceProblem]:
    """Every problem of one parsed trace (parse problems included)."""
    rep = _Report(doc.label)
    for p in doc.problems:
        rep.add(p.pointer, p.code, p.message)
    if doc.data is None:
        return rep.finish()
    if not isinstance(doc.data, dict):
        rep.add("$", "schema", "a trace is a JSON object")
        return rep.finish()
    bad = _structure(rep, doc.data)
    if not any(p.code == "non-finite" for p in doc.problems):
        _semantics(rep, doc.data, bad)
    return rep.finish()
