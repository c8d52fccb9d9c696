"""Bad inputs for the commands that write: refused output paths, failed writes, bad refs and
bad BibTeX, run as commands a careless, hurried or hostile user would type.

Each case prepares a fresh copy of the small corpus (and, beside it, whatever the case
needs), runs one command in a child process under limits (address space, file size, another
user where the case needs permissions to bite), and then requires: the expected exit status
(2 for a usage error, 1 otherwise), the expected error code in the single line on stderr, no
traceback, and every file below the case's folder byte for byte as it was: nothing written,
nothing overwritten, no temporary file left behind.
"""

from __future__ import annotations

import functools
import hashlib
import http.server
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import pytest

from conftest import CORPUS_FIXTURES, TRACE_FIXTURES, make_mini_root
from test_bad_inputs import snapshot

BIB = CORPUS_FIXTURES / "bibtex"
LOCK = ".litcorpus.lock"  # the lock file `add` holds; it stays, empty, by design
Argv = Callable[[Path, Path], list[str]]  # (corpus root, scratch folder beside it) -> argv
Setup = Callable[[Path, Path], None]


class BadCommand(NamedTuple):
    id: str
    argv: Argv
    code: str
    exit: int
    setup: Callable[[Path, Path], object] = lambda root, scratch: None
    file_size: int | None = None  # RLIMIT_FSIZE in bytes: writes past it fail with EFBIG
    memory: int | None = None  # RLIMIT_AS in bytes
    read_only: bool = False  # every folder and file of the case is read-only, even for root
    read_only_below: str = ""  # only this folder of the corpus (and what it holds) is
    stdout_closed: bool = False  # the reader of standard output is gone (`| head`)
    no_stdout: bool = False  # standard output is closed before the command starts (`>&-`)
    encoding: str = ""  # PYTHONIOENCODING, when the case sets it
    arxiv: str = ""  # the answer the local arXiv API gives (see ARXIV_ANSWERS)
    one_line: bool = False  # stderr is that one line alone


def lit(*args: str | Callable[[Path, Path], str]) -> Argv:
    """`litcorpus COMMAND --root ROOT ARGS...`; a callable argument is given (root, scratch)."""
    return lambda root, scratch: [
        "litcorpus",
        str(args[0]),
        "--root",
        str(root),
        *[a(root, scratch) if callable(a) else a for a in args[1:]],
    ]


def orch(*args: str | Callable[[Path, Path], str]) -> Argv:
    """`orchtrace ARGS...`; a callable argument is given (root, scratch)."""
    return lambda root, scratch: [
        "orchtrace",
        *[a(root, scratch) if callable(a) else a for a in args],
    ]


TRACE = Path(__file__).resolve().parents[1] / "traces" / "examples" / "centralized.json"
OTLP = TRACE_FIXTURES / "exports" / "otel-proto-trace.json"


def trace(text: Callable[[str], str] = lambda t: t) -> Callable[[Path, Path], None]:
    """A valid example trace at scratch/t.json, changed by TEXT."""
    return lambda root, scratch: (scratch / "t.json").write_text(text(TRACE.read_text()))


def own_parent(text: str) -> str:
    """The trace with its first agent made its own parent (a cycle of one)."""
    data = json.loads(text)
    data["agents"][0]["parent"] = data["agents"][0]["id"]
    return json.dumps(data)


def at(rel: str) -> Callable[[Path, Path], str]:
    """A path relative to the corpus root (or, with a leading '^/', to the scratch folder)."""
    return lambda root, scratch: str(scratch / rel[2:] if rel.startswith("^/") else root / rel)


def make_dir(rel: str, files: dict[str, str] | None = None) -> Callable[[Path, Path], None]:
    def action(root: Path, scratch: Path) -> None:
        folder = Path(at(rel)(root, scratch))
        folder.mkdir(parents=True, exist_ok=True)
        for name, text in (files or {}).items():
            (folder / name).write_text(text, encoding="utf-8")

    return action


def run_first(*argv: str) -> Callable[[Path, Path], None]:
    """Run a litcorpus command as setup (an earlier output the case then reuses)."""

    def action(root: Path, scratch: Path) -> None:
        args = [a.replace("ROOT", str(root)).replace("SCRATCH", str(scratch)) for a in argv]
        subprocess.run(
            [sys.executable, "-m", "litcorpus", *args, "--root", str(root)],
            check=True,
            capture_output=True,
        )

    return action


