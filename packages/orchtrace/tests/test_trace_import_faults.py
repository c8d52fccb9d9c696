"""orchtrace import on the exports that used to import silently wrong: overlapping spans of one
agent, one span listed twice, spans with no end. Small synthetic exports, written here (not
any project's), each expected value derived by hand in a comment."""

from __future__ import annotations

import json
from typing import Any

import pytest

from importhelp import imported as imported_all
from importhelp import measured
from orchtrace.measures.metrics import metrics
from orchtrace.readers.importcheck import import_traces
from orchtrace.readers.spans import ImportError_

OI = "openinference.span.kind"


def span(
    sid: str, parent: str | None, start: float, end: float | None, **attrs: Any
) -> dict[str, Any]:
    """An OTLP/JSON span of trace t1; END None writes none."""

    def value(v: Any) -> dict[str, Any]:
        return {"intValue": str(v)} if isinstance(v, int) else {"stringValue": str(v)}

    out: dict[str, Any] = {
        "traceId": "t1",
        "spanId": sid,
        "name": attrs.pop("name", sid),
        "links": [{"traceId": "t1", "spanId": k} for k in attrs.pop("links", [])],
        "startTimeUnixNano": str(int(start * 1e9)),
        "attributes": [{"key": k, "value": value(v)} for k, v in attrs.items()],
    }
    if end is not None:
        out["endTimeUnixNano"] = str(int(end * 1e9))
    if parent:
        out["parentSpanId"] = parent
    return out


def export(*spans: dict[str, Any], service: str = "svc", **more: list[dict[str, Any]]) -> bytes:
    """SPANS of SERVICE, and MORE: other services' spans by service name."""

    def batch(name: str, listed: list[dict[str, Any]]) -> dict[str, Any]:
        resource = {"attributes": [{"key": "service.name", "value": {"stringValue": name}}]}
        return {"resource": resource, "scopeSpans": [{"spans": listed}]}

    batches = [batch(service, list(spans)), *(batch(k, v) for k, v in more.items())]
    return json.dumps({"resourceSpans": batches}).encode()


def imported(data: bytes) -> tuple[dict[str, Any], str]:
    """The one trace DATA holds, checked as validate checks it."""
    (trace,), note = imported_all(data)
    return trace, note


def test_wrapper_spans_beside_model_calls_are_not_chained_or_counted_twice() -> None:
    # Agent detector (AGENT 0-10 s) makes two model calls, LLM 1-4 s and 5-8 s, each with a
    # childless CHAIN wrapper beside it (1-4.5 s and 5-8 s), as OpenLLMetry and LangGraph
    # write them. The model steps keep their time (3 s + 3 s); the first wrapper keeps what
    # they leave, 4-4.5 s; the second is covered whole and is an instant at 8 s; the agent's
    # own span steps over what its children leave: 0-1, 4.5-5 and 8-10 s. Work 10 s, makespan
    # 10 s, one chain of it all: no speedup (ideal and observed 1.0). Before, the wrappers
    # counted whole and each waited for the step that started before it.
    trace, _ = imported(
        export(
            span("a", None, 0, 10, **{OI: "AGENT", "agent.name": "detector"}),
            span("m1", "a", 1, 4, **{OI: "LLM", "llm.token_count.total": 10}),
            span("w1", "a", 1, 4.5, **{OI: "CHAIN"}),
            span("m2", "a", 5, 8, **{OI: "LLM", "llm.token_count.total": 20}),
            span("w2", "a", 5, 8, **{OI: "CHAIN"}),
        )
    )
    steps = [(e["span_id"], e["t"], e["t_end"]) for e in trace["events"]]
    assert steps == [
        ("a", 0.0, 1.0),
        ("m1", 1.0, 4.0),
        ("w1", 4.0, 4.5),
        ("a", 4.5, 5.0),
        ("m2", 5.0, 8.0),
        ("w2", 8.0, 8.0),  # at one instant, instants first
        ("a", 8.0, 10.0),
    ]
    m = measured(trace)
    assert (m["work"], m["makespan"], m["critical_path"]) == (10.0, 10.0, 10.0)
    assert (m["ideal_speedup"], m["observed_speedup"]) == (1.0, 1.0)
    assert trace["costs"]["tokens"] == 30


def test_a_critical_path_never_outruns_the_clock() -> None:
    # One agent: e1 runs 0-10 s, e2 1-2 s and e3 3-4 s inside it, e4 11-12 s. e2 and e3 run
    # beside e1, so e4 waits for the longer of e1 (10 s) and e2 then e3 (2 s): S = 10 + 1 =
    # 11 s <= makespan 12 s. The old rule chained e1, e2, e3, e4 by start: 13 s.
    events = [
        {"id": f"e{i}", "type": "step", "agent": "A", "t": t, "t_end": end}
        for i, (t, end) in enumerate(((0, 10), (1, 2), (3, 4), (11, 12)), 1)
    ]
    m = metrics({"trace_id": "x", "agents": [{"id": "A", "role": "a"}], "events": events,
                 "edges": []})  # fmt: skip
    assert (m["work"], m["critical_path"], m["makespan"]) == (13, 11, 12)
    assert m["critical_chain"] == ["e1", "e4"]


