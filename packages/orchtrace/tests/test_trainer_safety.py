"""The trainer adapters treat a completion as the model's text, never as a file name, and
`rewards.read` checks a dict as it checks JSON text.

Each adapter is called as its trainer calls it: TRL's GRPOTrainer as `f(prompts=...,
completions=..., completion_ids=..., **columns, trainer_state=...)`, wanting one float or None
per completion; verl's reward manager as `compute_score(data_source=..., solution_str=...,
ground_truth=..., extra_info=..., **reward_kwargs)`, loaded from the file's path as
`get_custom_reward_fn` loads it. Every call that could block or read without end runs in a
forked process with a deadline and a memory limit, so that a regression fails the test rather
than hanging it or filling the machine."""

from __future__ import annotations

import copy
import importlib.util
import json
import multiprocessing
import os
import resource
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from orchtrace import rewards, trainers
from orchtrace.rewards import RewardUnavailable
from orchtrace.trainers import trl_reward

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]  # the repository: its traces/ and tests/bench/

SWARM = REPO / "traces" / "examples" / "swarm.json"
TRACE = json.loads(SWARM.read_text())
EARNED = rewards.critical_steps(SWARM).value  # the swarm's reward, its file read as a Path
PROSE = "I spawned three researchers, waited for them and merged their answers."


def promptly(call: Callable[[], Any], seconds: float = 10.0) -> Any:
    """CALL's answer, computed in a forked process given SECONDS and 512 MiB more memory than
    it starts with; a call that blocks, reads without end or raises fails the test."""
    context = multiprocessing.get_context("fork")
    ours, theirs = context.Pipe(duplex=False)

    def child() -> None:
        status = Path("/proc/self/status").read_text()
        size = next(int(line.split()[1]) for line in status.splitlines() if line[:7] == "VmSize:")
        limit = size * 1024 + (512 << 20)
        resource.setrlimit(resource.RLIMIT_AS, (limit, resource.getrlimit(resource.RLIMIT_AS)[1]))
        try:
            theirs.send(("answer", call()))
        except BaseException as exc:  # whatever it is, the test reports it
            theirs.send(("raised", f"{type(exc).__name__}: {exc}"))

    process = context.Process(target=child)
    process.start()
    try:
        if not ours.poll(seconds):
            pytest.fail(f"no answer within {seconds} s: the call blocks or reads without end")
        kind, value = ours.recv()
    finally:
        process.kill()
        process.join()
    if kind == "raised":
        pytest.fail(f"the call raised {value}")
    return value


def trl(completions: list[Any], name: str = "critical_steps", **columns: Any) -> Any:
    reward = trl_reward(name)
    return reward(
        prompts=[[{"role": "user", "content": "plan the search"}]] * len(completions),
        completions=completions,
        completion_ids=[[1, 2, 3]] * len(completions),
        **columns,
        trainer_state=None,
    )


def verl(solution_str: str, extra_info: dict[str, Any] | None = None, **reward_kwargs: Any) -> Any:
    """compute_score as verl's get_custom_reward_fn gives it: the module loaded by its path,
    the config's reward_kwargs added to each call."""
    spec = importlib.util.spec_from_file_location("custom_module", trainers.__file__)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.compute_score(
        data_source="swarm",
        solution_str=solution_str,
        ground_truth=None,
        extra_info=extra_info if extra_info is not None else {"index": 0},
        **{"reward": "critical_steps", **reward_kwargs},
    )


def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return path


BAD = ["prose", "empty", "relative-path", "absolute-path", "/etc/hostname", "/dev/zero", "fifo"]


def bad_completion(kind: str, tmp_path: Path) -> str:
    if kind == "fifo":
        return str(fifo(tmp_path))
    named = {"prose": PROSE, "empty": "", "relative-path": "traces/examples/swarm.json"}
    return named.get(kind, str(SWARM) if kind == "absolute-path" else kind)


