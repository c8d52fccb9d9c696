"""Writes traces/SCHEMA.md, the Markdown reference of traces/trace.schema.json."""

from __future__ import annotations

from typing import Any


def _rows(node: dict[str, Any], prefix: str = "") -> list[str]:
    rows = []
    required = set(node.get("required", []))
    for name, prop in node.get("properties", {}).items():
        path = f"{prefix}{name}"
        kind = prop.get("type") or "enum"
        if kind == "array":
            kind = f"array of {prop.get('items', {}).get('type', 'values')}"
        text = prop.get("description", "")
        if "enum" in prop:
            text += " One of: " + ", ".join(f"`{v}`" for v in prop["enum"]) + "."
        if "minimum" in prop:
            text += f" At least {prop['minimum']}."
        rows.append(f"| `{path}` | {kind} | {'yes' if name in required else ''} | {text} |")
        inner = prop.get("items") if prop.get("type") == "array" else prop
        if isinstance(inner, dict) and "properties" in inner:
            rows += _rows(inner, f"{path}{'[]' if prop.get('type') == 'array' else ''}.")
    return rows


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
        *_rows(schema),
        "",
    ]
    return "\n".join(lines)
