"""orchtrace import on exports other projects wrote (fixtures/exports, see its
PROVENANCE: OTLP JSON and protobuf, Tempo, Jaeger, OpenTelemetry JS and Langfuse files of
GenAI, OpenInference, Vercel AI SDK and Langfuse spans), with every expected value derived by
hand from the raw spans, and on the cases that used to import wrong: model spans with children,
short ids, several traces, the wrong convention, Tempo responses, Vercel AI SDK tool calls,
OTLP protobuf, JavaScript spans' parents, Langfuse metadata and usage written as JSON."""

from __future__ import annotations

import base64
import itertools
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from orchtrace.measures.examine import examine
from orchtrace.readers.importcheck import import_traces
from orchtrace.readers.importers import to_traces
from orchtrace.readers.spanfiles import read_spans
from orchtrace.readers.spans import ImportError_

EXPORTS = Path(__file__).resolve().parent / "fixtures" / "exports"


def orchtrace(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "orchtrace", *args], capture_output=True, text=True, timeout=60
    )


def imported(data: bytes, convention: str = "auto") -> tuple[list[dict[str, Any]], str]:
    traces, note = import_traces(data, convention)
    for t in traces:
        assert not examine(json.dumps(t), "imported").failed
    return traces, note


def measured(trace: dict[str, Any]) -> dict[str, Any]:
    m = examine(json.dumps(trace), "t", measure=True).measures
    assert m is not None
    return m


@pytest.mark.parametrize("name", ["otel-proto-trace.json", "tempo-batches.json"])
def test_opentelemetry_proto_example_and_tempo_batches(name: str) -> None:
    # One span of service my.service, 1544712660 s to 1544712661 s, its parent not in the
    # export: one step of one second by agent my.service; ids kept as written (upper case).
    # Tempo's file holds the same span under its legacy "batches" key.
    (trace,), note = imported((EXPORTS / name).read_bytes())
    assert "each span is a step of its service" in note
    assert trace["trace_id"] == "5B8EFFF798038103D269B633813FC60C"
    assert [(e["type"], e["agent"], e["t"], e["t_end"], e["span_id"]) for e in trace["events"]] == [
        ("step", "my.service", 0.0, 1.0, "EEE19B7EC3C1B174")
    ]
    assert trace["costs"] == {"tool_calls": 0, "messages": 0, "wall_clock_s": 1.0}  # no tokens
    m = measured(trace)
    assert (m["work"], m["critical_path"], m["makespan"], m["agents"]) == (1.0, 1.0, 1.0, 1)


def test_jaeger_query_response() -> None:
    # Jaeger's `data[].spans`: one span (e127af99e3b3e074, 123 us, service telemetrygen of
    # process p1) listed twice, the copies identical field for field (Jaeger itself warns of
    # duplicate span ids): read once, with a note, one step of 123 us: W = S = makespan.
    (trace,), note = imported((EXPORTS / "jaeger-query-trace.json").read_bytes())
    assert "span e127af99e3b3e074 is listed 2 times, as one span: read once" in note
    assert trace["trace_id"] == "83a9efd15c1c98a977e0711cc93ee28b"
    assert [(e["agent"], e["t"], e["t_end"]) for e in trace["events"]] == [
        ("telemetrygen", 0.0, 0.000123),
    ]
    assert trace["edges"] == []
    m = measured(trace)
    assert (m["work"], m["critical_path"], m["ideal_speedup"], m["observed_speedup"]) == (
        0.0001,  # rounded to 4 places, as every measure
        0.0001,
        1.0,
        1.0,
    )


def test_jaeger_span_list_with_a_child_and_an_error() -> None:
    # A list of Jaeger spans. Server span A (service 16af988c443cff37) runs 267,037 us from
    # 1605223981761425; client span B (service 3c220036602f839e), its child, runs 32,782 us
    # from 203,649 us later, with error=true. B is of another service than its parent: a
    # delegation, so A spawns agent 3c220036602f839e at 0.203649 s, whose own work is B, one
    # step 0.203649-0.236431 s, and which returns in error at 0.236431 s to A's next step. A's
    # own time is the two stretches B leaves: 0-0.203649 s and 0.236431-0.267037 s. W =
    # 0.267037 s, all on one chain (A, spawn, B, return, A): S = makespan = 0.267037 s.
    (trace,), _ = imported((EXPORTS / "jaeger-anonymizer-trace.json").read_bytes())
    a, b = "16af988c443cff37", "3c220036602f839e"
    got = [(e["type"], e["agent"], e["t"], e["t_end"], e.get("error")) for e in trace["events"]]
    assert got == [
        ("step", a, 0.0, 0.203649, None),
        ("spawn", a, 0.203649, 0.203649, None),
        ("step", b, 0.203649, 0.236431, None),
        ("return", b, 0.236431, 0.236431, "error"),  # at one instant, instants first
        ("step", a, 0.236431, 0.267037, None),
    ]
    assert [(x["id"], x.get("parent")) for x in trace["agents"]] == [(a, None), (b, a)]
    m = measured(trace)
    assert (m["work"], m["critical_path"], m["makespan"], m["agents"]) == (
        0.267,
        0.267,
        0.267,
        2,
    )
    assert (m["spawned_agents"], m["spawn_depth"], m["ideal_speedup"]) == (1, 1, 1.0)


