"""orchtrace import on ATIF trajectories other projects wrote (fixtures/exports, see its
PROVENANCE): NeMo Agent Toolkit, Harbor with sub-trajectories beside the file or embedded,
OpenAgents, without timestamps or with shared ones, step metrics as tokens, and faults refused
where they are; and an AgentOps trace without start times, read in steps mode."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from importhelp import EXPORTS, imported, measured
from orchtrace.readers.importcheck import import_traces
from orchtrace.readers.spans import ImportError_


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
    from tracehelp import orchtrace

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
