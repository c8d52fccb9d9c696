"""orchtrace's TRL reward functions called by TRL's own code: GRPOTrainer._calculate_rewards,
the method a GRPO training step calls its reward_funcs through (trl 1.x on a CPU build of
torch), on a trainer stand-in that holds only what that method reads. It passes the dataset's
columns, `trainer_state`, `log_extra` and `log_metric` as keyword arguments, turns None into
NaN, and checks one reward per completion; a completion that names a file on disk earns
nothing, and prose, an empty text or a trace after a sentence do not stop the step."""

from __future__ import annotations

import math
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from trl import GRPOTrainer

from orchtrace.trainers import trl_reward

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]  # the repository: its traces/ and tests/bench/

SWARM = REPO / "traces" / "examples" / "swarm.json"
TRACE = SWARM.read_text()


def calculate(
    completions: list[Any], columns: dict[str, list[Any]] | None = None
) -> list[list[float]]:
    """The rewards TRL computes for COMPLETIONS: one row per completion, one column per reward
    function (critical steps, and tool calls weighted by -0.5)."""
    funcs = [trl_reward("critical_steps"), trl_reward("tool_calls", weight=-0.5)]
    logged: list[Any] = []
    stand_in = SimpleNamespace(
        accelerator=SimpleNamespace(device="cpu", is_main_process=True),
        args=SimpleNamespace(report_to=[]),
        state=SimpleNamespace(global_step=0),
        reward_funcs=funcs,
        reward_processing_classes=[None] * len(funcs),
        reward_func_names=[f.__name__ for f in funcs],
        environments=None,
        _log_completion_extra=logged.append,
        _log_metric=logged.append,
    )
    n = len(completions)
    prompts = ["Plan the task with sub-agents and return the trace."] * n
    inputs = [
        {"prompt": prompts[i], **{k: v[i] for k, v in (columns or {}).items()}} for i in range(n)
    ]
    got = GRPOTrainer._calculate_rewards(stand_in, inputs, prompts, completions, [[1]] * n)
    return [[float(x) for x in row] for row in got.tolist()]


def test_trl_computes_the_rewards_of_traces_in_completions() -> None:
    # the swarm example: 5 critical steps and 1 tool call (traces/examples/swarm.json, as
    # test_orchtrace derives them); the trace as the whole completion, after a sentence, and
    # as the last message of a conversation
    conversation = [{"role": "assistant", "content": f"Done. Trace: {TRACE}"}]
    rows = calculate([TRACE, f"Here is my trace: {TRACE}", conversation])
    assert rows == [[5.0, -0.5]] * 3


def test_completions_without_a_trace_are_nan_not_a_stopped_step(tmp_path: Any) -> None:
    # prose, an empty text, JSON that is no trace, and a completion naming a trace file on disk
    # (which would earn that file's reward if read): no reward, NaN in TRL's table
    rows = calculate(["I merged the answers.", "", '{"answer": 4}', str(SWARM)])
    assert len(rows) == 4
    assert all(math.isnan(x) for row in rows for x in row)


def test_the_trace_column_of_the_dataset_is_read() -> None:
    # the caller's own column (not the completion) may hold the trace: JSON text here, and a
    # row whose column is empty falls back to its completion
    rows = calculate(["no trace here", TRACE], {"trace": [TRACE, None]})
    assert rows == [[5.0, -0.5], [5.0, -0.5]]
