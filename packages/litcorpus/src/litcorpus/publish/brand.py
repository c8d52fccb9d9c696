"""What a corpus calls itself on its site, feeds and citations: its name, heading and
description from the taxonomy's `site:` block, else from CITATION.cff (its title up to a colon,
its abstract, its authors and the works it references), else from its folder's name. Nothing
here names any one survey, so a new corpus speaks of itself from its first build.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..model.taxonomy import Taxonomy
from .citation import author


@dataclass(frozen=True, slots=True)
class Work:
    """A work the corpus backs or rests on (CITATION.cff's references), as the footer cites it."""

    title: str
    by: str  # the authors' family names
    year: str
    url: str
    label: str  # the address as a reader reads it: an identifier, or the host and path


@dataclass(frozen=True, slots=True)
class Brand:
    name: str
    heading: str
    description: str
    authors: str  # the feed's author
    licence: str  # the data's licence, as CITATION.cff gives it
    works: list[Work] = field(default_factory=list)

    @property
    def slug(self) -> str:
        """The name as the start of a citation key: lower-case letters, digits and hyphens."""
        return re.sub(r"[^a-z0-9]+", "-", self.name.lower()).strip("-") or "corpus"


def _work(ref: dict[str, Any]) -> Work | None:
    title = str(ref.get("title") or "").strip()
    if not title:
        return None
    family = [str(a.get("family-names") or a.get("name") or "") for a in ref.get("authors") or []
              if isinstance(a, dict)]  # fmt: skip
    family = [f for f in family if f]
    by = " and ".join(family) if len(family) <= 2 else f"{family[0]} et al."
    url = str(ref.get("url") or ref.get("repository-code") or "")
    ids = [str(i.get("value")) for i in ref.get("identifiers") or []
           if isinstance(i, dict) and i.get("value")]  # fmt: skip
    label = ids[0].replace(":", " ", 1) if ids else re.sub(r"^https?://(www\.)?", "", url)
    year = str(ref.get("year") or "")
    return Work(title, by, year, url if url.startswith("https://") else "", label)


def brand_of(tax: Taxonomy, cff: dict[str, Any], root: Path) -> Brand:
    """The corpus's words: declared in taxonomy.yaml's site block, else read from CITATION.cff
    (CFF), else from the folder ROOT's name."""
    views = tax.views
    title = str(cff.get("title") or "").strip()
    name = views.name or title.split(":", 1)[0].strip() or root.resolve().name or "corpus"
    description = views.description or " ".join(str(cff.get("abstract") or "").split())
    people = [n for n in map(author, cff.get("authors") or []) if n]
    works = [w for ref in cff.get("references") or [] if isinstance(ref, dict)
             for w in [_work(ref)] if w]  # fmt: skip
    return Brand(
        name=name,
        heading=views.heading or name,
        description=description or f"A curated literature corpus: {name}.",
        authors=", ".join(people) or f"The {name} contributors",
        licence=str(cff.get("license") or ""),
        works=works,
    )
