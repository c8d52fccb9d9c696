"""A training run's traces as tables (`orchtrace table`, `orchtrace query`); needs the `runs`
extra (pyarrow, DuckDB, zstandard), and `ray` for `--engine ray`.

- `runinputs`: the inputs (folders, globs, URIs; gzip and zstd) cut into resumable chunks.
- `runrows`: one trace's row and its events' rows; `batch` and `batchmeasures`: many small
  traces checked and measured at once as one union.
- `runtable`: the Parquet tables written by worker processes or a Ray Data pipeline, resumed
  after a kill; `runquery`: DuckDB over the views `run` and `events` only.
"""
