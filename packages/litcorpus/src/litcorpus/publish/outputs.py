"""What litcorpus's outputs may never replace, write into or overwrite: the repository root,
.git, and every input of the corpus, git or not (see surewrite.paths). The inputs are
declared here once: the files at the root, the record folders, and the folders of other
inputs (second readers' files, the screening queue, traces).

The corpus lock is held by the runs that write into the corpus (add, readme, release) and by
a whole build; under it, the journal of a killed `add` is undone, as far as it names files
that `add` could have written.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path

from surewrite import transaction
from surewrite.files import locked, recover_new_files
from surewrite.paths import below

from ..model.corpus import CORPUS_FILES, Corpus
from ..model.taxonomy import load_taxonomy
from ..model.text import key_ok

TOOL = "litcorpus"
LOCK_FILE = ".litcorpus.lock"
JOURNAL = ".litcorpus.journal"  # what an add is placing, until it is done
CHANGE_JOURNAL = ".litcorpus.change.journal"  # a search import's or a decision's change
# The only files such a change writes: the search log, the queue, drafts, and one new record.
_CHANGED = re.compile(
    r"(searches\.yaml|screening/queue\.jsonl|screening/duplicates\.jsonl|screening/drafts/Q\d{4,}\.yaml|"
    r"papers/[a-z0-9]+(-[a-z0-9]+)*\.yaml|exclusions/E\d{3,}\.yaml)\Z"
)
# Files at the root that the corpus reads or the tool maintains in place.
ROOT_FILES = (*CORPUS_FILES, "README.md", "CITATION.cff", "CHANGELOG.md")
# Folders of inputs besides the record folders: no output goes in them.
INPUT_FOLDERS = ("reviews", "screening", "traces")
LOCK_WAIT = 30.0  # seconds a run waits for another to release the corpus
BUILD_WAIT = 900.0  # a build waits for the one before it: it then finds its work done


def cache_dir(root: Path, name: str) -> Path:
    """Where drawn figures and other reusable work are kept: LITCORPUS_CACHE, or .cache/
    below the root (git-ignored)."""
    base = os.environ.get("LITCORPUS_CACHE")
    return (Path(base) if base else root / ".cache" / "litcorpus") / name


def record_folders(corpus: Corpus) -> list[Path]:
    return [corpus.root / kind.dir for kind in corpus.taxonomy.kinds.values() if kind.dir]


def input_folders(corpus: Corpus) -> list[Path]:
    """Folders that hold inputs: no output folder or file may be, hold or lie in one."""
    return [*record_folders(corpus), *(corpus.root / name for name in INPUT_FOLDERS)]


def keep(corpus: Corpus) -> list[Path]:
    """Folders an output folder may neither be nor hold."""
    return [corpus.root, *input_folders(corpus), corpus.root / ".git"]


def inputs(corpus: Corpus) -> list[Path]:
    """Files an output file may not be (those in input folders are refused as well)."""
    listed = [corpus.root / name for name in ROOT_FILES] + [corpus.root / r.path for r in corpus]
    views = corpus.taxonomy.views
    reviews = (views.agreement, views.blind_agreement, views.screening_audit)
    return listed + [corpus.root / r.file for r in reviews if r]


def _written_by_add(root: Path) -> Callable[[Path], bool]:
    """Whether a file is one `add` could have written: ROOT/<record folder>/<key>.yaml, with a
    key its kind allows, in a folder that is not a link (the taxonomy is read when asked)."""

    @cache
    def folders() -> dict[str, str | None]:
        tax, _ = load_taxonomy(root)
        return {
            kind.dir: getattr(kind.fields.get(kind.key_field), "pattern", None)
            for kind in tax.kinds.values()
            if kind.dir
        }

    def allowed(path: Path) -> bool:
        try:
            rel = path.relative_to(root)
        except ValueError:
            return False
        if len(rel.parts) != 2 or rel.suffix != ".yaml" or rel.parts[0] not in folders():
            return False
        return not (root / rel.parts[0]).is_symlink() and key_ok(rel.stem, folders()[rel.parts[0]])

    return allowed


def commit_changes(
    root: Path, changes: dict[str, bytes], new: frozenset[str] | set[str] = frozenset()
) -> None:
    """Write CHANGES (paths relative to ROOT) as one change; NEW paths are created, never
    replaced. Call it holding the corpus lock."""
    for rel in changes:
        if not _CHANGED.match(rel):
            raise ValueError(f"{rel} is not a file a change writes")
    below(root, "screening").mkdir(exist_ok=True)
    if any(rel.startswith("screening/drafts/") for rel in changes):
        below(root, "screening/drafts").mkdir(exist_ok=True)
    transaction.commit(root, dict(changes), root / CHANGE_JOURNAL, set(new))


@contextmanager
def corpus_lock(root: Path, wait: float = LOCK_WAIT) -> Iterator[None]:
    """Hold the corpus's lock; a run killed while adding entries is undone first, and a
    change killed after its commit point is finished."""
    with locked(root / LOCK_FILE, wait):
        recover_new_files(root / JOURNAL, _written_by_add(root))
        transaction.recover(root, root / CHANGE_JOURNAL, lambda rel: bool(_CHANGED.match(rel)))
        yield
