"""Measuring a trace that passed its checks.

- `examine`: the one entry point: parse, check and (when asked) measure one trace, with a
  second process for a large one.
- `replay`: the dependency graph walked for the critical path; `metrics`: the measures
  (traces/METRICS.md); `parl`: the staged-parallelism measures; `html`: a self-contained
  timeline of one trace.

The rewards built on these are `orchtrace.rewards`; the trainer adapters `orchtrace.trainers`.
"""