def test_collector_pdata_json() -> None:
    # OTLP/JSON as the Collector's pdata marshaler writes it (kind as a number, an empty
    # parentSpanId, an empty status): one Flask span /roll of service unknown_service, from
    # 1694388218052842000 to ...053415000 ns, 573 us; a root, no convention: one step.
    (trace,), note = imported((EXPORTS / "collector-contrib-trace.json").read_bytes())
    assert "each span is a step of its service" in note
    assert trace["trace_id"] == "9cb5bf738137b2248dc7b20445ec2e1c"
    assert [(e["type"], e["agent"], e["t"], e["t_end"], e["span_id"]) for e in trace["events"]] == [
        ("step", "unknown_service", 0.0, 0.000573, "88079ad5c94b5b13")
    ]
    assert trace["costs"] == {"tool_calls": 0, "messages": 0, "wall_clock_s": 0.000573}
    m = measured(trace)
    assert (m["work"], m["makespan"], m["agents"]) == (0.0006, 0.0006, 1)


def test_jaeger_api_v3_response() -> None:
    # Jaeger's API v3 wraps OTLP JSON in {"result": ...}. Its one span (foobar, kind 2) has no
    # times, no service and status code 2: a step of no time by an agent named after the span,
    # in error (the status has no message).
    (trace,), _ = imported((EXPORTS / "jaeger-apiv3-trace.json").read_bytes())
    assert trace["trace_id"] == "00000000000000000000000000000001"
    assert [
        (e["type"], e["agent"], e["t"], e["t_end"], e["span_id"], e.get("error"))
        for e in trace["events"]
    ] == [("step", "foobar", 0.0, 0.0, "0000000000000002", "error")]
    assert trace["costs"] == {"tool_calls": 0, "messages": 0, "wall_clock_s": 0.0}
    m = measured(trace)
    assert (m["work"], m["agents"]) == (0.0, 1)


def events_of(trace: dict[str, Any]) -> list[tuple[Any, ...]]:
    """Each event's type, agent, times and tokens, then its tool and call id if it has them."""
    return [
        (e["type"], e["agent"], e["t"], e["t_end"], e.get("tokens"))
        + ((e["tool"], e["call_id"]) if "tool" in e else ())
        for e in trace["events"]
    ]


def test_vercel_ai_sdk_spans_from_opentelemetry_js() -> None:
    # OpenTelemetry JS spans as JSON (spanContext, [s, ns] times), captured from the AI SDK 6;
    # each of the ten spans has a traceId of its own and no parent. Each is one step by an agent
    # named after the span (no service), over its whole time:
    #   doGenerate 1770131992.242 -> 994.021415667 = 1.779415667 s, gen_ai.usage 14 + 20 = 34;
    #   generateText 992.241 -> 994.022541 = 1.781541 s, ai.usage.prompt/completionTokens 34;
    #   doGenerate 994.023 -> 997.057285833 = 3.034285833 s, 50 + 9 = 59;
    #   generateText 994.023 -> 997.057733667 = 3.034733667 s, 59;
    #   generateObject.doGenerate 997.066 -> 2000.585812667 = 3.519812667 s, 63 + 156 = 219;
    #   generateObject 997.065 -> 2000.588601792 = 3.523601792 s, 219;
    #   streamText.doStream 2000.598 -> 2005.984307375 = 5.386307375 s, 15 + 112 = 127;
    #   streamText 2000.594 -> 2005.986741708 = 5.392741708 s, ai.usage.input/outputTokens 127;
    #   embed.doEmbed 2006.016 -> 2006.269719584 = 0.253719584 s, ai.usage.tokens 10;
    #   embed 2006.015 -> 2006.269932417 = 0.254932417 s, 10.
    traces, note = imported((EXPORTS / "vercel-ai-sdk-spans.json").read_bytes(), "vercel")
    assert note == ""
    got = [(t["trace_id"], *events_of(t)) for t in traces]
    assert got == [
        (
            "b3e700af9eab81e19f72f964d62a35af",
            ("step", "ai.generateText.doGenerate", 0.0, 1.779415667, 34),
        ),
        ("700d5f98fe2420adcf6ab0822f7a323c", ("step", "ai.generateText", 0.0, 1.781541, 34)),
        (
            "edff2fc5854be6170e8cccccec0c82cf",
            ("step", "ai.generateText.doGenerate", 0.0, 3.034285833, 59),
        ),
        ("673a889f59126f8b4c90dce5a1f99368", ("step", "ai.generateText", 0.0, 3.034733667, 59)),
        (
            "8f60802815d6e97da2dbc4708a8e5c7b",
            ("step", "ai.generateObject.doGenerate", 0.0, 3.519812667, 219),
        ),
        ("f99cc53c9bb8fe40462f7a48999e7088", ("step", "ai.generateObject", 0.0, 3.523601792, 219)),
        (
            "478d4dcc697ecfabc5e7a3d6e4216291",
            ("step", "ai.streamText.doStream", 0.0, 5.386307375, 127),
        ),
        ("8185b815e471184c6525a601a042be42", ("step", "ai.streamText", 0.0, 5.392741708, 127)),
        ("045d21a7f69972edf509fe0ff911f3f5", ("step", "ai.embed.doEmbed", 0.0, 0.253719584, 10)),
        ("91621bbaaf1920e94ae594e91b3a99fd", ("step", "ai.embed", 0.0, 0.254932417, 10)),
    ]
    assert [t["costs"]["tokens"] for t in traces] == [34, 34, 59, 59, 219, 219, 127, 127, 10, 10]
    m = measured(traces[6])  # one step of 5.386307375 s
    assert (m["work"], m["critical_path"], m["makespan"], m["agents"]) == (
        5.3863,
        5.3863,
        5.3863,
        1,
    )