def test_identical_copies_and_start_and_end_copies_are_one_span() -> None:
    # chat (1-3 s, 7 tokens) is listed twice, identical; tool's first copy is the one a
    # console exporter writes at its start (no end, one attribute of the three), the second
    # its end (3-5 s). One chat step and one tool call (the call, the 2 s waited on it, the
    # result), read with a note each; the agent's own time is 0-1 and 5-6 s.
    chat = span("c", "a", 1, 3, **{"gen_ai.operation.name": "chat",
                                   "gen_ai.usage.input_tokens": 7})  # fmt: skip
    tool = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "grep"}
    trace, note = imported(
        export(
            span("a", None, 0, 6, **{"gen_ai.operation.name": "invoke_agent"}),
            chat,
            span("x", "a", 3, None, **{"gen_ai.operation.name": "execute_tool"}),
            chat,
            span("x", "a", 3, 5, **tool, **{"gen_ai.tool.call.id": "k1"}),
        )
    )
    assert "span c is listed 2 times, as one span: read once" in note
    assert "span x is listed 2 times" in note
    assert [(e["type"], e["t"], e["span_id"], e.get("tool")) for e in trace["events"]] == [
        ("step", 0.0, "a", None),
        ("step", 1.0, "c", None),
        ("tool_call", 3.0, "x", "grep"),
        ("step", 3.0, "x", None),
        ("tool_result", 5.0, "x", "grep"),
        ("step", 5.0, "a", None),
    ]
    assert trace["costs"]["tokens"] == 7


def test_two_different_spans_under_one_id_are_refused_naming_both() -> None:
    data = export(span("a", None, 0, 2, name="first"), span("a", None, 0, 3, name="second"))
    with pytest.raises(ImportError_) as caught:
        import_traces(data)
    text = str(caught.value)
    assert text.startswith("duplicate-id: span a of trace t1 is listed twice")
    assert "(first, starts 0, ends 2000000000 (ns))" in text
    assert "(second, starts 0, ends 3000000000 (ns))" in text
    assert "resourceSpans[0].scopeSpans[0].spans[0]" in text
    assert "resourceSpans[0].scopeSpans[0].spans[1]" in text


