"""Generates a large valid orchestration trace: an orchestrator fanning out to worker agents in
stages, each worker taking steps and tool calls, returning, and the orchestrator aggregating."""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path
from typing import Any


def generate(n_events: int, workers: int = 50, seed: int = 7) -> dict[str, Any]:
    rng = random.Random(seed)
    events: list[dict[str, Any]] = []
    edges: list[dict[str, str]] = []
    agents = [{"id": "O", "role": "orchestrator"}]
    t = 0.0
    stage = 0
    while len(events) < n_events:
        stage += 1
        decision = f"e{len(events)}"
        events.append(
            {
                "id": decision,
                "type": "decision",
                "agent": "O",
                "t": t,
                "t_end": t + 1,
                "decision": "spawn",
            }
        )
        t += 1
        returns = []
        for w in range(workers):
            agent = f"W{stage}_{w}"
            agents.append({"id": agent, "role": "worker", "parent": "O"})
            spawn = f"e{len(events)}"
            events.append(
                {"id": spawn, "type": "spawn", "agent": "O", "t": t, "t_end": t, "target": agent}
            )
            edges.append({"source": decision, "target": spawn, "type": "causal"})
            prev, tt = spawn, t
            for k in range(rng.randint(2, 8)):
                eid = f"e{len(events)}"
                dur = rng.random()
                events.append(
                    {
                        "id": eid,
                        "type": "step",
                        "agent": agent,
                        "t": tt,
                        "t_end": tt + dur,
                        "tokens": rng.randint(10, 500),
                    }
                )
                edges.append(
                    {"source": prev, "target": eid, "type": "spawn" if k == 0 else "temporal"}
                )
                prev, tt = eid, tt + dur
            ret = f"e{len(events)}"
            events.append(
                {"id": ret, "type": "return", "agent": agent, "t": tt, "t_end": tt, "target": "O"}
            )
            edges.append({"source": prev, "target": ret, "type": "temporal"})
            returns.append((ret, tt))
        t = max(tt for _, tt in returns)
        agg = f"e{len(events)}"
        events.append({"id": agg, "type": "aggregate", "agent": "O", "t": t, "t_end": t + 1})
        edges.extend({"source": r, "target": agg, "type": "return"} for r, _ in returns)
        t += 1
    stop = f"e{len(events)}"
    events.append({"id": stop, "type": "stop", "agent": "O", "t": t, "t_end": t, "cause": "answer"})
    edges.append({"source": events[-2]["id"], "target": stop, "type": "causal"})
    return {
        "schema_version": "1.0",
        "trace_id": f"synthetic-{n_events}",
        "topology": "swarm",
        "agents": agents,
        "events": events,
        "edges": edges,
        "costs": {
            "tokens": sum(e.get("tokens", 0) for e in events),
            "tool_calls": 0,
            "messages": 0,
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("events", type=int)
    parser.add_argument("out", type=Path)
    args = parser.parse_args()
    args.out.write_text(json.dumps(generate(args.events)))


if __name__ == "__main__":
    main()
