"""orchtrace: the schema, the six topology examples with known metrics, one bad trace per
problem code, bounded reports, the HTML view, and the OTLP / OpenInference importers fed by the
real opentelemetry-sdk."""

from __future__ import annotations

import copy
import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from orchtrace.core.schema import FILES, schema, schema_bytes
from orchtrace.core.trace import Document, parse, read_traces
from orchtrace.measures.examine import validate
from orchtrace.measures.metrics import metrics
from tracehelp import EXAMPLES, REPO, example, generated_trace, orchtrace


def test_schema_is_valid_draft_2020_12() -> None:
    s = schema()
    Draft202012Validator.check_schema(s)
    assert s["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    for f in EXAMPLES.glob("*.json"):
        assert list(Draft202012Validator(s).iter_errors(json.loads(f.read_text()))) == []


def test_schema_reference_is_current() -> None:
    assert (
        orchtrace("schema-doc", "--check", "--out", str(REPO / "traces/SCHEMA.md")).returncode == 0
    )


def test_the_repositorys_schemas_are_the_shipped_ones() -> None:
    """traces/ documents the schemas orchtrace ships as package data: the same bytes."""
    for fmt, name in FILES.items():
        assert (REPO / "traces" / name).read_bytes() == schema_bytes(fmt), name


# name: (W, S, ideal, observed, peak, fan-out max, depth, finish, coverage, wasted, PARL)
KNOWN = {
    "centralized": (11, 7, 1.5714, None, 3, 2, 1, 1.0, 1.0, 0, 4),
    "planner_executor_critic": (11, 10, 1.1, 1.1, 3, 2, 1, 1.0, 1.0, 0, 7),
    "debate": (10, 6, 1.6667, None, 3, 2, 1, 1.0, 1.0, 0, 4),
    "swarm": (19, 8, 2.375, None, 5, 4, 1, 1.0, 0.75, 2, 5),
    "hierarchical": (20, 8, 2.5, None, 7, 2, 2, 1.0, 1.0, 0, 4),
    "harness": (10, 9, 1.1111, 1.0, 2, 1, 1, 1.0, None, 0, 5),
}


@pytest.mark.parametrize("name", sorted(KNOWN))
def test_examples_are_valid_with_known_metrics(name: str) -> None:
    trace = example(name)
    assert validate(Document(name, trace, [])) == []
    m = metrics(trace)
    got = (
        m["work"],
        m["critical_path"],
        m["ideal_speedup"],
        m["observed_speedup"],
        m["peak_concurrency"],
        m["fan_out"]["max"],
        m["spawn_depth"],
        m["finish_rate"],
        m["aggregation_coverage"],
        m["wasted_work"],
        m["critical_steps"]["total"],
    )
    assert got == KNOWN[name]
    assert trace["topology"] == name


def test_example_details() -> None:
    swarm = metrics(example("swarm"))
    assert swarm["critical_chain"] == ["e1", "e2", "e6", "e7", "e8", "e9", "e18", "e19"]
    assert swarm["stop"] == {
        "id": "e19",
        "agent": "O",
        "t": 7,
        "cause": "answer",
        "events_after": 0,
    }
    assert [s["critical_steps"] for s in swarm["critical_steps"]["stages"]] == [3, 2]
    debate = metrics(example("debate"))
    assert debate["messages"]["matrix"] == {"A": {"B": 2}, "B": {"A": 2}}
    assert debate["messages"]["density"] == pytest.approx(2 / 6, abs=1e-4)
    assert debate["rewards"] == {"agent": {"debate_win": 1.0}, "team": {"judge_correct": 1.0}}
    harness = metrics(example("harness"))
    assert harness["rewards"]["tool"] == {"tool_success": 1.0}
    assert harness["mode"] == "durations" and harness["makespan"] == 10


def mutate(name: str, change: Any) -> dict[str, Any]:
    trace = copy.deepcopy(example(name))
    change(trace)
    return trace


def ev(trace: dict[str, Any], eid: str) -> dict[str, Any]:
    return next(e for e in trace["events"] if e["id"] == eid)


CASES = [
    ("schema", lambda t: t["events"][0].update(type="think"), "$.events[0].type", "error"),
    ("schema", lambda t: t.pop("edges"), "$", "error"),
    ("negative-value", lambda t: t["events"][2].update(t=-1), "$.events[2].t", "error"),
    ("negative-value", lambda t: t["costs"].update(tool_calls=-2), "$.costs.tool_calls", "error"),
    ("duplicate-id", lambda t: t["events"][3].update(id="e1"), "$.events[3].id", "error"),
    (
        "dangling-edge",
        lambda t: t["edges"].append({"source": "e1", "target": "e99", "type": "causal"}),
        "$.edges[9].target",
        "error",
    ),
    (
        "cycle",
        lambda t: t["edges"].append({"source": "e11", "target": "e10", "type": "causal"}),
        "$.edges",
        "error",
    ),
    (
        "time-backwards",
        lambda t: t["edges"].append({"source": "e11", "target": "e4", "type": "temporal"}),
        "$.edges[9]",
        "error",
    ),
    (
        "return-unspawned",
        lambda t: (
            t["agents"].append({"id": "Z", "role": "ghost"}),
            t["events"].append(
                {"id": "e12", "type": "return", "agent": "Z", "t": 6, "target": "O"}
            ),
        ),
        "$.events[11]",
        "error",
    ),
    (
        "unknown-agent",
        lambda t: t["events"][3].update(agent="nobody"),
        "$.events[3].agent",
        "error",
    ),
    (
        "return-not-to-spawner",
        lambda t: ev(t, "e8").update(target="W2"),
        "$.events[7].target",
        "warning",
    ),
    (
        "after-despawn",
        lambda t: t["events"].append(
            {"id": "e12", "type": "despawn", "agent": "O", "t": 2.5, "target": "W1"}
        ),
        "$.events[5]",
        "warning",
    ),
    ("unmatched-tool-call", lambda t: ev(t, "e6").update(call_id="c9"), "$.events[3]", "warning"),
    ("unmatched-tool-result", lambda t: ev(t, "e6").update(call_id="c9"), "$.events[5]", "warning"),
    (
        "sender-mismatch",
        lambda t: t["events"].append(
            {"id": "e12", "type": "message", "agent": "W1", "t": 3, "target": "W2", "sender": "W2"}
        ),
        "$.events[11].sender",
        "warning",
    ),
    ("cost-mismatch", lambda t: t["costs"].update(tool_calls=5), "$.costs.tool_calls", "warning"),
    (
        "starts-before-source-ends",  # W1's call runs 2-3.5 s; its result comes at 3 s
        lambda t: ev(t, "e4").update(t_end=3.5),
        "$.edges[4]",
        "warning",
    ),
]


@pytest.mark.parametrize(
    ("code", "change", "pointer", "severity"),
    CASES,
    ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)],
)
def test_problem_codes(code: str, change: Any, pointer: str, severity: str) -> None:
    problems = validate(Document("t.json", mutate("centralized", change), []))
    hits = [p for p in problems if p.code == code]
    assert hits, [p.text() for p in problems]
    assert pointer in {p.pointer for p in hits}, [p.text() for p in hits]
    assert {p.severity for p in hits} == {severity}


