"""What the reward tests share: the real exports and a trace's reward values."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from orchtrace import rewards

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def values(trace: Any, **options: Any) -> dict[str, float | str | None]:
    """Each reward's value, or its code where it has none."""
    out = rewards.all_rewards(trace, **options)
    return {k: r.value if r.value is not None else r.code for k, r in out.items()}


def fan(stages: list[list[list[float]]], straggler: list[float] | None = None) -> dict[str, Any]:
    """A trace whose critical path is known: per stage, a decision (1 s), one spawn per worker
    at once, each worker's steps of the given durations one after the other and its return,
    and an aggregate (1 s) when the last worker returns; then the stop. A STRAGGLER, spawned in
    the first stage, takes its steps and is despawned at the stop without returning."""
    events: list[dict[str, Any]] = []
    edges: list[dict[str, str]] = []
    agents = [{"id": "O", "role": "orchestrator"}]

    def add(kind: str, agent: str, t: float, end: float, **more: Any) -> str:
        events.append(
            {"id": f"e{len(events)}", "type": kind, "agent": agent, "t": t, "t_end": end, **more}
        )
        return events[-1]["id"]

    def edge(a: str, b: str, kind: str) -> None:
        edges.append({"source": a, "target": b, "type": kind})

    t, last = 0.0, None
    for s, workers in enumerate(stages):
        decision = add("decision", "O", t, t + 1, decision="spawn")
        if last:
            edge(last, decision, "causal")
        t += 1
        crew = [(f"W{s}_{w}", steps) for w, steps in enumerate(workers)]
        if straggler is not None and s == 0:
            crew.append(("late", straggler))
        returns, ends = [], [t]
        for name, steps in crew:
            agents.append({"id": name, "role": "worker", "parent": "O"})
            prev = add("spawn", "O", t, t, target=name)
            edge(decision, prev, "causal")
            tt = t
            for k, d in enumerate(steps):
                step = add("step", name, tt, tt + d)
                edge(prev, step, "spawn" if k == 0 else "temporal")
                prev, tt = step, tt + d
            if name != "late":
                returns.append(add("return", name, tt, tt, target="O"))
                ends.append(tt)
        t = max(ends)
        last = add("aggregate", "O", t, t + 1)
        for r in returns:
            edge(r, last, "return")
        t += 1
    if straggler is not None:
        add("despawn", "O", t, t, target="late")
    stop = add("stop", "O", t, t, cause="answer")
    if last:
        edge(last, stop, "causal")
    return {"trace_id": "fan", "agents": agents, "events": events, "edges": edges}


def labelled(subtasks: list[str], given: list[str | None], score: float | None) -> dict[str, Any]:
    trace = fan([[[1.0]] * len(given)])
    trace["task"] = {"id": "t", "subtasks": subtasks}
    spawns = [e for e in trace["events"] if e["type"] == "spawn"]
    for event, label in zip(spawns, given, strict=True):
        if label is not None:
            event["subtask"] = label
    if score is not None:
        next(e for e in trace["events"] if e["type"] == "aggregate")["score"] = score
    return trace
