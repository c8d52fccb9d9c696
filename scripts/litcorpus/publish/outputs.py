"""What litcorpus's outputs may never replace, write into or overwrite: the repository root,
its record folders and .git (see safewrite.paths), and the files a run reads."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from safewrite import transaction
from safewrite.files import locked, recover_new_files

from ..model.corpus import Corpus
from ..model.taxonomy import TAXONOMY_FILE

TOOL = "litcorpus"
LOCK_FILE = ".litcorpus.lock"  # held by the runs that write into the corpus (add, readme)
JOURNAL = ".litcorpus.journal"  # what an add is placing, until it is done
CHANGE_JOURNAL = ".litcorpus.change.journal"  # a search import's or a decision's change
# The only files such a change writes: the search log, the queue, and one new record.
_CHANGED = re.compile(
    r"(searches\.yaml|screening/queue\.jsonl|screening/duplicates\.jsonl|"
    r"papers/[a-z0-9]+(-[a-z0-9]+)*\.yaml|exclusions/E\d{3,}\.yaml)\Z"
)
# Files at the root that the corpus reads or the tool maintains in place.
ROOT_FILES = (TAXONOMY_FILE, "claims.yaml", "README.md", "CITATION.cff", "CHANGELOG.md")


def cache_dir(root: Path, name: str) -> Path:
    """Where drawn figures and other reusable work are kept: LITCORPUS_CACHE, or .cache/
    below the root (git-ignored)."""
    base = os.environ.get("LITCORPUS_CACHE")
    return (Path(base) if base else root / ".cache" / "litcorpus") / name


def record_folders(corpus: Corpus) -> list[Path]:
    return [corpus.root / kind.dir for kind in corpus.taxonomy.kinds.values()]


def keep(corpus: Corpus) -> list[Path]:
    """Folders an output folder may neither be nor hold."""
    return [corpus.root, *record_folders(corpus), corpus.root / ".git"]


def inputs(corpus: Corpus) -> list[Path]:
    """Files an output file may not be."""
    return [corpus.root / name for name in ROOT_FILES] + [corpus.root / r.path for r in corpus]


def commit_changes(
    root: Path, changes: dict[str, bytes], new: frozenset[str] | set[str] = frozenset()
) -> None:
    """Write CHANGES (paths relative to ROOT) as one change; NEW paths are created, never
    replaced. Call it holding the corpus lock."""
    for rel in changes:
        if not _CHANGED.match(rel):
            raise ValueError(f"{rel} is not a file a change writes")
    (root / "screening").mkdir(exist_ok=True)
    transaction.commit(root, dict(changes), root / CHANGE_JOURNAL, set(new))


@contextmanager
def corpus_lock(root: Path) -> Iterator[None]:
    """Hold the corpus's lock; a run killed while adding entries is undone first, and a
    change killed after its commit point is finished."""
    with locked(root / LOCK_FILE):
        recover_new_files(root / JOURNAL)
        transaction.recover(root, root / CHANGE_JOURNAL, lambda rel: bool(_CHANGED.match(rel)))
        yield
