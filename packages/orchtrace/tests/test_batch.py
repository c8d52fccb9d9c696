"""Batched reading of a run table's traces (orchtrace/batch.py) against reading them one by one:
the same rows for every trace, and the same measures as `metrics`, on generated rollouts, on
rollouts changed in every way the checks and the measures care about, and on the examples."""

from __future__ import annotations

import copy
import json
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from orchtrace.measures.examine import examine
from orchtrace.measures.metrics import metrics
from orchtrace.runs import batch
from orchtrace.runs.runinputs import Chunk
from orchtrace.runs.runrows import chunk_tables
from test_orchtrace import CASES
from tracehelp import example

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]  # the repository: its traces/ and tests/bench/
sys.path.insert(0, str(REPO / "tests" / "bench"))
from genrollouts import rollout  # noqa: E402

Trace = dict[str, Any]


def _event(t: Trace, kind: str, agent: str, at: float, **more: Any) -> Trace:
    e = {"id": f"x{len(t['events'])}", "type": kind, "agent": agent, "t": at, **more}
    t["events"].append(e)
    return e


def _workers(t: Trace) -> list[str]:
    return [a["id"] for a in t["agents"] if a["id"] != "O"]


def _end(t: Trace) -> float:
    return max(e.get("t_end", e["t"]) for e in t["events"])


def _drop(t: Trace, kind: str) -> None:
    gone = {e["id"] for e in t["events"] if e["type"] == kind}
    t["events"] = [e for e in t["events"] if e["id"] not in gone]
    t["edges"] = [e for e in t["edges"] if not {e["source"], e["target"]} & gone]


def _message(t: Trace, r: random.Random) -> None:
    a, b = r.sample(["O", *_workers(t)], 2) if _workers(t) else ("O", "O")
    _event(t, "message", a, r.uniform(0, _end(t)), target=b, sender=a)


def _loop(t: Trace, kind: str) -> None:
    """Two instants of the orchestrator at 0 with edges of KIND both ways."""
    a, b = _event(t, "step", "O", 0.0, t_end=0.0), _event(t, "step", "O", 0.0, t_end=0.0)
    t["edges"] += [
        {"source": a["id"], "target": b["id"], "type": kind},
        {"source": b["id"], "target": a["id"], "type": kind},
    ]


# each keeps a rollout valid (measures change), or gives it problems (errors or warnings)
CHANGES: dict[str, Callable[[Trace, random.Random], Any]] = {
    "steps mode": lambda t, r: r.choice(t["events"]).pop("t_end", None),
    "ties": lambda t, r: [
        e.update(t=float(int(e["t"])), t_end=float(int(e["t"]))) for e in t["events"]
    ],
    "messages": lambda t, r: [_message(t, r) for _ in range(3)],
    "empty despawn target": lambda t, r: _event(t, "despawn", "O", _end(t), target=""),
    "despawn a worker": lambda t, r: (
        _event(t, "despawn", "O", _end(t), target=_workers(t)[-1]) if _workers(t) else None
    ),
    "own time": lambda t, r: [
        e.update(attributes={"own_time": True}) for e in t["events"][::3] if e["type"] == "step"
    ],
    "declared costs": lambda t, r: t.update(costs={"tool_calls": 0}),
    "matching costs": lambda t, r: t.update(
        costs={
            "tool_calls": sum(e["type"] == "tool_call" for e in t["events"]),
            "tokens": sum(e.get("tokens", 0) for e in t["events"]),
            "usd": 0.5,
        }
    ),
    "no returns": lambda t, r: _drop(t, "return"),
    "no stop": lambda t, r: _drop(t, "stop"),
    "no aggregate": lambda t, r: _drop(t, "aggregate"),
    "two stops": lambda t, r: _event(t, "stop", "O", _end(t) + 1, cause="budget"),
    "declared parents": lambda t, r: [a.update(parent="O") for a in t["agents"][1:]],
    "empty parent": lambda t, r: t["agents"][-1].update(parent=""),
    "idle agent": lambda t, r: t["agents"].append({"id": "idle", "role": "spare"}),
    "safety flow": lambda t, r: t["edges"].append(
        {"source": t["events"][1]["id"], "target": t["events"][-1]["id"], "type": "safety_flow"}
    ),
    "file order": lambda t, r: r.shuffle(t["events"]),
    "no edges": lambda t, r: t.update(edges=[]),
    "undecided spawns": lambda t, r: t.update(
        edges=[e for e in t["edges"] if not e["source"].startswith("e0")]
    ),
    "integer times": lambda t, r: [  # milliseconds: the same order, written as integers
        e.update({k: int(e[k] * 1000) for k in ("t", "t_end") if k in e}) for e in t["events"]
    ],
    "a worker aggregates": lambda t, r: (
        _event(t, "aggregate", t["events"][-2]["agent"], 0.5) if len(t["agents"]) > 1 else None
    ),
    "tied aggregates": lambda t, r: [
        _event(t, "aggregate", "O", _end(t) + 2, score=0.1),
        _event(t, "aggregate", "O", _end(t), score=0.9),
    ],
    "no events": lambda t, r: t.update(events=[], edges=[]),
    "repeated id": lambda t, r: t["events"][-1].update(id=t["events"][0]["id"]),
    "dangling edge": lambda t, r: t["edges"].append(
        {"source": "nowhere", "target": t["events"][0]["id"], "type": "causal"}
    ),
    "unknown agent": lambda t, r: t["events"][-1].update(agent="stranger"),
    "backwards": lambda t, r: t["edges"].append(
        {"source": t["events"][-1]["id"], "target": t["events"][1]["id"], "type": "temporal"}
    ),
    "unmatched call": lambda t, r: _event(t, "tool_call", "O", 0.0, tool="x", call_id="lonely"),
    "parent loop": lambda t, r: t["agents"].append({"id": "O2", "role": "o", "parent": "O2"}),
    "loop of instants": lambda t, r: _loop(t, "message"),
    "causal loop": lambda t, r: _loop(t, "causal"),  # a problem that names no item: halved
    "strangers": lambda t, r: [e.update(agent="stranger") for e in t["events"]],  # over 50
}


