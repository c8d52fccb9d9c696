"""Claude Code session transcripts: marot/spotter's real session and the transcript of the
sub-agent it ran (fixtures/exports/claude-code-spotter, PROVENANCE lists the
facts); every expected value below is counted from those raw lines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from orchtrace import rewards
from orchtrace.readers.importcheck import import_traces
from orchtrace.readers.spans import ImportError_

FOLDER = Path(__file__).resolve().parent / "fixtures" / "exports" / "claude-code-spotter"
SESSION = "ae4a77f8-aedd-4bc1-888f-c94edc91af04"
MAIN = FOLDER / f"{SESSION}.jsonl"
SUB = FOLDER / SESSION / "subagents" / "agent-aac57f5.jsonl"


def session(data: bytes | None = None, folder: Path | None = FOLDER) -> dict[str, Any]:
    (trace,), _ = import_traces(MAIN.read_bytes() if data is None else data, "auto", folder)
    return trace


def test_a_claude_code_session_with_its_sub_agent() -> None:
    # The main agent's 6 assistant message ids are 6 model calls and its tool_use blocks Bash
    # 4, Read 6, Task 1, Skill 1; the Task call (input subagent_type general-purpose) ran
    # sub-agent aac57f5, whose transcript lies in <session>/subagents/: 3 model calls, WebSearch
    # 6 and WebFetch 6. Tokens once per message id, input + cache creation + cache read + the
    # largest output a line gives: main 10 + 54,030 + 128,728 + 640 = 183,408, sub-agent 2,408
    # + 18,814 + 29,274 + 7 = 50,503, together 233,911. The run lasts from the first user record
    # (14:11:57.667Z) to the last assistant record (14:13:08.043Z): 70.376 s.
    trace = session()
    assert trace["trace_id"] == SESSION
    assert [(a["id"], a.get("parent")) for a in trace["agents"]] == [
        ("claude-code", None),
        ("general-purpose-aac57f5", "claude-code"),
    ]
    tools: dict[str, dict[str, int]] = {}
    for e in trace["events"]:
        if e["type"] == "tool_call":
            mine = tools.setdefault(e["agent"], {})
            mine[e["tool"]] = mine.get(e["tool"], 0) + 1
    assert tools == {
        "claude-code": {"Bash": 4, "Read": 6, "Task": 1, "Skill": 1},
        "general-purpose-aac57f5": {"WebSearch": 6, "WebFetch": 6},
    }
    assert trace["costs"] == {
        "tool_calls": 24, "messages": 0, "tokens": 233911, "wall_clock_s": 70.376
    }  # fmt: skip
    calls = {e["agent"]: len({x["span_id"] for x in trace["events"]
                              if x["type"] == "step" and x["agent"] == e["agent"]
                              and not (x.get("attributes") or {}).get("own_time")})
             for e in trace["events"]}  # fmt: skip
    assert calls == {"claude-code": 6, "general-purpose-aac57f5": 3}


def test_the_sessions_rewards_by_hand() -> None:
    # Critical steps: the main agent's five model calls up to the Task call, which spawns the
    # sub-agent (its 3 model calls: the six WebSearch and six WebFetch calls are made while the
    # model that issued them still streams, so they are part of those turns), then the main
    # agent's last model call after the results: 5 + 3 + 1 = 9. One spawn, finished (the Task
    # result, 14:13:05.070Z, follows the sub-agent's last record, 14:13:05.048Z). The main
    # agent waits on its Skill call (14:12:33.717Z to 14:13:05.185Z) while the sub-agent works
    # (14:12:32.522Z to 14:13:05.048Z): two things at once, so the observed speedup exceeds 1.
    got = rewards.all_rewards(session())
    assert (got["critical_steps"].value, got["spawn_count"].value) == (9.0, 1.0)
    assert (got["finish_rate"].value, got["tool_calls"].value) == (1.0, 24.0)
    assert got["observed_speedup"].value is not None and got["observed_speedup"].value > 1


def test_side_chain_records_in_the_file_are_read_as_the_sub_agent() -> None:
    # Older sessions keep a sub-agent's records in the main file, marked isSidechain with
    # their agentId: the same run, with no folder needed
    joined = MAIN.read_bytes() + SUB.read_bytes()
    assert session(joined, None) == session()


def test_a_sub_agent_that_cannot_be_found_is_refused() -> None:
    with pytest.raises(ImportError_) as caught:
        session(folder=None)
    assert "the transcript of sub-agent aac57f5" in str(caught.value)
    assert f"{SESSION}/subagents/agent-aac57f5.jsonl" in str(caught.value)


def test_an_agent_id_never_reads_outside_the_folder(tmp_path: Path) -> None:
    # an agentId that climbs out of the folder names no file there, even where one exists
    (tmp_path / "secret.jsonl").write_bytes(SUB.read_bytes())
    inner = tmp_path / "in"
    inner.mkdir()
    lines = [json.loads(x) for x in MAIN.read_bytes().splitlines()]
    for line in lines:
        extra = line.get("toolUseResult")
        if isinstance(extra, dict) and extra.get("agentId"):
            extra["agentId"] = "/../../secret"
        data = line.get("data")
        if isinstance(data, dict) and data.get("agentId"):
            data["agentId"] = "/../../secret"
    text = "\n".join(json.dumps(x) for x in lines).encode()
    with pytest.raises(ImportError_, match="neither in the file nor beside it"):
        session(text, inner)


def test_a_claude_code_session_of_a_second_project() -> None:
    # ai4curation/ai-blame's session (Claude Code 2.0.75, PROVENANCE): 7 assistant message ids
    # (2 Opus 4.5, 5 Haiku 4.5 after a /model switch) and tool calls Read 10, Edit 9, Write 6,
    # each with its result; usage once per message, the output counted up to each message's
    # last line: input 71 + cache creation 25,778 + cache read 142,624 + output 1,686 =
    # 170,159 tokens; 15:20:39.093Z to 15:22:22.906Z, 103.813 s (line 21's time before line
    # 20's does not matter: each call runs from the record it answers to its last line). Its
    # two Warmup side chains finish before the session and no Task call names them: one
    # agent, 7 critical steps.
    folder = FOLDER.parent / "claude-code-ai-blame"
    data = (folder / "2c965cfd-41e4-4e31-8339-2986ebced03c.jsonl").read_bytes()
    (trace,), _ = import_traces(data, "auto", folder)
    assert [a["id"] for a in trace["agents"]] == ["claude-code"]
    assert trace["costs"] == {
        "tool_calls": 25, "messages": 0, "tokens": 170159, "wall_clock_s": 103.813
    }  # fmt: skip
    tools = [e["tool"] for e in trace["events"] if e["type"] == "tool_call"]
    assert (tools.count("Read"), tools.count("Edit"), tools.count("Write")) == (10, 9, 6)
    got = rewards.all_rewards(trace)
    assert (got["critical_steps"].value, got["spawn_count"].value) == (7.0, 0.0)