def both(*actions: Callable[[Path, Path], object]) -> Callable[[Path, Path], None]:
    def action(root: Path, scratch: Path) -> None:
        for a in actions:
            a(root, scratch)

    return action


def git_commit(root: Path, scratch: Path) -> None:
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "corpus"]):
        subprocess.run(
            ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t", *args],
            check=True,
            capture_output=True,
        )


def bib(text: str) -> Callable[[Path, Path], None]:
    return lambda root, scratch: (scratch / "in.bib").write_text(text, encoding="utf-8")


NEW_BIB = "@article{new2026,\n  title = {A New Paper on Agents},\n  author = {Doe, Jane},\n}\n"
JOURNAL = ".litcorpus.journal"


def journal(*rels: str, text: str | None = None) -> Callable[[Path, Path], None]:
    """Plant the journal of a killed add that lists RELS (relative to the root; '^/' to the
    scratch folder, written absolute) with the hashes of what they hold now, or holds TEXT."""

    def action(root: Path, scratch: Path) -> None:
        listing = []
        for rel in rels:
            path = Path(at(rel)(root, scratch))
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
            listing.append({"path": str(path) if rel[:2] == "^/" else rel, "sha256": digest})
        (root / JOURNAL).write_text(text if text is not None else json.dumps(listing))

    return action


def edit_file(rel: str, old: str, new: str) -> Callable[[Path, Path], None]:
    def action(root: Path, scratch: Path) -> None:
        path = root / rel
        text = path.read_text(encoding="utf-8")
        assert text.count(old) == 1, f"{old!r} must occur once in {rel}"
        path.write_text(text.replace(old, new), encoding="utf-8")

    return action


def _attrs(values: dict[str, object]) -> list[dict[str, object]]:
    """OTLP attributes: whole numbers as intValue, anything else as stringValue."""
    return [
        {"key": k, "value": {"intValue": str(v)} if isinstance(v, int) else {"stringValue": v}}
        for k, v in values.items()
    ]


AGENT_SPAN = {
    "traceId": "a" * 32, "spanId": "1" * 16, "name": "invoke_agent planner",
    "startTimeUnixNano": "1000000000", "endTimeUnixNano": "3000000000",
    "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "invoke_agent"}},
                   {"key": "gen_ai.agent.name", "value": {"stringValue": "planner"}}],
}  # fmt: skip
CHAT_SPAN = {
    "traceId": "a" * 32, "spanId": "2" * 16, "parentSpanId": "1" * 16, "name": "chat",
    "startTimeUnixNano": "1500000000", "endTimeUnixNano": "2500000000",
    "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}},
                   {"key": "gen_ai.usage.input_tokens", "value": {"intValue": "10"}},
                   {"key": "gen_ai.usage.output_tokens", "value": {"intValue": "5"}}],
}  # fmt: skip


def spans(*listed: dict[str, object], text: Callable[[str], str] = lambda t: t) -> Setup:
    """An OTLP/JSON export of LISTED at scratch/spans.json, its text changed by TEXT."""

    def action(root: Path, scratch: Path) -> None:
        doc = {"resourceSpans": [{"scopeSpans": [{"spans": list(listed)}]}]}
        (scratch / "spans.json").write_text(text(json.dumps(doc)))

    return action


def with_(span: dict[str, object], **changes: object) -> dict[str, object]:
    return {**span, **changes}


README_MARKERS = (
    "<!-- BEGIN GENERATED: awesome list (litcorpus readme; do not edit) -->\n"
    "<!-- END GENERATED: awesome list -->\n"
)

MALT = (Path(__file__).resolve().parent / "fixtures" / "arxiv" / "2412.01928.xml").read_bytes()
_ENTRY = MALT[MALT.index(b"<entry>") : MALT.index(b"</entry>") + len(b"</entry>")]
# What a wrong or broken arXiv API answers when asked for 2412.01928 (the fixture's paper).
ARXIV_ANSWERS = {
    "many": MALT.replace(
        _ENTRY,
        _ENTRY
        + b"".join(
            _ENTRY.replace(b"2412.01928", b"2501.%05d" % i).replace(b"MALT", b"Other %d" % i)
            for i in range(199)
        ),
    ),
    "latin1": MALT.replace(b"MALT: Improving", "MALT: Améliorer".encode("latin-1")),
    "another-paper": MALT.replace(b"2412.01928", b"2501.00009"),
    "error-on-lines": MALT.replace(
        _ENTRY,
        b"<entry><id>http://arxiv.org/api/errors#x</id>"
        b"<title>Error</title><summary>bad id\n\n## line two\n"
        b"</summary></entry>",
    ),
}