def test_langfuse_trace_of_openinference_agents() -> None:
    # OpenAI Agents SDK through OpenInference, exported by Langfuse (its attributes kept as
    # strings). From 09:03:59.962: AGENT "Agent workflow" (span e5a76f27f51ad40e) 0-2.19 s has
    # one child, AGENT "Hello world" (graph.node.id, span d950b668796240b5) 0-2.19 s, and no
    # work of its own: a wrapper, so the run is one agent, not one spawning another (it was
    # read as a spawn, which paid a spawning reward to every single-agent rollout). Under
    # "Hello world": LLM 0.001-1.037 s (llm.token_count 55 + 15 = 70), TOOL get_weather at
    # 1.038 s (no call id: the span id), LLM 1.039-2.189 s (85 + 29 = 114); the agent's own
    # time is what they leave, 0-0.001, 1.037-1.038, 1.038-1.039 and 2.189-2.19 s. W = 2.19
    # s, all one chain: S = makespan = 2.19 s, speedups 1.
    (trace,), note = imported((EXPORTS / "langfuse-openai-agents.json").read_bytes())
    assert note == "" and trace["trace_id"] == "fee618f96dc31e0ca38b2f7b26eb8b29"
    assert trace["agents"] == [
        {"id": "Hello world", "role": "agent", "span_id": "d950b668796240b5"}
    ]
    assert events_of(trace) == [
        ("step", "Hello world", 0.0, 0.001, None),
        ("step", "Hello world", 0.001, 1.037, 70),
        ("step", "Hello world", 1.037, 1.038, None),
        ("tool_call", "Hello world", 1.038, 1.038, None, "get_weather", "5b99c3e3411ed17b"),
        ("tool_result", "Hello world", 1.038, 1.038, None, "get_weather", "5b99c3e3411ed17b"),
        ("step", "Hello world", 1.038, 1.039, None),
        ("step", "Hello world", 1.039, 2.189, 114),
        ("step", "Hello world", 2.189, 2.19, None),
    ]
    # Langfuse's cost details of the two generations: 0.00023 for the first (55 + 15 tokens),
    # 0.000402 for the second (85 + 29): 0.000632 USD
    assert trace["costs"] == {
        "tool_calls": 1,
        "messages": 0,
        "tokens": 184,
        "usd": 0.000632,
        "wall_clock_s": 2.19,
    }
    assert [e["cost_usd"] for e in trace["events"] if "cost_usd" in e] == [0.00023, 0.000402]
    m = measured(trace)
    assert (m["work"], m["critical_path"], m["makespan"], m["observed_speedup"]) == (
        2.19,
        2.19,
        2.19,
        1.0,
    )
    # one agent: nothing spawned, no depth, and no finish rate to speak of
    assert (m["agents"], m["spawned_agents"], m["spawn_depth"], m["finish_rate"]) == (
        1, 0, 0, None,
    )  # fmt: skip
    assert m["peak_concurrency"] == 1


def test_langfuse_trace_of_google_adk() -> None:
    # Google ADK through OpenInference, exported by Langfuse. From 07:32:30.303: CHAIN
    # "invocation [hello_app]" 0-1.848 s acts for its service, unknown_service, and contains
    # AGENT "agent_run [hello_agent]" 0.001-1.847 s (spawned by unknown_service); each agent
    # keeps the id of its first span (the service's, the CHAIN's). The CHAIN's own time is
    # 0-0.001 and 1.847-1.848 s. Under the agent, LLM 0.003-0.914 s holds the tool span
    # (gen_ai execute_tool say_hello, 0.913-0.914 s, waited on), so its own time is
    # 0.003-0.913 s, with gen_ai.usage 28 + 3 = 31; LLM 0.919-1.843 s, 39 + 6 = 45; the agent's
    # own time 0.001-0.003, 0.914-0.919 and 1.843-1.847 s. W = 1.848 s on one chain: S =
    # makespan = 1.848 s, speedups 1.
    (trace,), _ = imported((EXPORTS / "langfuse-google-adk.json").read_bytes())
    agent, call = "agent_run [hello_agent]", "adk-8bd8dc65-717d-4102-858b-3a1dd6b75a00"
    assert trace["agents"] == [
        {"id": "unknown_service", "role": "agent", "span_id": "86cd4912944ddc41"},
        {"id": agent, "role": "agent", "span_id": "6d8beb2e6a36b133", "parent": "unknown_service"},
    ]
    assert events_of(trace) == [
        ("step", "unknown_service", 0.0, 0.001, None),
        ("spawn", "unknown_service", 0.001, 0.001, None),
        ("step", agent, 0.001, 0.003, None),
        ("step", agent, 0.003, 0.913, 31),
        ("tool_call", agent, 0.913, 0.913, None, "say_hello", call),
        ("step", agent, 0.913, 0.914, None),
        ("tool_result", agent, 0.914, 0.914, None, "say_hello", call),
        ("step", agent, 0.914, 0.919, None),
        ("step", agent, 0.919, 1.843, 45),
        ("step", agent, 1.843, 1.847, None),
        ("return", agent, 1.847, 1.847, None),
        ("step", "unknown_service", 1.847, 1.848, None),
    ]
    # cost details 6.3e-06 + 4e-06 USD
    assert trace["costs"] == {
        "tool_calls": 1,
        "messages": 0,
        "tokens": 76,
        "usd": 1.03e-05,
        "wall_clock_s": 1.848,
    }
    m = measured(trace)
    assert (m["work"], m["critical_path"], m["makespan"], m["observed_speedup"]) == (
        1.848,
        1.848,
        1.848,
        1.0,
    )
    assert (m["agents"], m["spawned_agents"], m["spawn_depth"]) == (2, 1, 1)


