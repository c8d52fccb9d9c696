"""Properties of every import. For any tree of spans (one root, each span within its parent's
time), of any of the conventions, services and LangGraph nodes, some unended or listed twice:
critical path <= makespan <= work, both speedups are at least 1, they exceed 1 only where two
agents truly ran side by side, and no edge claims an order its events' times break. For any run
done one thing at a time, written as OTLP/JSON, Jaeger or Zipkin: both speedups exactly 1, each
edge once, no agent that only wraps another. Those exports are drawn by hypothesis; the last test
holds every real export of fixtures/exports to the same properties."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orchtrace.measures.examine import examine
from orchtrace.readers.importcheck import import_traces

KINDS = ("agent", "chat", "tool", "node", "chain", "plain")


def _attrs(kind: str, name: str, tokens: int) -> list[dict[str, Any]]:
    def text(k: str, v: str) -> dict[str, Any]:
        return {"key": k, "value": {"stringValue": v}}

    if kind == "agent":
        return [text("gen_ai.operation.name", "invoke_agent"), text("gen_ai.agent.name", name)]
    if kind == "chat":
        return [
            text("gen_ai.operation.name", "chat"),
            {"key": "gen_ai.usage.input_tokens", "value": {"intValue": str(tokens)}},
        ]
    if kind == "tool":
        return [text("gen_ai.operation.name", "execute_tool"), text("gen_ai.tool.name", name)]
    if kind == "node":  # a LangGraph node's span under OpenInference
        meta = json.dumps({"langgraph_node": name})
        return [text("openinference.span.kind", "CHAIN"), text("metadata", meta)]
    if kind == "chain":
        return [text("openinference.span.kind", "CHAIN")]
    return []  # a span of no convention


@st.composite
def exports(draw: st.DrawFn) -> bytes:
    """An OTLP/JSON export of one trace: a root and up to 11 spans below it, times in whole
    milliseconds within the parent's, two services, a few agent and node names."""
    n = draw(st.integers(1, 12))
    spans: list[dict[str, Any]] = []
    bounds: list[tuple[int, int]] = []
    for i in range(n):
        if i == 0:
            parent, (lo, hi) = None, (0, draw(st.integers(0, 60)))
        else:
            parent = draw(st.integers(0, i - 1))
            lo, hi = bounds[parent]
        start = draw(st.integers(lo, hi))
        end = draw(st.integers(start, hi))
        bounds.append((start, end))
        kind = draw(st.sampled_from(KINDS))
        name = draw(st.sampled_from(("p", "q", "r")))
        span: dict[str, Any] = {
            "traceId": "t",
            "spanId": f"s{i}",
            "name": f"{kind}-{i}",
            "startTimeUnixNano": str(start * 1_000_000),
            "attributes": _attrs(kind, name, draw(st.integers(0, 99))),
            "service": draw(st.sampled_from(("a", "a", "b"))),
        }
        if draw(st.integers(0, 9)) or (i == 0 and n == 1):  # now and then, no end
            span["endTimeUnixNano"] = str(end * 1_000_000)
        if parent is not None:
            span["parentSpanId"] = f"s{parent}"
        spans.append(span)
        if draw(st.integers(0, 14)) == 0:  # now and then, listed twice
            spans.append(dict(span))
    batches = []
    for service in ("a", "b"):
        mine = [{k: v for k, v in s.items() if k != "service"} for s in spans
                if s["service"] == service]  # fmt: skip
        resource = {"attributes": [{"key": "service.name", "value": {"stringValue": service}}]}
        batches.append({"resource": resource, "scopeSpans": [{"spans": mine}]})
    return json.dumps({"resourceSpans": batches}).encode()


def _overlap(events: list[dict[str, Any]]) -> bool:
    """Whether two weighted events of different agents share some time."""
    timed = sorted((e["t"], e["t_end"], e["agent"]) for e in events if e["t_end"] > e["t"])
    for i, (_start, end, agent) in enumerate(timed):
        for other_start, _other_end, other in timed[i + 1 :]:
            if other_start >= end:
                break
            if other != agent:
                return True
    return False


