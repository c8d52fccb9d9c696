"""Writes traces/SCHEMA.md, the Markdown reference of both trace formats (traces/trace.schema.json
and traces/artifact.schema.json), how their fields map, and the problem codes."""

from __future__ import annotations

from typing import Any

from ..core.codes import codes_markdown


def schema_rows(node: dict[str, Any], prefix: str = "") -> list[dict[str, Any]]:
    """The schema's properties flattened depth-first: name (dotted, [] for array items), type,
    required, allowed values, minimum and description. Also used by the site's trace page."""
    rows = []
    required = set(node.get("required", []))
    for name, prop in node.get("properties", {}).items():
        path = f"{prefix}{name}"
        kind = prop.get("type") or "enum"
        if kind == "array":
            kind = f"array of {prop.get('items', {}).get('type', 'values')}"
        more = prop.get("additionalProperties")
        if kind == "object" and isinstance(more, dict):
            kind = f"object of {more.get('type', 'values')}"
        rows.append(
            {
                "name": path,
                "type": kind,
                "required": name in required,
                "values": prop.get("enum", []),
                "minimum": prop.get("minimum"),
                "description": prop.get("description", ""),
            }
        )
        inner = prop.get("items") if prop.get("type") == "array" else prop
        if isinstance(inner, dict) and "properties" in inner:
            rows += schema_rows(inner, f"{path}{'[]' if prop.get('type') == 'array' else ''}.")
    return rows


def _markdown_row(row: dict[str, Any]) -> str:
    text = row["description"]
    if row["values"]:
        text += " One of: " + ", ".join(f"`{v}`" for v in row["values"]) + "."
    if row["minimum"] is not None:
        text += f" At least {row['minimum']}."
    return f"| `{row['name']}` | {row['type']} | {'yes' if row['required'] else ''} | {text} |"


# ours | the artifact's | how
MAPPING = [
    ("`trace_id`", "`trace_id`", ""),
    ("`task.id`", "`task_id`", "required there; `convert` writes the trace id when it is absent"),
    ("`system`, `topology`, `metrics`", "the same", ""),
    ("`schema_version`, `task.description`, `task.scenario`", "none", "left out by `convert`"),
    (
        "`agents`",
        "none",
        "read from the events: every agent that acts or is spawned, with the `role` of its first "
        "event that names one (else `unknown`); left out by `convert`, where only spawn events "
        "keep who spawned whom",
    ),
    ("`events[].type` `decision`", "`orchestrator_decision`", ""),
    (
        "`events[].type` `step`, `stop`",
        "`orchestrator_decision` with `subtype` `step` or `stop`",
        "the artifact's types have neither",
    ),
    ("`events[].target`, `events[].sender`", "`events[].to`, `events[].from`", ""),
    ("`events[].role`, `tool`, `content_ref`, `trusted`", "the same", ""),
    (
        "`events[].t_end`, `tokens`, `decision`, `call_id`, `cause`, `content`, `error`, `span_id`",
        "the same name, as a further field",
        "read with our meaning when it has our type; otherwise kept in `attributes`, unread",
    ),
    ("`events[].attributes`", "an event's other fields", "kept as they are, both ways"),
    ("`edges[].source`, `edges[].target`", "`edges[].src`, `edges[].dst`", ""),
    (
        "`rewards[]`: `channel`, `value`, `unit`, `target`",
        "`rewards`: one value per key",
        "a key `c` is channel `c` credited to the unit of that name (`orchestration` to the "
        "orchestrator, anything else to the team); `unit/c` and `unit/target/c` name the unit "
        "and target; `convert` writes the shortest key that reads back the same and sums "
        "values under one key",
    ),
    (
        "`costs`",
        "`costs`",
        "the artifact requires `tokens` and `wall_clock_s`; `convert` counts missing ones "
        "from the events (tokens summed, the first start to the last end)",
    ),
]


def _table(schema: dict[str, Any]) -> list[str]:
    return [
        "| field | type | required | meaning |",
        "| --- | --- | --- | --- |",
        *map(_markdown_row, schema_rows(schema)),
    ]


def schema_markdown(schema: dict[str, Any], artifact: dict[str, Any]) -> str:
    lines = [
        f"# {schema['title']}",
        "",
        "Generated from `traces/trace.schema.json` and `traces/artifact.schema.json` by "
        "`orchtrace schema-doc`; do not edit.",
        "",
        schema.get("description", ""),
        "",
        "orchtrace reads two formats and tells them apart by their fields: ours (below), and "
        "the one the survey artifact published. A trace with an `agents` list is ours; one "
        "without it that has `task_id`, rewards as an object, edges with `src`/`dst` or "
        "`orchestrator_decision` events is the artifact's. Either is validated against its own "
        "rules, its problems named in its own field names, and measured alike; `orchtrace "
        "convert --to artifact|current` writes either.",
        "",
        f"JSON Schema dialect: `{schema['$schema']}`. Fields marked required must be "
        "present; no other fields are allowed.",
        "",
        *_table(schema),
        "",
        "## The survey artifact's format",
        "",
        artifact.get("description", ""),
        "",
        "Its events may hold any further field; no other field is allowed elsewhere.",
        "",
        *_table(artifact),
        "",
        "## How the fields map",
        "",
        "| ours | the artifact's | how |",
        "| --- | --- | --- |",
        *(f"| {ours} | {theirs} | {how} |" for ours, theirs, how in MAPPING),
        "",
        codes_markdown(),
    ]
    return "\n".join(lines)