@pytest.mark.parametrize("kind", BAD)
def test_a_completion_is_text_and_never_opens_a_file(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a completion naming a trace file must not earn its reward; /dev/zero and a pipe must
    # not be read at all; prose and nothing at all are no trace, not a stopped training step
    monkeypatch.chdir(REPO)
    completion = bad_completion(kind, tmp_path)
    assert promptly(lambda: trl([completion])) == [None]
    assert promptly(lambda: trl([[{"role": "assistant", "content": completion}]])) == [None]
    score = promptly(lambda: verl(completion, missing=-1.0))
    assert score["score"] == -1.0 and score["supported"] == 0.0
    assert score["reason"].startswith("no-trace-in-completion: ")
    reward = promptly(lambda: trainers._reward_of("critical_steps", completion, None, None))
    assert (reward.value, reward.code) == (None, "no-trace-in-completion")


def test_the_trace_is_the_whole_text_else_the_last_json_object() -> None:
    whole = json.dumps(TRACE)
    fenced = f"Here is my plan.\n\n```json\n{json.dumps(TRACE, indent=2)}\n```\nDone."
    after = f"I spawned three workers; the trace follows. {whole}"
    # an earlier object is not the trace; one nested in the last is not a candidate either
    two = json.dumps({"draft": True}) + " then, corrected: " + whole
    tail = f"{whole} and a note {{not json}}"
    completions = [whole, fenced, after, two, tail, "  \n" + whole + "\n"]
    assert trl(completions) == [EARNED] * len(completions)
    for text in completions:
        assert verl(text) == {"score": EARNED, "supported": 1.0, "reason": ""}
    assert trainers.trace_of(two) == whole and trainers.trace_of(fenced) == json.dumps(
        TRACE, indent=2
    )
    # a JSON object that is not a trace is the trace, and an invalid one: invalid-trace
    assert trainers.trace_of('{"answer": 42}') == '{"answer": 42}'
    reward = trainers._reward_of("critical_steps", 'Answer: {"answer": 42}', None, None)
    assert reward.code == "invalid-trace"
    # a trace with NaN after a sentence is found (Python's reader takes NaN) and refused
    nan = copy.deepcopy(TRACE)
    nan["events"][3]["t"] = float("nan")
    reward = trainers._reward_of("critical_steps", f"Trace: {json.dumps(nan)}", None, None)
    assert reward.code == "invalid-trace" and "non-finite" in (reward.reason or "")
    # prose with braces but no object, and an object left open: no trace
    assert trainers.trace_of("use {x} or {y}") is None
    assert trainers.trace_of('{"events": [' * 5000) is None


def test_conversational_completions_read_the_last_message() -> None:
    good = [
        {"role": "assistant", "content": PROSE},
        {"role": "assistant", "content": f"Final trace:\n```json\n{json.dumps(TRACE)}\n```"},
    ]
    stale = [{"role": "assistant", "content": json.dumps(TRACE)}, {"role": "user", "content": "?"}]
    parts = [{"role": "assistant", "content": [{"type": "text", "text": json.dumps(TRACE)}]}]
    assert trl([good, stale, parts, [], [{"role": "assistant"}]]) == [
        EARNED,
        None,
        EARNED,
        None,
        None,
    ]


def test_the_callers_column_may_name_a_regular_file_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the dataset's trace column is the caller's data: a path there is read, as a str or a
    # Path, but only a regular file under the size cap; a pipe or a device is refused at once
    pipe = fifo(tmp_path)
    columns = [str(SWARM), SWARM, json.dumps(TRACE), TRACE, str(pipe), Path("/dev/zero"), None]
    got = promptly(lambda: trl([PROSE] * len(columns), trace=columns))
    assert got == [EARNED, EARNED, EARNED, EARNED, None, None, None]
    for path in (pipe, Path("/dev/zero"), tmp_path / "missing.json"):
        reward = promptly(lambda path=path: rewards.critical_steps(path))
        assert (reward.value, reward.code) == (None, "invalid-trace")
        assert reward.reason == "the trace has errors (unreadable)"
    for info in ({"trace": str(pipe)}, {"trace": "/dev/zero"}):
        score = promptly(lambda info=info: verl(PROSE, info))
        assert (score["supported"], score["reason"][:14]) == (0.0, "invalid-trace:")
    assert verl(PROSE, {"trace": str(SWARM)})["score"] == EARNED
    # the size cap: a file over rewards.MAX_BYTES is too-large, unread
    monkeypatch.setattr(rewards, "MAX_BYTES", 100)
    r = rewards.read(SWARM)
    assert not r.ok and [p.code for p in r.problems] == ["too-large"]
    assert rewards.read(SWARM, max_bytes=1 << 20).ok


def test_rewards_read_takes_a_string_as_json_text_and_a_path_as_a_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(REPO)
    for text in ("traces/examples/swarm.json", str(SWARM), "/etc/hostname", ""):
        r = promptly(lambda text=text: rewards.read(text).problems)
        assert [p.code for p in r] == ["malformed-json"], text
    assert rewards.read(SWARM).ok and rewards.read(SWARM.read_bytes()).ok
    assert rewards.read(Path("traces/examples/swarm.json")).ok


def test_compute_score_without_missing_scores_zero_with_its_reason() -> None:
    # a completion without a trace must not stop verl's batch: 0.0, unsupported, the reason
    assert verl(PROSE) == {
        "score": 0.0,
        "supported": 0.0,
        "reason": "no-trace-in-completion: the completion holds no JSON object",
    }
    unlabelled = verl(json.dumps(TRACE), reward="split_correctness")
    assert unlabelled["score"] == 0.0 and unlabelled["reason"].startswith("no-subtasks: ")
    # the same keys for every item, as verl wants of a dict answer
    assert verl(json.dumps(TRACE)).keys() == verl(PROSE).keys()
    # RewardUnavailable only when the caller asks for it
    with pytest.raises(RewardUnavailable, match="no-trace-in-completion"):
        verl(PROSE, strict=True)


def nan_swarm() -> dict[str, Any]:
    """The swarm example with NaN times from e8 on (12 of its 19 events): read as a dict, it
    used to pass with ideal speedup 2.7143 (2.375 is the clean trace's)."""
    trace = copy.deepcopy(TRACE)
    for event in trace["events"][7:]:
        event["t"] = float("nan")
    return trace


def test_a_dict_is_checked_for_nan_as_its_text_is() -> None:
    trace = nan_swarm()
    as_dict, as_text = rewards.read(trace), rewards.read(json.dumps(trace))
    assert not as_dict.ok and not as_text.ok
    where = [(p.pointer, p.code) for p in as_text.problems]
    assert where == [(p.pointer, p.code) for p in as_dict.problems]
    assert len(where) == 12 and {code for _, code in where} == {"non-finite"}
    assert ("$.events[7].t", "non-finite") in where
    speedup = rewards.ideal_speedup(trace)
    assert (speedup.value, speedup.code) == (None, "invalid-trace")
    assert speedup.reason == "the trace has errors (non-finite)"
    # at any depth, and Infinity of either sign, with the text's paths
    deep = copy.deepcopy(TRACE)
    deep["task"]["notes"] = {"weights": [1.0, float("inf")], "floor": float("-inf")}
    deep["events"][0]["t_end"] = float("nan")
    paths = {p.pointer for p in rewards.read(deep).problems}
    assert paths == {p.pointer for p in rewards.read(json.dumps(deep)).problems}
    assert {"$.task.notes.weights[1]", "$.task.notes.floor", "$.events[0].t_end"} <= paths
    # the clean example still reads the same either way
    assert rewards.ideal_speedup(TRACE).value == 2.375
    assert rewards.read(TRACE).problems == []
