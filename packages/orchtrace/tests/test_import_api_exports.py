"""orchtrace import on API exports other projects wrote (fixtures/exports, see its PROVENANCE):
Langfuse traces of OpenInference, Google ADK, GenAI and LangGraph agents, Zipkin v2 spans and any-
agent traces, every expected value derived by hand from the raw spans."""

from __future__ import annotations

import json
import subprocess
import sys

from importhelp import EXPORTS, events_of, imported, measured
from orchtrace.readers.spanfiles import read_spans


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
