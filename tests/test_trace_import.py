"""orchtrace import on exports other projects wrote (tests/fixtures/traces/exports, see its
PROVENANCE), with every expected value derived by hand from the raw spans, and on the cases
that used to import wrong: model spans with children, short ids, several traces, the wrong
convention, Tempo responses, Vercel AI SDK tool calls, OTLP protobuf."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from orchtrace.examine import examine
from orchtrace.importers import to_traces
from orchtrace.spans import ImportError_, read_spans

EXPORTS = Path(__file__).resolve().parent / "fixtures" / "traces" / "exports"


def orchtrace(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "orchtrace", *args], capture_output=True, text=True, timeout=60
    )


def imported(data: bytes, convention: str = "auto") -> tuple[list[dict[str, Any]], str]:
    traces, note = to_traces(read_spans(data), convention)
    for t in traces:
        assert not examine(json.dumps(t), "imported").failed
    return traces, note


def measured(trace: dict[str, Any]) -> dict[str, Any]:
    m = examine(json.dumps(trace), "t", measure=True).measures
    assert m is not None
    return m


def test_opentelemetry_proto_example() -> None:
    # One span of service my.service, 1544712660 s to 1544712661 s, its parent not in the
    # export: one step of one second by agent my.service; ids kept as written (upper case).
    (trace,), note = imported((EXPORTS / "otel-proto-trace.json").read_bytes())
    assert "each span is a step of its service" in note
    assert trace["trace_id"] == "5B8EFFF798038103D269B633813FC60C"
    assert [(e["type"], e["agent"], e["t"], e["t_end"], e["span_id"]) for e in trace["events"]] == [
        ("step", "my.service", 0.0, 1.0, "EEE19B7EC3C1B174")
    ]
    m = measured(trace)
    assert (m["work"], m["critical_path"], m["makespan"], m["agents"]) == (1.0, 1.0, 1.0, 1)


def test_jaeger_query_response() -> None:
    # Jaeger's `data[].spans`: two spans with the same id, 123 us each from the same start,
    # service telemetrygen (process p1): two steps that start together, so they run in
    # parallel (no edge between them): W = 246 us, S = 123 us, ideal and observed speedup 2.
    (trace,), _ = imported((EXPORTS / "jaeger-query-trace.json").read_bytes())
    assert trace["trace_id"] == "83a9efd15c1c98a977e0711cc93ee28b"
    assert [(e["agent"], e["t"], e["t_end"]) for e in trace["events"]] == [
        ("telemetrygen", 0.0, 0.000123),
        ("telemetrygen", 0.0, 0.000123),
    ]
    assert trace["edges"] == []
    m = measured(trace)
    assert (m["work"], m["critical_path"], m["ideal_speedup"], m["observed_speedup"]) == (
        0.0002,  # rounded to 4 places, as every measure
        0.0001,
        2.0,
        2.0,
    )


def test_jaeger_span_list_with_a_child_and_an_error() -> None:
    # A list of Jaeger spans. Server span A (service 16af988c443cff37) runs 267,037 us from
    # 1605223981761425; client span B (service 3c220036602f839e), its child, runs 32,782 us
    # from 203,649 us later, with error=true. A's own time is the two stretches B leaves:
    # 0-0.203649 s and 0.236431-0.267037 s; B is one step, 0.203649-0.236431 s, in error.
    # W = 0.267037 s; S = A's lane, 0.203649 + 0.030606 = 0.234255 s; makespan 0.267037 s.
    (trace,), _ = imported((EXPORTS / "jaeger-anonymizer-trace.json").read_bytes())
    got = [(e["agent"], e["t"], e["t_end"], e.get("error")) for e in trace["events"]]
    assert got == [
        ("16af988c443cff37", 0.0, 0.203649, None),
        ("3c220036602f839e", 0.203649, 0.236431, "error"),
        ("16af988c443cff37", 0.236431, 0.267037, None),
    ]
    m = measured(trace)
    assert (m["work"], m["critical_path"], m["makespan"], m["agents"]) == (
        0.267,
        0.2343,
        0.267,
        2,
    )


def test_otlp_protobuf_is_read(tmp_path: Path) -> None:
    from google.protobuf.json_format import Parse
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )

    # the proto example, encoded as protobuf: its hex ids become bytes (protobuf's JSON mapping
    # writes bytes in base64), read back as hex
    doc = json.loads((EXPORTS / "otel-proto-trace.json").read_text())
    s = doc["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    for key in ("traceId", "spanId", "parentSpanId"):
        s[key] = base64.b64encode(bytes.fromhex(s[key])).decode()
    request = Parse(json.dumps(doc), ExportTraceServiceRequest())
    path = tmp_path / "trace.pb"
    path.write_bytes(request.SerializeToString())
    run = orchtrace("import", str(path))
    assert run.returncode == 0, run.stderr
    trace = json.loads(run.stdout)
    assert trace["trace_id"] == "5b8efff798038103d269b633813fc60c"
    assert [(e["t"], e["t_end"], e["span_id"]) for e in trace["events"]] == [
        (0.0, 1.0, "eee19b7ec3c1b174")
    ]


def span(sid: str, parent: str | None, start: float, end: float, **attrs: Any) -> dict[str, Any]:
    def value(v: Any) -> dict[str, Any]:
        return {"intValue": str(v)} if isinstance(v, int) else {"stringValue": str(v)}

    out = {
        "traceId": attrs.pop("trace", "t1"),
        "spanId": sid,
        "name": attrs.pop("name", sid),
        "startTimeUnixNano": str(int(start * 1e9)),
        "endTimeUnixNano": str(int(end * 1e9)),
        "attributes": [{"key": k, "value": value(v)} for k, v in attrs.items()],
    }
    if parent:
        out["parentSpanId"] = parent
    return out


def export(*spans: dict[str, Any], key: str = "resourceSpans") -> bytes:
    batch = {"resource": {"attributes": []}, "scopeSpans": [{"spans": list(spans)}]}
    if key == "trace":
        return json.dumps({"trace": {"resourceSpans": [batch]}}).encode()
    return json.dumps({key: [batch]}).encode()


AGENT = {"gen_ai.operation.name": "invoke_agent"}


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
    # lead's chat runs 0-60 s; its children, the sub-agents, cover 10-30 and 20-50 s, so its
    # own stretches are 0-10 and 50-60 s (20 s), the last holding its 1,000 tokens. Each
    # sub-agent's chat is 5 s (50 tokens). Work: 20 + 5 + 5 = 30 s of steps (spawns, returns
    # and tool calls take no time); tokens 1,000 + 50 + 50; makespan 60 s.
    (trace,), _ = imported(three_agents())
    steps = [
        (e["agent"], e["t"], e["t_end"], e.get("tokens"))
        for e in trace["events"]
        if e["type"] == "step"
    ]
    assert steps == [
        ("lead", 0.0, 10.0, None),
        ("w0", 10.0, 15.0, 50),
        ("w1", 20.0, 25.0, 50),
        ("lead", 50.0, 60.0, 1000),
    ]
    assert trace["costs"]["tokens"] == 1100
    assert [e["span_id"] for e in trace["events"]][:1] == ["a000"]  # ids as written
    m = measured(trace)
    assert (m["work"], m["makespan"], m["observed_speedup"]) == (30.0, 60.0, 0.5)
    assert (m["agents"], m["spawned_agents"], m["spawn_depth"]) == (3, 2, 1)


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


def test_vercel_ai_sdk_spans() -> None:
    # ai.generateText (0-10 s, 300 tokens in all) holds two model calls (doGenerate, 0-3 s with
    # 100 tokens and 6-10 s with 200) and a tool call (3-6 s): the outer total is not counted
    # again, the tool call is a tool call.
    data = export(
        span(
            "g",
            None,
            0,
            10,
            name="ai.generateText",
            **{
                "ai.operationId": "ai.generateText",
                "ai.usage.promptTokens": 250,
                "ai.usage.completionTokens": 50,
            },
        ),
        span(
            "d1",
            "g",
            0,
            3,
            name="ai.generateText.doGenerate",
            **{
                "ai.operationId": "ai.generateText.doGenerate",
                "ai.usage.promptTokens": 90,
                "ai.usage.completionTokens": 10,
            },
        ),
        span(
            "t",
            "g",
            3,
            6,
            name="ai.toolCall",
            **{
                "ai.operationId": "ai.toolCall",
                "ai.toolCall.name": "weather",
                "ai.toolCall.id": "call_1",
            },
        ),
        span(
            "d2",
            "g",
            6,
            10,
            name="ai.generateText.doGenerate",
            **{
                "ai.operationId": "ai.generateText.doGenerate",
                "ai.usage.promptTokens": 150,
                "ai.usage.completionTokens": 50,
            },
        ),
    )
    (trace,), note = imported(data, "vercel")
    kinds = [(e["type"], e.get("tool"), e.get("call_id"), e.get("tokens")) for e in trace["events"]]
    assert kinds == [
        ("step", None, None, 100),
        ("tool_call", "weather", "call_1", None),
        ("tool_result", "weather", "call_1", None),
        ("step", None, None, 200),
    ]
    assert trace["costs"]["tokens"] == 300 and note == ""
