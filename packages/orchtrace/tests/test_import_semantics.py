"""orchtrace import on hand-made GenAI spans, for the cases that used to import wrong: model spans
with children, costs counted once, agents of no length, several trace ids, a convention that
matches nothing, Tempo responses."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from importhelp import AGENT, CHAT, export, imported, measured, span
from orchtrace.readers.importers import to_traces
from orchtrace.readers.spanfiles import read_spans
from orchtrace.readers.spans import ImportError_
from tracehelp import orchtrace


def three_agents() -> bytes:
    """A lead agent whose chat (0-60 s) calls two sub-agents, each with a chat and a tool."""
    return export(
        span("root", None, 0, 60, **AGENT, **{"gen_ai.agent.name": "lead"}),
        span(
            "a000",
            "root",
            0,
            60,
            **{
                "gen_ai.operation.name": "chat",
                "gen_ai.usage.input_tokens": 900,
                "gen_ai.usage.output_tokens": 100,
            },
        ),
        *(
            s
            for i, (start, end) in enumerate(((10, 30), (20, 50)))
            for s in (
                span(f"w{i}", "a000", start, end, **AGENT, **{"gen_ai.agent.name": f"w{i}"}),
                span(
                    f"c{i}",
                    f"w{i}",
                    start,
                    start + 5,
                    **{"gen_ai.operation.name": "chat", "gen_ai.usage.input_tokens": 50},
                ),
                span(
                    f"x{i}",
                    f"w{i}",
                    start + 5,
                    end,
                    **{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "search"},
                ),
            )
        ),
    )


def test_a_model_span_with_children_keeps_its_time_and_tokens() -> None:
    # lead's chat runs 0-60 s, covering lead's own span; its children, the sub-agents, cover
    # 10-30 and 20-50 s, so its own stretches are 0-10 and 50-60 s (20 s), the last holding
    # its 1,000 tokens. Each sub-agent's chat is 5 s (50 tokens), then it waits on its tool,
    # 15-30 s (w0) and 25-50 s (w1). Work: 20 + 5 + 15 + 5 + 25 = 70 s of steps (spawns,
    # returns and the calls themselves take no time); tokens 1,000 + 50 + 50; makespan 60 s:
    # the two workers overlap 20-30 s, so the observed speedup is 70 / 60 = 1.1667.
    (trace,), _ = imported(three_agents())
    steps = [
        (e["agent"], e["t"], e["t_end"], e.get("tokens"))
        for e in trace["events"]
        if e["type"] == "step"
    ]
    assert steps == [
        ("lead", 0.0, 10.0, None),
        ("w0", 10.0, 15.0, 50),
        ("w0", 15.0, 30.0, None),
        ("w1", 20.0, 25.0, 50),
        ("w1", 25.0, 50.0, None),
        ("lead", 50.0, 60.0, 1000),
    ]
    assert trace["costs"]["tokens"] == 1100
    assert [e["span_id"] for e in trace["events"]][:1] == ["a000"]  # ids as written
    m = measured(trace)
    assert (m["work"], m["makespan"], m["observed_speedup"]) == (70.0, 60.0, 1.1667)
    assert (m["agents"], m["spawned_agents"], m["spawn_depth"]) == (3, 2, 1)
    # Both returns (30 and 50 s) lead to lead's step at 50 s, which waits for them: the
    # longest chain is lead's 10 s, w1's 5 s chat and 25 s wait, lead's last 10 s = 50 s.
    assert (m["critical_path"], m["ideal_speedup"]) == (50.0, 1.4)


def test_openinference_costs_are_kept_once() -> None:
    # An OpenInference CHAIN (0-10 s) reports llm.cost.total 0.5, the sum of its two LLM
    # spans: one with a total of 0.2, one with prompt 0.1 and completion 0.2 (0.3). The
    # chain's own figure repeats theirs and is not counted: 0.2 + 0.3 = 0.5 USD in all. The
    # chain's own time, 4-5 and 9-10 s, is a step of its own, with no cost.
    def oi(kind: str, **attrs: Any) -> dict[str, Any]:
        return {"openinference.span.kind": kind, **attrs}

    data = export(
        span("chain", None, 0, 10, **oi("CHAIN", **{"llm.cost.total": 0.5})),
        span("l1", "chain", 0, 4, **oi("LLM", **{"llm.cost.total": 0.2})),
        span("l2", "chain", 5, 9, **oi("LLM", **{"llm.cost.prompt": "0.1",
                                                 "llm.cost.completion": 0.2})),
    )  # fmt: skip
    (trace,), _ = imported(data)
    assert [(e["span_id"], e.get("cost_usd")) for e in trace["events"]] == [
        ("l1", 0.2),
        ("chain", None),
        ("l2", pytest.approx(0.3)),
        ("chain", None),
    ]
    assert trace["costs"]["usd"] == 0.5


def test_an_agent_span_of_no_length_returns_to_what_follows_its_spawn() -> None:
    # lead (0-10 s) spawns helper, whose span starts and ends at 5 s, then chats from 6 to 7
    # s: the return (5 s) leads to the chat, not back to the spawn at the same instant (a
    # cycle that would fail validation, which imported() runs).
    (trace,), _ = imported(
        export(
            span("root", None, 0, 10, **AGENT, **{"gen_ai.agent.name": "lead"}),
            span("h", "root", 5, 5, **AGENT, **{"gen_ai.agent.name": "helper"}),
            span("c", "root", 6, 7, **CHAT),
        )
    )
    kind = {e["id"]: (e["type"], e["agent"]) for e in trace["events"]}
    back = [(kind[e["source"]], kind[e["target"]]) for e in trace["edges"] if e["type"] == "return"]
    assert back == [(("return", "helper"), ("step", "lead"))]


def test_several_trace_ids_are_several_traces(tmp_path: Path) -> None:
    two = export(
        span("s1", None, 0, 1, trace="aaaa", **{"gen_ai.operation.name": "chat"}),
        span("s2", None, 0, 2, trace="bbbb", **{"gen_ai.operation.name": "chat"}),
    )
    traces, _ = imported(two)
    assert [t["trace_id"] for t in traces] == ["aaaa", "bbbb"]
    src = tmp_path / "two.json"
    src.write_bytes(two)
    run = orchtrace("import", str(src))
    assert run.returncode == 1 and "holds 2 traces (aaaa, bbbb)" in run.stderr
    one = orchtrace("import", str(src), "--trace-id", "bbbb")
    assert one.returncode == 0 and json.loads(one.stdout)["trace_id"] == "bbbb"
    out = tmp_path / "out"
    out.mkdir()
    assert orchtrace("import", str(src), "--out", str(out)).returncode == 0
    assert sorted(p.name for p in out.iterdir()) == [".orchtrace-output", "aaaa.json", "bbbb.json"]


def test_an_explicit_convention_that_matches_nothing_is_an_error(tmp_path: Path) -> None:
    src = tmp_path / "genai.json"
    src.write_bytes(three_agents())
    run = orchtrace("import", "--from", "openinference", str(src))
    assert run.returncode == 1
    assert "no span follows OpenInference" in run.stderr
    assert "found 8 OpenTelemetry GenAI (gen_ai.operation.name) span(s)" in run.stderr
    with pytest.raises(ImportError_, match="no span follows OpenTelemetry GenAI"):
        to_traces(
            read_spans(export(span("s", None, 0, 1, **{"openinference.span.kind": "LLM"}))), "genai"
        )


@pytest.mark.parametrize("key", ["batches", "trace"])
def test_tempo_responses_are_read(key: str) -> None:
    (trace,), _ = imported(
        export(span("s", None, 0, 2, **{"gen_ai.operation.name": "chat"}), key=key)
    )
    assert [(e["type"], e["t_end"]) for e in trace["events"]] == [("step", 2.0)]
