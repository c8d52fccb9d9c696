"""orchtrace.rewards: every reward checked against values derived by hand, on real exports in
tests/fixtures (the survey artifact's example trace, an OpenInference LangGraph run, a Langfuse
OpenAI Agents run) and on generated traces whose critical paths are known by construction;
rewards a trace cannot support are None with their code; the TRL and verl adapters called
exactly as those trainers call reward functions (their signatures as their code reads, in
trl/trainer/grpo_trainer.py `_calculate_rewards` and verl's NaiveRewardManager with
verl/trainer/ppo/reward.py `get_custom_reward_fn`), without either installed."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orchtrace import rewards
from orchtrace.readers.importers import to_traces
from orchtrace.readers.spanfiles import read_spans
from orchtrace.rewards import REWARDS, RewardUnavailable
from rewardhelp import FIXTURES, fan, labelled, values


def test_every_reward_documents_its_definition_family_and_source() -> None:
    assert len(REWARDS) == 15
    for name, function in REWARDS.items():
        doc = function.__doc__ or ""
        assert f"Family {rewards.FAMILIES[name]}" in doc, name
        assert "Source:" in doc and len(doc.split("Source:")[0]) > 60, name
    assert "arXiv 2602.02276" in (rewards.critical_steps.__doc__ or "")
    assert "S_main(t) + max_i S_sub,i(t)" in (rewards.critical_steps.__doc__ or "")


def test_the_artifacts_example_by_hand() -> None:
    # fixtures/artifact/example_trace.json (the survey artifact's own, CC0): the
    # orchestrator's turns are e1 (its decision) and e8 (the aggregate); its spawns e2 and e3
    # have no turn and no return between them, so planner_1 and executor_1 are one stage:
    # e1 plus the longer sub-agent, 1 turn each (planner_1's message e4; executor_1's tool
    # call e5, which no turn of its own precedes), then e8 alone: 2 + 1 = 3 critical steps
    # (e6 is the tool's, e7 a return, neither a turn). Steps weigh 1 and the
    # eight events are one chain: W = S = 8, speedup 1; no t_end, so no observed speedup.
    # e1 spawns planner_1 and executor_1 (one decision, fan-out 2); only executor_1 returns:
    # finish rate 1/2; e8's ancestors hold both agents' events (coverage 1) and every event
    # (nothing wasted). costs.tokens 12000; no usd; one tool_call (e5); no stop event.
    got = values(FIXTURES / "artifact" / "example_trace.json")
    assert got == {
        "critical_steps": 3.0,
        "ideal_speedup": 1.0,
        "observed_speedup": "no-durations",
        "wasted_work": 0.0,
        "spawn_count": 2.0,
        "fan_out": 2.0,
        "spawn_depth": 1.0,
        "finish_rate": 0.5,
        "aggregation_coverage": 1.0,
        "tokens": 12000.0,
        "cost_usd": "no-cost",
        "tool_calls": 1.0,
        "stop_delay": "no-stop",
        "split_correctness": "no-subtasks",
        "aggregation_quality": "no-aggregate-score",
    }


def test_an_openinference_langgraph_run_by_hand() -> None:
    # The events test_trace_import.py derives from the raw spans of openinference-langgraph.pb:
    # newsroom (no model call of its own) runs supervisor, researcher_agent, supervisor,
    # writer_agent and supervisor one after another, each returning before the next spawn:
    # five stages. Model calls (LLM spans): supervisor one per run (its second CHAIN leaf, a
    # router, is not a model call), researcher_agent two (its tool call follows the first, in
    # its turn), writer_agent one: 1 + 2 + 1 + 1 + 1 = 6 critical steps. Five spawns at five
    # instants with no decision: fan-out 1; three agents spawned (the steps over spans' own
    # time are not steps here). Tokens 1520 (costs); OpenInference's LangChain spans record no
    # cost; no stop, no aggregate. W = S = makespan (one chain over the whole run): speedups 1.
    (trace,), _ = to_traces(
        read_spans((FIXTURES / "exports" / "openinference-langgraph.pb").read_bytes()), "auto"
    )
    got = values(trace)
    assert got == {
        "critical_steps": 6.0,
        "ideal_speedup": 1.0,
        "observed_speedup": 1.0,
        "wasted_work": 0.0,
        "spawn_count": 3.0,
        "fan_out": 1.0,
        "spawn_depth": 1.0,
        "finish_rate": 1.0,
        "aggregation_coverage": "no-aggregate",
        "tokens": 1520.0,
        "cost_usd": "no-cost",
        "tool_calls": 1.0,
        "stop_delay": "no-stop",
        "split_correctness": "no-subtasks",
        "aggregation_quality": "no-aggregate",
    }


def test_a_langfuse_openai_agents_run_by_hand() -> None:
    # langfuse-openai-agents.json as test_trace_import.py reads it: one agent, "Hello world"
    # (the "Agent workflow" span only wraps it), whose two model calls are its 2 critical
    # steps (the tool call and result belong to the first one's turn; its steps over its own
    # time are not turns), and no
    # spawn: a single-agent run earns no spawning reward. Langfuse's cost details 0.00023 +
    # 0.000402 = 0.000632 USD, 184 tokens.
    raw = (FIXTURES / "exports" / "langfuse-openai-agents.json").read_bytes()
    (trace,), _ = to_traces(read_spans(raw), "auto")
    r = rewards.read(trace)
    assert rewards.critical_steps(r).value == 2.0
    assert (rewards.cost_usd(r).value, rewards.tokens(r).value) == (0.000632, 184.0)
    assert (rewards.tool_calls(r).value, rewards.spawn_count(r).value) == (1.0, 0.0)


def test_critical_steps_count_turns_as_the_reading_says() -> None:
    # One agent, no sub-agent: its turns are its critical steps. Two stretches of one model
    # span (s1) are one turn; a step marked turn false and a span's own time without tokens
    # are none, one with tokens (an agent span reporting its model's tokens) is one; the tool
    # call at 5 follows the turn at 4 (its turn), the one at 7 follows a result with no turn
    # between, so it stands for one; a decision and a message at one instant are one turn.
    def ev(i: int, kind: str, t: float, **more: Any) -> dict[str, Any]:
        return {"id": f"e{i}", "type": kind, "agent": "A", "t": t, **more}

    events = [
        ev(1, "step", 0, span_id="s1"),
        ev(2, "step", 1, span_id="s1"),
        ev(3, "step", 2, span_id="s2", attributes={"turn": False}),
        ev(4, "step", 3, span_id="s3", attributes={"own_time": True}),
        ev(5, "step", 4, span_id="s3", attributes={"own_time": True}, tokens=5),
        ev(6, "tool_call", 5, call_id="c1"),
        ev(7, "tool_result", 6, call_id="c1"),
        ev(8, "tool_call", 7, call_id="c2"),
        ev(9, "decision", 8, decision="stop"),
        ev(10, "message", 8, target="A"),
    ]
    agents = [{"id": "A", "role": "solo"}]
    trace = {"trace_id": "turns", "agents": agents, "events": events, "edges": []}
    r = rewards.read(trace)
    assert r.ok, r.problems
    assert rewards.critical_steps(r).value == 4.0
    # no turn at all (a service's plain spans): no value, and the reason
    plain = dict(trace, events=[ev(1, "step", 0, attributes={"turn": False})])
    got = rewards.critical_steps(rewards.read(plain))
    assert (got.value, got.code) == (None, "no-turns")


durations = st.lists(st.sampled_from([0.5, 1.0, 1.5, 2.0, 3.0]), min_size=1, max_size=4)


stage_lists = st.lists(st.lists(durations, min_size=1, max_size=4), min_size=1, max_size=3)


@settings(max_examples=60, deadline=None)
@given(stage_lists)
def test_generated_fans_with_known_critical_paths(stages: list[list[list[float]]]) -> None:
    # By construction: each stage's critical path is its decision (1 s), its longest worker's
    # steps and its aggregate (1 s); the work adds every worker's steps. Critical steps: the
    # orchestrator's turns (a decision and an aggregate per stage, and the stop: its spawns
    # are not turns) plus, per stage, the longest worker's steps (its return is not a turn).
    work = sum(2 + sum(map(sum, ws)) for ws in stages)
    span = sum(2 + max(map(sum, ws)) for ws in stages)
    steps = 2 * len(stages) + 1 + sum(max(len(w) for w in ws) for ws in stages)
    spawned = sum(len(ws) for ws in stages)
    r = rewards.read(fan(stages))
    assert r.ok and not r.problems
    assert rewards.critical_steps(r).value == steps
    assert rewards.ideal_speedup(r).value == pytest.approx(work / span, abs=1e-4)
    assert rewards.observed_speedup(r).value == pytest.approx(work / span, abs=1e-4)
    assert rewards.wasted_work(r).value == 0.0
    assert rewards.spawn_count(r).value == spawned
    assert rewards.fan_out(r).value == pytest.approx(spawned / len(stages), abs=1e-4)
    assert (rewards.finish_rate(r).value, rewards.aggregation_coverage(r).value) == (1.0, 1.0)
    assert rewards.stop_delay(r).value == 1.0  # the last return, then the 1 s aggregate


def test_a_straggler_is_wasted_work() -> None:
    # One stage: W0 steps 2 s and returns; the straggler steps 1 + 3 s and is despawned at
    # the stop, never returning. W = 1 + 2 + 4 + 1 = 8 s, of which the straggler's 4 s lie
    # outside the stop's ancestry: wasted 0.5. Finish rate 2/2 (a despawn ends an agent);
    # coverage 1/2 (only W0 reaches the aggregate). The critical path is decision, the
    # straggler's 4 s (its lane ends at the despawn... which is not a dependency of the stop)
    # so S = 1 + max(2 + 1, 4) = 5: ideal speedup 8 / 5 = 1.6.
    r = rewards.read(fan([[[2.0]]], straggler=[1.0, 3.0]))
    assert r.ok
    assert rewards.wasted_work(r).value == 0.5
    assert (rewards.finish_rate(r).value, rewards.aggregation_coverage(r).value) == (1.0, 0.5)
    assert rewards.ideal_speedup(r).value == 1.6


def test_split_correctness_and_aggregation_quality_by_hand() -> None:
    # Required {a, b, c}; the spawns are given a, a, d: distinct labels {a, d}, one required.
    # Precision 1/2, recall 1/3, F1 = 2 (1/2)(1/3) / (1/2 + 1/3) = 0.4. The aggregate's score.
    trace = labelled(["a", "b", "c"], ["a", "a", "d"], 0.75)
    assert rewards.split_correctness(trace).value == 0.4
    assert rewards.aggregation_quality(trace).value == 0.75
    # the trainer's ground truth wins over the trace's: {a, d} exactly is F1 1
    assert rewards.split_correctness(trace, required=["a", "d"]).value == 1.0
    assert rewards.split_correctness(labelled(["a"], ["b"], None)).value == 0.0


def test_what_a_trace_cannot_support_is_none_with_its_reason() -> None:
    unlabelled = labelled(["a"], [None], None)
    r = rewards.split_correctness(unlabelled)
    assert (r.value, r.code) == (None, "no-subtask-labels")
    assert rewards.aggregation_quality(unlabelled).code == "no-aggregate-score"
    del unlabelled["task"]
    assert rewards.split_correctness(unlabelled).code == "no-subtasks"
    with pytest.raises(RewardUnavailable, match="split_correctness: no-subtasks: no ground truth"):
        rewards.split_correctness(unlabelled).require()
    alone = {
        "trace_id": "a",
        "agents": [{"id": "A", "role": "x"}],
        "edges": [],
        "events": [{"id": "e1", "type": "step", "agent": "A", "t": 0}],
    }
    got = values(alone)
    assert (got["finish_rate"], got["fan_out"], got["stop_delay"]) == (
        "no-subagents",
        "no-spawns",
        "no-stop",
    )
    assert (got["spawn_count"], got["ideal_speedup"], got["critical_steps"]) == (0.0, 1.0, 1.0)
    broken = dict(
        alone, events=[*alone["events"], {"id": "e1", "type": "step", "agent": "B", "t": 1}]
    )
    r = rewards.critical_steps(broken)
    assert (r.value, r.code) == (None, "invalid-trace")
    assert r.reason == "the trace has errors (duplicate-id, unknown-agent)"


def test_a_reward_reads_a_trace_once_when_given_its_rollout() -> None:
    r = rewards.read(json.dumps(fan([[[1.0, 2.0]]])))
    assert rewards.read(r) is r
    with pytest.raises(TypeError, match=r"a trace is a dict, JSON text or a path \(a pathlib"):
        rewards.read(3)
