"""The one jinja2 Environment: templates are package data; everything is autoescaped except
Markdown templates (*.md.j2), whose output is not HTML."""

from __future__ import annotations

from functools import lru_cache

import jinja2


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("litcorpus", "templates"),
        autoescape=jinja2.select_autoescape(
            enabled_extensions=("html.j2", "xml.j2"), disabled_extensions=("md.j2",), default=True
        ),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
