"""Reading other projects' exports into orchestration traces (`orchtrace import`).

- `spanfiles`: an export's bytes to plain spans (JSON, JSON Lines, records one after another,
  OTLP protobuf with the `otlp` extra); `documents`: which shape a decoded export has.
- `spans`, `apispans`, `spanshapes`, `steptraces`, `atif`, `claudecode`: the readers of each
  shape (OTLP JSON, Tempo, Jaeger, Zipkin, Langfuse, agent frameworks' dumps, step
  trajectories, Claude Code transcripts); `beside`: files an export names beside itself.
- `conventions`, `spantree`: spans to agents and events by the GenAI semantic conventions and
  the span tree; `importers`: one trace per trace id; `importcheck`: each trace imported is
  checked as `validate` would.
"""