def test_langfuse_trace_of_genai_spans() -> None:
    # Microsoft Agent Framework's GenAI spans (service agent_framework), exported by Langfuse.
    # From 16:44:29.952: invoke_agent (gen_ai.agent.name 99981f6a-...) 0-12.447 s, at the top,
    # acts for itself; chat 0.001-5.985 s carries no gen_ai.usage, so Langfuse's usage details
    # count, 25 + 70 = 95; execute_tool get_weather at 5.986 s, whose gen_ai.tool.call.id is a
    # list of two ids (joined by a comma); chat 5.987-12.446 s, 631 + 35 = 666. The agent's own
    # 631 + 35 are its chat's again, not counted; its own time is 0-0.001, 5.985-5.986,
    # 5.986-5.987 and 12.446-12.447 s. W = 12.447 s on one chain: S = makespan = 12.447 s.
    (trace,), _ = imported((EXPORTS / "langfuse-microsoft-agent.json").read_bytes(), "genai")
    agent = "99981f6a-abd1-4d09-9fba-00e2ab172193"
    call = "run_9guMCbt68iSVgtsx6WdKMA18,call_Sz1QP8T7fuJkIECGDLFWOorq"
    assert trace["agents"] == [{"id": agent, "role": "agent", "span_id": "026d1c61bcaa1743"}]
    assert events_of(trace) == [
        ("step", agent, 0.0, 0.001, None),
        ("step", agent, 0.001, 5.985, 95),
        ("step", agent, 5.985, 5.986, None),
        ("tool_call", agent, 5.986, 5.986, None, "get_weather", call),
        ("tool_result", agent, 5.986, 5.986, None, "get_weather", call),
        ("step", agent, 5.986, 5.987, None),
        ("step", agent, 5.987, 12.446, 666),
        ("step", agent, 12.446, 12.447, None),
    ]
    assert trace["costs"] == {
        "tool_calls": 1,
        "messages": 0,
        "tokens": 761,
        "usd": 0.00269,  # cost details 0.0019275 + 0.000762499999, to 9 places
        "wall_clock_s": 12.447,
    }
    m = measured(trace)
    assert (m["work"], m["critical_path"], m["makespan"], m["observed_speedup"]) == (
        12.447,
        12.447,
        12.447,
        1.0,
    )


