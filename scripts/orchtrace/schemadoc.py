"""Writes traces/SCHEMA.md, the Markdown reference of traces/trace.schema.json and of the
problem codes."""

from __future__ import annotations

from typing import Any

from .codes import codes_markdown


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


def schema_markdown(schema: dict[str, Any]) -> str:
    lines = [
        f"# {schema['title']}",
        "",
        "Generated from `traces/trace.schema.json` by `orchtrace schema-doc`; do not edit.",
        "",
        schema.get("description", ""),
        "",
        f"JSON Schema dialect: `{schema['$schema']}`. Fields marked required must be "
        "present; no other fields are allowed.",
        "",
        "| field | type | required | meaning |",
        "| --- | --- | --- | --- |",
        *map(_markdown_row, schema_rows(schema)),
        "",
        codes_markdown(),
    ]
    return "\n".join(lines)
