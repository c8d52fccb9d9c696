"""The `litcorpus` entry point.

`litcorpus check` with its usual options (`--root`, `--format`, `--strict`) runs without
loading click, so the command starts fast enough for a pre-commit hook. Any other command,
spelling or option, `--help` included, goes to the click CLI in cli.py, which defines check
with the same options and runs the same `run_check`.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


def _check_options(argv: list[str]) -> tuple[Path | None, str, bool] | None:
    """(root, format, strict) when ARGV is a plain check; None for anything else."""
    if not argv or argv[0] != "check":
        return None
    root, fmt, strict = None, "text", False
    args = iter(argv[1:])
    for arg in args:
        name, eq, value = arg.partition("=")
        if arg == "--strict":
            strict = True
            continue
        if name not in ("--root", "--format"):
            return None
        if not eq:
            value = next(args, "")
        if not value or value.startswith("-"):
            return None
        if name == "--root":
            root = Path(value)
            if not (root / "taxonomy.yaml").is_file():
                return None  # click words that error
        elif value in ("text", "json"):
            fmt = value
        else:
            return None
    return root, fmt, strict


def run_check(root: Path | None, fmt: str, strict: bool) -> int:
    """Validate the corpus at ROOT (default: the nearest above), print the report, and return
    the exit code."""
    from .analysis.result import check
    from .model.corpus import find_root
    from .progress import terminal_progress

    progress = terminal_progress()
    report = check(root or find_root(), strict=strict, progress=progress)
    if progress:
        progress.close()
    print(report.to_json() if fmt == "json" else report.to_text())
    return 0 if report.ok else 1


def _click_main() -> int:
    """The click CLI, whose errors and interrupts come back here (click's own handling says
    'Aborted!' and exits 1 on Ctrl-C)."""
    import click

    from .cli import cli

    try:
        code = cli.main(prog_name="litcorpus", standalone_mode=False)
    except click.exceptions.Abort as exc:  # Ctrl-C, as click reports it
        raise KeyboardInterrupt from exc
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    return code if isinstance(code, int) else 0


def main() -> None:
    """Run the command; what the system refuses mid-run ends it with one line, no traceback;
    Ctrl-C ends it with 130, as shells expect."""
    from surewrite.interrupts import lasting_interrupts
    from surewrite.streams import standard_streams

    lasting_interrupts()
    try:
        standard_streams()
        try:
            options = _check_options(sys.argv[1:])
            sys.exit(_click_main() if options is None else run_check(*options))
        finally:
            sys.stdout.flush()  # here, so that a reader who left is noticed in this handler
    except BrokenPipeError:
        # the reader left (`litcorpus check --format json | head`): say nothing more
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
    except KeyboardInterrupt:
        sys.exit(130)
    except MemoryError:
        sys.stderr.write("litcorpus: out-of-memory: the run needs more memory than it may use\n")
        sys.exit(1)
    except ImportError as exc:  # under a memory limit, loading a library can fail like this
        lacks_memory = any(s in str(exc) for s in ("failed to map segment", "allocate memory"))
        code = "out-of-memory" if lacks_memory else "system-error"
        sys.stderr.write(f"litcorpus: {code}: cannot load {exc.name or 'a library'}: {exc}\n")
        sys.exit(1)
    except OSError as exc:
        where = f" {exc.filename}" if exc.filename else ""
        sys.stderr.write(f"litcorpus: system-error: cannot use{where}: {exc.strerror or exc}\n")
        sys.exit(1)
