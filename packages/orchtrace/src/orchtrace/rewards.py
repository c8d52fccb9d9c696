"""Orchestration rewards: pure functions of one trace, for a trainer's loop or a run's table.

Reads a trace (JSON text, plain data in our format or the survey artifact's, a file given as
a `pathlib.Path`, or a `Rollout` already read) and returns `Reward`s: a value, or None with a
stable code and a reason when the trace cannot support the reward (never a silent 0). A trace
is checked and replayed once by `read`; pass the `Rollout` to each function to pay that once.
A string is always JSON text, never a file name: a trainer's completion cannot make `read`
open a file.

Each function's docstring gives its definition, the survey's reward family it serves (R1-R8,
see taxonomy.yaml) and its source. The survey is Zhang, "Reinforcement Learning for LLM-based
Multi-Agent Systems through Orchestration Traces" (2026, arXiv 2605.02801); its R7
orchestration reward names parallelism speedup, split correctness and aggregation quality.
Measures shared with `orchtrace metrics` are defined in traces/METRICS.md.

    from orchtrace import rewards
    r = rewards.read(trace)            # dict, JSON text (a str is text) or a pathlib.Path
    rewards.critical_steps(r).value    # a float, or None with .code and .reason
    rewards.all_rewards(r)             # {name: Reward}
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .core.trace import MAX_BYTES, TraceProblem, from_data, read_inputs
from .measures.examine import Examined, examine, examine_document


class RewardUnavailable(ValueError):
    """A reward asked for with `Reward.require` that the trace cannot support."""

    def __init__(self, reward: Reward) -> None:
        super().__init__(f"{reward.name}: {reward.code}: {reward.reason}")
        self.reward = reward


@dataclass(frozen=True, slots=True)
class Reward:
    """A reward's value, or None with the CODE and REASON the trace cannot support it."""

    name: str
    value: float | None
    code: str | None = None
    reason: str | None = None

    def require(self) -> float:
        """The value; raises RewardUnavailable (with the reason) when there is none."""
        if self.value is None:
            raise RewardUnavailable(self)
        return self.value


@dataclass(slots=True)
class Rollout:
    """One trace checked and measured once: its problems, its data in our names, the
    measures of `orchtrace metrics` and the replay behind them (None when it has errors)."""

    label: str
    problems: list[TraceProblem]
    data: Any
    measures: dict[str, Any] | None
    replay: Any

    @property
    def ok(self) -> bool:
        return self.measures is not None

    @classmethod
    def of(cls, label: str, examined: Examined) -> Rollout:
        return cls(label, examined.problems, examined.data, examined.measures, examined.replay)


def read(trace: Any, label: str = "trace", max_bytes: int | None = None) -> Rollout:
    """TRACE checked and measured: a Rollout (returned as it is), plain data (a dict, checked
    as its JSON text would be: NaN and Infinity are errors), JSON text (str or bytes: a str is
    never taken for a path), or a path given as a `pathlib.Path` (any os.PathLike) to a JSON
    file holding one trace. Only a regular file of at most MAX_BYTES (the module's, unless
    given) is read: a pipe, a device, a missing or a larger file is a Rollout whose problem
    says so (`unreadable`, `too-large`), never a blocked or endless read."""
    if isinstance(trace, Rollout):
        return trace
    if isinstance(trace, dict):
        return Rollout.of(label, examine_document(from_data(label, trace), measure=True))
    if isinstance(trace, os.PathLike):
        return _read_file(Path(trace), MAX_BYTES if max_bytes is None else max_bytes)
    if isinstance(trace, str | bytes):
        return Rollout.of(label, examine(trace, label, measure=True))
    raise TypeError(
        f"a trace is a dict, JSON text or a path (a pathlib.Path), not {type(trace).__name__}"
    )


