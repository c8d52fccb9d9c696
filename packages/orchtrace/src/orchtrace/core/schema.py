"""The JSON Schemas of the two trace formats, shipped inside the package (core/schemas/):
`current` (ours, trace.schema.json) and `artifact` (the survey artifact's published one). A
repository that documents them keeps byte-identical copies in its traces/ folder."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

FILES = {"current": "trace.schema.json", "artifact": "artifact.schema.json"}


def schema_bytes(fmt: str = "current") -> bytes:
    """The schema file of format FMT as shipped."""
    return (resources.files(__package__ or "orchtrace.core") / "schemas" / FILES[fmt]).read_bytes()


@cache
def schema(fmt: str = "current") -> dict[str, Any]:
    """The JSON Schema of a format (shared: do not change it)."""
    return dict(json.loads(schema_bytes(fmt)))
