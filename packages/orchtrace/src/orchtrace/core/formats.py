"""The two trace formats orchtrace reads: ours (traces/trace.schema.json) and the survey
artifact's published one (traces/artifact.schema.json). Reads plain JSON data of either; writes
either (`orchtrace convert`), and names the artifact's fields in problems found on its traces.

Ours names an agent list, edge ends `source`/`target`, event addressees `target`/`sender` and
rewards as a list of channels with their credit unit; the artifact has no agent list, edge ends
`src`/`dst`, addressees `to`/`from`, rewards as one object of channel values, and open events.
traces/SCHEMA.md lists how each field maps.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache
from typing import Any

from .model import CARRIED, RENAMES
from .schema import schema

UNITS = ("team", "orchestrator", "agent", "message", "tool")
THEIR_TYPE = dict.fromkeys(("decision", "step", "stop"), "orchestrator_decision")
THEIR_EVENT = {"sender": "from", "target": "to"}
THEIR_EDGE = {"source": "src", "target": "dst"}
_OURS = {v: k for k, v in THEIR_EVENT.items()}
_OURS_EDGE = {v: k for k, v in THEIR_EDGE.items()}


class ConvertError(ValueError):
    """The trace cannot be written in the format asked for."""


def detect(data: Any) -> str:
    """'artifact' for a trace in the artifact's format, else 'current'. Ours requires an agent
    list, which the artifact's forbids; without one, any field only the artifact has decides."""
    if not isinstance(data, dict) or "agents" in data:
        return "current"
    edges, events = data.get("edges"), data.get("events")
    first_edge = edges[0] if isinstance(edges, list) and edges else None
    marks = (
        "task_id" in data,
        isinstance(data.get("rewards"), dict),
        isinstance(first_edge, dict) and ("src" in first_edge or "dst" in first_edge),
        isinstance(events, list)
        and any(isinstance(e, dict) and e.get("type") == "orchestrator_decision" for e in events),
    )
    return "artifact" if any(marks) else "current"


_POINTER = re.compile(r"^(\$\.(?:events|edges)\[\d+\]\.)(source|target|sender)$")


def their_pointer(pointer: str) -> str:
    """POINTER (into our names of a trace read from the artifact's format) in the artifact's
    names: `$.edges[3].source` is `$.edges[3].src`, `$.events[2].target` is `$.events[2].to`."""
    m = _POINTER.match(pointer)
    if m is None:
        return pointer
    names = THEIR_EDGE if m.group(1).startswith("$.edges") else THEIR_EVENT
    return m.group(1) + names.get(m.group(2), m.group(2))


@lru_cache(maxsize=1)
def _ours() -> tuple[dict[str, Any], set[str]]:
    """Our event fields an artifact event may carry under the same name, and the artifact's own."""
    ours = schema("current")["properties"]["events"]["items"]["properties"]
    theirs = set(schema("artifact")["properties"]["events"]["items"]["properties"])
    named = theirs | set(RENAMES["events"]) | {"attributes"}
    return {k: v for k, v in ours.items() if k not in named}, theirs


def _fits(value: Any, spec: dict[str, Any]) -> bool:
    """Whether VALUE meets one of our field rules (type, enum, minimum)."""
    if "enum" in spec:
        return isinstance(value, str) and value in spec["enum"]
    kind = spec.get("type")
    if kind == "string":
        return isinstance(value, str)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    if isinstance(value, float) and not math.isfinite(value):
        return False
    if not -(2**63) <= value < 2**63 and isinstance(value, int):
        return False
    if kind == "integer" and not (isinstance(value, int) or value.is_integer()):
        return False
    return bool(value >= spec.get("minimum", -math.inf))


def event_to_current(event: dict[str, Any]) -> dict[str, Any]:
    """An artifact event in our names: `to` and `from` become `target` and `sender`, the type
    `orchestrator_decision` a decision (or the step or stop its `subtype` names), fields of ours
    with our type are read as ours, and any other field is kept under `attributes`."""
    extension, theirs = _ours()
    out: dict[str, Any] = {}
    attributes: dict[str, Any] = {}
    carried = event.get(CARRIED) if event.get("type") == "orchestrator_decision" else None
    for key, value in event.items():
        if key == "type":
            out[key] = value if value != "orchestrator_decision" else "decision"
        elif key in _OURS:
            out[_OURS[key]] = value
        elif key in theirs or (key in extension and _fits(value, extension[key])):
            out[key] = value
        elif key != CARRIED or carried not in ("step", "stop"):
            attributes[key] = value
    if carried in ("step", "stop"):
        out["type"] = carried
    if attributes:
        out["attributes"] = attributes
    return out


def _unit_of(channel: str) -> str:
    return channel if channel in UNITS else "orchestrator" if channel == "orchestration" else "team"


