"""Generates a training run's rollouts: orchestration traces of 20 to 200 events, written as
JSON Lines shards (optionally zstd-compressed). Each rollout is an orchestrator that spawns 1 to
8 workers in one to three stages, each worker taking steps and tool calls and (mostly)
returning; the orchestrator aggregates (mostly) and stops. Spawns carry subtask labels, the
task its required subtasks, the last aggregate a grader's score, the run a task_success and
an outcome reward; some rollouts are serial, some spawn and never aggregate. Deterministic for
a seed."""

from __future__ import annotations

import argparse
import random
from pathlib import Path
from typing import Any

import orjson

SUBTASKS = [f"s{i}" for i in range(8)]


def rollout(n: int, rng: random.Random) -> dict[str, Any]:
    """Rollout number N: between 20 and 200 events (drawn again until it is)."""
    while True:
        trace = _draw(n, rng)
        if 20 <= len(trace["events"]) <= 200:
            return trace


def _draw(n: int, rng: random.Random) -> dict[str, Any]:
    size = rng.randint(20, 200)
    events: list[dict[str, Any]] = []
    edges: list[dict[str, str]] = []
    agents: list[dict[str, str]] = [{"id": "O", "role": "orchestrator"}]
    t = 0.0
    required = rng.sample(SUBTASKS, rng.randint(2, 5))
    serial = rng.random() < 0.1
    aggregates = rng.random() > 0.05
    stages = 1 if serial else rng.randint(1, 3)
    per_stage = max(1, (size - 3) // stages)
    last = None

    def event(kind: str, agent: str, start: float, end: float, **more: Any) -> str:
        eid = f"e{len(events)}"
        events.append({"id": eid, "type": kind, "agent": agent, "t": start, "t_end": end, **more})
        return eid

    for stage in range(stages):
        if serial:  # the orchestrator does the work itself
            prev = last
            for _ in range(per_stage):
                dur = round(rng.uniform(0.1, 2.0), 3)
                eid = event("step", "O", t, t + dur, tokens=rng.randint(50, 800))
                if prev:
                    edges.append({"source": prev, "target": eid, "type": "temporal"})
                prev, t = eid, t + dur
            last = prev
            continue
        workers = rng.randint(1, 8)
        decision = event("decision", "O", t, t + 0.5, decision="spawn")
        if last:
            edges.append({"source": last, "target": decision, "type": "causal"})
        t += 0.5
        returns = []
        steps = max(1, (per_stage - 2 - 2 * workers) // workers)
        for w in range(workers):
            agent = f"W{stage}_{w}"
            agents.append({"id": agent, "role": "worker", "parent": "O"})
            label = rng.choice(required if rng.random() < 0.8 else SUBTASKS)
            spawn = event("spawn", "O", t, t, target=agent, subtask=label)
            edges.append({"source": decision, "target": spawn, "type": "causal"})
            prev, tt = spawn, t
            for k in range(rng.randint(1, steps)):
                dur = round(rng.uniform(0.1, 3.0), 3)
                if rng.random() < 0.3:
                    call = event(
                        "tool_call",
                        agent,
                        tt,
                        tt + dur,
                        tool="search",
                        call_id=f"c{n}_{len(events)}",
                    )
                    edges.append(
                        {"source": prev, "target": call, "type": "spawn" if k == 0 else "temporal"}
                    )
                    res = event(
                        "tool_result",
                        agent,
                        tt + dur,
                        tt + dur,
                        tool="search",
                        call_id=events[-1]["call_id"],
                    )
                    edges.append({"source": call, "target": res, "type": "tool_dependency"})
                    prev, tt = res, tt + dur
                    continue
                eid = event(
                    "step",
                    agent,
                    tt,
                    tt + dur,
                    tokens=rng.randint(50, 800),
                    cost_usd=round(rng.uniform(0, 0.01), 6),
                )
                edges.append(
                    {"source": prev, "target": eid, "type": "spawn" if k == 0 else "temporal"}
                )
                prev, tt = eid, tt + dur
            if rng.random() < 0.95:
                ret = event("return", agent, tt, tt, target="O")
                edges.append({"source": prev, "target": ret, "type": "temporal"})
                returns.append((ret, tt))
        t = max([tt for _, tt in returns] or [t + 0.1])
        if aggregates:
            agg = event("aggregate", "O", t, t + 0.5, score=round(rng.random(), 3))
            edges.extend({"source": r, "target": agg, "type": "return"} for r, _ in returns)
            last, t = agg, t + 0.5
        else:
            last = returns[-1][0] if returns else decision
    stop = event("stop", "O", t, t, cause="answer")
    if last:
        edges.append({"source": last, "target": stop, "type": "causal"})
    success = 1.0 if rng.random() < 0.6 else 0.0
    return {
        "schema_version": "1.0",
        "trace_id": f"rollout-{n}",
        "task": {"id": f"task-{n % 1000}", "scenario": "research", "subtasks": required},
        "topology": "swarm",
        "agents": agents,
        "events": events,
        "edges": edges,
        "rewards": [{"channel": "outcome", "value": success, "unit": "team"}],
        "metrics": {"task_success": success},
    }


def write(
    count: int, out: Path, shards: int = 0, compress: bool = False, seed: int = 0
) -> list[Path]:
    """COUNT rollouts in SHARDS JSON Lines files (default: 1,000 rollouts a file) in OUT."""
    out.mkdir(parents=True, exist_ok=True)
    shards = shards or max(1, count // 1000)
    rng = random.Random(seed)
    cctx = None
    if compress:
        import zstandard

        cctx = zstandard.ZstdCompressor(level=3)
    paths = []
    for s in range(shards):
        lo, hi = s * count // shards, (s + 1) * count // shards
        data = b"".join(orjson.dumps(rollout(n, rng)) + b"\n" for n in range(lo, hi))
        path = (
            out / f"rollouts-{s:05d}.jsonl" if cctx is None else out / f"rollouts-{s:05d}.jsonl.zst"
        )
        path.write_bytes(data if cctx is None else cctx.compress(data))
        paths.append(path)
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("count", type=int)
    parser.add_argument("out", type=Path)
    parser.add_argument("--shards", type=int, default=0)
    parser.add_argument("--zstd", action="store_true", help="Compress each shard with zstd.")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    write(args.count, args.out, args.shards, args.zstd, args.seed)


if __name__ == "__main__":
    main()