def test_langfuse_trace_of_langgraph() -> None:
    # LangGraph through Langfuse's own LangChain handler: observation types only (SPAN,
    # GENERATION), no attributes, service unknown_service; metadata.langgraph_node names each
    # node. From 09:38:56.228: the graph (0-2.61 s, span b024c7ee..., no node) acts for the
    # service. Its children are node spans, each a node's top span, so each starts an agent of
    # the node's name, spawned by unknown_service: "agent" 0.003-0.854 s (span 98d3e025...)
    # holds GENERATION 0.004-0.852 s (usage 60 + 15 = 75) and should_continue at 0.853 s;
    # "tools" 0.855-0.858 s (span c8a18a38...) holds Web-Search 0.857-0.858 s (a span, not a
    # tool, to Langfuse); "agent" again 0.86-2.607 s holds GENERATION 0.861-2.604 s (108 + 51
    # = 159) and should_continue at 2.606 s. Every span's own time is its agent's step (the
    # graph's 0-0.003, 0.854-0.855, 0.858-0.86 and 2.607-2.61 s; the nodes' the gaps around
    # their children), and each return leads to the next spawn: W = 2.61 s on one chain,
    # makespan 2.61 s, speedups 1.
    (trace,), _ = imported((EXPORTS / "langfuse-langgraph.json").read_bytes(), "langfuse")
    svc = "unknown_service"
    assert trace["agents"] == [
        {"id": svc, "role": "agent", "span_id": "b024c7ee7680b708"},
        {"id": "agent", "role": "agent", "span_id": "98d3e02591797c04", "parent": svc},
        {"id": "tools", "role": "agent", "span_id": "c8a18a38a3a115cb", "parent": svc},
    ]
    assert [x for x in events_of(trace) if x[0] != "step" or x[4]] == [
        ("spawn", svc, 0.003, 0.003, None),
        ("step", "agent", 0.004, 0.852, 75),
        ("return", "agent", 0.854, 0.854, None),
        ("spawn", svc, 0.855, 0.855, None),
        ("return", "tools", 0.858, 0.858, None),
        ("spawn", svc, 0.86, 0.86, None),
        ("step", "agent", 0.861, 2.604, 159),
        ("return", "agent", 2.607, 2.607, None),
    ]
    steps = [(e["span_id"], e["t"], e["t_end"]) for e in trace["events"] if e["type"] == "step"]
    assert [x for x in steps if x[0] not in ("b024c7ee7680b708", "98d3e02591797c04",
                                             "3b239b11cbb2ac0b", "c8a18a38a3a115cb")] == [
        ("4f6535aaebcda355", 0.004, 0.852),
        ("c7fbfdc6ab70ca4d", 0.853, 0.853),
        ("21441266a9f21251", 0.857, 0.858),
        ("5ba09605e0929d78", 0.861, 2.604),
        ("e638064431445dce", 2.606, 2.606),
    ]  # fmt: skip
    assert [x[1:] for x in steps if x[0] == "b024c7ee7680b708"] == [
        (0.0, 0.003),
        (0.854, 0.855),
        (0.858, 0.86),
        (2.607, 2.61),
    ]
    # cost details 7.5e-05 + 0.000159 USD
    assert trace["costs"] == {
        "tool_calls": 0,
        "messages": 0,
        "tokens": 234,
        "usd": 0.000234,
        "wall_clock_s": 2.61,
    }
    m = measured(trace)
    assert (m["work"], m["critical_path"], m["makespan"], m["observed_speedup"]) == (
        2.61,
        2.61,
        2.61,
        1.0,
    )
    assert (m["agents"], m["spawned_agents"], m["spawn_depth"], m["ideal_speedup"]) == (
        3,
        2,
        1,
        1.0,
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


def test_openinference_langgraph_protobuf() -> None:
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )

    # LangGraph through OpenInference's LangChain instrumentation, OTLP protobuf (made by
    # make_openinference_langgraph.py, see PROVENANCE): 16 spans of service newsroom, trace
    # 18a126ec...; times from the root LangGraph's start, 1796104456.462272 s. The root and
    # the three supervisor CHAIN spans have children, so they give no event; their children
    # act for the service. Under supervisor #1: LLM 0.003808-0.02708096 s (llm.token_count
    # 120 + 6 = 126) and CHAIN route 0.032691968-0.033235968 s, a leaf, so a step. AGENT
    # researcher_agent (its span name: no agent.name) 0.035066112-0.125668096 s: a spawn by
    # newsroom and a return; under it LLM 0.040211968-0.072585984 s (210 + 24), TOOL
    # search_notes 0.07394304-0.092342016 s (no tool_call.id attribute: the span id) and LLM
    # 0.093263104-0.124647936 s (305 + 58). Supervisor #2: LLM 0.127465984-0.1536832 s
    # (190 + 7), route 0.154845952-0.155260928 s. AGENT writer_agent 0.159064832-0.216923904
    # s holds LLM 0.164299008-0.215881984 s (260 + 95). Supervisor #3: LLM
    # 0.224923136-0.246454016 s (240 + 5), route 0.247575808-0.249793024 s.
    data = (EXPORTS / "openinference-langgraph.pb").read_bytes()
    request = ExportTraceServiceRequest()
    request.ParseFromString(data)
    raw = [s for rs in request.resource_spans for ss in rs.scope_spans for s in ss.spans]
    kinds = [
        a.value.string_value
        for s in raw
        for a in s.attributes
        if a.key == "openinference.span.kind"
    ]
    assert (len(raw), sorted(kinds)) == (16, ["AGENT"] * 2 + ["CHAIN"] * 7 + ["LLM"] * 6 + ["TOOL"])
    usage = {
        key: sum(a.value.int_value for s in raw for a in s.attributes if a.key == key)
        for key in ("llm.token_count.prompt", "llm.token_count.completion")
    }
    # input 120 + 210 + 305 + 190 + 260 + 240 = 1325, output 6 + 24 + 58 + 7 + 95 + 5 = 195
    assert usage == {"llm.token_count.prompt": 1325, "llm.token_count.completion": 195}

    # Each supervisor CHAIN is the top span of node supervisor (OpenInference's metadata
    # JSON names langgraph_node): an agent "supervisor", spawned by newsroom at its start
    # (0.002674944, 0.126782976 and 0.218084096 s) and returning at its end (0.033825024,
    # 0.15573888 and 0.250616832 s); the AGENT spans are their nodes already. Every span's own
    # time (what its children leave) is a step of its agent, so the steps cover the run from
    # the root's start to its end, one after another.
    (trace,), note = imported(data)
    assert note == "" and trace["trace_id"] == "18a126ecf755b4dc2a04b7f602759d11"
    news, sup, res, wri = "newsroom", "supervisor", "researcher_agent", "writer_agent"
    call = "853c93ffea72ccc9"
    assert trace["agents"] == [
        {"id": news, "role": "agent", "span_id": "16094ac3de090958"},
        {"id": sup, "role": "agent", "span_id": "7af757e9e0afe1ff", "parent": news},
        {"id": res, "role": "agent", "span_id": "e9d8242c20150840", "parent": news},
        {"id": wri, "role": "agent", "span_id": "3338b4234b320e86", "parent": news},
    ]
    assert [x for x in events_of(trace) if x[0] != "step" or x[4]] == [
        ("spawn", news, 0.002674944, 0.002674944, None),
        ("step", sup, 0.003808, 0.02708096, 126),
        ("return", sup, 0.033825024, 0.033825024, None),
        ("spawn", news, 0.035066112, 0.035066112, None),
        ("step", res, 0.040211968, 0.072585984, 234),
        ("tool_call", res, 0.07394304, 0.07394304, None, "search_notes", call),
        ("tool_result", res, 0.092342016, 0.092342016, None, "search_notes", call),
        ("step", res, 0.093263104, 0.124647936, 363),
        ("return", res, 0.125668096, 0.125668096, None),
        ("spawn", news, 0.126782976, 0.126782976, None),
        ("step", sup, 0.127465984, 0.1536832, 197),
        ("return", sup, 0.15573888, 0.15573888, None),
        ("spawn", news, 0.159064832, 0.159064832, None),
        ("step", wri, 0.164299008, 0.215881984, 355),
        ("return", wri, 0.216923904, 0.216923904, None),
        ("spawn", news, 0.218084096, 0.218084096, None),
        ("step", sup, 0.224923136, 0.246454016, 245),
        ("return", sup, 0.250616832, 0.250616832, None),
    ]
    # the route CHAINs are leaves, steps of supervisor: 0.032691968-0.033235968,
    # 0.154845952-0.155260928 and 0.247575808-0.249793024 s; the tool is waited on
    # 0.07394304-0.092342016 s
    by_span = {e["span_id"]: (e["agent"], e["t"], e["t_end"]) for e in trace["events"]
               if e["type"] == "step"}  # fmt: skip
    assert [by_span[k] for k in ("8fc4dd4559bc67a2", "fd9732674278ef94", "60cceb7723807cd1")] == [
        (sup, 0.032691968, 0.033235968),
        (sup, 0.154845952, 0.155260928),
        (sup, 0.247575808, 0.249793024),
    ]
    assert by_span[call] == (res, 0.07394304, 0.092342016)
    steps = sorted((e["t"], e["t_end"]) for e in trace["events"] if e["type"] == "step")
    assert steps[0][0] == 0.0 and steps[-1][1] == 0.251397888
    assert all(a[1] == b[0] for a, b in itertools.pairwise(steps))  # one after another
    # 1325 + 195 tokens; the wall clock is the root's end, 0.251397888 s
    assert trace["costs"] == {
        "tool_calls": 1,
        "messages": 0,
        "tokens": 1520,
        "wall_clock_s": 0.251397888,
    }
    # Each return leads to newsroom's next event, its own step until the next spawn: the run
    # is one chain, as it was sequential.
    ids = {(e["type"], e["t"]): e["id"] for e in trace["events"]}
    assert [(e["source"], e["target"]) for e in trace["edges"] if e["type"] == "return"] == [
        (ids["return", 0.033825024], ids["step", 0.033825024]),
        (ids["return", 0.125668096], ids["step", 0.125668096]),
        (ids["return", 0.15573888], ids["step", 0.15573888]),
        (ids["return", 0.216923904], ids["step", 0.216923904]),
        (ids["return", 0.250616832], ids["step", 0.250616832]),
    ]
    # The steps tile the run: W = makespan = 0.251397888 s, and the one chain holds them all,
    # so S = W and both speedups are 1. Every step is an ancestor of the last: nothing wasted.
    m = measured(trace)
    assert (m["work"], m["critical_path"], m["makespan"]) == (0.2514, 0.2514, 0.2514)
    assert (m["ideal_speedup"], m["observed_speedup"]) == (1.0, 1.0)
    assert (m["wasted_work"], m["wasted_fraction"]) == (0.0, 0.0)
    assert (m["agents"], m["spawned_agents"], m["spawn_depth"], m["finish_rate"]) == (4, 3, 1, 1.0)
    # newsroom throughout, and supervisor from its first spawn to its last return beside the
    # one worker running at a time
    assert m["peak_concurrency"] == 3


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
CHAT = {"gen_ai.operation.name": "chat"}


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