def test_malformed_and_non_finite_json() -> None:
    bad = parse(b'{"trace_id": "x", "events": [', "bad.json")
    assert [p.code for p in validate(bad)] == ["malformed-json"]
    text = json.dumps(example("centralized")).replace('"t": 2', '"t": NaN', 1)
    text = text.replace('"value": 0.5', '"value": Infinity')
    problems = validate(parse(text.encode(), "nan.json"))
    assert {(p.code, p.pointer) for p in problems} == {
        ("non-finite", "$.events[3].t"),
        ("non-finite", "$.rewards[1].value"),
    }
    deep = b"[" * 100_000 + b"]" * 100_000
    assert [p.code for p in validate(parse(deep, "deep.json"))] == ["malformed-json"]


def test_reports_everything_not_just_the_first() -> None:
    def breakage(t: dict[str, Any]) -> None:
        t["events"][0]["type"] = "think"
        t["edges"].append({"source": "e2", "target": "nowhere", "type": "causal"})
        ev(t, "e8")["target"] = "W2"

    codes = sorted(p.code for p in validate(Document("t", mutate("centralized", breakage), [])))
    assert codes == ["dangling-edge", "return-not-to-spawner", "schema"]


def test_million_dangling_edges_give_a_bounded_report() -> None:
    trace = example("centralized")
    trace["edges"] = [{"source": "e1", "target": f"x{i}", "type": "causal"} for i in range(200_000)]
    start = time.perf_counter()
    problems = validate(Document("big", trace, []))
    assert time.perf_counter() - start < 10
    assert len(problems) == 51
    assert problems[-1].message == "... and 199,950 more"


