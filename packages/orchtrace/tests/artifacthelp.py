"""The survey artifact's published trace schema and example trace (fixtures/artifact, see its
PROVENANCE)."""

from __future__ import annotations

import json
from pathlib import Path

ARTIFACT = Path(__file__).resolve().parent / "fixtures" / "artifact"


PUBLISHED = json.loads((ARTIFACT / "trace_schema.json").read_text())


EXAMPLE = json.loads((ARTIFACT / "example_trace.json").read_text())
