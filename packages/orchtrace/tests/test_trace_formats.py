"""orchtrace and the survey artifact's trace format: its example, random traces valid under its
published rules and mutations of them (checked differentially against those rules, encoded
here, and against its published JSON Schema), conversion both ways, repeated keys, looping
parents, and files that are not regular."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from artifacthelp import ARTIFACT, EXAMPLE, PUBLISHED
from orchtrace.core.codes import CODES
from orchtrace.core.formats import convert_trace
from orchtrace.core.trace import Document
from orchtrace.measures.examine import examine, examine_document
from orchtrace.measures.metrics import metrics
from tracehelp import REPO, orchtrace

# The artifact's published rules, encoded from its schema and its validator's documented checks.
EVENT_TYPES = {
    "orchestrator_decision",
    "spawn",
    "despawn",
    "message",
    "tool_call",
    "tool_result",
    "return",
    "aggregate",
    "human_intervention",
    "safety_event",
}


EDGE_TYPES = {
    "temporal",
    "causal",
    "spawn",
    "message",
    "tool_dependency",
    "return",
    "aggregate",
    "safety_flow",
}


TOPOLOGIES = {
    "centralized",
    "planner_executor_critic",
    "debate",
    "swarm",
    "hierarchical",
    "harness",
    "mixed",
    "unknown",
}


TOP = {
    "trace_id",
    "task_id",
    "system",
    "topology",
    "events",
    "edges",
    "rewards",
    "costs",
    "metrics",
}


# what orchtrace may report on a trace those rules accept: problems of meaning it adds
SEMANTIC = {"time-backwards", "cycle", "parent-cycle", "return-unspawned", "dependency-cycle"}


def _number(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool)


def _string(x: Any, least: int = 0) -> bool:
    return isinstance(x, str) and len(x) >= least


def artifact_rejects(t: Any) -> set[str]:
    """The codes orchtrace should give for what the published rules reject (empty: accepted)."""
    if not isinstance(t, dict):
        return {"schema"}
    found: set[str] = set()
    required = {"trace_id", "task_id", "events", "edges", "rewards", "costs"}
    if not required <= set(t) or not set(t) <= TOP:
        found.add("schema")
    for key in ("trace_id", "task_id"):
        if key in t and not _string(t[key], 1):
            found.add("schema")
    if "system" in t and not _string(t["system"]):
        found.add("schema")
    if "topology" in t and t["topology"] not in TOPOLOGIES:
        found.add("schema")
    for key in ("rewards", "metrics"):
        if key in t and not (isinstance(t[key], dict) and all(map(_number, t[key].values()))):
            found.add("schema")
    costs = t.get("costs", {})
    if not isinstance(costs, dict) or not all(map(_number, costs.values())):
        found.add("schema")
    elif "costs" in t:
        if not {"tokens", "wall_clock_s"} <= set(costs):
            found.add("schema")
        if any(v < 0 for v in costs.values()):
            found.add("negative-value")
    events, ids = t.get("events"), set()
    if not isinstance(events, list) or not events:
        found.add("schema")
        events = []
    for e in events:
        if not isinstance(e, dict) or not {"id", "t", "type", "agent"} <= set(e):
            found.add("schema")
            if isinstance(e, dict) and isinstance(e.get("id"), str):
                ids.add(e["id"])  # a malformed event's id still names it
            continue
        if not _string(e["id"], 1) or not _string(e["agent"], 1) or e["type"] not in EVENT_TYPES:
            found.add("schema")
        for key in ("role", "from", "to", "tool", "content_ref"):
            if key in e and not _string(e[key]):
                found.add("schema")
        if "trusted" in e and not isinstance(e["trusted"], bool):
            found.add("schema")
        if not _number(e["t"]):
            found.add("schema")
        elif e["t"] < 0:
            found.add("negative-value")
        if isinstance(e["id"], str) and e["id"] in ids:
            found.add("duplicate-id")
        ids.add(e["id"] if isinstance(e["id"], str) else None)
    edges = t.get("edges")
    if not isinstance(edges, list):
        found.add("schema")
        edges = []
    for d in edges:
        if not isinstance(d, dict) or set(d) != {"src", "dst", "type"}:
            found.add("schema")
            continue
        if not _string(d["src"], 1) or not _string(d["dst"], 1) or d["type"] not in EDGE_TYPES:
            found.add("schema")
        if d["src"] not in ids or d["dst"] not in ids:
            found.add("dangling-edge")
    return found


def random_trace(rng: random.Random) -> dict[str, Any]:
    """A trace valid under the published rules, of random shape."""
    agents = [f"a{i}" for i in range(rng.randint(1, 5))]
    events = []
    for i in range(rng.randint(1, 14)):
        e: dict[str, Any] = {
            "id": f"e{i}",
            "t": rng.choice([0, 1, 2, 2.5, 3, 7]),
            "type": rng.choice(sorted(EVENT_TYPES)),
            "agent": rng.choice(agents),
        }
        if rng.random() < 0.5:
            e["to"] = rng.choice(agents)
        if rng.random() < 0.2:
            e["from"] = rng.choice(agents)
        if rng.random() < 0.3:
            e["role"] = rng.choice(["lead", "worker"])
        if rng.random() < 0.2:
            e["trusted"] = rng.random() < 0.5
        if rng.random() < 0.2:
            e["content_ref"] = "sha:" + str(rng.randint(0, 99))
        if rng.random() < 0.15:  # fields of ours, well or badly typed, and anything else
            e[rng.choice(["t_end", "tokens", "call_id", "x_note"])] = rng.choice(
                [5, -1, "soon", {"k": [1, None]}, 2.5]
            )
        events.append(e)
    ids = [e["id"] for e in events]
    edges = [
        {"src": rng.choice(ids), "dst": rng.choice(ids), "type": rng.choice(sorted(EDGE_TYPES))}
        for _ in range(rng.randint(0, 10))
    ]
    trace: dict[str, Any] = {
        "trace_id": f"run-{rng.randint(0, 999)}",
        "task_id": "task",
        "events": events,
        "edges": edges,
        "rewards": {k: rng.uniform(-1, 1) for k in rng.sample(["team", "tool", "process"], 2)},
        "costs": {"tokens": rng.randint(0, 9000), "wall_clock_s": rng.uniform(0, 60)},
    }
    if rng.random() < 0.5:
        trace["topology"] = rng.choice(sorted(TOPOLOGIES))
    if rng.random() < 0.3:
        trace["metrics"] = {"task_success": 1, "protocol_overhead": 0.2}
    if rng.random() < 0.3:
        trace["costs"]["usd"] = 0.25
    return trace


def _event(t: dict[str, Any]) -> dict[str, Any]:
    return t["events"][0]


MUTATIONS: list[Callable[[dict[str, Any]], Any]] = [
    lambda t: t.pop("task_id"),
    lambda t: t.pop("costs"),
    lambda t: t.update(agents=[]),
    lambda t: t.update(extra=1),
    lambda t: t.update(topology="star"),
    lambda t: t.update(events=[]),
    lambda t: _event(t).pop("agent"),
    lambda t: _event(t).update(type="step"),
    lambda t: _event(t).update(t=-3),
    lambda t: _event(t).update(t="3"),
    lambda t: _event(t).update(trusted="yes"),
    lambda t: _event(t).update(agent=""),
    lambda t: _event(t).update(to=7),
    lambda t: t["events"].append(dict(_event(t))),
    lambda t: t["edges"].append({"src": _event(t)["id"], "dst": "nowhere", "type": "causal"}),
    lambda t: t["edges"].append({"src": "e0", "dst": "e0", "type": "link"}),
    lambda t: t["edges"].append({"src": "e0", "dst": "e0", "type": "causal", "w": 1}),
    lambda t: t["edges"].append({"source": "e0", "target": "e0", "type": "causal"}),
    lambda t: t["costs"].update(tokens=-1),
    lambda t: t["costs"].update(usd=-0.5),
    lambda t: t["costs"].pop("wall_clock_s"),
    lambda t: t["rewards"].update(team="high"),
    lambda t: t.update(metrics={"x": None}),
]


def orchtrace_codes(trace: dict[str, Any]) -> tuple[set[str], set[str]]:
    """Error codes on the typed path (the JSON text) and on the plain path (the data)."""
    typed = {p.code for p in examine(json.dumps(trace), "t", measure=True).problems}
    plain = {
        p.code for p in examine_document(Document("t", copy.deepcopy(trace), []), True).problems
    }
    errors = {c for c in typed | plain if CODES[c][0] == "error"}
    return {c for c in typed if c in errors}, {c for c in plain if c in errors}


@pytest.mark.parametrize("seed", range(40))
def test_what_the_published_rules_accept_or_reject_orchtrace_does_too(seed: int) -> None:
    rng = random.Random(seed)
    published = Draft202012Validator(PUBLISHED)
    for _ in range(8):
        trace = random_trace(rng)
        for change in [None, *rng.sample(MUTATIONS, 6)]:
            t = copy.deepcopy(trace)
            if change is not None:
                change(t)
            expected = artifact_rejects(t)
            if not published.is_valid(t):  # the published schema rejects: so do the rules
                assert expected, t
            typed, plain = orchtrace_codes(t)
            assert typed == plain, t
            if expected:
                assert expected <= typed, (expected, typed, t)
            else:
                assert typed <= SEMANTIC, (typed, t)


def test_the_artifacts_example_validates_and_is_measured() -> None:
    done = examine((ARTIFACT / "example_trace.json").read_bytes(), "example", measure=True)
    assert done.problems == []
    m = done.measures
    assert m is not None
    # By hand: events e1-e8 follow each other along the edges and the agents' own lanes,
    # one step each, so W = S = 8. Agents: orchestrator, planner_1, executor_1 and
    # browser.search (which acts in e6). e1 decides the spawns e2 and e3 (one decision, two
    # spawns). planner_1 never returns; executor_1 returns (e7): finish rate 1/2. At t=3
    # orchestrator, planner_1 and executor_1 are alive. One message planner_1 -> executor_1
    # among 4 agents: 1/12. No stop: the final event is the last aggregate e8, whose
    # ancestors are every event. The orchestrator's own steps are e1, e2, e3, e8 (4) and
    # executor_1's e5, e7 (2), in one stage ending at e8: 6 critical steps.
    assert (m["events"], m["edges"], m["agents"], m["mode"]) == (8, 8, 4, "steps")
    assert (m["work"], m["critical_path"], m["ideal_speedup"]) == (8.0, 8.0, 1.0)
    assert m["critical_chain"] == [f"e{i}" for i in range(1, 9)]
    assert (m["peak_concurrency"], m["fan_out"], m["spawn_depth"]) == (
        3,
        {"decisions": 1, "mean": 2.0, "max": 2},
        1,
    )
    assert (m["spawned_agents"], m["finish_rate"], m["aggregation_coverage"]) == (2, 0.5, 1.0)
    assert m["messages"] == {
        "matrix": {"planner_1": {"executor_1": 1}},
        "total": 1,
        "density": 0.0833,
    }
    assert (m["final_event"], m["wasted_work"], m["stop"]) == ("e8", 0, None)
    assert m["rewards"] == {
        "team": {"team": 1.0},
        "orchestrator": {"orchestration": 0.3},
        "tool": {"tool": 0.1},
    }
    assert m["critical_steps"]["total"] == 3  # as test_rewards derives it


def test_both_paths_measure_the_artifacts_example_alike() -> None:
    # the typed path reads the text; the plain path (taken when the text is not typed, here
    # given the data itself) views the artifact's fields in ours once, rewards included
    typed = examine(json.dumps(EXAMPLE), "t", measure=True).measures
    plain = examine_document(Document("t", copy.deepcopy(EXAMPLE), []), True).measures
    assert plain is not None and plain["rewards"]["team"] == {"team": 1.0}
    assert plain == typed


def test_problems_name_the_artifacts_fields() -> None:
    t = copy.deepcopy(EXAMPLE)
    t["edges"].append({"src": "e1", "dst": "e99", "type": "causal"})
    t["events"][6]["to"] = "planner_1"  # executor_1 returns to someone who did not spawn it
    problems = {(p.code, p.pointer) for p in examine(json.dumps(t), "t").problems}
    assert ("dangling-edge", "$.edges[8].dst") in problems
    assert ("return-not-to-spawner", "$.events[6].to") in problems


def _published_validator_rules_hold(t: dict[str, Any]) -> None:
    assert artifact_rejects(t) == set()
    assert Draft202012Validator(PUBLISHED).is_valid(t)


def test_artifact_to_ours_and_back_keeps_everything() -> None:
    rng = random.Random(5)
    kept = 0
    for trace in [EXAMPLE, *(random_trace(rng) for _ in range(60))]:
        if examine(json.dumps(trace), "t").failed:
            continue
        kept += 1
        ours, dropped = convert_trace(copy.deepcopy(trace), "current")
        assert dropped == [] and not examine(json.dumps(ours), "ours").failed
        back, dropped = convert_trace(ours, "artifact")
        assert back == trace and dropped == ["schema_version", "agents"]
        _published_validator_rules_hold(back)
    assert kept >= 5  # the random traces that orchtrace accepts (7 of 61 with this seed)


def test_ours_to_artifact_and_back_keeps_events_edges_rewards_and_costs() -> None:
    for path in sorted((REPO / "traces" / "examples").glob("*.json")):
        ours = json.loads(path.read_text())
        theirs, dropped = convert_trace(copy.deepcopy(ours), "artifact")
        _published_validator_rules_hold(theirs)
        assert "agents" in dropped
        assert not examine(json.dumps(theirs), "theirs").failed
        again, _ = convert_trace(theirs, "current")
        assert again["events"] == ours["events"] and again["edges"] == ours["edges"]
        assert sorted(map(json.dumps, again.get("rewards", []))) == sorted(
            map(json.dumps, ours.get("rewards", []))
        )
        assert again["costs"].items() >= ours.get("costs", {}).items()
        keep = ("work", "critical_path", "critical_chain", "fan_out", "messages", "rewards")
        before, after = metrics(ours), metrics(theirs)
        assert {k: before[k] for k in keep} == {k: after[k] for k in keep}


def test_convert_command(tmp_path: Path) -> None:
    out = tmp_path / "theirs.json"
    swarm = REPO / "traces" / "examples" / "swarm.json"
    run = orchtrace("convert", "--to", "artifact", str(swarm), "--out", str(out))
    assert run.returncode == 0, run.stderr
    assert "has no place for schema_version, agents" in run.stderr
    _published_validator_rules_hold(json.loads(out.read_text()))
    back = orchtrace("convert", "--to", "current", str(out))
    assert (
        back.returncode == 0
        and json.loads(back.stdout)["events"] == json.loads(swarm.read_text())["events"]
    )
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({**EXAMPLE, "events": []}))
    run = orchtrace("convert", "--to", "current", str(broken))
    assert run.returncode == 1 and "not converted" in run.stderr and "Traceback" not in run.stderr
