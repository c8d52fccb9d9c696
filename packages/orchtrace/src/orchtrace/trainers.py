"""The rewards of orchtrace.rewards in the call signatures that trainers use; neither trainer
is needed to import this module.

- TRL's GRPOTrainer calls each of its `reward_funcs` as `f(prompts=..., completions=...,
  completion_ids=..., **columns)`, the columns being the dataset's other fields, one value per
  completion, plus `trainer_state`, `log_extra` and `log_metric` (TRL 1.x); it wants one float
  per completion, and reads None as "this reward does not apply" (NaN). `trl_reward(name)`
  makes such a function (tests/test_trl_calls.py calls it through TRL's own code).
- verl's reward managers call a custom `compute_score(data_source=..., solution_str=...,
  ground_truth=..., extra_info=..., **reward_kwargs)`, the kwargs coming from the
  `custom_reward_function.reward_kwargs` of its config; a dict answer must hold `score` and
  the same keys for every item. `compute_score` answers `{"score", "supported", "reason"}`
  for the reward named by `reward` (a reward kwarg): the reward, 1.0 and "" where the trace
  supports it; else the `missing` reward kwarg (0.0 when not given), 0.0 and the reason's
  code and text (`no-trace-in-completion: ...`), so that one bad completion never stops a
  batch (verl keeps the extra keys per item, beside the score, for the run's logs). With the
  reward kwarg `strict: true` it raises RewardUnavailable instead.

Where the trace comes from. A completion is the model's text, never a file name: a
completion that names a file earns nothing from that file. Its trace is the whole text when
that is a JSON object; else the last complete JSON object in it (read left to right, each
object taken whole, so one in a ```json fence or after a sentence is found and objects nested
in it are not candidates); else there is none, and the reward is None (TRL) or `missing`
(verl) with the code `no-trace-in-completion`. A conversational completion (a list of
messages) is the content of its last message. The caller's own data may name a file: the
dataset column `trace_column` (TRL; `trace` by default) or `extra_info["trace"]` (verl), when
present, is the trace: plain data, JSON text (a string that starts with `{`), or a path (any
other string, or a `pathlib.Path`), read only when it is a regular file of at most
`rewards.MAX_BYTES` (a pipe, a device or a missing file gives `invalid-trace`, its problem
`unreadable` or `too-large`).

Split correctness takes its ground truth from a `subtasks` column (TRL) or from
`ground_truth` (verl: a list of labels, or a mapping with `subtasks`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import msgspec

# absolute: verl loads this file by its path (custom_reward_function.path), not as orchtrace's
from orchtrace.rewards import REWARDS, Reward, RewardUnavailable

NO_TRACE = "no-trace-in-completion"
_DECODER = json.JSONDecoder()
_OPENS = re.compile(r'\{\s*["}]')  # where an object can open: a key, or its end at once


def _text_of(completion: Any) -> str | None:
    """A completion's text: itself, or the content of its last message (text parts joined)."""
    if isinstance(completion, list) and completion and isinstance(completion[-1], Mapping):
        completion = completion[-1].get("content")
        if isinstance(completion, list):  # content parts: [{"type": "text", "text": ...}]
            parts = [p.get("text") for p in completion if isinstance(p, Mapping)]
            completion = "".join(p for p in parts if isinstance(p, str))
    return completion if isinstance(completion, str) else None


def _last_object(text: str) -> str | None:
    """The last complete top-level JSON object in TEXT, as text: read left to right, a `{`
    that opens a whole object is taken with all it holds and the search goes on after it."""
    found, at = None, 0
    while (opening := _OPENS.search(text, at)) is not None:
        try:
            _, end = _DECODER.raw_decode(text, opening.start())
        except (ValueError, RecursionError):
            at = opening.start() + 1
            continue
        found, at = text[opening.start() : end], end
    return found


def trace_of(completion: Any) -> str | None:
    """The trace a completion holds, as JSON text, or None (see the module docstring)."""
    text = _text_of(completion)
    if text is None:
        return None
    whole = text.strip()
    if whole.startswith("{"):
        try:  # the common case, checked at C speed; NaN and the like go the long way
            msgspec.json.decode(whole)
            return whole
        except (msgspec.DecodeError, RecursionError):
            pass
    return _last_object(text)


def _caller_trace(value: Any) -> Any:
    """A trace from the caller's data: a string that is not JSON text names a file."""
    if isinstance(value, str) and not value.lstrip().startswith("{"):
        return Path(value)
    return value


def _known(name: str) -> None:
    if name not in REWARDS:
        raise ValueError(f"no reward {name!r}; orchtrace.rewards has {', '.join(REWARDS)}")


def _compute(name: str, trace: Any, subtasks: Any = None) -> Reward:
    _known(name)
    if trace is None:
        return Reward(name, None, NO_TRACE, "the completion holds no JSON object")
    if name == "split_correctness":
        return REWARDS[name](trace, required=subtasks)
    return REWARDS[name](trace)


def _reward_of(name: str, completion: Any, given: Any, subtasks: Any) -> Reward:
    """The reward of one item: from the caller's trace GIVEN, else from the COMPLETION."""
    trace = _caller_trace(given) if given is not None else trace_of(completion)
    return _compute(name, trace, subtasks)


def trl_reward(
    name: str, trace_column: str = "trace", weight: float = 1.0
) -> Callable[..., list[float | None]]:
    """A TRL reward function for the reward NAME, times WEIGHT; its __name__ (which TRL logs)
    is `orchtrace_NAME`. The dataset column TRACE_COLUMN, when present, holds the traces."""
    _known(name)  # an unknown name fails when the trainer is set up, not in its loop

    def reward(completions: list[Any], **kwargs: Any) -> list[float | None]:
        traces = kwargs.get(trace_column) or [None] * len(completions)
        subtasks = kwargs.get("subtasks") or [None] * len(completions)
        out: list[float | None] = []
        for completion, trace, labels in zip(completions, traces, subtasks, strict=True):
            value = _reward_of(name, completion, trace, labels).value
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
    strict: bool = False,
    **kwargs: Any,
) -> dict[str, float | str]:
    """verl's custom reward function: `{"score": the reward, "supported": 1.0, "reason": ""}`,
    or `{"score": MISSING (0.0 when None), "supported": 0.0, "reason": "CODE: why"}` where
    the trace cannot support it; STRICT raises RewardUnavailable there instead."""
    subtasks = ground_truth
    if isinstance(ground_truth, Mapping):
        subtasks = ground_truth.get("subtasks")
    result = _reward_of(reward, solution_str, (extra_info or {}).get("trace"), subtasks)
    if result.value is not None:
        return {"score": result.value, "supported": 1.0, "reason": ""}
    if strict:
        raise RewardUnavailable(result)
    why = f"{result.code}: {result.reason}"
    return {"score": 0.0 if missing is None else float(missing), "supported": 0.0, "reason": why}
