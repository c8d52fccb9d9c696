"""SWE-agent and mini-SWE-agent trajectories (real files of their projects, see
fixtures/exports/PROVENANCE) are read in steps mode: they record no times, so each
event's t is its place in order and no event has a t_end; the expected values below are
counted from the raw files as PROVENANCE lists them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from importhelp import measured
from orchtrace import rewards
from orchtrace.readers.importcheck import import_traces
from orchtrace.readers.spans import ImportError_

EXPORTS = Path(__file__).resolve().parent / "fixtures" / "exports"


def read(name: str) -> dict[str, Any]:
    (trace,), note = import_traces((EXPORTS / name).read_bytes())
    assert "read in steps mode" in note
    events = trace["events"]
    assert [e["t"] for e in events] == list(range(len(events)))
    assert not [e for e in events if "t_end" in e]
    assert {a["id"] for a in trace["agents"]} == {e["agent"] for e in events}  # one agent
    return trace


def calls(trace: dict[str, Any]) -> list[str]:
    return [e["tool"] for e in trace["events"] if e["type"] == "tool_call"]


def values(trace: dict[str, Any]) -> dict[str, Any]:
    got = rewards.all_rewards(trace)
    keys = ("critical_steps", "tool_calls", "tokens", "cost_usd", "spawn_count", "observed_speedup")
    return {k: got[k].value if got[k].value is not None else got[k].code for k in keys}


def test_a_swe_agent_0x_trajectory() -> None:
    # pydicom__pydicom-1458: agent "primary" (history), 12 steps whose actions begin create,
    # edit, python, find_file, open, edit x4, python, rm, submit; model_stats tokens_sent 122612
    # + tokens_received 1369 = 123981 and instance_cost 1.26719, on the last model call. Each
    # step is a model call then its action: 12 turns (the action belongs to its step's turn).
    trace = read("sweagent-pydicom-1458.traj")
    assert [a["id"] for a in trace["agents"]] == ["primary"]
    assert calls(trace) == ["create", "edit", "python", "find_file", "open", "edit", "edit",
                            "edit", "edit", "python", "rm", "submit"]  # fmt: skip
    assert [e["type"] for e in trace["events"][:3]] == ["step", "tool_call", "tool_result"]
    assert values(trace) == {
        "critical_steps": 12.0,
        "tool_calls": 12.0,
        "tokens": 123981.0,
        "cost_usd": 1.26719,
        "spawn_count": 0.0,
        "observed_speedup": "no-durations",
    }
    m = measured(trace)
    assert (m["mode"], m["work"], m["critical_path"], m["makespan"]) == ("steps", 36.0, 36.0, None)


def test_a_swe_agent_1x_function_calling_trajectory() -> None:
    # SWE-agent/test-repo: agent "main", 5 steps whose actions begin find_file, open, edit,
    # python3, submit; the four assistant history entries call the functions find_file, open,
    # edit and bash, with their tool call ids (the submit has no history entry, so its tool is
    # its command); tokens 7141 + 243 = 7384; instance_cost 0.019520000000000006. Its
    # execution_time per step is not a time of day: still steps mode.
    trace = read("sweagent-testrepo-function-calling.traj")
    assert [a["id"] for a in trace["agents"]] == ["main"]
    assert calls(trace) == ["find_file", "open", "edit", "bash", "submit"]
    ids = [e.get("call_id") for e in trace["events"] if e["type"] == "tool_call"]
    assert ids[:4] == [
        "call_fJuazlMUN5fQDQ73G6XSpYpx",
        "call_OhmPHGZp0XJ6JRnNkQaYcBMs",
        "call_DVnbJcFrvwPsrPt3KfIMf7OH",
        "call_dcF76aXH6e1pzqRwGxOwpuxb",
    ]
    assert values(trace) == {
        "critical_steps": 5.0,
        "tool_calls": 5.0,
        "tokens": 7384.0,
        "cost_usd": 0.01952,
        "spawn_count": 0.0,
        "observed_speedup": "no-durations",
    }


def test_a_swe_agent_trajectory_of_a_second_project() -> None:
    # SWE-bench/SWE-smith's test trajectory (SWE-agent 1.0.1, claude-3-7-sonnet): 17 steps,
    # the history's 17 function calls bash 9, str_replace_editor 6 and submit 2 (it submitted,
    # got a checklist back, and submitted again); tokens_sent 157229 + tokens_received 797 =
    # 158026; instance_cost 0.24830985; agent "main".
    trace = read("sweagent-swesmith-pandas-53856.traj")
    assert [a["id"] for a in trace["agents"]] == ["main"]
    got = calls(trace)
    assert (got.count("bash"), got.count("str_replace_editor"), got.count("submit")) == (9, 6, 2)
    assert got[-3:] == ["submit", "bash", "submit"]
    assert values(trace) == {
        "critical_steps": 17.0,
        "tool_calls": 17.0,
        "tokens": 158026.0,
        "cost_usd": 0.24830985,
        "spawn_count": 0.0,
        "observed_speedup": "no-durations",
    }


def test_a_mini_swe_agent_trajectory_with_usage() -> None:
    # django__django-16255 (Gemini 3 Pro Preview through OpenRouter): 17 assistant messages,
    # each answered by a user observation, so 17 model calls and 17 bash commands; usage summed
    # over the 17 responses: prompt 61,068 + completion 2,317 = 63,385 tokens, cost
    # 0.08934840000000001 (equal to instance_cost); the model from info.config.
    trace = read("mini-swe-agent-django-16255.traj.json")
    assert trace["trace_id"] == "django__django-16255"
    assert calls(trace) == ["bash"] * 17
    assert values(trace) == {
        "critical_steps": 17.0,
        "tool_calls": 17.0,
        "tokens": 63385.0,
        "cost_usd": 0.0893484,
        "spawn_count": 0.0,
        "observed_speedup": "no-durations",
    }
    steps = [e for e in trace["events"] if e["type"] == "step"]
    assert sum(e["cost_usd"] for e in steps) == pytest.approx(0.0893484)


def test_a_mini_swe_agent_trajectory_without_usage() -> None:
    # mini-swe-agent's own test output (DeterministicModel): 10 assistant/user pairs, no token
    # counts anywhere; instance_cost 0.9999999999999999 (10 x 0.1), on the last model call.
    trace = read("mini-swe-agent-deterministic.traj.json")
    assert calls(trace) == ["bash"] * 10
    got = values(trace)
    assert (got["critical_steps"], got["tool_calls"], got["tokens"]) == (10.0, 10.0, "no-tokens")
    steps = [e for e in trace["events"] if e["type"] == "step"]
    assert [e.get("cost_usd") for e in steps] == [None] * 9 + [0.9999999999999999]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"trajectory": []}, "trajectory: a SWE-agent trajectory with no step"),
        ({"trajectory": ["x"]}, "trajectory[0]: expected a step object"),
        ({"info": {"model_stats": {"tokens_sent": 1.5}}}, "info.model_stats: a token count is a "
         "whole number, not 1.5"),
        ({"info": []}, "info: expected an object"),
    ],
)  # fmt: skip
def test_a_broken_swe_agent_trajectory_is_refused_with_where(
    change: dict[str, Any], message: str
) -> None:
    doc = json.loads((EXPORTS / "sweagent-testrepo-function-calling.traj").read_bytes())
    doc.update(change)
    with pytest.raises(ImportError_) as caught:
        import_traces(json.dumps(doc).encode())
    assert str(caught.value) == message


def test_an_atif_step_whose_tool_calls_are_no_list_is_refused() -> None:
    # found by fuzzing the untimed Terminus 2 trajectory: a traceback before
    doc = json.loads((EXPORTS / "atif-harbor-terminus-untimed.json").read_bytes())
    doc["steps"][2]["tool_calls"] = True
    with pytest.raises(ImportError_) as caught:
        import_traces(json.dumps(doc).encode())
    assert str(caught.value) == "steps[2].tool_calls: expected a list of tool calls"