def _read_file(path: Path, max_bytes: int) -> Rollout:
    """The one trace of the file PATH, or a Rollout holding why it cannot be read."""
    ((label, text, failed),) = read_inputs(path, max_bytes, lines=False)
    if failed is not None:
        return Rollout(failed.label, failed.problems, None, None, None)
    return Rollout.of(label, examine(text, label, measure=True))


RewardFunction = Callable[..., Reward]
REWARDS: dict[str, RewardFunction] = {}
FAMILIES: dict[str, str] = {}


def _reward(family: str) -> Callable[[Callable[..., Reward]], RewardFunction]:
    """Registers a reward computed from a measured Rollout (NAME is the function's): the
    function the module offers reads any trace and answers None for a trace with errors."""

    def register(compute: Callable[..., Reward]) -> RewardFunction:
        name = compute.__name__

        def reward(trace: Any, **options: Any) -> Reward:
            rollout = read(trace)
            if not rollout.ok:
                return _invalid(name, rollout)
            return compute(rollout, name, **options)

        reward.__name__ = reward.__qualname__ = name
        reward.__doc__ = compute.__doc__
        REWARDS[name], FAMILIES[name] = reward, family
        return reward

    return register


def _invalid(name: str, rollout: Rollout) -> Reward:
    codes = sorted({p.code for p in rollout.problems if p.severity == "error"})
    return Reward(name, None, "invalid-trace", f"the trace has errors ({', '.join(codes)})")


def _none(name: str, code: str, reason: str) -> Reward:
    return Reward(name, None, code, reason)


def _value(name: str, value: float | None, code: str, reason: str) -> Reward:
    return Reward(name, float(value)) if value is not None else _none(name, code, reason)


NO_EVENTS = "the trace has no events"
NO_SUBAGENTS = "no sub-agent was spawned"
NO_TURNS = "the trace records no agent turn (a model call, decision, message, aggregate or stop)"


@_reward("R7")
def critical_steps(r: Rollout, name: str) -> Reward:
    """Critical steps, as Kimi K2.5's Agent Swarm section defines them: over the orchestrator's
    stages t, the orchestrator's steps in the stage plus the most steps any one of its
    sub-agents takes there, CriticalSteps = sum_t (S_main(t) + max_i S_sub,i(t)), a step being
    an agent turn (orchtrace/parl.py says which events are turns and where a stage ends).
    Fewer is better: it counts the turns on the orchestration's critical path, not the work.
    The report bounds training and evaluation by it (a latency budget); its PARL reward is a
    weighted sum of parallelism, finish and performance terms, not this count.
    Family R7 (orchestration reward: parallelism). Source: Kimi Team, Kimi K2.5 technical
    report (arXiv 2602.02276); measured as traces/METRICS.md says."""
    if not r.measures or not r.measures["events"]:
        return _none(name, "no-events", NO_EVENTS)
    total = r.measures["critical_steps"]["total"]
    return _value(name, total or None, "no-turns", NO_TURNS)


@_reward("R7")
def ideal_speedup(r: Rollout, name: str) -> Reward:
    """Parallel speedup W / S: the work W (all events' weights: durations, or 1 per event)
    over the critical path S (the heaviest chain of dependencies). A trace without
    sub-agents has one too (1 when its agent works in sequence).
    Family R7 (parallelism speedup). Source: the work-span model (Blumofe and Leiserson,
    JACM 1999), as the survey's R7 names it; traces/METRICS.md."""
    return _value(name, r.measures["ideal_speedup"] if r.measures else None, "no-events", NO_EVENTS)


@_reward("R7")
def observed_speedup(r: Rollout, name: str) -> Reward:
    """Observed speedup W / makespan: the work over the wall clock from the first start to
    the last end. Needs every event's t_end.
    Family R7 (parallelism speedup). Source: the survey's R7; traces/METRICS.md."""
    value = r.measures["observed_speedup"] if r.measures else None
    return _value(name, value, "no-durations", "not every event has t_end, so no makespan")


