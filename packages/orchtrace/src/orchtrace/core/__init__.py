"""The trace itself: what every other layer stands on.

- `schema`: the JSON Schemas of the two formats (ours, `current`, and the survey artifact's,
  `artifact`), shipped as package data in `schemas/`.
- `trace`: reading files and text into a `Document` (typed structs when the trace is clean,
  plain JSON otherwise, so every problem keeps its JSON path); `TraceProblem`; size limits.
- `model`: the typed structs and their one-pass decoder; `formats`: telling the two formats
  apart and converting between them; `codes`: every problem code with its severity.
- `table`: column views of events and edges; `lineage`: who spawned whom; `worker`: a second
  process for the work on a large trace.

Needs orjson, msgspec and numpy only.
"""
