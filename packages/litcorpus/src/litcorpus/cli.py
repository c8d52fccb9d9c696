"""The `litcorpus` command group: its --root (before or after a command's name), `check`, and
the one-line failure every command ends with; the other commands live in publishcli,
workflowcli, screencli, screenteam and searchcli."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import click

from . import __version__

F = TypeVar("F", bound=Callable[..., Any])


ROOT_HELP = "Repository root (default: the nearest folder above that holds taxonomy.yaml)."
ROOT_KEY = "litcorpus.root"  # where `litcorpus --root DIR COMMAND` leaves DIR for the command


def _group_root(ctx: click.Context, _param: click.Parameter, value: Path | None) -> Path | None:
    """A command's --root, else the one given before the command's name."""
    return value if value is not None else ctx.find_root().meta.get(ROOT_KEY)


def root_option(func: F) -> F:
    return click.option(
        "--root",
        type=click.Path(file_okay=False, path_type=Path),
        default=None,
        callback=_group_root,
        help=ROOT_HELP,
    )(func)


def resolve_root(root: Path | None) -> Path:
    from .model.corpus import find_root

    if root is None:
        return find_root()
    if not (root / "taxonomy.yaml").is_file():
        raise click.UsageError(f"{root} holds no taxonomy.yaml", None)
    return root


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="litcorpus")
@click.option(
    "--root", "group_root", type=click.Path(file_okay=False, path_type=Path), help=ROOT_HELP
)
@click.pass_context
def cli(ctx: click.Context, group_root: Path | None) -> None:
    """Validate, count and publish a living literature corpus."""
    if group_root is not None:
        ctx.meta[ROOT_KEY] = group_root


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
    from .entry import run_check

    sys.exit(run_check(resolve_root(root), fmt, strict))


def fail(command: str, exc: Exception) -> NoReturn:
    """Print one line for an error that ends COMMAND; a refused path is a usage error (2)."""
    click.echo(f"litcorpus {command}: {exc}", err=True)
    usage = getattr(exc, "usage", False) or getattr(exc, "code", "").startswith("output-")
    sys.exit(2 if usage else 1)


def _register() -> None:
    from . import screenteam  # noqa: F401 (adds its commands to screen)
    from .publishcli import COMMANDS as PUBLISH
    from .screencli import screen
    from .searchcli import search
    from .workflowcli import COMMANDS as WORKFLOW

    cli.add_command(search)
    cli.add_command(screen)
    for command in [*PUBLISH, *WORKFLOW]:
        cli.add_command(command)


_register()
