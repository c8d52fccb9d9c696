"""orchtrace import on the exports that print or dump spans: Datadog trace lists (dd-trace-py's
OpenAI integration, Datadog's test agent), OpenTelemetry Python's console exporter (the
OpenTelemetry site's own example output, and Microsoft Agent Framework's documented
invoke_agent record), OpenTelemetry Go's stdouttrace (the OpenTelemetry site's Go example, and
the Go echo server in NoNickeD/otel-demo's README, its child printed first), AgentOps' trace
JSON (a CrewAI run), a single Jaeger trace object (Jaeger's UI-model fixture, refused for a
span id listed twice, and one element of a committed Jaeger response), rows of the Collector's
ClickHouse exporter (AGNTCY's LangGraph sample), Phoenix spans (a client's REST spans and a
spans dataframe's records, of two projects), ATIF trajectories (NeMo Agent Toolkit, Harbor with
its sub-trajectories, OpenAgents), Langfuse observations as a bare list, UTF-16
with a byte order mark (these last two made from committed fixtures, as said at each), and,
written here as small synthetic records, Phoenix's span JSON and stdouttrace; and what a
refused file is told. Every expected value is derived by hand from the raw spans (see
PROVENANCE)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from orchtrace.readers.importcheck import import_traces
from orchtrace.readers.spans import ImportError_
from test_trace_import import imported, measured

EXPORTS = Path(__file__).resolve().parent / "fixtures" / "exports"


def one_chain(trace: dict[str, Any], tool_calls: int, tokens: int, wall_s: float) -> dict[str, Any]:
    """A run done one thing at a time: its costs are these, and its work, critical path and
    makespan are all its wall time (to four places, as metrics rounds); its measures."""
    assert trace["costs"] == {
        "tool_calls": tool_calls,
        "messages": 0,
        "tokens": tokens,
        "wall_clock_s": wall_s,
    }
    m = measured(trace)
    assert (m["work"], m["critical_path"], m["makespan"]) == (round(wall_s, 4),) * 3
    return m


def steps(trace: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [
        (e["type"], e["agent"], e["t"], e["t_end"], e["span_id"], e.get("tokens"))
        for e in trace["events"]
    ]


def test_datadog_trace_list_of_the_openai_integration() -> None:
    # dd-trace-py's snapshot: one trace (trace_id 0) of two spans. openai.request (span 1,
    # service "", so its agent is its name) starts at 1681970508116344000 ns and lasts
    # 15813000 ns; its child requests.request (span 2, service openai, type http) starts
    # 10711000 ns later and lasts 2473000 ns. Neither follows a convention, so each steps over
    # its own time for openai.request (the child's service is no delegation: its parent names
    # none): 0-0.010711 s, the child 0.010711-0.013184 s, 0.013184-0.015813 s, the last with
    # the request's tokens, metrics response.usage.prompt_tokens 2 + completion_tokens 16 =
    # 18. One chain: W = S = makespan = 0.015813 s.
    (trace,), note = imported((EXPORTS / "datadog-openai-completion.json").read_bytes())
    assert "each span is a step of its service" in note
    assert trace["trace_id"] == "0"
    assert trace["agents"] == [{"id": "openai.request", "role": "agent", "span_id": "1"}]
    assert steps(trace) == [
        ("step", "openai.request", 0.0, 0.010711, "1", None),
        ("step", "openai.request", 0.010711, 0.013184, "2", None),
        ("step", "openai.request", 0.013184, 0.015813, "1", 18),
    ]
    one_chain(trace, tool_calls=0, tokens=18, wall_s=0.015813)


def test_datadog_trace_list_of_two_traces() -> None:
    # Datadog's test agent: two traces (trace_id 0 and 1), each a root and a child, service "".
    # Trace 0: root0 from 1759940419298507000 ns for 89000 ns, child0 from 63000 ns later for
    # 14000 ns; trace 1: root1 from 1759940419314834000 ns for 34000 ns, child1 from 22000 ns
    # later for 7000 ns. Each root steps over what its child leaves.
    traces, _ = imported((EXPORTS / "datadog-test-agent-multi-trace.json").read_bytes())
    assert [t["trace_id"] for t in traces] == ["0", "1"]
    zero, one = traces
    assert steps(zero) == [
        ("step", "root0", 0.0, 6.3e-05, "1", None),
        ("step", "root0", 6.3e-05, 7.7e-05, "2", None),
        ("step", "root0", 7.7e-05, 8.9e-05, "1", None),
    ]
    assert steps(one) == [
        ("step", "root1", 0.0, 2.2e-05, "1", None),
        ("step", "root1", 2.2e-05, 2.9e-05, "2", None),
        ("step", "root1", 2.9e-05, 3.4e-05, "1", None),
    ]


def test_opentelemetry_python_console_exporter_output() -> None:
    # The OpenTelemetry site's example output: two pretty-printed records one after another,
    # roll (span 623321c35b8fa837, 08:18:28.679261-.679560) and its parent /rolldice (span
    # 09abe52faf1d80d5, .678348-.679677), both of service dice-server, ids 0x-prefixed. Times
    # from /rolldice's start: /rolldice steps 0-0.000913 s and 0.001212-0.001329 s around roll,
    # 0.000913-0.001212 s. W = S = makespan = 0.001329 s.
    (trace,), _ = imported((EXPORTS / "otel-python-console-rolldice.json").read_bytes())
    assert trace["trace_id"] == "6f781c83394ed2f33120370a11fced47"
    assert trace["agents"] == [
        {"id": "dice-server", "role": "agent", "span_id": "09abe52faf1d80d5"}
    ]
    assert steps(trace) == [
        ("step", "dice-server", 0.0, 0.000913, "09abe52faf1d80d5", None),
        ("step", "dice-server", 0.000913, 0.001212, "623321c35b8fa837", None),
        ("step", "dice-server", 0.001212, 0.001329, "09abe52faf1d80d5", None),
    ]
    assert trace["costs"]["wall_clock_s"] == 0.001329


def test_agentops_trace_of_a_crewai_run() -> None:
    # AgentOps' trace JSON of a CrewAI crew (IBM's tutorial; prompts and completions replaced).
    # Service agentops. crewai.workflow (span 3a5b01c5..., 15:12:27.400849-56.373933, kind
    # workflow) holds two tasks (kind workflow.step): the first, 27.407929-39.472284, holds
    # agent "Website Researcher" (kind agent, agent.role; 27.408809-39.470781), whose llm span
    # runs 27.411626-39.463414 with gen_ai.usage 210 + 83 = 293; the second, 39.479713-56.228940,
    # holds "Songwriter" (39.480693-56.223281), whose llm span runs 39.483743-56.212145 with 271
    # + 413 = 684. The workflow's 977 tokens are theirs again (not counted). The workflow acts
    # for its service, agentops, and spawns both agents, one after the other: W = S = makespan
    # = 28.973084 s, no speedup.
    (trace,), _ = imported((EXPORTS / "agentops-crewai-trace.json").read_bytes())
    assert trace["trace_id"] == "b520ab60214d54b570cf701c7ad28faf"
    assert trace["agents"] == [
        {"id": "agentops", "role": "agent", "span_id": "3a5b01c520ec0171"},
        {"id": "Website Researcher", "role": "agent", "span_id": "1935beaad741db0d",
         "parent": "agentops"},
        {"id": "Songwriter", "role": "agent", "span_id": "f9e6c35833de37cb",
         "parent": "agentops"},
    ]  # fmt: skip
    model = [
        (e["agent"], e["t"], e["t_end"], e["tokens"]) for e in trace["events"] if "tokens" in e
    ]
    assert model == [
        ("Website Researcher", 0.010777, 12.062565, 293),
        ("Songwriter", 12.082894, 28.811296, 684),
    ]
    kinds = [(e["type"], e["agent"], e["t"]) for e in trace["events"] if e["type"] != "step"]
    assert kinds == [
        ("spawn", "agentops", 0.00796),
        ("return", "Website Researcher", 12.069932),
        ("spawn", "agentops", 12.079844),
        ("return", "Songwriter", 28.822432),
    ]
    m = one_chain(trace, tool_calls=0, tokens=977, wall_s=28.973084)
    assert (m["spawned_agents"], m["spawn_depth"], m["observed_speedup"]) == (2, 1, 1.0)


def test_a_single_jaeger_trace_object() -> None:
    # The first element of jaeger-query-trace.json's data, alone, as Jaeger's UI downloads one
    # trace: {"traceID", "spans", "processes"}. Its one span is listed twice (read once): one
    # step of 123 us by telemetrygen (process p1).
    whole = json.loads((EXPORTS / "jaeger-query-trace.json").read_bytes())
    (trace,), note = imported(json.dumps(whole["data"][0]).encode())
    assert "listed 2 times" in note
    assert [(e["agent"], e["t"], e["t_end"]) for e in trace["events"]] == [
        ("telemetrygen", 0.0, 0.000123)
    ]


def test_langfuse_observations_as_a_bare_list() -> None:
    # The observations of langfuse-langgraph.json without the trace around them: the same
    # trace (its id from each observation's traceId), as test_trace_import.py reads it.
    whole = json.loads((EXPORTS / "langfuse-langgraph.json").read_bytes())
    (bare,), _ = imported(json.dumps(whole["observations"]).encode(), "langfuse")
    (full,), _ = imported(json.dumps(whole).encode(), "langfuse")
    assert bare["trace_id"] == "e1fde3efec57ce8a69bafd3fb928a7eb" == full["trace_id"]
    assert bare["events"] == full["events"] and bare["costs"]["tokens"] == 234


def test_langfuse_observations_as_json_lines_of_another_project() -> None:
    # kitaru's export of a PydanticAI support agent, one Langfuse observation a line: the SPAN
    # support-agent (07:07:02.586-11.616, 9.03 s; its parent c8345e91e52107ba is not in the
    # export, so it is the root, with a warning) holds the AGENT support_agent run
    # (02.590-11.615), which holds a GENERATION (02.591-05.742; usage input 716, output 153,
    # reasoning 128, total 997), the TOOL get_service_status (05.743-05.750) and a GENERATION
    # (05.752-11.613; total 1585). Langfuse's totals count the reasoning tokens: 997 + 1585 =
    # 2582 tokens; cost 0.000484999999 + 0.00112825 = 0.00161325 USD.
    (trace,), note = imported((EXPORTS / "langfuse-kitaru-support-agent.jsonl").read_bytes())
    assert trace["trace_id"] == "00cbb102c7844e00aeb0149e8deea83b"
    assert [(a["id"], a.get("parent")) for a in trace["agents"]] == [
        ("support-agent", None), ("support_agent run", "support-agent")
    ]  # fmt: skip
    assert "span e03fd74603891130, parent c8345e91e52107ba" in note
    assert [e[5] for e in steps(trace) if e[5]] == [997, 1585]
    assert trace["costs"] == {
        "tool_calls": 1, "messages": 0, "tokens": 2582, "usd": 0.00161325, "wall_clock_s": 9.03
    }  # fmt: skip
    calls = [(e["t"], e["span_id"]) for e in trace["events"] if e["type"] == "tool_call"]
    assert calls == [(3.157, "2892a9e8f704da66")]


def test_agents_across_services_are_linked_by_their_parent_spans() -> None:
    # jaeger-ui's GenAI trace (one trace object, 57 spans, 10 services; made by its generator
    # script): api-edge's POST /api/graphql (44 s from 1770000000.001) calls graphql-gateway,
    # whose span parents the coding-agent service's invoke_agent triage-agent (span ...04); the
    # agent's tool calls go to mcp-gateway (span ...08 under the agent's execute_tool ...07),
    # which calls auth-service, metrics-backend and trace-store (trace-store then k8s-api); the
    # agent's retrievals go to vector-store; and one tool call reaches the summarizer-agent
    # service's invoke_agent summarizer (span ...35 under mcp-gateway's ...33). Each parent
    # link across services is a delegation: ten agents, each spawned by the service of its
    # first span's parent. Seven execute_tool spans; its four chat spans and the summarizer's
    # one count 9460 tokens (gen_ai.usage input plus output).
    (trace,), _ = imported((EXPORTS / "jaeger-ui-genai-agents-across-services.json").read_bytes())
    assert [(a["id"], a.get("parent")) for a in trace["agents"]] == [
        ("api-edge", None),
        ("graphql-gateway", "api-edge"),
        ("triage-agent", "graphql-gateway"),
        ("mcp-gateway", "triage-agent"),
        ("auth-service", "mcp-gateway"),
        ("metrics-backend", "mcp-gateway"),
        ("trace-store", "mcp-gateway"),
        ("k8s-api", "trace-store"),
        ("vector-store", "triage-agent"),
        ("summarizer", "mcp-gateway"),
    ]
    assert trace["costs"] == {
        "tool_calls": 7, "messages": 0, "tokens": 9460, "wall_clock_s": 44.0
    }  # fmt: skip
    m = measured(trace)
    assert (m["makespan"], m["spawned_agents"]) == (44.0, 9)
    assert m["critical_path"] <= m["makespan"] <= m["work"]


def test_utf16_with_a_byte_order_mark_is_read() -> None:
    # otel-proto-trace.json saved as UTF-16 (with the mark, as a Windows redirect writes it):
    # the same one step of my.service; without the mark, a clear refusal.
    text = (EXPORTS / "otel-proto-trace.json").read_text(encoding="utf-8")
    (trace,), _ = imported(text.encode("utf-16"))
    assert [(e["agent"], e["t_end"]) for e in trace["events"]] == [("my.service", 1.0)]
    (again,), _ = imported(b"\xef\xbb\xbf" + text.encode())  # a UTF-8 mark is dropped
    assert again["events"] == trace["events"]
    with pytest.raises(ImportError_, match="UTF-16 without a byte order mark: re-save it as UTF-8"):
        import_traces(text.encode("utf-16-le"))


def test_phoenix_span_json() -> None:
    # Synthetic, in Phoenix's shape: an AGENT (0-4 s) and its LLM (1-3 s) with nested
    # attributes llm.token_count.prompt 5 and completion 7, and span_kind for the kind.
    def phoenix(
        sid: str, parent: str | None, kind: str, start: str, end: str, **attrs: Any
    ) -> dict[str, Any]:
        return {"name": sid, "context": {"trace_id": "tp", "span_id": sid}, "span_kind": kind,
                "parent_id": parent, "start_time": f"2025-01-01T00:00:0{start}+00:00",
                "end_time": f"2025-01-01T00:00:0{end}+00:00", "status_code": "OK",
                "attributes": attrs}  # fmt: skip

    data = json.dumps([
        phoenix("a", None, "AGENT", "0", "4", agent={"name": "planner"}),
        phoenix("m", "a", "LLM", "1", "3", llm={"token_count": {"prompt": 5, "completion": 7}}),
    ]).encode()  # fmt: skip
    (trace,), _ = imported(data)
    assert trace["agents"] == [{"id": "planner", "role": "agent", "span_id": "a"}]
    assert steps(trace) == [
        ("step", "planner", 0.0, 1.0, "a", None),
        ("step", "planner", 1.0, 3.0, "m", 12),
        ("step", "planner", 3.0, 4.0, "a", None),
    ]


def test_phoenix_spans_of_a_project_client() -> None:
    # kalibra's example traces, spans as Phoenix's client gets them from its REST API (JSON
    # Lines, "context" nested): trace 91b94c15... is agent (CHAIN, 38.989466-42.313505, so
    # 3.324039 s) over an LLM call 38.989650-40.147270 (66 + 56 = 122 tokens), the TOOL
    # prepare_context 40.149275-40.450747 and an LLM call 40.451991-42.311304 (106 + 150 =
    # 256): one agent on one chain, 378 tokens, one tool call. Two more traces of the same
    # shape: 64 + 56 + 110 + 150 = 380 tokens over 3.326378 s; 73 + 107 + 119 + 150 = 449 over
    # 3.835396 s.
    traces, _ = imported((EXPORTS / "phoenix-kalibra-spans.jsonl").read_bytes())
    by_id = {t["trace_id"][:8]: t for t in traces}
    first = by_id["91b94c15"]
    assert first["agents"] == [{"id": "agent", "role": "agent", "span_id": "02b0392f02c68774"}]
    assert [e for e in steps(first) if e[4] != "02b0392f02c68774"] == [
        ("step", "agent", 0.000184, 1.157804, "8ee8aa05f86adbfd", 122),
        ("tool_call", "agent", 1.159809, 1.159809, "57fc16b83b8bb01a", None),
        ("step", "agent", 1.159809, 1.461281, "57fc16b83b8bb01a", None),
        ("tool_result", "agent", 1.461281, 1.461281, "57fc16b83b8bb01a", None),
        ("step", "agent", 1.462525, 3.321838, "9a40c28894f8c13a", 256),
    ]
    one_chain(first, tool_calls=1, tokens=378, wall_s=3.324039)
    one_chain(by_id["34790156"], tool_calls=1, tokens=380, wall_s=3.326378)
    one_chain(by_id["193c8ee7"], tool_calls=1, tokens=449, wall_s=3.835396)


def test_phoenix_spans_dataframe_records_of_a_langgraph_agent() -> None:
    # tracelint's LangGraph release agent, Phoenix's spans dataframe written as records
    # (context.* and attributes.* columns, token counts as floats). From 21:45:32.477677 the
    # graph LangGraph (CHAIN, to 34.931244: 2.453567 s) runs its nodes one at a time, each
    # node's CHAIN named by metadata.langgraph_node: model (32.478979-33.251908) with an LLM
    # call of 140 + 19 tokens, tools (33.260403-33.268609) running run_release_pipeline,
    # model again (33.274796-33.863696; 232 + 26), tools (33.869682-33.879157) running
    # deploy, model (33.884286-34.924035; 302 + 66). So: agents LangGraph, model and tools,
    # five spawns and returns in turn, two tool calls, 159 + 258 + 368 = 785 tokens, no two
    # agents working at once.
    (trace,), _ = imported((EXPORTS / "phoenix-tracelint-langgraph-frame.json").read_bytes())
    assert [(a["id"], a.get("parent")) for a in trace["agents"]] == [
        ("LangGraph", None), ("model", "LangGraph"), ("tools", "LangGraph")
    ]  # fmt: skip
    spawned = [(e["t"], e["span_id"]) for e in trace["events"] if e["type"] == "spawn"]
    assert spawned == [
        (0.001302, "56d412d6d1c84237"),
        (0.782726, "3b605340976d5fec"),
        (0.797119, "14e6aca7a65a468e"),
        (1.392005, "e00b5d0cbfc94799"),
        (1.406609, "e7d4349011d899cf"),
    ]
    calls = [(e["agent"], e["t"]) for e in trace["events"] if e["type"] == "tool_call"]
    assert calls == [("tools", 0.784665), ("tools", 1.393178)]
    assert [e[5] for e in steps(trace) if e[5]] == [159, 258, 368]
    assert trace["costs"] == {
        "tool_calls": 2, "messages": 0, "tokens": 785, "wall_clock_s": 2.453567
    }  # fmt: skip
    m = measured(trace)
    assert (m["work"], m["critical_path"], m["makespan"]) == (2.4536,) * 3
    assert m["observed_speedup"] == 1.0


def test_opentelemetry_go_stdouttrace() -> None:
    # Synthetic, in stdouttrace's pretty-printed shape: a chat (GenAI) from .25 s to .75 s
    # (nanosecond times with an offset) under a root span, Parent's all-zero SpanID at the top.
    def go(sid: str, parent: str, start: str, end: str, **attrs: Any) -> str:
        return json.dumps({
            "Name": sid, "SpanContext": {"TraceID": "tg", "SpanID": sid},
            "Parent": {"TraceID": "tg", "SpanID": parent}, "StartTime": start, "EndTime": end,
            "Attributes": [{"Key": k, "Value": {"Type": "STRING", "Value": v}} for k, v in
                           attrs.items()],
            "Status": {"Code": "Unset", "Description": ""},
            "Resource": [{"Key": "service.name", "Value": {"Type": "STRING", "Value": "gosvc"}}],
        }, indent="\t")  # fmt: skip

    text = "\n".join([
        go("c", "r", "2025-01-01T01:00:00.250000000+01:00", "2025-01-01T01:00:00.750000001+01:00",
           **{"gen_ai.operation.name": "chat"}),
        go("r", "0000000000000000", "2025-01-01T01:00:00+01:00", "2025-01-01T01:00:01+01:00"),
    ])  # fmt: skip
    (trace,), _ = imported(text.encode())
    assert steps(trace) == [
        ("step", "gosvc", 0.0, 0.25, "r", None),
        ("step", "gosvc", 0.25, 0.750000001, "c", None),
        ("step", "gosvc", 0.750000001, 1.0, "r", None),
    ]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b'{"foo": 1}', "the export: not a span export orchtrace reads (it has foo)"),
        (
            json.dumps([{"traceID": "a", "spanID": "b", "operationName": "x"}]).encode(),
            "[0]: looks like a Jaeger span, but it lacks startTime",
        ),
        (
            json.dumps({"name": "x", "context": {}}).encode(),
            "the export: looks like OpenTelemetry Python's to_json(), but it lacks start_time, "
            "end_time",
        ),
        (
            json.dumps([[{"trace_id": 1, "span_id": 2}]]).encode(),
            "[0][0]: looks like a Datadog trace list, but it lacks start, duration",
        ),
        (
            json.dumps(
                [{"TraceId": "t", "SpanId": "s", "SpanName": "x", "Timestamp": "1"}]
            ).encode(),
            "the export: looks like a ClickHouse otel_traces row, but it lacks Duration",
        ),
        (
            json.dumps({"schema_version": "ATIF-v1.7", "session_id": "s", "agent": {}}).encode(),
            "the export: looks like an ATIF trajectory, but it lacks steps",
        ),
        (
            json.dumps(
                {"schema_version": "ATIF-v1.7", "session_id": "s", "steps": [{"source": "user"}]}
            ).encode(),
            "the trajectory: an ATIF trajectory with no agent step",
        ),
    ],
)
def test_a_refused_file_says_what_it_looks_like_and_what_it_lacks(
    data: bytes, message: str
) -> None:
    with pytest.raises(ImportError_) as caught:
        import_traces(data)
    assert str(caught.value).startswith(message)


def test_opentelemetry_go_stdouttrace_of_the_getting_started_app() -> None:
    # The OpenTelemetry site's Go getting-started output: two tab-indented records, roll (span
    # f641bd25400a1b70, 09:58:44.298985982-.299067482 +01:00) and its parent / (span
    # a10f1d2ca2f685c9, .298951202-.299109293, Parent's SpanID all zeros), both of service dice
    # (Resource), no GenAI attributes. From /'s start, roll runs 34780-116280 ns and / steps
    # around it to 158091 ns: one chain, W = S = makespan = 0.000158091 s.
    (trace,), _ = imported((EXPORTS / "otel-go-stdouttrace-rolldice.json").read_bytes())
    assert trace["trace_id"] == "f00f8045a6c78b3aa5ecaca9f3b971b4"
    assert trace["agents"] == [{"id": "dice", "role": "agent", "span_id": "a10f1d2ca2f685c9"}]
    assert steps(trace) == [
        ("step", "dice", 0.0, 3.478e-05, "a10f1d2ca2f685c9", None),
        ("step", "dice", 3.478e-05, 0.00011628, "f641bd25400a1b70", None),
        ("step", "dice", 0.00011628, 0.000158091, "a10f1d2ca2f685c9", None),
    ]
    assert trace["costs"]["wall_clock_s"] == 0.000158091


def test_opentelemetry_go_stdouttrace_of_a_second_project() -> None:
    # NoNickeD/otel-demo's README: the Go echo server's two records, the child printed first.
    # handleRequests (span 91baf8b3c925c74a, no parent, 18:58:44.714445845-.714564261 Z, 118416
    # ns) holds handleStatusCodeSequence (span 85c5cabc39d13c9b, .714478553-.714557261 Z), both
    # of service unknown_service:golang-echoer-server, no attributes. From the root's start the
    # child runs 32708-111416 ns: one chain, W = S = makespan = 0.000118416 s.
    (trace,), _ = imported((EXPORTS / "otel-go-stdouttrace-echo-server.json").read_bytes())
    agent = "unknown_service:golang-echoer-server"
    assert trace["trace_id"] == "f78e898a6dd2b20d877b7ee52a6ccf93"
    assert trace["agents"] == [{"id": agent, "role": "agent", "span_id": "91baf8b3c925c74a"}]
    assert steps(trace) == [
        ("step", agent, 0.0, 3.2708e-05, "91baf8b3c925c74a", None),
        ("step", agent, 3.2708e-05, 0.000111416, "85c5cabc39d13c9b", None),
        ("step", agent, 0.000111416, 0.000118416, "91baf8b3c925c74a", None),
    ]
    # no span reports tokens: the count is left out (unknown), not 0
    assert trace["costs"] == {"tool_calls": 0, "messages": 0, "wall_clock_s": 0.000118416}
    m = measured(trace)
    assert (m["work"], m["critical_path"], m["makespan"]) == (0.0001,) * 3


def test_atif_trajectory_of_nemo_agent_toolkit() -> None:
    # NeMo Agent Toolkit's exmp04: agent claude_summarizer (session agent-004). Its invocation
    # times (seconds since the epoch, 1767484801 = 2026-01-04T00:00:01Z): a model call 01-02
    # (step 2), the tool read_file 03-04 (call toolu_01abc), a model call 05-06 (step 3); the
    # user's step is input. From 01: call 0-1, the agent's own time 1-2, the tool 2-3 with its
    # call at 2 and result at 3, own time 3-4, call 4-5. One chain: W = S = makespan = 5 s, one
    # tool call; no step gives metrics, so the tokens are unknown.
    (trace,), _ = imported((EXPORTS / "atif-nat-summarizer.json").read_bytes())
    agent = "claude_summarizer"
    assert trace["agents"] == [{"id": agent, "role": "agent", "span_id": "agent-004"}]
    assert [(e["type"], e["t"], e["t_end"], e.get("span_id")) for e in trace["events"]] == [
        ("step", 0.0, 1.0, "step-2"),
        ("step", 1.0, 2.0, "agent-004"),
        ("tool_call", 2.0, 2.0, "toolu_01abc"),
        ("step", 2.0, 3.0, "toolu_01abc"),
        ("tool_result", 3.0, 3.0, "toolu_01abc"),
        ("step", 3.0, 4.0, "agent-004"),
        ("step", 4.0, 5.0, "step-3"),
    ]
    assert trace["costs"] == {"tool_calls": 1, "messages": 0, "wall_clock_s": 5.0}
    m = measured(trace)
    assert (m["work"], m["critical_path"], m["makespan"]) == (5.0, 5.0, 5.0)
    # exmp06: one router agent calling three models in turn (01-02, 03-04, 05-06), no tool
    (router,), _ = imported((EXPORTS / "atif-nat-router.json").read_bytes())
    assert [a["id"] for a in router["agents"]] == ["multi_provider_router"]
    assert [(e["t"], e["t_end"]) for e in router["events"]] == [
        (0.0, 1.0), (1.0, 2.0), (2.0, 3.0), (3.0, 4.0), (4.0, 5.0)
    ]  # fmt: skip
    assert router["costs"] == {"tool_calls": 0, "messages": 0, "wall_clock_s": 5.0}


def test_an_atif_trajectory_without_timestamps_is_read_in_steps_mode() -> None:
    # Harbor's Terminus 2 golden trajectory gives its steps' tokens, costs and tool calls but no
    # time: it is read in steps mode, each event's t its place in order and no t_end. Agent
    # terminus-2's steps 2-5 are model calls, metrics prompt + completion 682 + 100, 785 + 50,
    # 850 + 30, 100 + 20 (2617 tokens) and cost_usd 0.002705 + 0.0024625 + 0.002425 + 0.00045
    # (0.0080425); steps 3, 4 and 5 call bash_command, mark_task_complete, mark_task_complete.
    (trace,), note = import_traces((EXPORTS / "atif-harbor-terminus-untimed.json").read_bytes())
    assert "read in steps mode" in note
    events = trace["events"]
    assert [e["t"] for e in events] == list(range(len(events)))
    assert not [e for e in events if "t_end" in e]
    assert [(e["type"], e.get("tool"), e.get("tokens")) for e in events] == [
        ("step", None, 782),
        ("step", None, 835),
        ("tool_call", "bash_command", None),
        ("tool_result", "bash_command", None),
        ("step", None, 880),
        ("tool_call", "mark_task_complete", None),
        ("tool_result", "mark_task_complete", None),
        ("step", None, 120),
        ("tool_call", "mark_task_complete", None),
        ("tool_result", "mark_task_complete", None),
    ]
    m = measured(trace)
    assert (m["mode"], m["makespan"], m["observed_speedup"]) == ("steps", None, None)
    assert sum(e.get("cost_usd", 0) for e in events) == pytest.approx(0.0080425)


HARBOR = EXPORTS / "atif-harbor-summarization"
SUBS = ("summary", "questions", "answers")


def test_atif_sub_trajectories_beside_the_trajectory_are_spawned_sub_agents() -> None:
    # Harbor's Terminus 2 run with a context summarization: trajectory.json (session
    # 9430d14a-...) has agent steps 2, 3, 4, 7, 8, 9, 10 with 682+750+820+1700+850+850+850 =
    # 6502 prompt and 60+50+50+420+40+40+30 = 690 completion tokens and one tool call each;
    # its system step 5 names three sub-trajectories, the files beside it, whose one agent step
    # each gives 500+200, 100+20 and 700+120 tokens. All of it is 8832 tokens: the parent's
    # final_metrics (7802 prompt + 1030 completion) count the sub-agents' too. From step 2
    # (01:15:31.234567) the sub-agents run at 34.123456, 34.567890 and 35.456789 (2.888889,
    # 3.333323 and 4.222222 s), one after another; step 10 ends the run at 37.789012 (6.554445).
    data = (HARBOR / "trajectory.json").read_bytes()
    traces, _ = import_traces(data, "auto", HARBOR)
    (trace,) = traces
    session = "9430d14a-8c6b-413a-954c-a592ddaa1805"
    assert trace["agents"] == [
        {"id": "terminus-2", "role": "agent", "span_id": session},
        *(
            {
                "id": f"terminus-2-summarization-{k}",
                "role": "agent",
                "span_id": f"{session}-summarization-1-{k}",
                "parent": "terminus-2",
            }
            for k in SUBS
        ),
    ]
    spawned = [(e["t"], e["span_id"]) for e in trace["events"] if e["type"] == "spawn"]
    assert spawned == [
        (2.888889, f"{session}-summarization-1-summary"),
        (3.333323, f"{session}-summarization-1-questions"),
        (4.222222, f"{session}-summarization-1-answers"),
    ]
    # metrics.cost_usd: the main trajectory's seven agent steps 0.002305 + 0.002375 + 0.00255 +
    # 0.00845 + 0.002525 + 0.002525 + 0.002425 = 0.023155, the sub-trajectories' 0.00325
    # (summary), 0.00045 (questions) and 0.00295 (answers): 0.029805
    assert trace["costs"] == {
        "tool_calls": 7, "messages": 0, "tokens": 8832, "usd": 0.029805, "wall_clock_s": 6.554445
    }  # fmt: skip
    m = measured(trace)
    assert (m["spawned_agents"], m["spawn_depth"]) == (3, 1)
    assert (m["work"], m["critical_path"], m["makespan"]) == (6.5544,) * 3
    assert m["observed_speedup"] == m["ideal_speedup"] == 1.0  # nobody ran beside anybody
    # alone, the trajectory is refused: without its sub-agents the run would be short of them
    with pytest.raises(ImportError_) as caught:
        import_traces(data)
    assert str(caught.value).startswith(
        "steps[4].observation.results[0].subagent_trajectory_ref[0]: sub-trajectory "
        "'trajectory.summarization-1-summary.json' is neither in the file's "
        "subagent_trajectories nor a file beside it"
    )


def test_agentops_trace_of_a_second_project_without_start_times_is_read_in_steps_mode() -> None:
    # AgentOps' own api_output.json (its OpenAI Agents instrumentation's working notes): seven
    # spans with span_name and a duration in nanoseconds, each start_time empty and no end
    # time, all under the root agents.run.Hello World Agent, whose gen_ai.usage total_tokens is
    # 491 (52 prompt + 439 completion). When each span ran is not known: read in steps mode,
    # the root's six children in the order listed, then the root's tokens at its end. Its span
    # attributes follow none of the conventions read, so each span is a step of its service.
    (trace,), note = import_traces((EXPORTS / "agentops-openai-agents-untimed.json").read_bytes())
    assert "read in steps mode" in note and "each span is a step of its service" in note
    events = trace["events"]
    assert [e["t"] for e in events] == list(range(7)) and not [e for e in events if "t_end" in e]
    assert [e["span_id"] for e in events] == [
        "1d4ae9ddbe20dd87",
        "d8f33d948cb0dc27",
        "272310b46a872604",
        "7087d880b52cbe99",
        "227710814a4bf3b1",
        "b45a08fbd1373b31",
        "4810a5d802bcad90",
    ]
    assert [e.get("tokens") for e in events] == [None] * 6 + [491]


def test_orchtrace_import_reads_the_sub_trajectories_beside_its_file(tmp_path: Path) -> None:
    from test_orchtrace import orchtrace

    out = tmp_path / "run.json"
    done = orchtrace("import", str(HARBOR / "trajectory.json"), "--out", str(out))
    assert done.returncode == 0, done.stderr
    (beside,), _ = import_traces((HARBOR / "trajectory.json").read_bytes(), "auto", HARBOR)
    assert json.loads(out.read_text()) == beside
    alone = tmp_path / "alone.json"
    alone.write_bytes((HARBOR / "trajectory.json").read_bytes())
    refused = orchtrace("import", str(alone))
    assert refused.returncode == 1 and "is neither in the file's" in refused.stderr
    assert "Traceback" not in refused.stderr


def test_atif_embedded_sub_trajectories_are_found_by_their_id() -> None:
    # ATIF 1.7 may hold the sub-trajectories in the file (subagent_trajectories, each with its
    # trajectory_id) and name them by id: the same run as the three files beside it.
    doc = json.loads((HARBOR / "trajectory.json").read_bytes())
    refs = doc["steps"][4]["observation"]["results"][0]["subagent_trajectory_ref"]
    doc["subagent_trajectories"] = []
    for ref, k in zip(refs, SUBS, strict=True):
        sub = json.loads((HARBOR / f"trajectory.summarization-1-{k}.json").read_bytes())
        doc["subagent_trajectories"].append({**sub, "trajectory_id": f"t-{k}"})
        ref.pop("trajectory_path")
        ref["trajectory_id"] = f"t-{k}"
    (embedded,), _ = imported(json.dumps(doc).encode())
    (beside,), _ = import_traces((HARBOR / "trajectory.json").read_bytes(), "auto", HARBOR)
    assert embedded == beside


def test_atif_sub_trajectory_faults_are_refused(tmp_path: Path) -> None:
    # a path out of the folder is not followed; a sub-trajectory naming its parent loops
    doc = json.loads((HARBOR / "trajectory.json").read_bytes())
    ref = doc["steps"][4]["observation"]["results"][0]["subagent_trajectory_ref"][0]
    (tmp_path / "inner").mkdir()
    for k in SUBS:
        name = f"trajectory.summarization-1-{k}.json"
        (tmp_path / name).write_bytes((HARBOR / name).read_bytes())
    ref["trajectory_path"] = "../trajectory.summarization-1-summary.json"
    with pytest.raises(ImportError_, match="is neither in the file's"):
        import_traces(json.dumps(doc).encode(), "auto", tmp_path / "inner")
    ref["trajectory_path"] = "trajectory.summarization-1-summary.json"
    looped = json.loads((HARBOR / ref["trajectory_path"]).read_bytes())
    looped["steps"][1]["observation"] = {"results": [{"subagent_trajectory_ref": [
        {"trajectory_path": "trajectory.json"}]}]}  # fmt: skip
    (tmp_path / ref["trajectory_path"]).write_text(json.dumps(looped))
    (tmp_path / "trajectory.json").write_text(json.dumps(doc))
    looping = "sub-trajectory '9430d14a-8c6b-413a-954c-a592ddaa1805' is its own ancestor"
    with pytest.raises(ImportError_, match=looping):
        import_traces(json.dumps(doc).encode(), "auto", tmp_path)


def test_atif_trajectory_of_a_second_project_with_shared_timestamps() -> None:
    # OpenAgents' qa-runner sample (session login-trace, agent openagents-qa-runner): agent
    # steps 2-6 all at 14:39:44.732Z with one tool call each (navigate, waitFor, assert,
    # assert, screenshot), step 7 (done) at 14:39:56.191Z: six tool calls, a run of 11.459 s,
    # the final_metrics' duration_ms 11459; the metrics give a cost (0 on each step) and no
    # token count, so tokens are unknown, not 0, and the cost is 0.
    (trace,), _ = imported((EXPORTS / "atif-openagents-qa-login.json").read_bytes())
    assert trace["agents"] == [
        {"id": "openagents-qa-runner", "role": "agent", "span_id": "login-trace"}
    ]
    assert trace["costs"] == {"tool_calls": 6, "messages": 0, "usd": 0.0, "wall_clock_s": 11.459}
    calls = [(e["t"], e["span_id"]) for e in trace["events"] if e["type"] == "tool_call"]
    assert calls == [(0.0, f"call_{n}") for n in range(2, 7)] + [(11.459, "call_7")]


def nat_summarizer_with(change: Any) -> bytes:
    doc = json.loads((EXPORTS / "atif-nat-summarizer.json").read_bytes())
    change(doc)
    return json.dumps(doc).encode()


def test_atif_step_metrics_are_its_tokens() -> None:
    # the first model call given metrics of 10 prompt and 5 completion tokens: 15 in all
    data = nat_summarizer_with(
        lambda d: d["steps"][1].update(metrics={"prompt_tokens": 10, "completion_tokens": 5})
    )
    (trace,), _ = import_traces(data)
    assert trace["costs"]["tokens"] == 15


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(steps=3), "steps: expected the trajectory's list of steps"),
        (lambda d: d["steps"].__setitem__(1, 5), "steps[1]: expected a step object"),
        (lambda d: d.update(agent="x"), "agent: expected an object naming the agent"),
        (lambda d: d.pop("session_id"), "session_id: an ATIF trajectory names its session"),
        (
            lambda d: d["steps"][1]["tool_calls"].__setitem__(0, "x"),
            "steps[1].tool_calls[0]: expected a tool call object",
        ),
        (
            lambda d: d["steps"][1]["extra"]["invocation"].update(start_timestamp=1e300),
            "steps[1].extra.invocation: 1e+300 is not a time in seconds since the epoch",
        ),
        (
            lambda d: d["steps"][1].update(metrics={"prompt_tokens": "many"}),
            "steps[1].metrics.prompt_tokens: a token count is a whole number",
        ),
    ],
)
def test_a_bad_atif_trajectory_is_refused_where_it_is_bad(change: Any, message: str) -> None:
    with pytest.raises(ImportError_) as caught:
        import_traces(nat_summarizer_with(change))
    assert str(caught.value) == message


def test_microsoft_agent_framework_console_output() -> None:
    # Agent Framework's documented console output (its Python package prints spans with
    # OpenTelemetry Python's ConsoleSpanExporter): one span, invoke_agent Joker (span
    # 2cad6fc139dcf01d, no parent, 11:00:48.663688-57.271389, so 8.607701 s), GenAI attributes
    # gen_ai.agent.name Joker and gen_ai.usage input 26 + output 29 = 55 tokens. One agent,
    # Joker, doing one step: W = S = makespan = 8.607701 s, no tool call, no spawn.
    (trace,), _ = imported((EXPORTS / "agent-framework-console-joker.json").read_bytes())
    assert trace["trace_id"] == "f2258b51421fe9cf4c0bd428c87b1ae4"
    assert trace["agents"] == [{"id": "Joker", "role": "agent", "span_id": "2cad6fc139dcf01d"}]
    assert steps(trace) == [("step", "Joker", 0.0, 8.607701, "2cad6fc139dcf01d", 55)]
    one_chain(trace, tool_calls=0, tokens=55, wall_s=8.607701)


def test_a_single_jaeger_trace_object_listing_a_span_id_twice_is_refused() -> None:
    # Jaeger's UI-model fixture: one trace object {"traceID", "spans", "processes"} whose first
    # two spans share span id 2 but differ (operations test-general-conversion and
    # some-operation, the second with tags): which one is span 2 cannot be told, so import
    # refuses, naming both.
    with pytest.raises(ImportError_) as caught:
        import_traces((EXPORTS / "jaeger-ui-trace-object.json").read_bytes())
    message = str(caught.value)
    assert message.startswith(
        "duplicate-id: span 2 of trace 0000000000000001 is listed twice with different values"
    )
    assert "spans[0] (test-general-conversion" in message
    assert "spans[1] (some-operation" in message


AGNTCY = "agntcy-sample-data.json"


def test_agntcy_clickhouse_rows_one_trace_each() -> None:
    # AGNTCY's sample: 36 rows of the ClickHouse exporter's otel_traces table, one service
    # (multi-agent-service), one execution (execution.id), but five TraceIds: AGNTCY's observe
    # SDK writes each agent span (ioa_observe.span.kind agent) as a trace of its own, with no
    # parent or link to the LangGraph run, so import can only give five traces. By first
    # Timestamp: c2f181... (the graph, 1 row), fa1add... (LangGraph.workflow, 25 rows),
    # 2ccd58... (supervisor.agent, 3), 68ddb2... (research.agent, 4), db0a6b... (supervisor.agent
    # again, 3).
    traces, _ = imported((EXPORTS / AGNTCY).read_bytes())
    ids = sorted(t["trace_id"] for t in traces)
    assert ids == [
        "2ccd5814072747b22b5c602abed7f6a8",
        "68ddb2299b5bb4496a79af32c1b3a99f",
        "c2f181a3888aaf1c0c5526ed6e360e5e",
        "db0a6b9cb792bef198c5717456a7ab37",
        "fa1add5a6eba1e7f88c6561f3b3ccb32",
    ]


def test_agntcy_langgraph_run_as_clickhouse_rows() -> None:
    # The trace fa1add...: LangGraph.workflow (traceloop.span.kind workflow, a container) from
    # 21:37:02.820967 for 5785150000 ns, holding the tasks supervisor, researcher, supervisor.
    # Its four ChatOpenAI.chat rows (llm.request.type chat: GenAI chat) report
    # gen_ai.usage.prompt_tokens + completion_tokens 142 + 9, 104 + 24, 534 + 50 and 198 + 6
    # = 1067 tokens; its one tavily_search_results_json.tool row (traceloop.span.kind tool) is
    # the one tool call. No agent span is in this trace, so everything is the service's:
    # one agent, multi-agent-service, working one thing at a time: W = S = makespan = 5.78515 s
    # (5.7851 to four places).
    traces, _ = imported((EXPORTS / AGNTCY).read_bytes())
    (run,) = [t for t in traces if t["trace_id"].startswith("fa1add")]
    assert [a["id"] for a in run["agents"]] == ["multi-agent-service"]
    one_chain(run, tool_calls=1, tokens=1067, wall_s=5.78515)


def test_agntcy_agent_span_as_a_trace_of_its_own() -> None:
    # The trace 2ccd58...: supervisor.agent (ioa_observe.span.kind agent, entity supervisor:
    # GenAI invoke_agent of agent supervisor) from 21:37:02.822897 for 920224000 ns, with its
    # agent_start_event (+74 us, 47 us) and agent_end_event (+919953 us, 73 us), which follow
    # no convention and so are supervisor's work: one agent, one chain of steps covering
    # 0-0.920224 s, W = S = makespan = 0.920224 s.
    traces, _ = imported((EXPORTS / AGNTCY).read_bytes())
    (sup,) = [t for t in traces if t["trace_id"].startswith("2ccd58")]
    assert sup["agents"] == [{"id": "supervisor", "role": "agent", "span_id": "9a9817d19c207423"}]
    assert [(e["t"], e["t_end"], e["span_id"]) for e in sup["events"]] == [
        (0.0, 7.4e-05, "9a9817d19c207423"),
        (7.4e-05, 0.000121, "bc5692027c715f8c"),
        (0.000121, 0.919953, "9a9817d19c207423"),
        (0.919953, 0.920026, "eb5d89ab10349c99"),
        (0.920026, 0.920224, "9a9817d19c207423"),
    ]
    assert sup["costs"]["wall_clock_s"] == 0.920224