class _ArxivAPI(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = ARXIV_ANSWERS[self.path.split("?")[0].strip("/")]
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@functools.cache
def arxiv_api() -> str:
    """The local arXiv API, started once for the cases that need it (a daemon thread)."""
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _ArxivAPI)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{httpd.server_address[1]}"


# fmt: off
CASES: list[BadCommand] = [
    # Output folders that are, hold or lie in what the tool did not write.
    BadCommand("stats-out-root", lit("stats", "--out", at(".")), "output-refused", 2),
    BadCommand("stats-out-above-root", lit("stats", "--out", at("..")), "output-refused", 2),
    BadCommand("site-out-papers", lit("site", "--out", at("papers")), "output-refused", 2),
    BadCommand("site-out-inside-exclusions", lit("site", "--out", at("exclusions/site")),
               "output-refused", 2),
    BadCommand("site-out-git", lit("site", "--out", at(".git")), "output-refused", 2,
               make_dir(".git", {"HEAD": "ref: refs/heads/main\n"})),
    BadCommand("site-out-inside-git", lit("site", "--out", at(".git/site")), "output-refused", 2,
               make_dir(".git", {"HEAD": "ref: refs/heads/main\n"})),
    BadCommand("stats-out-other-repository", lit("stats", "--out", at("^/other")),
               "output-refused", 2, make_dir("^/other/.git")),
    BadCommand("stats-out-folder-with-notes", lit("stats", "--out", at("^/notes")),
               "output-refused", 2, make_dir("^/notes", {"todo.txt": "mine\n"})),
    BadCommand("site-out-over-stats-output", lit("site", "--out", at("^/out")),
               "output-refused", 2, run_first("stats", "--out", "SCRATCH/out")),
    BadCommand("stats-out-own-output-with-user-file", lit("stats", "--out", at("^/out")),
               "output-refused", 2, both(run_first("stats", "--out", "SCRATCH/out"),
                                         make_dir("^/out", {"notes.md": "mine\n"}))),
    BadCommand("site-out-symlink", lit("site", "--out", at("^/link")), "output-refused", 2,
               lambda root, scratch: os.symlink(root / "papers", scratch / "link")),
    BadCommand("site-out-regular-file", lit("site", "--out", at("^/file")), "output-refused", 2,
               lambda root, scratch: (scratch / "file").write_text("mine\n")),
    BadCommand("stats-out-missing-parent", lit("stats", "--out", at("^/absent/stats")),
               "output-missing-folder", 2),
    # Output files that would replace what the tool did not write.
    BadCommand("export-out-taxonomy", lit("export", "--format", "bibtex", "--out",
               at("taxonomy.yaml")), "output-refused", 2),
    BadCommand("export-out-record", lit("export", "--format", "csv", "--out",
               at("papers/alpha-rl.yaml")), "output-refused", 2),
    BadCommand("export-out-new-file-in-papers", lit("export", "--format", "json", "--out",
               at("papers/export.json")), "output-refused", 2),
    BadCommand("export-out-folder", lit("export", "--format", "csv", "--out", at("^/")),
               "output-refused", 2),
    BadCommand("export-out-fifo", lit("export", "--format", "csv", "--out", at("^/pipe")),
               "output-refused", 2, lambda root, scratch: os.mkfifo(scratch / "pipe")),
    BadCommand("export-out-symlink-to-taxonomy", lit("export", "--format", "csv", "--out",
               at("^/link.csv")), "output-refused", 2,
               lambda root, scratch: os.symlink(root / "taxonomy.yaml", scratch / "link.csv")),
    BadCommand("export-out-tracked-file", lit("export", "--format", "csv", "--out",
               at("reviews/second-reader.csv")), "output-refused", 2, git_commit),
    BadCommand("export-out-missing-folder", lit("export", "--format", "csv", "--out",
               at("^/absent/x.csv")), "output-missing-folder", 2),
    # Refs that git would read as options, and refs that name nothing.
    BadCommand("diff-ref-is-an-option", lit("diff", "--", "--output=taxonomy.yaml"),
               "bad-ref", 2, git_commit),
    BadCommand("diff-unknown-ref", lit("diff", "no-such-branch"), "bad-ref", 1, git_commit),
    BadCommand("links-since-is-an-option", lit("links", "--changed-since=--output=x"),
               "bad-ref", 2, git_commit),
    # Writes the system refuses: no permission, a file-size limit (a full disk, for a write).
    BadCommand("stats-unwritable-tree", lit("stats"), "write-failed", 1, read_only=True),
    BadCommand("site-unwritable-tree", lit("site"), "write-failed", 1, read_only=True),
    BadCommand("readme-unwritable", lit("readme"), "write-failed", 1,
               lambda root, scratch: (root / "README.md").write_text(
                   "<!-- BEGIN GENERATED: awesome list (litcorpus readme; do not edit) -->\n"
                   "<!-- END GENERATED: awesome list -->\n"), read_only=True),
    BadCommand("add-unwritable-tree", lit("add", "--bibtex", at("^/in.bib")), "write-failed", 1,
               bib(NEW_BIB), read_only=True),
    BadCommand("export-unwritable-folder", lit("export", "--format", "csv", "--out",
               at("^/ro/x.csv")), "write-failed", 1, make_dir("^/ro"), read_only=True),
    BadCommand("stats-file-size-limit", lit("stats"), "write-failed", 1,
               run_first("stats"), file_size=2000),
    BadCommand("site-file-size-limit", lit("site"), "write-failed", 1, file_size=2000),
    BadCommand("readme-file-size-limit", lit("readme"), "write-failed", 1,
               lambda root, scratch: (root / "README.md").write_text(
                   "<!-- BEGIN GENERATED: awesome list (litcorpus readme; do not edit) -->\n"
                   "<!-- END GENERATED: awesome list -->\n"), file_size=200),
    BadCommand("export-file-size-limit", lit("export", "--format", "json", "--out",
               at("^/corpus.json")), "write-failed", 1, file_size=300),
    BadCommand("add-file-size-limit", lit("add", "--bibtex", at("^/in.bib")), "write-failed", 1,
               both(bib(NEW_BIB), lambda root, scratch: (root / LOCK).touch()), file_size=600),
    BadCommand("stats-out-of-memory", lit("stats", "--out", at("^/stats")), "out-of-memory", 1,
               memory=160 << 20),
    BadCommand("check-json-reader-gone", lit("check", "--format", "json"), "", 1,
               lambda root, scratch: (root / "papers/alpha-rl.yaml").write_text("key: x\n"),
               stdout_closed=True),
    # BibTeX that cannot be added as it stands.
    BadCommand("add-bibtex-repeated-key", lit("add", "--bibtex", at("^/in.bib")),
               "bibtex-invalid", 1, bib(NEW_BIB + NEW_BIB.replace("A New", "Another"))),
    BadCommand("add-bibtex-repeated-field", lit("add", "--bibtex", at("^/in.bib")),
               "bibtex-invalid", 1, bib(NEW_BIB.replace("  author", "  year = 2026,\n  year = "
                                                         "2025,\n  author"))),
    BadCommand("add-bibtex-near-duplicates-in-file", lit("add", "--bibtex", at("^/in.bib")),
               "add-refused", 1, bib(NEW_BIB + NEW_BIB.replace("new2026", "new2026b")
                                     .replace("Paper on", "Paper On"))),
    BadCommand("add-bibtex-duplicates-corpus", lit("add", "--bibtex", at("^/in.bib")),
               "add-refused", 1, bib(NEW_BIB.replace("  title", "  eprint = {2501.00001},\n"
                                                     "  title"))),
    BadCommand("add-bibtex-fifo", lit("add", "--bibtex", at("^/in.bib")), "unreadable-input", 1,
               lambda root, scratch: os.mkfifo(scratch / "in.bib")),
    BadCommand("add-bibtex-latin1", lit("add", "--bibtex", at("^/in.bib")), "unreadable-input",
               1, lambda root, scratch: (scratch / "in.bib").write_bytes(
                   NEW_BIB.replace("Doe", "D\xf6e").encode("latin-1"))),
    # orchtrace: its outputs follow the same rules, its inputs are checked before they are read.
    BadCommand("metrics-html-absent-folder", orch("metrics", at("^/t.json"), "--html",
               at("^/absent/x.html")), "output-missing-folder", 2, trace()),
    BadCommand("metrics-html-over-the-trace", orch("metrics", at("^/t.json"), "--html",
               at("^/t.json")), "output-refused", 2, trace()),
    BadCommand("metrics-html-is-a-folder", orch("metrics", at("^/t.json"), "--html", at("^/d")),
               "output-refused", 2, both(trace(), make_dir("^/d"))),
    BadCommand("metrics-html-in-git", orch("metrics", at("^/t.json"), "--html",
               at(".git/x.html")), "output-refused", 2,
               both(trace(), make_dir(".git", {"HEAD": "x\n"}))),
    BadCommand("metrics-html-file-size-limit", orch("metrics", at("^/t.json"), "--html",
               at("^/x.html")), "write-failed", 1, trace(), file_size=1000),
    BadCommand("convert-out-absent-folder", orch("convert", "--to", "artifact", at("^/t.json"),
               "--out", at("^/absent/a.json")), "output-missing-folder", 2, trace()),
    BadCommand("convert-out-over-the-input", orch("convert", "--to", "artifact",
               at("^/t.json"), "--out", at("^/t.json")), "output-refused", 2, trace()),
    BadCommand("convert-out-symlink", orch("convert", "--to", "artifact", at("^/t.json"),
               "--out", at("^/link.json")), "output-refused", 2,
               both(trace(), lambda root, scratch: os.symlink(root / "claims.yaml",
                                                              scratch / "link.json"))),
    BadCommand("convert-out-read-only", orch("convert", "--to", "artifact", at("^/t.json"),
               "--out", at("^/a.json")), "write-failed", 1, trace(), read_only=True),
    BadCommand("import-out-folder-with-notes", orch("import", at("^/t.json"), "--out",
               at("^/notes")), "output-refused", 2,
               both(lambda root, scratch: shutil.copy(OTLP, scratch / "t.json"),
                    make_dir("^/notes", {"todo.txt": "mine\n"}))),
    BadCommand("import-out-absent-folder", orch("import", at("^/t.json"), "--out",
               at("^/absent/x.json")), "output-missing-folder", 2,
               lambda root, scratch: shutil.copy(OTLP, scratch / "t.json")),
    BadCommand("validate-fifo", orch("validate", at("^/p.json")), "unreadable", 1,
               lambda root, scratch: os.mkfifo(scratch / "p.json")),
    BadCommand("validate-repeated-key", orch("validate", at("^/t.json")), "duplicate-key", 1,
               trace(lambda t: t.replace('"trace_id":', '"trace_id": "x", "trace_id":', 1))),
    BadCommand("validate-parent-cycle", orch("validate", at("^/t.json")), "parent-cycle", 1,
               trace(own_parent)),
    BadCommand("add-bibtex-unclosed", lit("add", "--bibtex", at("^/in.bib")), "bibtex-invalid",
               1, bib(NEW_BIB.replace("Agents}", "Agents"))),
    # Ids of taxonomy.yaml and claims.yaml that would become paths out of the output folders.
    BadCommand("stats-gap-id-climbs-to-readme", lit("stats"), "unsafe-id", 1,
               both(lambda root, scratch: (root / "README.md").write_text("mine\n"),
                    edit_file("taxonomy.yaml", "- id: reward-credit-gap",
                              '- id: "../../../../README"'))),
    BadCommand("build-crosstab-id-absolute", lit("build"), "unsafe-id", 1,
               both(lambda root, scratch: (root / "README.md").write_text(README_MARKERS),
                    edit_file("taxonomy.yaml", "{id: reward-by-credit,",
                              '{id: "/tmp/reward-by-credit",'))),
    BadCommand("site-axis-id-path", lit("site"), "unsafe-id", 1,
               edit_file("taxonomy.yaml", "  - id: verified\n", '  - id: "a/../../verified"\n')),
    BadCommand("stats-kind-dir-outside", lit("stats"), "unsafe-id", 1,
               edit_file("taxonomy.yaml", "dir: exclusions", 'dir: "../exclusions"')),
    # A journal left where a killed add keeps it, naming what add never writes.
    BadCommand("readme-journal-names-claims", lit("readme"), "journal-refused", 1,
               both(lambda root, scratch: (root / "README.md").write_text(README_MARKERS),
                    journal("claims.yaml"))),
    BadCommand("add-journal-names-file-outside", lit("add", "--bibtex", at("^/in.bib")),
               "journal-refused", 1,
               both(bib(NEW_BIB), lambda root, scratch: (scratch / "mine.txt").write_text("x\n"),
                    journal("^/mine.txt"))),
    BadCommand("build-journal-names-committed-paper", lit("build"), "journal-refused", 1,
               both(lambda root, scratch: (root / "README.md").write_text(README_MARKERS),
                    git_commit, journal("papers/alpha-rl.yaml"))),
    BadCommand("add-journal-names-no-record", lit("add", "--bibtex", at("^/in.bib")),
               "journal-refused", 1,
               both(bib(NEW_BIB), lambda root, scratch: (root / "papers/notes.txt").write_text(
                   "x\n"), journal("papers/notes.txt"))),
    BadCommand("add-journal-climbs-out", lit("add", "--bibtex", at("^/in.bib")),
               "journal-refused", 1,
               both(bib(NEW_BIB), journal("papers/../claims.yaml"))),
    BadCommand("add-journal-names-a-link", lit("add", "--bibtex", at("^/in.bib")),
               "journal-refused", 1,
               both(bib(NEW_BIB), lambda root, scratch: os.symlink("../claims.yaml",
                                                                   root / "papers/link.yaml"),
                    journal("papers/link.yaml"))),
    BadCommand("readme-journal-without-hashes", lit("readme"), "journal-refused", 1,
               both(lambda root, scratch: (root / "README.md").write_text(README_MARKERS),
                    journal(text='[{"path": "papers/alpha-rl.yaml"}]'))),
    # Every input of the corpus is refused as an output, git or not.
    BadCommand("export-out-untracked-searches", lit("export", "--format", "csv", "--out",
               at("searches.yaml")), "output-refused", 2,
               both(git_commit, lambda root, scratch: (root / "searches.yaml").write_text(
                   "searches: []\n"))),
    BadCommand("export-out-releases-without-git", lit("export", "--format", "json", "--out",
               at("releases.yaml")), "output-refused", 2),
    BadCommand("export-out-second-reader-without-git", lit("export", "--format", "csv",
               "--out", at("reviews/second-reader.csv")), "output-refused", 2),
    BadCommand("export-out-new-file-in-reviews", lit("export", "--format", "csv",
               "--out", at("reviews/corpus.csv")), "output-refused", 2),
    BadCommand("export-out-screening-queue", lit("export", "--format", "json", "--out",
               at("screening/queue.json")), "output-refused", 2, make_dir("screening")),
    BadCommand("export-out-changelog", lit("export", "--format", "json", "--out",
               at("CHANGELOG.md")), "output-refused", 2),
    BadCommand("export-out-claims", lit("export", "--format", "json", "--out",
               at("claims.yaml")), "output-refused", 2),
    BadCommand("export-out-exclusion", lit("export", "--format", "csv", "--out",
               at("exclusions/E001.yaml")), "output-refused", 2),
    BadCommand("stats-out-inside-screening", lit("stats", "--out", at("screening/stats")),
               "output-refused", 2, make_dir("screening")),
    # A build checks every output before it writes any.
    BadCommand("build-site-refused-after-stats", lit("build"), "output-refused", 2,
               both(lambda root, scratch: (root / "README.md").write_text(README_MARKERS),
                    make_dir("site", {"notes.md": "mine\n"}))),
    BadCommand("build-readme-without-markers", lit("build"), "readme-markers", 1,
               lambda root, scratch: (root / "README.md").write_text("# My list\n")),
    BadCommand("build-read-only-site", lit("build"), "write-failed", 1,
               both(lambda root, scratch: (root / "README.md").write_text(README_MARKERS),
                    run_first("site")), read_only_below="site"),
    # orchtrace import: an export that would import as other values, or as a trace that
    # validate rejects (the export of AGENT_SPAN and CHAT_SPAN alone imports well).
    BadCommand("import-object-repeats-a-key", orch("import", at("^/spans.json")),
               "duplicate-key", 1, spans(AGENT_SPAN, with_(CHAT_SPAN, extra=_attrs(
                   {"gen_ai.usage.input_tokens": 1_000_000, "gen_ai.usage.output_tokens": 4})),
                   text=lambda t: t.replace('"extra"', '"attributes"'))),
    BadCommand("import-attribute-given-twice", orch("import", at("^/spans.json")),
               "duplicate-key", 1, spans(with_(AGENT_SPAN, attributes=[
                   *AGENT_SPAN["attributes"], *_attrs({"gen_ai.agent.name": "critic"})]),
                   CHAT_SPAN)),
    BadCommand("import-span-listed-twice-unlike", orch("import", at("^/spans.json")),
               "duplicate-id", 1, spans(AGENT_SPAN, CHAT_SPAN, with_(CHAT_SPAN, name="other"))),
    BadCommand("import-span-its-own-parent", orch("import", at("^/spans.json")),
               "parent-cycle", 1, spans(AGENT_SPAN, with_(CHAT_SPAN, parentSpanId="2" * 16))),
    BadCommand("import-clock-skew", orch("import", at("^/spans.json")), "time-backwards", 1,
               spans(AGENT_SPAN, with_(CHAT_SPAN, endTimeUnixNano="1400000000"))),
    BadCommand("import-negative-tokens", orch("import", at("^/spans.json")), "negative-value",
               1, spans(AGENT_SPAN, with_(CHAT_SPAN, attributes=[
                   *CHAT_SPAN["attributes"][:2], *_attrs({"gen_ai.usage.output_tokens": -5})]))),
    # add --arxiv writes the paper asked for, and nothing of an answer that holds anything else.
    BadCommand("add-arxiv-answer-of-200-papers", lit("add", "--arxiv", "2412.01928"),
               "arxiv-bad-answer", 1, arxiv="many", one_line=True),
    BadCommand("add-arxiv-answer-in-latin1", lit("add", "--arxiv", "2412.01928"),
               "arxiv-bad-answer", 1, arxiv="latin1", one_line=True),
    BadCommand("add-arxiv-answer-for-another-paper", lit("add", "--arxiv", "2412.01928v2"),
               "arxiv-bad-answer", 1, arxiv="another-paper", one_line=True),
    BadCommand("add-arxiv-error-on-lines", lit("add", "--arxiv", "2412.01928"),
               "arxiv-unavailable", 1, arxiv="error-on-lines", one_line=True),
    # Integers beyond what the tables hold are out-of-range in check; diff, which computes the
    # statistics of a corpus with problems, leaves them out (and entries with no year).
    *[BadCommand(f"{cmd}-integer-beyond-tables", lit(cmd), "out-of-range", 1,
                 edit_file("papers/alpha-rl.yaml", "max_agents: 8", "max_agents: 1" + "0" * 400))
      for cmd in ("build", "stats", "site")],  # refused by check's out-of-range, no traceback
    BadCommand("diff-over-integer-beyond-tables", lit("diff", "HEAD"), "", 0,
               both(git_commit, edit_file("papers/alpha-rl.yaml", "max_agents: 8",
                                          "max_agents: 1" + "0" * 400),
                    edit_file("papers/beta-bench.yaml", "year: 2024\n", ""))),
    # Standard streams a caller closed or gave an encoding that cannot hold the text.
    BadCommand("check-stdout-closed", lit("check"), "", 0, no_stdout=True),
    BadCommand("claims-stdout-closed", lit("claims"), "", 0, no_stdout=True),
    BadCommand("validate-stdout-closed", orch("validate", str(TRACE)), "", 0, no_stdout=True),
    BadCommand("export-stdout-closed", lit("export", "--format", "csv"), "", 0,
               no_stdout=True),
    BadCommand("check-ascii-encoding", lit("check"), "unknown-value", 1,
               edit_file("papers/alpha-rl.yaml", "category: rl_method", "category: rl_méthod"),
               encoding="ascii"),
    BadCommand("validate-ascii-encoding", orch("validate", at("^/tráce.json")), "", 1,
               make_dir("^/", {"tráce.json": "{}"}), encoding="ascii"),  # its report names it
    BadCommand("stats-read-only-folder", lit("stats"), "write-failed", 1,
               both(run_first("stats"), edit_file("papers/gamma-survey.yaml", "year: 2026",
                                                  "year: 2025")), read_only_below="stats"),
]
# fmt: on