def test_cli_json_lines_multiple_files_and_strict(tmp_path: Path) -> None:
    lines = tmp_path / "runs.jsonl"
    good = json.dumps(example("debate"))
    warn = json.dumps(mutate("centralized", lambda t: t["costs"].update(tool_calls=3)))
    lines.write_text(f"{good}\n{warn}\n")
    result = orchtrace("validate", str(lines), str(EXAMPLES / "swarm.json"), "--format", "json")
    report = json.loads(result.stdout)
    assert result.returncode == 0 and report["traces"] == 3
    assert [(p["file"], p["code"]) for p in report["problems"]] == [(f"{lines}:2", "cost-mismatch")]
    assert orchtrace("validate", str(lines), "--strict").returncode == 1
    broken = tmp_path / "broken.json"
    broken.write_text('{"trace_id": 1}')
    result = orchtrace("validate", str(broken))
    assert result.returncode == 1 and "Traceback" not in result.stderr


def test_metrics_cli_and_html(tmp_path: Path) -> None:
    out = tmp_path / "view.html"
    result = orchtrace("metrics", str(EXAMPLES / "swarm.json"), "--html", str(out))
    assert result.returncode == 0 and "ideal speedup W/S = 2.375" in result.stdout
    data = json.loads(orchtrace("metrics", str(EXAMPLES / "swarm.json"), "--format", "json").stdout)
    assert data["fan_out"] == {"decisions": 1, "mean": 4.0, "max": 4}
    html = out.read_text()
    assert "<svg" in html and "<script" not in html and "src=" not in html
    hostile = mutate("harness", lambda t: ev(t, "e7").update(content="<script>x()</script>"))
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(hostile).replace('"S"', '"<b>S</b>"'))
    result = orchtrace("metrics", str(path), "--html", str(out))
    assert result.returncode == 0, result.stderr
    assert "<b>S</b>" not in out.read_text() and "&lt;b&gt;S&lt;/b&gt;" in out.read_text()
    invalid = tmp_path / "invalid.json"
    invalid.write_text(
        json.dumps(
            mutate(
                "swarm",
                lambda t: t["edges"].append({"source": "e19", "target": "e1", "type": "causal"}),
            )
        )
    )
    result = orchtrace("metrics", str(invalid))
    assert result.returncode == 1 and "nothing measured" in result.stderr