def test_vercel_ai_sdk_spans() -> None:
    # ai.generateText (0-10 s, 300 tokens in all) holds two model calls (doGenerate, 0-3 s with
    # 100 tokens and 6-10 s with 200) and a tool call (3-6 s): the outer total is not counted
    # again, the tool call is a tool call, its 3 s waited on (a step); generateText has no
    # time of its own.
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
        ("step", None, None, None),
        ("tool_result", "weather", "call_1", None),
        ("step", None, None, 200),
    ]
    assert trace["costs"]["tokens"] == 300 and note == ""


def test_javascript_spans_keep_their_parents_and_errors() -> None:
    # OpenTelemetry JS 2 names the parent in parentSpanContext, 1.x in parentSpanId; status
    # code 2 is an error. An invoke_agent span without gen_ai.agent.name is named after itself
    # (not its service); a token count written as a string counts.
    def js(sid: str, parent: dict[str, Any], start: int, end: int, **attrs: Any) -> dict[str, Any]:
        return {
            "name": attrs.pop("name", sid),
            "spanContext": {"traceId": "t", "spanId": sid},
            **parent,
            "attributes": attrs,
            "status": {"code": 2, "message": "timed out"} if sid == "c" else {"code": 0},
            "startTime": [start, 0],
            "endTime": [end, 500_000_000],
            "resource": {"attributes": {"service.name": "app"}},
        }

    data = json.dumps(
        [
            js("a", {}, 10, 13, name="invoke_agent", **{"gen_ai.operation.name": "invoke_agent"}),
            js(
                "b",
                {"parentSpanContext": {"spanId": "a"}},
                10,
                11,
                **CHAT,
                **{"gen_ai.usage.input_tokens": "7"},
            ),
            js("c", {"parentSpanId": "a"}, 12, 12, **CHAT),
        ]
    ).encode()
    (trace,), _ = imported(data)
    # the agent at the top acts for itself: chat 0-1.5 s (7 tokens), chat 2-2.5 s in error,
    # and the agent's own time between and after them, 1.5-2 s and 2.5-3.5 s
    assert [
        (e["agent"], e["t"], e["t_end"], e.get("tokens"), e.get("error")) for e in trace["events"]
    ] == [
        ("invoke_agent", 0.0, 1.5, 7, None),
        ("invoke_agent", 1.5, 2.0, None, None),
        ("invoke_agent", 2.0, 2.5, None, "timed out"),
        ("invoke_agent", 2.5, 3.5, None, None),
    ]


