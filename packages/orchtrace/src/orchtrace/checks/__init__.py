"""Checking a trace: every problem, each with a stable code (core/codes.py) and its JSON path.

- `validate`: the schema's rules, reported with jsonschema's explanations when a trace breaks
  them; `Report` collects problems.
- `semantics`: what a schema cannot say (ids that resolve, times that run forward, a spawn
  before its child acts, costs that add up).
- `schemadoc`: the Markdown reference of both formats and the problem codes
  (`orchtrace schema-doc`).
"""
