"""The `orchtrace` command (its subcommands arrive with the trace toolkit)."""

from __future__ import annotations

import click

from . import __version__


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="orchtrace")
def cli() -> None:
    """Validate and replay orchestration traces."""


def main() -> None:
    cli(prog_name="orchtrace")