def _traces() -> list[Trace]:
    rng = random.Random(7)
    plain = [rollout(n, rng) for n in range(120)]
    changed = []
    for k, (name, change) in enumerate(CHANGES.items()):
        for n in range(3):
            t = copy.deepcopy(plain[(7 * k + n) % len(plain)])
            change(t, random.Random(f"{name}{n}"))
            changed.append(t)
    examples = [example(n) for n in ("centralized", "debate", "harness", "hierarchical", "swarm")]
    examples += [copy.deepcopy(example("centralized")) for _ in CASES]
    for t, (_, change, _, _) in zip(examples[-len(CASES) :], CASES, strict=True):
        change(t)
    traces = plain + changed + examples
    rng.shuffle(traces)
    return traces


@pytest.fixture(scope="module")
def lines(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("batch") / "run.jsonl"
    path.write_text("".join(json.dumps(t) + "\n" for t in _traces()))
    return path


def test_batched_rows_are_the_rows_read_one_by_one(lines: Path) -> None:
    chunk = Chunk((str(lines),), 0, lines.stat().st_size, 1)
    (traces, events), (alone, alone_events) = chunk_tables(chunk), chunk_tables(chunk, False)
    assert traces.num_rows == len(_traces()) and events.num_rows > 10_000
    assert traces.equals(alone), _first_difference(traces, alone)
    assert events.equals(alone_events), _first_difference(events, alone_events)


def test_batched_measures_are_the_measures_of_metrics(lines: Path) -> None:
    items = [(f"l{i}", line) for i, line in enumerate(lines.read_bytes().splitlines())]
    rolled = batch.rollouts(items)
    together = [r for r in rolled if isinstance(r.replay, batch.View)]
    # taken together: the traces with events and without problems
    clean = set()
    for label, text in items:
        if not examine(text, label, True).problems and json.loads(text)["events"]:
            clean.add(label)
    taken = {r.label for r in together}
    assert taken == clean and len(clean) > 150
    for r in together:
        m = metrics(json.loads(dict(items)[r.label]))
        for key, value in r.measures.items():
            expected = (
                {k: m[key][k] for k in value}
                if isinstance(value, dict) and key != "rewards"
                else m[key]
            )
            assert value == expected, (r.label, key)
        assert [r.replay.ids[i] for i in r.replay.walk()[1]] == m["critical_chain"]


def _first_difference(a: Any, b: Any) -> str:
    for name in a.column_names:
        x, y = a.column(name).to_pylist(), b.column(name).to_pylist()
        for i, (p, q) in enumerate(zip(x, y, strict=True)):
            if p != q:
                return f"{name} row {i}: {p!r} != {q!r}"
    return "no difference in values"
