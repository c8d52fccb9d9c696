"""The problems orchtrace reports, by stable code: severity and meaning.

Errors fail `orchtrace validate` (exit 1) and stop `orchtrace metrics`; warnings fail only
under `--strict`. traces/SCHEMA.md lists them, generated from this table.
"""

from __future__ import annotations

CODES: dict[str, tuple[str, str]] = {
    "unreadable": ("error", "the file cannot be read, or is not a regular file (a pipe, a device)"),
    "too-large": ("error", "the file is over the size limit (`--max-bytes`, 512 MiB by default)"),
    "malformed-json": ("error", "not JSON, not UTF-8, or nested too deeply to read"),
    "non-finite": ("error", "NaN or Infinity, which Python's json accepts but JSON does not"),
    "out-of-range": ("error", "an integer too large for a 64-bit float, in a time or a reward"),
    "duplicate-key": (
        "error",
        "an object repeats a key (JSON readers keep only its last value, without a word)",
    ),
    "schema": ("error", "a field is missing, unknown, or of the wrong type or value"),
    "negative-value": ("error", "a time, cost or count below its minimum of 0"),
    "duplicate-id": ("error", "two events, or two agents, share an id"),
    "unknown-agent": ("error", "an event's agent is not in `agents`"),
    "dangling-edge": ("error", "an edge's source or target names no event"),
    "time-backwards": ("error", "an edge's target starts before its source (beyond 1e-6)"),
    "cycle": ("error", "causal, spawn, return and aggregate edges form a cycle (one is shown)"),
    "return-unspawned": ("error", "an agent returns but no event spawned it"),
    "parent-cycle": (
        "error",
        "agents' parents loop (an agent's parent is its declared `parent`, else the agent that "
        "first spawned it), or an agent is its own parent, so no spawn depth exists",
    ),
    "dependency-cycle": (
        "error",
        "(metrics only) the dependencies loop through other edges, among events that start "
        "together or from an event to itself, so no critical path exists",
    ),
    "starts-before-source-ends": (
        "warning",
        "a temporal, causal, return, aggregate or tool_dependency edge whose target starts "
        "before its source ends, so the order it claims does not hold (a critical path along "
        "it could outrun the clock)",
    ),
    "return-not-to-spawner": ("warning", "an agent returns to someone other than its spawner"),
    "after-despawn": ("warning", "an agent acts after its despawn"),
    "unmatched-tool-call": ("warning", "a tool call whose `call_id` no result answers"),
    "unmatched-tool-result": ("warning", "a tool result whose `call_id` no call made"),
    "sender-mismatch": ("warning", "a message names a sender other than the acting agent"),
    "cost-mismatch": ("warning", "`costs` disagree with what the events count"),
}


def codes_markdown() -> str:
    lines = [
        "## Problem codes",
        "",
        "What `orchtrace validate` reports, each with the JSON path it concerns. Errors exit 1;"
        " warnings exit 0 unless `--strict`. Each code is reported at most 50 times per trace,"
        " then counted.",
        "",
        "| code | severity | meaning |",
        "| --- | --- | --- |",
        *(f"| `{code}` | {level} | {meaning} |" for code, (level, meaning) in CODES.items()),
        "",
    ]
    return "\n".join(lines)