@pytest.mark.parametrize(
    ("start", "shown"),
    [(1 << 64, "18446744073709551616"), (10**400, "10000000... (401 digits)")],
)
def test_a_time_beyond_64_bit_nanoseconds_is_refused(start: int, shown: str) -> None:
    # OTLP times are fixed64 nanoseconds; a larger one (a fuzzed export gave a 401-digit one)
    # once overflowed the float arithmetic of the replay into a traceback
    raw = json.loads(export(span("a", None, 0, 2)))
    raw["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["startTimeUnixNano"] = start
    with pytest.raises(ImportError_) as caught:
        import_traces(json.dumps(raw).encode())
    assert str(caught.value) == (
        f"time-out-of-range: span a of trace t1 starts at {shown} ns, outside the 64-bit "
        "nanosecond range of OpenTelemetry times"
    )


def test_a_span_with_no_end_ends_with_its_last_descendant() -> None:
    # A crashed run: the root (from 0 s) and its child (from 1 s), of no convention, never
    # ended; the child's model calls run 1-3 s and 2-6 s. The child ends at 6 s, and so does
    # the root (the latest end below it); a warning names each. Spans of no convention step
    # over their own time: the root 0-1 s, the child none (an instant at its end, 6 s); the
    # second call keeps 3-6 s beside the first (one agent, service svc, one thing at a time):
    # work 1 + 2 + 3 = 6 s, makespan 6 s, one chain of it all. Before, the root ended at 0 s
    # and the child at 1 s, and their children were clipped into invented steps.
    chat = {"gen_ai.operation.name": "chat"}
    trace, note = imported(
        export(
            span("r", None, 0, None, name="run"),
            span("k", "r", 1, None, name="step"),
            span("m1", "k", 1, 3, **chat),
            span("m2", "k", 2, 6, **chat),
        )
    )
    assert "span r (run) has no end: it ends with its last descendant, 6 s after its start" in note
    assert "span k (step) has no end: it ends with its last descendant, 5 s after its start" in note
    assert [(e["span_id"], e["t"], e["t_end"]) for e in trace["events"]] == [
        ("r", 0.0, 1.0),
        ("m1", 1.0, 3.0),
        ("m2", 3.0, 6.0),
        ("k", 6.0, 6.0),
    ]
    assert trace["costs"]["wall_clock_s"] == 6.0
    m = measured(trace)
    assert (m["work"], m["makespan"], m["critical_path"]) == (6.0, 6.0, 6.0)


GENAI = "gen_ai.operation.name"


def test_a_delegation_to_another_service_over_a_link_is_a_spawn_and_a_return() -> None:
    # Service boss: invoke_agent "boss" 0-10 s, its chat 0-1 s, and a client span "a2a send"
    # 1-9 s of no convention (boss's own). Service worker: "a2a handle" 2-8 s, with no parent
    # in the export but a W3C link to "a2a send", and its chat 3-7 s (40 tokens). The link
    # makes "a2a send" its parent, of another service: boss spawns agent worker at 2 s, worker
    # steps over the handler's own time (2-3 s, 7-8 s) and its chat, and returns at 8 s to
    # boss's step 8-9 s (the client span's second stretch; its first is 1-2 s); boss's own
    # span leaves 9-10 s. W = 1 + 1 + 1 + 4 + 1 + 1 + 1 = 10 s, one chain from 0 to 10 s:
    # S = makespan = 10 s, speedup 1.
    data = export(
        span("b", None, 0, 10, **{GENAI: "invoke_agent", "gen_ai.agent.name": "boss"}),
        span("bc", "b", 0, 1, **{GENAI: "chat"}),
        span("send", "b", 1, 9, name="a2a send"),
        service="boss",
        worker=[
            span("h", "elsewhere", 2, 8, name="a2a handle", links=["send"]),
            span("wc", "h", 3, 7, **{GENAI: "chat", "gen_ai.usage.input_tokens": 40}),
        ],
    )
    trace, _ = imported(data)
    assert trace["agents"] == [
        {"id": "boss", "role": "agent", "span_id": "b"},  # the root agent's own span
        {"id": "worker", "role": "agent", "span_id": "h", "parent": "boss"},
    ]
    got = [(e["type"], e["agent"], e["t"], e["t_end"]) for e in trace["events"]]
    assert got == [
        ("step", "boss", 0.0, 1.0),
        ("step", "boss", 1.0, 2.0),
        ("spawn", "boss", 2.0, 2.0),
        ("step", "worker", 2.0, 3.0),
        ("step", "worker", 3.0, 7.0),
        ("step", "worker", 7.0, 8.0),
        ("return", "worker", 8.0, 8.0),
        ("step", "boss", 8.0, 9.0),
        ("step", "boss", 9.0, 10.0),
    ]
    m = measured(trace)
    assert (m["work"], m["critical_path"], m["makespan"], m["ideal_speedup"]) == (10, 10, 10, 1)
    assert (m["spawned_agents"], m["spawn_depth"], m["finish_rate"]) == (1, 1, 1.0)
    assert trace["costs"]["tokens"] == 40


def test_model_spans_beside_their_agent_span_are_its_and_count_once() -> None:
    # Microsoft Agent Framework's shape: under run (0-10 s, no convention, service
    # agent_framework), invoke_agent "helper" 0.5-9.5 s reports 700 + 111 = 811 tokens, and
    # beside it, not below, chat 1-4 s (300 + 50), execute_tool 4-5 s and chat 5-9 s (400 +
    # 61): within the agent's time, so they are the agent's, and its 811 are theirs again.
    # run's own time is 0-0.5 s and 9.5-10 s, helper's 0.5-1 s and 9-9.5 s, and the tool's
    # 4-5 s are waited for. Tokens 350 + 461 = 811 (not 1,622), on helper's chats. One chain:
    # W = S = makespan = 10 s.
    def chat(sid: str, start: float, end: float, tokens_in: int, tokens_out: int) -> dict[str, Any]:
        return span(sid, "r", start, end, **{GENAI: "chat", "gen_ai.usage.input_tokens":
                    tokens_in, "gen_ai.usage.output_tokens": tokens_out})  # fmt: skip

    trace, _ = imported(
        export(
            span("r", None, 0, 10, name="run"),
            span("a", "r", 0.5, 9.5, **{GENAI: "invoke_agent", "gen_ai.agent.name": "helper",
                 "gen_ai.usage.input_tokens": 700, "gen_ai.usage.output_tokens": 111}),
            chat("c1", 1, 4, 300, 50),
            span("x", "r", 4, 5, **{GENAI: "execute_tool", "gen_ai.tool.name": "weather"}),
            chat("c2", 5, 9, 400, 61),
            service="agent_framework",
        )
    )  # fmt: skip
    assert trace["costs"]["tokens"] == 811
    got = [(e["type"], e["agent"], e["t"], e.get("tokens")) for e in trace["events"]]
    assert got == [
        ("step", "agent_framework", 0.0, None),
        ("spawn", "agent_framework", 0.5, None),
        ("step", "helper", 0.5, None),
        ("step", "helper", 1.0, 350),
        ("tool_call", "helper", 4.0, None),
        ("step", "helper", 4.0, None),
        ("tool_result", "helper", 5.0, None),
        ("step", "helper", 5.0, 461),
        ("step", "helper", 9.0, None),
        ("return", "helper", 9.5, None),
        ("step", "agent_framework", 9.5, None),
    ]
    m = measured(trace)
    assert (m["work"], m["critical_path"], m["makespan"], m["ideal_speedup"]) == (10, 10, 10, 1)