def reward_list(rewards: dict[str, Any]) -> list[dict[str, Any]]:
    """The artifact's rewards as our channels. A key names the channel, credited to the unit of
    the same name (`orchestration` to the orchestrator, anything else to the team); a key
    `unit/channel` or `unit/target/channel` names the unit, and the target, itself."""
    out = []
    for key, value in rewards.items():
        parts = key.split("/")
        item: dict[str, Any]
        if len(parts) in (2, 3) and parts[0] in UNITS and all(parts):
            item = {"channel": parts[-1], "value": value, "unit": parts[0]}
            if len(parts) == 3:
                item["target"] = parts[1]
        else:
            item = {"channel": key, "value": value, "unit": _unit_of(key)}
        out.append(item)
    return out


def _reward_key(reward: dict[str, Any]) -> str:
    unit, channel, target = reward["unit"], reward["channel"], reward.get("target")
    if target is None and unit == _unit_of(channel):
        return str(channel)
    return "/".join([unit, *([target] if target is not None else []), channel])


def current_view(data: dict[str, Any], bad_events: set[int]) -> dict[str, Any]:
    """A plain artifact trace in our names, for the checks across items and the metrics; the
    items in BAD_EVENTS, and malformed edges, are kept as they are (the checks skip them)."""
    view = {k: v for k, v in data.items() if k not in ("events", "edges", "rewards")}
    events = data.get("events")
    if isinstance(events, list):
        view["events"] = [
            e if i in bad_events or not isinstance(e, dict) else event_to_current(e)
            for i, e in enumerate(events)
        ]
    edges = data.get("edges")
    if isinstance(edges, list):
        view["edges"] = [
            {_OURS_EDGE.get(k, k): v for k, v in e.items()} if isinstance(e, dict) else e
            for e in edges
        ]
    if isinstance(data.get("rewards"), dict):
        view["rewards"] = reward_list(data["rewards"])
    return view


def to_current(data: dict[str, Any]) -> dict[str, Any]:
    """A valid artifact trace in our format. The agent list is read from the events: every
    agent that acts or is spawned, with the role of its first event that names one."""
    view = current_view(data, set())
    roles: dict[str, str] = {}
    for e in view["events"]:
        roles.setdefault(e["agent"], "unknown")
        if roles[e["agent"]] == "unknown" and isinstance(e.get("role"), str):
            roles[e["agent"]] = e["role"]
    for e in view["events"]:
        if e["type"] == "spawn" and e.get("target"):
            roles.setdefault(e["target"], "unknown")
    out: dict[str, Any] = {"schema_version": "1.0", "trace_id": data["trace_id"]}
    out["task"] = {"id": data["task_id"]}
    out.update({k: data[k] for k in ("system", "topology") if k in data})
    out["agents"] = [{"id": name, "role": role} for name, role in roles.items()]
    out.update(events=view["events"], edges=view["edges"], rewards=view["rewards"])
    out.update({k: data[k] for k in ("costs", "metrics") if k in data})
    return out


def event_to_artifact(event: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in event.items():
        if key == "type":
            out[key] = THEIR_TYPE.get(value, value)
            if value in ("step", "stop"):
                out[CARRIED] = value
        elif key != "attributes":
            out[THEIR_EVENT.get(key, key)] = value
    for key, value in event.get("attributes", {}).items():
        out.setdefault(key, value)
    return out


def to_artifact(data: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """A valid trace of ours in the artifact's format, and what that format cannot hold (left
    out). Missing costs are counted from the events: tokens summed, wall-clock from the first
    start to the last end."""
    events = data["events"]
    if not events:
        raise ConvertError("the artifact's format needs at least one event")
    if any(not e["agent"] for e in events):
        raise ConvertError("the artifact's format needs every event's agent to be named")
    dropped: list[str] = [k for k in ("schema_version", "agents") if k in data]
    task = data.get("task", {})
    dropped += [f"task.{k}" for k in task if k != "id"]
    out: dict[str, Any] = {
        "trace_id": data["trace_id"],
        "task_id": task.get("id") or data["trace_id"],
    }
    out.update({k: data[k] for k in ("system", "topology") if k in data})
    out["events"] = [event_to_artifact(e) for e in events]
    out["edges"] = [{THEIR_EDGE.get(k, k): v for k, v in e.items()} for e in data["edges"]]
    rewards: dict[str, Any] = {}
    for r in data.get("rewards", []):
        key = _reward_key(r)
        rewards[key] = rewards.get(key, 0) + r["value"]
    costs = dict(data.get("costs", {}))
    if "tokens" not in costs:
        costs["tokens"] = sum(e.get("tokens", 0) for e in events)
    if "wall_clock_s" not in costs:
        costs["wall_clock_s"] = max(e.get("t_end", e["t"]) for e in events) - min(
            e["t"] for e in events
        )
    out.update(rewards=rewards, costs=costs)
    out.update({k: data[k] for k in ("metrics",) if k in data})
    return out, dropped


def convert_trace(data: dict[str, Any], target: str) -> tuple[dict[str, Any], list[str]]:
    """A valid trace (plain data, either format) in the TARGET format, and what that format
    has no place for."""
    if detect(data) == target:
        return data, []
    return to_artifact(data) if target == "artifact" else (to_current(data), [])
