"""orchtrace import on the exports that used to import silently wrong: overlapping spans of one
agent, one span listed twice, spans with no end. Small synthetic exports, written here (not
any project's), each expected value derived by hand in a comment."""

from __future__ import annotations

import json
from typing import Any

import pytest

from orchtrace.examine import examine
from orchtrace.importcheck import import_traces
from orchtrace.metrics import metrics
from orchtrace.spans import ImportError_

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
        "startTimeUnixNano": str(int(start * 1e9)),
        "attributes": [{"key": k, "value": value(v)} for k, v in attrs.items()],
    }
    if end is not None:
        out["endTimeUnixNano"] = str(int(end * 1e9))
    if parent:
        out["parentSpanId"] = parent
    return out


def export(*spans: dict[str, Any], service: str = "svc") -> bytes:
    resource = {"attributes": [{"key": "service.name", "value": {"stringValue": service}}]}
    return json.dumps(
        {"resourceSpans": [{"resource": resource, "scopeSpans": [{"spans": list(spans)}]}]}
    ).encode()


def imported(data: bytes) -> tuple[dict[str, Any], str]:
    (trace,), note = import_traces(data)
    assert not examine(json.dumps(trace), "imported").failed
    return trace, note


def measured(trace: dict[str, Any]) -> dict[str, Any]:
    m = examine(json.dumps(trace), "t", measure=True).measures
    assert m is not None
    return m


def test_wrapper_spans_beside_model_calls_are_not_chained_or_counted_twice() -> None:
    # Agent detector (AGENT 0-10 s) makes two model calls, LLM 1-4 s and 5-8 s, each with a
    # childless CHAIN wrapper beside it (1-4.5 s and 5-8 s), as OpenLLMetry and LangGraph
    # write them. The model steps keep their time (3 s + 3 s); the first wrapper keeps what
    # they leave, 4-4.5 s; the second is covered whole and is an instant at 8 s. Work 6.5 s,
    # makespan 1-8 s = 7 s; the chain LLM 1-4, wrapper 4-4.5, LLM 5-8 is 6.5 s: one after
    # another, so no speedup (ideal 1.0; observed 6.5 / 7 = 0.9286). Before, the wrappers
    # counted whole (W 12.5 s) and each waited for the step that started before it.
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
    assert steps == [("m1", 1.0, 4.0), ("w1", 4.0, 4.5), ("m2", 5.0, 8.0), ("w2", 8.0, 8.0)]
    m = measured(trace)
    assert (m["work"], m["makespan"], m["critical_path"]) == (6.5, 7.0, 6.5)
    assert (m["ideal_speedup"], m["observed_speedup"]) == (1.0, 0.9286)
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
    # its end (3-5 s). One step and one tool call, read with a note each.
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
    assert [(e["type"], e["t"], e.get("tool")) for e in trace["events"]] == [
        ("step", 1.0, None),
        ("tool_call", 3.0, "grep"),
        ("tool_result", 5.0, "grep"),
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