@_reward("R7")
def wasted_work(r: Rollout, name: str) -> Reward:
    """Wasted work: the share of the work W spent outside the ancestry of the final event
    (the stop, else the last aggregate, else the last event), in [0, 1]. Penalizes the
    spurious parallelism that spawn rewards invite.
    Family R7. Source: traces/METRICS.md; the spurious parallelism it guards against is the
    Kimi K2.5 technical report's (arXiv 2602.02276, PARL)."""
    value = r.measures["wasted_fraction"] if r.measures else None
    return _value(name, value, "no-events", NO_EVENTS)


@_reward("R7")
def spawn_count(r: Rollout, name: str) -> Reward:
    """Spawn count: how many sub-agents the run spawned (agents with a parent).
    Family R7 (O1, when to spawn). Source: the instantiation reward r_parallel of PARL, Kimi
    K2.5 technical report (arXiv 2602.02276)."""
    return Reward(name, float(r.measures["spawned_agents"]) if r.measures else 0.0)


@_reward("R7")
def fan_out(r: Rollout, name: str) -> Reward:
    """Fan-out: the mean number of spawns per spawn decision (the decision event with an edge
    into the spawns; otherwise one agent's spawns at one instant).
    Family R7 (O1, when to spawn). Source: traces/METRICS.md."""
    fan = r.measures["fan_out"] if r.measures else None
    return _value(name, fan["mean"] if fan else None, "no-spawns", "the trace has no spawn")


@_reward("R7")
def spawn_depth(r: Rollout, name: str) -> Reward:
    """Spawn depth: the longest chain of parents (0 for a run with no sub-agent).
    Family R7 (O1, hierarchical spawning). Source: traces/METRICS.md."""
    return Reward(name, float(r.measures["spawn_depth"]) if r.measures else 0.0)


@_reward("R7")
def finish_rate(r: Rollout, name: str) -> Reward:
    """Finish rate: the share of spawned sub-agents that return or are despawned.
    Family R7. Source: the finish reward r_finish of PARL, Kimi K2.5 technical report (arXiv
    2602.02276); measured as traces/METRICS.md says."""
    value = r.measures["finish_rate"] if r.measures else None
    return _value(name, value, "no-subagents", NO_SUBAGENTS)


@_reward("R7")
def aggregation_coverage(r: Rollout, name: str) -> Reward:
    """Aggregation coverage: the share of spawned sub-agents with an event among the
    ancestors of the last aggregate.
    Family R7 (O4, how to aggregate). Source: traces/METRICS.md."""
    m = r.measures or {}
    if not m.get("spawned_agents"):
        return _none(name, "no-subagents", NO_SUBAGENTS)
    return _value(name, m["aggregation_coverage"], "no-aggregate", "the trace has no aggregate")


def _total(r: Rollout, name: str, cost: str, field: str, code: str, reason: str) -> Reward:
    """The trace's declared COST total, else its events' FIELD summed; None with CODE if
    neither, or `out-of-range` for a total that no 64-bit float holds (an integer is legal
    JSON at any size: a huge count is answered, not raised)."""
    costs = r.data.get("costs") or {}
    if cost in costs:
        total = costs[cost]
    else:
        values = [v for v in r.replay.table.field(field) if v is not None]
        if not values:
            return _none(name, code, reason)
        total = sum(values)
    try:
        return Reward(name, float(total))
    except OverflowError:
        return _none(name, "out-of-range", f"the {cost} total is too large for a 64-bit float")


@_reward("R1")
def tokens(r: Rollout, name: str) -> Reward:
    """Tokens: costs.tokens when the trace declares it, else the events' tokens summed.
    Family R1 (a cost term of the shared team reward; the survey's E2 efficiency and cost).
    Source: traces/SCHEMA.md (costs, events[].tokens)."""
    return _total(r, name, "tokens", "tokens", "no-tokens", "no tokens are recorded")


@_reward("R1")
def cost_usd(r: Rollout, name: str) -> Reward:
    """Cost in US dollars: costs.usd when declared, else the events' cost_usd summed.
    Family R1 (a cost term of the shared team reward; E2). Source: traces/SCHEMA.md."""
    return _total(r, name, "usd", "cost_usd", "no-cost", "no cost is recorded")


