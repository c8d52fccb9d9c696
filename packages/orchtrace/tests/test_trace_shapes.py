"""orchtrace import on the exports that print or dump spans (fixtures/exports, see its
PROVENANCE): Datadog trace lists (dd-trace-py's OpenAI integration, Datadog's test agent),
OpenTelemetry Python's console exporter (the OpenTelemetry site's example output, and Microsoft
Agent Framework's documented invoke_agent record), AgentOps' trace JSON (a CrewAI run), a single
Jaeger trace object (Jaeger's UI-model fixture, refused for a span id listed twice), Langfuse
observations as a bare list, UTF-16 with a byte order mark (made from committed fixtures, as
said at each), and what a refused file is told. Phoenix, Go's stdouttrace and ClickHouse rows
are in test_import_dumps.py, ATIF trajectories in test_import_atif.py. Every expected value is
derived by hand from the raw spans."""

from __future__ import annotations

import json

import pytest

from importhelp import EXPORTS, imported, measured
from orchtrace.readers.importcheck import import_traces
from orchtrace.readers.spans import ImportError_
from shapehelp import one_chain, steps


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
