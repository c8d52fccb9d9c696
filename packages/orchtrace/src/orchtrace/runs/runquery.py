"""SQL over a run table: a DuckDB connection that sees the run's two tables and nothing else.

Reads the Parquet files runtable.py writes (OUT and OUT's `.events.parquet`); writes nothing.
The SQL comes from whoever runs `orchtrace query`, so the connection is sealed before it runs:
the tables are registered from exactly the files named (through pyarrow, so that a `*` or `?`
in a name is a character, not a pattern over the folder), then external access, extension
installing and loading, and Python variable lookups are turned off, and the configuration is
locked so that no SET or RESET turns them on again. A statement that reaches for a file, a
folder, an extension or the network fails with DuckDB's Permission Error.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .runtable import events_path

# what SQL could use to reach beyond the two tables, then the lock that keeps it so
SEALS = (
    "SET enable_external_access = false",
    "SET autoinstall_known_extensions = false",
    "SET autoload_known_extensions = false",
    "SET python_enable_replacements = false",
    "SET lock_configuration = true",
)


def connect(out: Path) -> Any:
    """A DuckDB connection to the run table OUT: the views `run` (OUT) and `events` (beside
    it, when it exists) over exactly these files, read through pyarrow so that no character
    of their names is a pattern; then no file, folder, extension or network for the SQL, and
    the configuration locked so that no SET gives them back."""
    import duckdb
    import pyarrow.dataset as ds

    db = duckdb.connect()
    db.register("run", ds.dataset(str(out), format="parquet"))
    if events_path(out).is_file():
        db.register("events", ds.dataset(str(events_path(out)), format="parquet"))
    for statement in SEALS:
        db.execute(statement)
    return db
