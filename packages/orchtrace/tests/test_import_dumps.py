"""orchtrace import on span dumps other projects wrote (fixtures/exports, see its PROVENANCE):
Phoenix spans (its span JSON, a client's REST spans, a spans dataframe's records), OpenTelemetry
Go's stdouttrace (the OpenTelemetry site's examples and a second project's echo server) and rows of
the Collector's ClickHouse exporter (AGNTCY's LangGraph sample); every expected value derived by
hand from the raw spans."""

from __future__ import annotations

import json
from typing import Any

from importhelp import EXPORTS, imported, measured
from shapehelp import one_chain, steps


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