def test_read_traces_refuses_oversized_files(tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    big.write_text(json.dumps(example("swarm")))
    (doc,) = read_traces(big, max_bytes=100)
    assert [p.code for p in validate(doc)] == ["too-large"]


def test_number_too_large_for_a_float_is_non_finite() -> None:
    text = json.dumps(example("centralized")).replace('"t": 2', '"t": 1e400', 1)
    problems = validate(parse(text.encode(), "big.json"))
    assert ("non-finite", "$.events[3].t") in {(p.code, p.pointer) for p in problems}


def test_integer_too_large_for_a_float_is_out_of_range(tmp_path: Path) -> None:
    # an integer literal stays a Python int: legal JSON, but times are computed as floats
    huge = "9" * 400
    text = json.dumps(example("centralized")).replace('"t": 2', f'"t": {huge}', 1)
    problems = validate(parse(text.encode(), "huge.json"))
    assert ("out-of-range", "$.events[3].t") in {(p.code, p.pointer) for p in problems}
    wide = json.dumps(example("centralized")).replace('"t": 2', f'"t": {2**64}', 1)
    codes = {p.code for p in validate(parse(wide.encode(), "wide.json"))}
    assert codes == {"time-backwards"}  # past 64 bits, but a float holds it
    costly = example("centralized")
    costly["costs"].update(tokens=10**400, wall_clock_s=10**400)  # totals are never floats
    assert validate(parse(json.dumps(costly), "costly.json")) == []
    path = tmp_path / "huge.json"
    path.write_text(text)
    for command in ("validate", "metrics"):
        run = orchtrace(command, str(path))
        assert run.returncode == 1 and "Traceback" not in run.stderr
        assert "out-of-range" in run.stdout + run.stderr


def test_typed_decoding_keeps_ints_and_reads_absent_fields_as_none() -> None:
    doc = parse((EXAMPLES / "swarm.json").read_bytes(), "swarm.json")
    assert doc.problems == [] and not isinstance(doc.data, dict)
    first = doc.data["events"][0]
    assert type(first["t"]) is int and "t_end" not in first and first.get("t_end", 7) == 7
    null = json.dumps(example("swarm")).replace('"role": "orchestrator"', '"role": null', 1)
    problems = validate(parse(null, "null.json"))  # JSON null is not an absent field
    assert ("schema", "$.agents[0].role") in {(p.code, p.pointer) for p in problems}


def test_schema_keywords_the_decoder_does_not_know_are_refused() -> None:
    from orchtrace.core.model import _field_type

    assert _field_type("id", {"type": "string", "minLength": 1}) is not None
    with pytest.raises(ValueError, match="pattern"):
        _field_type("id", {"type": "string", "pattern": "^e"})


def test_events_that_start_together_are_parallel_in_any_order() -> None:
    def trace(order: list[int]) -> dict[str, Any]:
        events = [
            {"id": "a", "type": "step", "agent": "A", "t": 0, "t_end": 3},
            {"id": "b", "type": "step", "agent": "A", "t": 0, "t_end": 1},
            {"id": "c", "type": "step", "agent": "A", "t": 3, "t_end": 4},
        ]
        return {
            "trace_id": "ties",
            "agents": [{"id": "A", "role": "worker"}],
            "events": [events[i] for i in order],
            "edges": [],
        }

    for order in ([0, 1, 2], [1, 0, 2], [2, 1, 0]):
        m = metrics(trace(order))
        assert (m["work"], m["critical_path"], m["critical_chain"]) == (5.0, 4.0, ["a", "c"])


def test_a_spawned_agent_that_never_acts_is_alive_from_its_spawn() -> None:
    t = example("centralized")
    spawn = next(e for e in t["events"] if e["type"] == "spawn")
    t["events"].append({**spawn, "id": "late-spawn", "target": "ghost"})
    t["agents"].append({"id": "ghost", "role": "worker", "parent": spawn["agent"]})
    assert not [p for p in validate(Document("ghost", t, [])) if p.severity == "error"]
    m = metrics(t)
    assert m["spawned_agents"] == metrics(example("centralized"))["spawned_agents"] + 1


def test_dependencies_that_loop_are_a_clear_error(tmp_path: Path) -> None:
    # a temporal edge from an event to itself passes the checks (it is not an ordering edge,
    # and time does not run backwards), but no critical path exists
    trace = example("centralized")
    trace["edges"].append({"source": "e4", "target": "e4", "type": "temporal"})
    assert not [p for p in validate(Document("t", trace, [])) if p.severity == "error"]
    path = tmp_path / "loop.json"
    path.write_text(json.dumps(trace))
    run = orchtrace("metrics", str(path))
    assert run.returncode == 1 and "Traceback" not in run.stderr
    assert "dependency-cycle" in run.stderr and "e4 -> e4" in run.stderr


def test_an_integral_float_is_an_integer_as_in_json_schema() -> None:
    # JSON Schema counts 3.0 as an integer; the typed path refuses it and the plain path, which
    # decides, must agree with jsonschema rather than leave the event out unexplained
    trace = example("swarm")
    trace["events"][2]["tokens"] = 3.0
    assert validate(parse(json.dumps(trace), "t")) == []
    assert metrics(trace)["events"] == len(trace["events"])
    trace["events"][2]["tokens"] = 2.5
    problems = validate(parse(json.dumps(trace), "t"))
    assert ("schema", "$.events[2].tokens") in {(p.code, p.pointer) for p in problems}


def test_the_html_view_of_a_large_trace_stays_small(tmp_path: Path) -> None:
    from orchtrace.measures.html import MAX_DRAWN, render_html

    trace = json.loads(generated_trace(MAX_DRAWN * 3))
    measures = metrics(trace)
    html = render_html("big", trace, measures)
    assert html.count("<rect") == MAX_DRAWN and f"first {MAX_DRAWN:,} of" in html
    assert len(html) < 2_000_000 and "more) -&gt;" in html  # the chain is shortened too
    drawn = set(re.findall(r"<title>(e\d+) ", html))
    assert drawn == {e["id"] for e in sorted(trace["events"], key=lambda e: e["t"])[:MAX_DRAWN]}