# Applies the case's limits, then becomes the command (exec keeps the limits and the ignored
# SIGXFSZ, so a write past the file-size limit fails with EFBIG instead of killing the run).
LAUNCHER = """
import json, os, resource, signal, sys
opts = json.loads(sys.argv[1])
if opts["file_size"]:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (opts["file_size"], opts["file_size"]))
if opts["memory"]:
    resource.setrlimit(resource.RLIMIT_AS, (opts["memory"], opts["memory"]))
if opts["stdout_closed"]:
    read, write = os.pipe()
    os.close(read)
    os.dup2(write, 1)
if opts["no_stdout"]:
    os.close(1)
command = [sys.executable, "-m", *sys.argv[2:]]
if opts["read_only"] and os.geteuid() == 0:  # root ignores permissions unless it drops these
    command = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search", "--", *command]
os.execvp(command[0], command)
"""


class Result(NamedTuple):
    exit: int
    stderr: str  # or standard output, where a command reports problems there
    changed: list[str]
    quiet: bool  # whether standard error was empty


def attempt(case: BadCommand, base: Path) -> Result:
    root = make_mini_root(base)
    scratch = base / "scratch"
    scratch.mkdir()
    case.setup(root, scratch)
    if case.read_only or case.read_only_below:
        for folder, _, files in os.walk(root / case.read_only_below if case.read_only_below
                                        else base):  # fmt: skip
            os.chmod(folder, 0o555)
            for name in files:
                if not os.path.islink(os.path.join(folder, name)):
                    os.chmod(os.path.join(folder, name), 0o444)
    before = {k: v for k, v in snapshot(base, skip=base / "none").items() if LOCK not in k}
    opts = {
        "file_size": case.file_size,
        "memory": case.memory,
        "read_only": case.read_only or bool(case.read_only_below),
        "stdout_closed": case.stdout_closed,
        "no_stdout": case.no_stdout,
    }
    env = dict(os.environ)
    if case.arxiv:
        env["LITCORPUS_ARXIV_API"] = f"{arxiv_api()}/{case.arxiv}"
    if case.encoding:
        env["PYTHONIOENCODING"] = case.encoding
    proc = subprocess.Popen(
        [sys.executable, "-c", LAUNCHER, json.dumps(opts), *case.argv(root, scratch)],
        cwd=scratch,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        pytest.fail(f"{case.id} did not finish within 120 s")
    for folder, _, files in os.walk(base):
        os.chmod(folder, 0o755)
        for name in files:
            if not os.path.islink(os.path.join(folder, name)):
                os.chmod(os.path.join(folder, name), 0o644)
    after = {k: v for k, v in snapshot(base, skip=base / "none").items() if LOCK not in k}
    changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    text = err.decode("utf-8", "replace") or out.decode("utf-8", "replace")  # a report: stdout
    return Result(proc.returncode, text, changed, not err)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_command(case: BadCommand, tmp_path_factory: pytest.TempPathFactory) -> None:
    base = tmp_path_factory.mktemp(case.id)
    try:
        result = attempt(case, base)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    shown = f"exit {result.exit}\nstderr:\n{result.stderr[-3000:]}"
    assert "Traceback" not in result.stderr, shown
    assert result.exit == case.exit, shown
    if case.code:  # the error is one line (a command may say something else first)
        lines = result.stderr.strip().splitlines()
        assert [line for line in lines if f": {case.code}: " in line], shown
        assert len(lines) == 1 or not case.one_line, shown
    else:
        assert result.quiet, shown
    assert result.changed == [], f"changed: {result.changed}\n{shown}"


def test_import_never_writes_a_trace_that_validate_rejects() -> None:
    """The last line of import's checks: whatever the spans were, a trace with an error in
    validate's eyes is refused, by validate's code."""
    from orchtrace.readers.importcheck import check_traces
    from orchtrace.readers.spans import ImportError_

    trace = json.loads(TRACE.read_text())
    check_traces([trace])
    trace["events"][0]["agent"] = "nobody"
    with pytest.raises(ImportError_, match=r"^unknown-agent: the trace .* would not validate"):
        check_traces([trace])


@pytest.mark.parametrize(
    "argv",
    [
        ["litcorpus", "links", "--timeout", "-1"],
        ["litcorpus", "links", "--timeout", "0"],
        ["litcorpus", "links", "--retries", "-1"],
        ["litcorpus", "links", "--workers", "0"],
        ["orchtrace", "validate", "--max-bytes", "0", str(TRACE)],
        ["orchtrace", "validate", "--max-bytes", "-1", str(TRACE)],
    ],
    ids=lambda argv: "-".join(a.lstrip("-") for a in argv[:4] if "/" not in a),
)
def test_options_out_of_range_are_usage_errors(argv: list[str], mini_root: Path) -> None:
    """A negative or zero timeout, retry count, worker count or size limit is not silently
    the default: exit 2, click's one error, nothing run."""
    if argv[0] == "litcorpus":
        argv = [*argv, "--root", str(mini_root)]
    run = subprocess.run([sys.executable, "-m", *argv], capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and "Invalid value" in run.stderr, run.stderr
    assert "Traceback" not in run.stderr and run.stdout == ""


def test_cases_are_many_and_distinct() -> None:
    assert len(CASES) >= 40
    assert len({c.id for c in CASES}) == len(CASES)
