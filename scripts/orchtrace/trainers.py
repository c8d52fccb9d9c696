"""The rewards of orchtrace.rewards in the call signatures that trainers use; neither trainer
is needed to import this module.

- TRL's GRPOTrainer calls each of its `reward_funcs` as `f(prompts=..., completions=...,
  completion_ids=..., **columns)`, the columns being the dataset's other fields, one value per
  completion, plus `trainer_state`; it wants one float per completion, and reads None as "this
  reward does not apply" (NaN). `trl_reward(name)` makes such a function. Each completion's
  trace is the `trace` column's value (plain data, JSON text or a path), else the completion
  itself (its text, or the content of its last message) read as a JSON trace.
- verl's reward managers call a custom `compute_score(data_source=..., solution_str=...,
  ground_truth=..., extra_info=..., **reward_kwargs)`, the kwargs coming from the
  `custom_reward_function.reward_kwargs` of its config; a dict answer must hold `score` and
  the same keys for every item. `compute_score` reads the trace from `extra_info["trace"]`,
  else from `solution_str`, and the reward named by `reward` (a reward kwarg). verl needs a
  number for every item: where the trace cannot support the reward, the score is the
  `missing` reward kwarg, and `supported` is 0; without `missing` it raises
  RewardUnavailable, naming why.

Split correctness takes its ground truth from a `subtasks` column (TRL) or from
`ground_truth` (verl: a list of labels, or a mapping with `subtasks`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

# absolute: verl loads this file by its path (custom_reward_function.path), not as orchtrace's
from orchtrace.rewards import REWARDS, Reward, RewardUnavailable


def _trace_of(completion: Any) -> Any:
    """A completion as a trace: its text, or the content of its last message."""
    if isinstance(completion, list) and completion and isinstance(completion[-1], Mapping):
        return completion[-1].get("content")
    return completion


def _known(name: str) -> None:
    if name not in REWARDS:
        raise ValueError(f"no reward {name!r}; orchtrace.rewards has {', '.join(REWARDS)}")


def _compute(name: str, trace: Any, subtasks: Any = None) -> Reward:
    _known(name)
    if name == "split_correctness":
        return REWARDS[name](trace, required=subtasks)
    return REWARDS[name](trace)


def trl_reward(
    name: str, trace_column: str = "trace", weight: float = 1.0
) -> Callable[..., list[float | None]]:
    """A TRL reward function for the reward NAME, times WEIGHT; its __name__ (which TRL logs)
    is `orchtrace_NAME`."""
    _known(name)  # an unknown name fails when the trainer is set up, not in its loop

    def reward(completions: list[Any], **kwargs: Any) -> list[float | None]:
        traces = kwargs.get(trace_column)
        if traces is None:
            traces = [_trace_of(c) for c in completions]
        subtasks = kwargs.get("subtasks") or [None] * len(traces)
        out: list[float | None] = []
        for trace, labels in zip(traces, subtasks, strict=True):
            value = _compute(name, trace, labels).value
            out.append(None if value is None else weight * value)
        return out

    reward.__name__ = reward.__qualname__ = f"orchtrace_{name}"
    return reward


def compute_score(
    data_source: Any = None,
    solution_str: str | None = None,
    ground_truth: Any = None,
    extra_info: Mapping[str, Any] | None = None,
    reward: str = "critical_steps",
    missing: float | None = None,
    **kwargs: Any,
) -> dict[str, float]:
    """verl's custom reward function: `{"score": the reward, "supported": 1.0}`, or
    `{"score": MISSING, "supported": 0.0}` where the trace cannot support it."""
    trace = (extra_info or {}).get("trace", solution_str)
    subtasks = ground_truth
    if isinstance(ground_truth, Mapping):
        subtasks = ground_truth.get("subtasks")
    result = _compute(reward, trace, subtasks)
    if result.value is not None:
        return {"score": result.value, "supported": 1.0}
    if missing is None:
        raise RewardUnavailable(result)
    return {"score": float(missing), "supported": 0.0}
