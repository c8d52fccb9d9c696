"""orchtrace import fed by the real opentelemetry-sdk (GenAI and OpenInference conventions), hand-
made OTLP with hex ids and old token names, spans nested thousands deep, and an export malformed
somewhere it names."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from orchtrace.core.trace import Document
from orchtrace.measures.examine import validate
from orchtrace.measures.metrics import metrics
from tracehelp import orchtrace


def _sdk_spans(convention: str) -> bytes:
    """Spans from the real opentelemetry-sdk, encoded as OTLP JSON (base64 ids, string ints)."""
    from google.protobuf.json_format import MessageToJson
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("orchtrace-test")

    def agent(name: str) -> dict[str, Any]:
        if convention == "openinference":
            return {"openinference.span.kind": "AGENT", "agent.name": name}
        return {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": name}

    def tool(name: str, call: str) -> dict[str, Any]:
        if convention == "openinference":
            return {"openinference.span.kind": "TOOL", "tool.name": name}
        return {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": name,
            "gen_ai.tool.call.id": call,
        }

    def llm(tokens_in: int, tokens_out: int) -> dict[str, Any]:
        if convention == "openinference":
            return {
                "openinference.span.kind": "LLM",
                "llm.token_count.prompt": tokens_in,
                "llm.token_count.completion": tokens_out,
            }
        return {
            "gen_ai.operation.name": "chat",
            "gen_ai.usage.input_tokens": tokens_in,
            "gen_ai.usage.output_tokens": tokens_out,
        }

    with tracer.start_as_current_span("orchestrator", attributes=agent("lead")):
        with tracer.start_as_current_span("plan", attributes=llm(100, 20)):
            pass
        for i in (1, 2):
            with tracer.start_as_current_span(f"worker {i}", attributes=agent(f"worker{i}")):
                with tracer.start_as_current_span("search", attributes=tool("search", f"c{i}")):
                    pass
                with tracer.start_as_current_span("think", attributes=llm(50, 10)):
                    pass
        if convention == "openinference":
            with tracer.start_as_current_span(
                "check", attributes={"openinference.span.kind": "GUARDRAIL"}
            ):
                pass
            with tracer.start_as_current_span(
                "wrap", attributes={"openinference.span.kind": "CHAIN"}
            ):
                pass
    request = encode_spans(exporter.get_finished_spans())
    return MessageToJson(request).encode()


@pytest.mark.parametrize("convention", ["otlp", "openinference"])
def test_import_spans_from_the_real_sdk(tmp_path: Path, convention: str) -> None:
    raw = _sdk_spans(convention)
    assert b'"spanId"' in raw and b'"startTimeUnixNano": "' in raw  # base64 ids, string ints
    src, out = tmp_path / "spans.json", tmp_path / "trace.json"
    src.write_bytes(raw)
    result = orchtrace("import", "--from", convention, str(src), "--out", str(out))
    assert result.returncode == 0, result.stderr
    check = orchtrace("validate", str(out), "--strict")
    assert check.returncode == 0, check.stdout
    trace = json.loads(out.read_text())
    kinds = [e["type"] for e in trace["events"]]
    assert kinds.count("spawn") == 2 and kinds.count("return") == 2
    assert kinds.count("tool_call") == 2 and kinds.count("tool_result") == 2
    assert {a["id"] for a in trace["agents"]} == {"lead", "worker1", "worker2"}
    assert trace["costs"]["tokens"] == 100 + 20 + 2 * (50 + 10)
    assert all(len(e["span_id"]) == 16 for e in trace["events"])
    if convention == "openinference":
        assert kinds.count("safety_event") == 1
    m = metrics(trace)
    assert (m["spawned_agents"], m["finish_rate"], m["spawn_depth"]) == (2, 1.0, 1)


def test_import_hand_made_otlp_with_hex_ids_and_old_token_names(tmp_path: Path) -> None:
    def span(sid: str, parent: str, name: str, start: int, end: int, **attrs: Any) -> dict:
        values = [
            {"key": k, "value": {"intValue": str(v)} if isinstance(v, int) else {"stringValue": v}}
            for k, v in attrs.items()
        ]
        out = {
            "traceId": "5b8efff798038103d269b633813fc60c",
            "spanId": sid,
            "name": name,
            "startTimeUnixNano": str(start),
            "endTimeUnixNano": str(end),
            "attributes": values,
        }
        if parent:
            out["parentSpanId"] = parent
        return out

    ns = 1_000_000_000
    spans = [
        span(
            "eee19b7ec3c1b174",
            "",
            "invoke_agent boss",
            0,
            10 * ns,
            **{"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "boss"},
        ),
        span(
            "eee19b7ec3c1b175",
            "eee19b7ec3c1b174",
            "chat",
            1 * ns,
            2 * ns,
            **{
                "gen_ai.operation.name": "chat",
                "gen_ai.usage.prompt_tokens": 30,
                "gen_ai.usage.completion_tokens": 5,
            },
        ),
        span(
            "eee19b7ec3c1b176",
            "eee19b7ec3c1b174",
            "invoke_agent helper",
            2 * ns,
            8 * ns,
            **{"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "helper"},
        ),
        span(
            "eee19b7ec3c1b177",
            "eee19b7ec3c1b176",
            "execute_tool grep",
            3 * ns,
            4 * ns,
            **{
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "grep",
                "gen_ai.tool.call.id": "call_7",
            },
        ),
    ]
    doc = {
        "resourceSpans": [
            {"resource": {}, "scopeSpans": [{"scope": {"name": "x"}, "spans": spans}]}
        ]
    }
    src = tmp_path / "spans.jsonl"
    half = {"resourceSpans": [{"scopeSpans": [{"spans": spans[:2]}]}]}
    rest = {"resourceSpans": [{"scopeSpans": [{"spans": spans[2:]}]}]}
    src.write_text(json.dumps(half) + "\n" + json.dumps(rest) + "\n")
    result = orchtrace("import", "--from", "otlp", str(src))
    assert result.returncode == 0, result.stderr
    trace = json.loads(result.stdout)
    assert trace["costs"]["tokens"] == 35
    call = next(e for e in trace["events"] if e["type"] == "tool_call")
    assert (call["agent"], call["tool"], call["call_id"], call["span_id"], call["t"]) == (
        "helper",
        "grep",
        "call_7",
        "eee19b7ec3c1b177",
        3.0,
    )
    assert validate(Document("x", trace, [])) == []
    single = tmp_path / "one.json"
    single.write_text(json.dumps(doc))
    assert json.loads(orchtrace("import", "--from", "otlp", str(single)).stdout) == trace
    junk = tmp_path / "junk.json"
    junk.write_text('{"not": "otlp"}')
    result = orchtrace("import", "--from", "otlp", str(junk))
    assert result.returncode == 1 and "resourceSpans" in result.stderr


def test_import_spans_nested_thousands_deep(tmp_path: Path) -> None:
    chat = [
        {"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}},
        {"key": "gen_ai.agent.name", "value": {"stringValue": "A"}},
    ]
    spans = [
        {
            "traceId": "0" * 32,
            "spanId": f"{i + 1:016x}",
            **({"parentSpanId": f"{i:016x}"} if i else {}),
            "name": "chat",
            "startTimeUnixNano": str(1_000 + i),
            "endTimeUnixNano": str(100_000 - i),
            "attributes": chat,
        }
        for i in range(5_000)
    ]
    path = tmp_path / "deep.json"
    path.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}))
    run = orchtrace("import", "--from", "otlp", str(path))
    assert run.returncode == 0, run.stderr[-500:]
    trace = json.loads(run.stdout)
    # each chat span steps over its own time, the two ends its child leaves uncovered (the
    # innermost over all of it): 2 * 5,000 - 1 steps, 99,000 ns of work in all
    assert [e["type"] for e in trace["events"]] == ["step"] * 9_999
    assert sum(e["t_end"] - e["t"] for e in trace["events"]) == pytest.approx(99_000e-9)
    assert validate(Document("deep", trace, [])) == []


def test_import_says_where_an_export_is_malformed(tmp_path: Path) -> None:
    def export(*spans: dict[str, Any]) -> str:
        path = tmp_path / "spans.json"
        path.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": list(spans)}]}]}))
        return str(path)

    run = orchtrace(
        "import", "--from", "otlp", export({"spanId": "01", "startTimeUnixNano": "soon"})
    )
    assert run.returncode == 1 and "Traceback" not in run.stderr
    assert "resourceSpans[0].scopeSpans[0].spans[0]: start and end times" in run.stderr
    looped = export({"spanId": "01", "parentSpanId": "02"}, {"spanId": "02", "parentSpanId": "01"})
    run = orchtrace("import", looped)  # --from auto: spans of no known convention are read too
    assert run.returncode == 1 and "parent links loop" in run.stderr
