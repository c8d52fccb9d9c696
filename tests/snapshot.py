"""The shipped corpus cut to the survey's snapshot, for tests and benchmarks whose numbers
must not move as the live corpus grows."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
STOOD = REPO / "tests" / "fixtures" / "stood"  # snapshot records decided again since


def copy_snapshot(root: Path, docs: bool = False) -> Path:
    """The shipped corpus as the survey's snapshot left it, copied to ROOT: its rules,
    the records added up to the first release (84 entries, 32 exclusions), the second reader's
    tags (not the blind checks of later releases), that release and its claims, and no search
    log or queue; so a test of what comes after the snapshot stays the same however the live
    corpus grows. DOCS adds the README,
    CITATION.cff, the changelog up to that release, traces/ and stats/."""
    root.mkdir(parents=True)
    # the blind checks of later releases name records the snapshot does not hold
    taxonomy = (REPO / "taxonomy.yaml").read_text(encoding="utf-8")
    taxonomy = re.sub(r"(?ms)^  # A second reader who tagged a sample.*?(?=^  # The reader tables)",
                      "", taxonomy)  # fmt: skip
    (root / "taxonomy.yaml").write_text(taxonomy, encoding="utf-8")
    releases = yaml.safe_load((REPO / "releases.yaml").read_text(encoding="utf-8"))
    first = releases["releases"][0]
    cutoff = str(first["date"])
    text = (REPO / "releases.yaml").read_text(encoding="utf-8")
    later = text.find("\n  - version:", text.find("\n  - version:") + 1)
    (root / "releases.yaml").write_text(text if later < 0 else text[: later + 1], encoding="utf-8")
    for folder in ("papers", "exclusions"):
        (root / folder).mkdir()
        for path in sorted((REPO / folder).glob("*.yaml")):
            added = yaml.safe_load(path.read_text(encoding="utf-8")).get("added")
            if str(added) <= cutoff:
                shutil.copy2(path, root / folder / path.name)
    claims = yaml.safe_load((REPO / "claims.yaml").read_text(encoding="utf-8"))
    claims["claims"] = [c for c in claims["claims"] if c["snapshot"] == first["version"]]
    for part in [*claims["claims"], claims["prisma"]]:
        part["corrections"] = [x for x in part.get("corrections", []) if not _undo(x, root)]
        if not part["corrections"]:
            del part["corrections"]
    (root / "claims.yaml").write_text(
        yaml.safe_dump(claims, sort_keys=False, allow_unicode=True), encoding="utf-8"
    )
    (root / "reviews").mkdir()
    shutil.copy2(REPO / "reviews" / "second-reader.csv", root / "reviews")
    if docs:
        shutil.copy2(REPO / "README.md", root / "README.md")
        citation = (REPO / "CITATION.cff").read_text(encoding="utf-8")
        citation = re.sub(r"(?m)^version: .*$", f'version: "{first["version"]}"', citation)
        citation = re.sub(r"(?m)^date-released: .*$", f'date-released: "{cutoff}"', citation)
        (root / "CITATION.cff").write_text(citation, encoding="utf-8")
        for folder in ("traces", "stats"):
            shutil.copytree(REPO / folder, root / folder)
        head, *sections = (REPO / "CHANGELOG.md").read_text(encoding="utf-8").split("\n## ")
        kept = [s for s in sections if s.startswith(f"{first['version']} ")]
        (root / "CHANGELOG.md").write_text("\n## ".join([head, *kept]), encoding="utf-8")
    return root


def _undo(correction: dict, root: Path) -> bool:
    """Put back, in the copy at ROOT, a record CORRECTION moved to a kind it holds no record
    of yet (as the release held it, from STOOD); True when the copy needs the correction no
    more."""
    kind, _, key = str(correction["now"]).partition(":")
    if correction["field"] != "kind" or (root / f"{kind}s" / f"{key}.yaml").exists():
        return False
    name = f"{correction['was']}s/{correction['entry']}.yaml"
    if not (root / name).exists():
        shutil.copy2(STOOD / name, root / name)
    return True