def test_langfuse_trace_of_another_project() -> None:
    # agent-prism's Langfuse export of a documentation chatbot (Vercel AI SDK): from the root
    # GENERATION handle-chatbot-message (span 1ddbdc92..., 12:23:29.231-34.240, no usage), its
    # SPANs get-langfuse-prompt 0.005-0.256 s and create-mcp-client 0.258-1.337 s, then the
    # GENERATION ai.streamText 1.42-5.009 s (no usage) holding ai.streamText.doStream
    # 1.431-5.004 s (gpt-5, usage 1115 + 101 = 1216, cost 0.00240375). No agent observation:
    # one agent, named by the root, whose own time fills the gaps. One chain: W = S = 5.009 s.
    (trace,), _ = imported((EXPORTS / "langfuse-agent-prism-chatbot.json").read_bytes())
    agent = "handle-chatbot-message"
    assert trace["trace_id"] == "845c2c534cee1b98266081dd72ed3c30"
    assert trace["agents"] == [{"id": agent, "role": "agent", "span_id": "1ddbdc92f8d7fb2f"}]
    steps = [(e["span_id"][:4], e["t"], e["t_end"], e.get("tokens")) for e in trace["events"]]
    assert steps == [
        ("1ddb", 0.0, 0.005, None),
        ("e17b", 0.005, 0.256, None),
        ("1ddb", 0.256, 0.258, None),
        ("146a", 0.258, 1.337, None),
        ("1ddb", 1.337, 1.42, None),
        ("57e1", 1.42, 1.431, None),
        ("6310", 1.431, 5.004, 1216),
        ("57e1", 5.004, 5.009, None),
    ]
    assert {e["agent"] for e in trace["events"]} == {agent}
    assert trace["costs"] == {
        "tool_calls": 0, "messages": 0, "tokens": 1216, "usd": 0.00240375, "wall_clock_s": 5.009
    }  # fmt: skip
    m = measured(trace)
    assert (m["work"], m["critical_path"], m["makespan"]) == (5.009, 5.009, 5.009)


def test_langfuse_metadata_and_usage_written_as_json() -> None:
    # Langfuse may hand metadata over as a JSON string, and its OpenTelemetry SDK writes usage
    # details as JSON; an observation at level ERROR is an error, its status message the cause.
    doc = {
        "trace": {"id": "lf1"},
        "observations": [
            {
                "id": "o1",
                "type": "GENERATION",
                "name": "llm",
                "startTime": "2025-01-01T00:00:00.000Z",
                "endTime": "2025-01-01T00:00:02.500Z",
                "level": "ERROR",
                "statusMessage": "rate limited",
                "metadata": json.dumps(
                    {
                        "attributes": {
                            "langfuse.observation.usage_details": '{"input": 3, "output": 4}'
                        },
                        "resourceAttributes": {"service.name": "svc"},
                    }
                ),
            }
        ],
    }
    (trace,), _ = imported(json.dumps(doc).encode(), "langfuse")
    assert trace["trace_id"] == "lf1"
    assert [(e["agent"], e["t_end"], e.get("tokens"), e.get("error")) for e in trace["events"]] == [
        ("svc", 2.5, 7, "rate limited")
    ]


def test_zipkin_v2_spans_with_shared_rpc_halves() -> None:
    # openzipkin's Yelp trace (see PROVENANCE): a JSON list of 16 Zipkin v2 spans of trace
    # a03ee8fff1dcd9b9, 13 ids: three ids are both a CLIENT span and a SERVER span marked
    # "shared" (one RPC's two halves). Each server half becomes its client's child, <id>.server.
    # The root, routing's SERVER span 2e8cfb154b59a41f, lasts 131848 us.
    from orchtrace.readers.spanfiles import read_spans

    raw = (EXPORTS / "zipkin-yelp-location-update.json").read_bytes()
    spans = read_spans(raw)
    assert len(spans) == 16 and len({s.span_id for s in spans}) == 16
    halves = {s.span_id: s.parent_id for s in spans if s.span_id.endswith(".server")}
    assert halves == {
        "7a778764a0d0b594.server": "7a778764a0d0b594",
        "f5f268651b2a2b34.server": "f5f268651b2a2b34",
        "668ed78ad94b35a1.server": "668ed78ad94b35a1",
    }
    assert {s.service for s in spans} == {
        "routing", "unknown", "yelp_main/api_proxy", "yelp-main", "mobile_api", "spectre",
    }  # fmt: skip
    (trace,), _ = imported(raw)
    assert trace["trace_id"] == "a03ee8fff1dcd9b9"
    assert trace["agents"][0] == {"id": "routing", "role": "agent", "span_id": "2e8cfb154b59a41f"}
    assert trace["costs"]["wall_clock_s"] == 0.131848


