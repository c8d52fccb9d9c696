"""What reading a trace refuses or reports whatever its format: keys an object repeats (on the
typed and the plain path), parents and spawns that loop, and files that are not regular."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any

import pytest

from artifacthelp import EXAMPLE
from orchtrace.core.trace import _plain, parse
from orchtrace.measures.examine import examine
from tracehelp import REPO, orchtrace


def test_repeated_keys_are_reported_on_both_paths() -> None:
    text = (REPO / "traces" / "examples" / "swarm.json").read_text()
    assert not isinstance(parse(text, "t").data, dict)  # the typed path reads it
    url = text.replace('"cause": "answer"', '"cause": "answer: see http://x:80/y"')
    assert not isinstance(parse(url, "t").data, dict)  # colons in strings do not count
    twice = text.replace('"t": 7,', '"t": 7, "t": 8,', 1)
    top = text.replace('"trace_id":', '"trace_id": "first", "trace_id":', 1)
    # a colon written as an escape comes back as one: it must not make up for the key lost
    hidden = twice.replace('"answer"', '"answer\\u003a"', 1)
    escaped = text.replace('"answer"', '"answer\\u003A"', 1)
    assert not isinstance(parse(escaped, "t").data, dict)  # an escape alone keeps the typed path
    backslash = text.replace('"answer"', '"answer\\\\u003a"', 1)  # a backslash, then u003a
    assert (
        parse(backslash, "t")
        == parse(backslash, "t", defer_keys=True).recheck()
        == _plain(backslash, "t")
    )
    assert not _plain(backslash, "t").problems  # read plain, and nothing wrong with it
    cases = ((twice, "$.events[18].t"), (top, "$.trace_id"), (hidden, "$.events[18].t"))
    for changed, pointer in cases:
        problems = {(p.code, p.pointer) for p in parse(changed, "t").problems}
        assert ("duplicate-key", pointer) in problems, problems
        assert examine(changed, "t", measure=True).measures is None
    artifact = json.dumps(EXAMPLE).replace('"t": 3,', '"t": 3, "t": 4,')
    assert ("duplicate-key", "$.events[3].t") in {
        (p.code, p.pointer) for p in examine(artifact, "t").problems
    }


AGENTS = [{"id": "A", "role": "lead"}, {"id": "B", "role": "worker"}]


@pytest.mark.parametrize(
    ("agents", "pointer", "words"),
    [
        ([{**AGENTS[0], "parent": "B"}, {**AGENTS[1], "parent": "A"}], "$.agents[0].parent", "A"),
        ([{**AGENTS[0], "parent": "A"}, AGENTS[1]], "$.agents[0].parent", "its own parent"),
    ],
)
def test_parents_that_loop_are_an_error(agents: list[Any], pointer: str, words: str) -> None:
    trace = {
        "trace_id": "loop",
        "agents": agents,
        "events": [{"id": "e1", "type": "step", "agent": "A", "t": 0}],
        "edges": [],
    }
    hits = [p for p in examine(json.dumps(trace), "t", True).problems if p.code == "parent-cycle"]
    assert [p.pointer for p in hits] == [pointer] and words in hits[0].message


def test_agents_spawning_each_other_in_a_loop_is_an_error() -> None:
    t = copy.deepcopy(EXAMPLE)
    t["events"].append(
        {"id": "e9", "t": 8, "type": "spawn", "agent": "planner_1", "to": "orchestrator"}
    )
    done = examine(json.dumps(t), "t", measure=True)
    assert done.measures is None
    (loop,) = [p for p in done.problems if p.code == "parent-cycle"]
    assert loop.pointer == "$.events[8].to"  # the spawn that makes planner_1 a parent
    assert "orchestrator -> planner_1 -> orchestrator" in loop.message


@pytest.mark.parametrize("command", ["validate", "metrics", "convert"])
def test_a_named_pipe_is_refused_at_once(tmp_path: Path, command: str) -> None:
    fifo = tmp_path / "trace.json"
    os.mkfifo(fifo)
    args = ["--to", "artifact", str(fifo)] if command == "convert" else [str(fifo)]
    run = orchtrace(command, *args)
    assert run.returncode == 1 and "Traceback" not in run.stderr
    assert "a named pipe, not a regular file" in run.stdout + run.stderr
