"""The `litcorpus` command: parses arguments, calls one library function, prints, sets the exit."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from . import __version__

F = TypeVar("F", bound=Callable[..., Any])


def root_option(func: F) -> F:
    return click.option(
        "--root",
        type=click.Path(file_okay=False, path_type=Path),
        default=None,
        help="Repository root (default: the nearest folder above that holds taxonomy.yaml).",
    )(func)


def resolve_root(root: Path | None) -> Path:
    from .corpus import find_root

    if root is None:
        return find_root()
    if not (root / "taxonomy.yaml").is_file():
        raise click.UsageError(f"{root} holds no taxonomy.yaml", None)
    return root


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="litcorpus")
def cli() -> None:
    """Validate, count and publish the LLM-MAS RL literature corpus."""


@cli.command()
@root_option
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="Output format.",
)
@click.option("--strict", is_flag=True, help="Fail on warnings too.")
def check(root: Path | None, fmt: str, strict: bool) -> None:
    """Validate taxonomy, papers and exclusions; report every problem."""
    from .validate import check as run_check

    report = run_check(resolve_root(root), strict=strict)
    click.echo(report.to_json() if fmt == "json" else report.to_text())
    sys.exit(0 if report.ok else 1)


def main() -> None:
    cli(prog_name="litcorpus")
