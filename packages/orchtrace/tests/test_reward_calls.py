"""The TRL and verl adapters called exactly as those trainers call reward functions (their
signatures as their code reads, in trl/trainer/grpo_trainer.py `_calculate_rewards` and verl's
NaiveRewardManager with verl/trainer/ppo/reward.py `get_custom_reward_fn`), without either
installed; and a huge token count answered, never raised."""

from __future__ import annotations

import json
from typing import Any

import pytest

from orchtrace import rewards
from orchtrace.rewards import RewardUnavailable
from orchtrace.trainers import compute_score, trl_reward
from rewardhelp import fan, labelled


def test_trl_calls_the_reward_as_its_grpo_trainer_does() -> None:
    # GRPOTrainer._calculate_rewards: reward_func(prompts=prompts, completions=completions,
    # completion_ids=completion_ids_list, **reward_kwargs), the kwargs being the dataset's
    # other columns, one value per completion, and trainer_state; None means "does not apply".
    wide, narrow = fan([[[1.0], [1.0], [1.0]]]), fan([[[3.0]]])  # ideal speedups 5/3 and 1
    steps = trl_reward("ideal_speedup")
    assert steps.__name__ == "orchtrace_ideal_speedup"
    completions = [[{"role": "assistant", "content": json.dumps(t)}] for t in (wide, narrow)]
    out = steps(
        prompts=[[{"role": "user", "content": "go"}]] * 2,
        completions=completions,
        completion_ids=[[1, 2], [3]],
        trainer_state=object(),
        task=["t1", "t2"],
    )
    assert out == [1.6667, 1.0]
    # the trace as a dataset column (plain data), ground truth in a column, and None
    split = trl_reward("split_correctness", weight=2.0)
    traces = [labelled(["a", "b"], ["a", "b"], None), labelled(["a"], [None], None)]
    out = split(
        prompts=["p", "p"],
        completions=["", ""],
        completion_ids=[[0], [0]],
        trace=traces,
        subtasks=[["a", "b"], ["a"]],
        trainer_state=None,
    )
    assert out == [2.0, None]
    with pytest.raises(ValueError, match="no reward 'speed'"):
        trl_reward("speed")


def test_verl_calls_compute_score_as_its_reward_manager_does() -> None:
    # NaiveRewardManager: compute_score(data_source=..., solution_str=..., ground_truth=...,
    # extra_info=...), wrapped by get_custom_reward_fn to add the config's reward_kwargs.
    # get_custom_reward_fn loads the file named by custom_reward_function.path as a module of
    # its own and takes the function custom_reward_function.name from it
    import importlib.util

    import orchtrace.trainers

    spec = importlib.util.spec_from_file_location("custom_module", orchtrace.trainers.__file__)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    raw_fn = module.compute_score
    reward_kwargs = {"reward": "split_correctness", "missing": -1.0}

    def wrapped_fn(*args: Any, **kwargs: Any) -> Any:
        return raw_fn(*args, **kwargs, **reward_kwargs)

    trace = labelled(["a", "b", "c"], ["a", "a", "d"], None)
    score = wrapped_fn(
        data_source="swarm",
        solution_str=json.dumps(trace),
        ground_truth=["a", "d"],
        extra_info={"index": 0, "num_turns": None},
    )
    assert score == {"score": 1.0, "supported": 1.0, "reason": ""}
    score = wrapped_fn(
        data_source="swarm",
        solution_str="",
        ground_truth={"subtasks": ["a"]},
        extra_info={"trace": labelled(["a"], [None], None), "num_turns": 2},
    )
    reason = "no-subtask-labels: no spawn carries a subtask label"
    assert score == {"score": -1.0, "supported": 0.0, "reason": reason}
    # without `missing`: 0.0, unsupported, never a stopped batch; RewardUnavailable on request
    unlabelled = {
        "data_source": "swarm",
        "solution_str": json.dumps(labelled(["a"], [None], None)),
        "ground_truth": None,
        "extra_info": {},
        "reward": "split_correctness",
    }
    assert compute_score(**unlabelled) == {"score": 0.0, "supported": 0.0, "reason": reason}
    with pytest.raises(RewardUnavailable, match="no-subtask-labels"):
        compute_score(**unlabelled, strict=True)
    plain = compute_score(
        data_source="swarm",
        solution_str=json.dumps(fan([[[2.0], [2.0]]])),
        ground_truth=None,
        extra_info=None,
    )
    # critical steps: the decision plus one worker's step (the two run side by side), then
    # the aggregate and the stop: 2 + 2
    assert plain == {"score": 4.0, "supported": 1.0, "reason": ""}


def test_a_huge_token_count_is_answered_never_raised() -> None:
    # JSON integers have no size limit and `validate` accepts any count: a total a float holds
    # is its value; one no 64-bit float holds is None with out-of-range, not an OverflowError
    trace = fan([[[1.0], [2.0]]])
    trace["events"][0]["tokens"] = 10**30
    assert rewards.tokens(trace).value == 1e30
    trace["events"][0]["tokens"] = 10**400
    r = rewards.tokens(trace)
    assert (r.value, r.code) == (None, "out-of-range")
    assert r.reason == "the tokens total is too large for a 64-bit float"
    trace["events"][0].pop("tokens")
    trace["costs"] = {"tokens": 10**400}
    assert rewards.tokens(trace).code == "out-of-range"
    assert rewards.all_rewards(trace)["critical_steps"].value is not None  # the rest stand
