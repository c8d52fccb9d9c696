"""The one jinja2 Environment: templates are package data; everything is autoescaped except
Markdown templates (*.md.j2), whose output is not HTML."""

from __future__ import annotations

import re
from functools import lru_cache

import jinja2

from ..analysis.claims import marked, verdicts
from .escape import md_text


def name_parts(name: object) -> list[str]:
    """A field name in the pieces a line may break between: after a dot or an underscore,
    before a bracket ('events[].agent_id' -> ['events', '[].', 'agent_', 'id']), so that a
    narrow column never breaks it inside a word."""
    return [p for p in re.split(r"(?<=[._])|(?=\[)", str(name)) if p]


def claim_verdicts(claim: dict[str, object]) -> str:
    """A claim of stats.json, its verdicts marked in Markdown in the one vocabulary."""
    now = claim.get("now")
    now_held = bool(now.get("held")) if isinstance(now, dict) else None
    return marked(verdicts(bool(claim["held"]), str(claim["snapshot"]), now_held))


def md_code(text: object) -> str:
    """TEXT for a Markdown code span: one line, no backtick to end the span."""
    return " ".join(str(text).replace("`", "'").split())


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("litcorpus.publish", "templates"),
        autoescape=jinja2.select_autoescape(
            enabled_extensions=("html.j2", "xml.j2"), disabled_extensions=("md.j2",), default=True
        ),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["md"] = md_text  # every data value in a Markdown template goes through these
    env.filters["md_code"] = md_code
    env.filters["name_parts"] = name_parts
    env.filters["verdicts"] = claim_verdicts
    return env
