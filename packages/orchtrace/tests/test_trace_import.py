"""orchtrace import on exports other projects wrote (fixtures/exports, see its PROVENANCE):
OTLP JSON and protobuf, the Collector's pdata, Tempo batches and Jaeger's responses and span
lists, with every expected value derived by hand from the raw spans. The API exports, the
JavaScript ones and hand-made spans are in test_import_api_exports.py, test_import_javascript.py
and test_import_semantics.py."""

from __future__ import annotations

import base64
import itertools
import json
from pathlib import Path

import pytest

from importhelp import EXPORTS, events_of, imported, measured
from tracehelp import orchtrace


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