def test_a_zipkin_api_response_from_a_second_project() -> None:
    # eventuate-tram's Sleuth trace (see PROVENANCE): Zipkin's /api/v2/traces answer, a list
    # of traces each a list of spans, was refused as an OTLP file lacking resourceSpans. Times
    # from the root client's start, 1543124692914780 us: the shared server half "post
    # /foo/{id}" 0.259015-0.533872 s; "send" 0.408903-0.436773, started by that server (its
    # parent id is the shared one), so it splits the server's own time rather than hiding
    # under it; "receive" 0.472357-0.536129 starts after its producer ended and takes none of
    # the producer's time. One service, in sequence: speedup 1.
    from orchtrace.measures.metrics import metrics
    from orchtrace.readers.spanfiles import read_spans

    raw = (EXPORTS / "zipkin-eventuate-tram-sleuth-trace.json").read_bytes()
    spans = {s.span_id: s for s in read_spans(raw)}
    assert len(spans) == 6
    assert spans["1078d3f1bf07dd7c"].parent_id == "dee97d8238972979.server"
    assert spans["37020204a3445bb2.server"].parent_id == "37020204a3445bb2"
    (trace,), _ = imported(raw)
    assert trace["trace_id"] == "dee97d8238972979" and trace["agents"] == [
        {"id": "default", "role": "agent", "span_id": "dee97d8238972979"}]  # fmt: skip
    steps = {(e["span_id"], e["t"], e["t_end"]) for e in trace["events"]}
    assert {
        ("dee97d8238972979", 0.0, 0.259015),
        ("dee97d8238972979.server", 0.259015, 0.408903),
        ("1078d3f1bf07dd7c", 0.408903, 0.436773),
        ("dee97d8238972979.server", 0.436773, 0.533872),
        ("ed4c75490dc845a8", 0.533872, 0.536129),
    } <= steps
    assert trace["costs"]["wall_clock_s"] == 0.536129
    m = metrics(trace)
    assert m["ideal_speedup"] == m["observed_speedup"] == 1.0 and m["peak_concurrency"] == 1


def test_zipkin_v2_spans_out_of_step_are_refused_with_their_reason() -> None:
    # openzipkin's Kafka trace: three spans start before their parents (by up to 21 us, two
    # services' clocks out of step); the trace it would make does not validate, and says so
    path = EXPORTS / "zipkin-messaging-kafka.json"
    run = subprocess.run(
        [sys.executable, "-m", "orchtrace", "import", str(path)], capture_output=True
    )
    assert run.returncode == 1 and b"Traceback" not in run.stderr
    assert b"time-backwards" in run.stderr and b"0562809467078eab" in run.stderr


def test_any_agent_trace_two_projects() -> None:
    # mozilla-ai any-agent's own AgentTrace ({"spans", "final_output"}; see PROVENANCE): six
    # spans with decimal integer ids and nanosecond times, one agent "invoke_agent
    # [any_agent]" 1758026593209236000-1758026594436486000 (1.22725 s) over three call_llm
    # spans (269+16, 359+14, 392+46 tokens: 1,096) and two execute_tool spans; costs
    # gen_ai.usage.input_cost 2.69e-05 + 3.59e-05 + 3.92e-05 and output_cost 4.8e-06 + 4.2e-06
    # + 1.38e-05: 0.0001248 USD
    (trace,), _ = imported((EXPORTS / "anyagent-openai-trace.json").read_bytes())
    assert trace["trace_id"] == format(100927429609276267646756448943279827607, "032x")
    assert [a["id"] for a in trace["agents"]] == ["any_agent"]
    assert trace["costs"] == {
        "tool_calls": 2, "messages": 0, "tokens": 1096, "usd": 0.0001248, "wall_clock_s": 1.22725,
    }  # fmt: skip
    # agent-factory's run (tinyagent on openai/o3): four spans, the agent's parent (the
    # caller's span) not in the export, so it is read as a root, with a warning
    (other,), note = imported((EXPORTS / "anyagent-agent-factory-summarize-url.json").read_bytes())
    assert other["trace_id"] == format(155905295242404272490930691566842222315, "032x")
    assert [a["id"] for a in other["agents"]] == ["any_agent"]
    assert "name a parent the export does not hold" in note
    assert other["costs"]["tokens"] == 12140 + 1328  # 5,865 + 6,275 in, 156 + 1,172 out
    assert other["costs"]["wall_clock_s"] == round(
        (1756806161226459927 - 1756806142480828168) / 1e9, 9
    )