@_reward("R5")
def tool_calls(r: Rollout, name: str) -> Reward:
    """Tool calls: the number of tool_call events.
    Family R5 (tool-use reward). Source: traces/SCHEMA.md (events of type tool_call)."""
    return Reward(name, float(r.replay.table.kinds.get("tool_call", 0)))


@_reward("R7")
def stop_delay(r: Rollout, name: str) -> Reward:
    """Time to stop after the last useful return: the stop event's start minus the latest end
    (t_end, else t) of a useful return, one among the stop's ancestors (whose result the
    answer depends on). In the trace's time unit; lower is better.
    Family R7 (O5, when to stop; the survey found no RL method for O5 as of 2026-05-04).
    Source: this definition is orchtrace's, over the survey's O5 sub-decision."""
    rp = r.replay
    tb = rp.table
    stops = tb.of_type("stop")
    if not stops.size:
        return _none(name, "no-stop", "the trace has no stop event")
    marks = np.frombuffer(rp.walk()[2], dtype=np.uint8)
    returns = tb.of_type("return")
    useful = returns[(marks[returns] & 1) > 0] if returns.size else returns
    if not useful.size:
        return _none(name, "no-useful-return", "no return leads to the stop")
    ends = np.where(np.isnan(rp.ends[useful]), tb.times[useful], rp.ends[useful])
    return Reward(name, round(float(tb.times[stops[0]] - ends.max()), 6))


def _labels(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value}
    return {v for v in value if isinstance(v, str)} if isinstance(value, Iterable) else set()


@_reward("R7")
def split_correctness(r: Rollout, name: str, required: Iterable[str] | None = None) -> Reward:
    """Split correctness: the F1 score of the subtask labels the spawns carry (events[].subtask)
    against the subtasks a correct split covers (REQUIRED, the task's ground truth, else the
    trace's task.subtasks): 2PR / (P + R), with precision P the share of distinct labels that
    are required and recall R the share of required subtasks some spawn is given.
    Family R7 (split correctness). Source: the survey's R7 names it; the F1 reading of it
    is orchtrace's."""
    task = r.data.get("task") or {}
    wanted = _labels(required if required is not None else task.get("subtasks") or [])
    if not wanted:
        return _none(name, "no-subtasks", "no ground truth: give task.subtasks or required=")
    tb = r.replay.table
    subtask = tb.field("subtask")
    given = {subtask[i] for i in tb.of_type("spawn").tolist() if subtask[i] is not None}
    if not given:
        return _none(name, "no-subtask-labels", "no spawn carries a subtask label")
    hits = len(given & wanted)
    if not hits:
        return Reward(name, 0.0)
    precision, recall = hits / len(given), hits / len(wanted)
    return Reward(name, round(2 * precision * recall / (precision + recall), 6))


@_reward("R7")
def aggregation_quality(r: Rollout, name: str) -> Reward:
    """Aggregation quality: the grader's score (events[].score) of the last aggregate, the one
    the final answer rests on.
    Family R7 (aggregation quality). Source: the survey's R7 names it; reading it from the
    aggregate's score is orchtrace's."""
    rp = r.replay
    if rp.last_aggregate < 0:
        return _none(name, "no-aggregate", "the trace has no aggregate")
    score = rp.table.field("score")[rp.last_aggregate]
    reason = f"the last aggregate ({rp.table.ids[rp.last_aggregate]}) carries no score"
    return _value(name, score, "no-aggregate-score", reason)


def all_rewards(trace: Any, required: Iterable[str] | None = None) -> dict[str, Reward]:
    """Every reward of TRACE, read once; REQUIRED is the ground truth of split correctness."""
    rollout = read(trace)
    out = {}
    for name, function in REWARDS.items():
        options = {"required": required} if name == "split_correctness" else {}
        out[name] = function(rollout, **options)
    return out