@settings(
    max_examples=300, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(exports())
def test_critical_path_makespan_and_work_are_in_order(data: bytes) -> None:
    (trace,), _ = import_traces(data)
    examined = examine(json.dumps(trace), "t", measure=True)
    m = examined.measures
    assert m is not None
    # no edge of the import claims an order its times break, and none is given twice
    assert not [p.text() for p in examined.problems if p.code == "starts-before-source-ends"]
    keys = [(e["source"], e["target"], e["type"]) for e in trace["edges"]]
    assert len(keys) == len(set(keys)), keys
    tolerance = 2e-4  # the measures are rounded to 4 places
    if not trace["events"]:  # an agent span of no length, alone
        return
    assert m["critical_path"] <= m["makespan"] + tolerance
    assert m["makespan"] <= m["work"] + tolerance
    if not m["makespan"]:
        return
    assert m["observed_speedup"] >= 1 - tolerance
    assert m["ideal_speedup"] >= m["observed_speedup"] - tolerance
    if not _overlap(trace["events"]):
        assert abs(m["observed_speedup"] - 1) <= tolerance, trace["events"]
        assert abs(m["ideal_speedup"] - 1) <= tolerance, trace["events"]


def _wrappers(trace: dict[str, Any]) -> list[str]:
    """Agents with no work of their own that only spawn one other agent: wrappers read as
    orchestrators."""
    own = {e["agent"] for e in trace["events"] if e["type"] not in ("spawn", "return")}
    children: dict[str, list[str]] = {}
    for a in trace["agents"]:
        if a.get("parent"):
            children.setdefault(a["parent"], []).append(a["id"])
    return [a for a, kids in children.items() if len(kids) == 1 and a not in own]


def test_every_real_export_holds_the_properties() -> None:
    """Every export other projects committed (fixtures/exports, every format read)
    imports with each dependency once (the same source, target and type were given twice
    before), no agent that only wraps another (the OpenAI Agents SDK's "Agent workflow" was read
    as spawning), critical path <= makespan <= work, and both speedups 1 where no two agents'
    weighted events overlap; an export without times, in steps mode, has no makespan."""
    from pathlib import Path

    folder = Path(__file__).parent / "fixtures" / "exports"
    files = [*folder.glob("*.json*"), *folder.glob("*.pb"), *folder.glob("*.traj")]
    files += [
        folder / "claude-code-spotter" / "ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl",
        folder / "claude-code-ai-blame" / "2c965cfd-41e4-4e31-8339-2986ebced03c.jsonl",
    ]
    checked, untimed = 0, 0
    for path in sorted(files):
        try:
            traces, _ = import_traces(path.read_bytes(), folder=path.parent)
        except Exception:  # an export refused whole is another test's business
            continue
        for trace in traces:
            keys = [(e["source"], e["target"], e["type"]) for e in trace["edges"]]
            assert len(keys) == len(set(keys)), path.name
            assert not _wrappers(trace), (path.name, trace["agents"])
            m = examine(json.dumps(trace), "t", measure=True).measures
            assert m is not None, path.name
            checked += 1
            if m["mode"] == "steps":
                assert (m["makespan"], m["observed_speedup"]) == (None, None), path.name
                untimed += 1
                continue
            assert m["critical_path"] <= m["makespan"] + 2e-4 <= m["work"] + 4e-4, path.name
            if not _overlap(trace["events"]) and m["makespan"]:
                assert abs(m["observed_speedup"] - 1) <= 2e-4, path.name
                assert abs(m["ideal_speedup"] - 1) <= 2e-4, path.name
    assert checked >= 50 and untimed >= 6, (checked, untimed)


def _tags(kind: str, name: str, tokens: int) -> dict[str, Any]:
    """A span's attributes as plain keys and values (for Jaeger and Zipkin)."""
    return {a["key"]: next(iter(a["value"].values())) for a in _attrs(kind, name, tokens)}


@st.composite
def runs_one_thing_at_a_time(draw: st.DrawFn) -> list[dict[str, Any]]:
    """A tree of up to 12 spans of any kind and of two services, where a span's children run
    one after another (with gaps, and time of the parent's own before, between and after
    them): at any instant one chain of spans is open, so no two agents ever work at once."""
    n = draw(st.integers(1, 12))
    parent = [None] + [draw(st.integers(0, i - 1)) for i in range(1, n)]
    spans = [
        {
            "id": f"s{i}",
            "parent": None if parent[i] is None else f"s{parent[i]}",
            "kind": draw(st.sampled_from(KINDS)),
            "name": draw(st.sampled_from(("p", "q", "r"))),
            "service": draw(st.sampled_from(("a", "a", "b"))),
            "tokens": draw(st.integers(0, 99)),
            "own": draw(st.integers(1, 5)),  # ms of its own before each child and at its end
            "length": draw(st.integers(1, 9)),  # ms, for a span without children
        }
        for i in range(n)
    ]
    children: dict[str, list[dict[str, Any]]] = {}
    for s in spans[1:]:
        children.setdefault(s["parent"], []).append(s)
    clock = 0

    def place(s: dict[str, Any]) -> None:
        nonlocal clock
        s["start"] = clock
        kids = children.get(s["id"], [])
        for kid in kids:
            clock += s["own"]
            place(kid)
        clock += s["own"] if kids else s["length"]
        s["end"] = clock

    place(spans[0])
    return spans


def _render(spans: list[dict[str, Any]], form: str) -> bytes:
    """SPANS as an export of FORM: OTLP/JSON, a Jaeger API response or Zipkin v2 spans."""
    ms = 1_000  # microseconds
    if form == "jaeger":
        processes = {f"p{x}": {"serviceName": x, "tags": []} for x in ("a", "b")}
        rows = [
            {
                "traceID": "t",
                "spanID": s["id"],
                "operationName": f"{s['kind']}-{s['id']}",
                "references": [{"refType": "CHILD_OF", "traceID": "t", "spanID": s["parent"]}]
                if s["parent"]
                else [],
                "startTime": s["start"] * ms,
                "duration": (s["end"] - s["start"]) * ms,
                "tags": [
                    {"key": k, "type": "string", "value": v}
                    for k, v in _tags(s["kind"], s["name"], s["tokens"]).items()
                ],
                "processID": f"p{s['service']}",
            }
            for s in spans
        ]
        return json.dumps(
            {"data": [{"traceID": "t", "spans": rows, "processes": processes}]}
        ).encode()
    if form == "zipkin":
        rows = [
            {
                "traceId": "t",
                "id": s["id"],
                **({"parentId": s["parent"]} if s["parent"] else {}),
                "name": f"{s['kind']}-{s['id']}",
                "timestamp": s["start"] * ms,
                "duration": (s["end"] - s["start"]) * ms,
                "localEndpoint": {"serviceName": s["service"]},
                "tags": {k: str(v) for k, v in _tags(s["kind"], s["name"], s["tokens"]).items()},
            }
            for s in spans
        ]
        return json.dumps(rows).encode()
    batches = []
    for service in ("a", "b"):
        mine = [
            {
                "traceId": "t",
                "spanId": s["id"],
                **({"parentSpanId": s["parent"]} if s["parent"] else {}),
                "name": f"{s['kind']}-{s['id']}",
                "startTimeUnixNano": str(s["start"] * 1_000_000),
                "endTimeUnixNano": str(s["end"] * 1_000_000),
                "attributes": _attrs(s["kind"], s["name"], s["tokens"]),
            }
            for s in spans
            if s["service"] == service
        ]
        resource = {"attributes": [{"key": "service.name", "value": {"stringValue": service}}]}
        batches.append({"resource": resource, "scopeSpans": [{"spans": mine}]})
    return json.dumps({"resourceSpans": batches}).encode()


@settings(
    max_examples=300, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(runs_one_thing_at_a_time(), st.sampled_from(("otlp", "jaeger", "zipkin")))
def test_a_run_done_one_thing_at_a_time_has_speedup_one_in_every_format(
    spans: list[dict[str, Any]], form: str
) -> None:
    # judged from the raw spans, not from the import: whatever agents, services and wrappers
    # the spans make, a run in which nothing overlaps has both speedups exactly 1 (the AGNTCY
    # supervisor and detector run across services once read as 1.79), no edge twice and no
    # agent that only wraps another
    (trace,), _ = import_traces(_render(spans, form))
    keys = [(e["source"], e["target"], e["type"]) for e in trace["edges"]]
    assert len(keys) == len(set(keys)), keys
    assert not _wrappers(trace), trace["agents"]
    if not trace["events"] or spans[0]["end"] == spans[0]["start"]:
        return
    m = examine(json.dumps(trace), "t", measure=True).measures
    assert m is not None
    tolerance = 2e-4
    assert m["critical_path"] <= m["makespan"] + tolerance <= m["work"] + 2 * tolerance
    assert abs(m["observed_speedup"] - 1) <= tolerance, (form, trace["events"])
    assert abs(m["ideal_speedup"] - 1) <= tolerance, (form, trace["events"])
