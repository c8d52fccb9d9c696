"""The catalogue of bad inputs `check` must survive: every problem case, and inputs built to cost
size, nesting, aliases, odd names and odd files; each with the code, file and line it must report
and its time bound."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

from claimcases import CLAIM_CASES
from corpusfixtures import FIXTURES
from problemcases import CASES, A, B, C, R, T, X, change, symlink, write

RV = "reviews/second-reader.csv"


MIB = 1 << 20


MEMORY_LIMIT = 2 << 30  # hard address-space limit: a runaway case fails instead of swapping


KILL_AFTER = 60.0  # hard wall-clock limit, above every case's bound


SECONDS = 20.0  # default bound on one run


TIGHT = 5.0  # bound for the inputs built to cost time or memory


RSS_MIB = 256  # bound on the peak resident memory of one run


class BadInput(NamedTuple):
    id: str
    action: Callable[[Path], Any]
    code: str
    path: str
    line: int | None
    seconds: float = SECONDS


def write_big(rel: str, head: bytes, size: int) -> Callable[[Path], None]:
    """Write HEAD then filler up to SIZE bytes, a megabyte at a time."""

    def action(root: Path) -> None:
        with open(root / rel, "wb") as f:
            f.write(head)
            left = size - len(head)
            while left > 0:
                f.write(b"x" * min(left, MIB))
                left -= MIB
            f.write(b"\n")

    return action


def replace_file(rel: str, make: Callable[[Path], None]) -> Callable[[Path], None]:
    """Remove the file REL, then create something else in its place."""

    def action(root: Path) -> None:
        (root / rel).unlink()
        make(root / rel)

    return action


def odd_name(folder: str, name: bytes, content: bytes) -> Callable[[Path], None]:
    """Write a file whose name is given as raw bytes (possibly not UTF-8)."""

    def action(root: Path) -> None:
        with open(os.fsencode(root / folder) + b"/" + name, "wb") as f:
            f.write(content)

    return action


def nested_mappings(levels: int) -> Iterator[bytes]:
    """The lines of a block mapping LEVELS deep, one more space of indent per level."""
    for i in range(levels):
        yield b" " * i + b"k:\n"
    yield b" " * levels + b"k: 1\n"


def write_nested(rel: str, levels: int) -> Callable[[Path], None]:
    """Write a record whose one extra field is a block mapping LEVELS deep."""

    def action(root: Path) -> None:
        with open(root / rel, "wb") as f:
            f.write(b"key: block\n")
            f.writelines(nested_mappings(levels))

    return action


LOL = b'a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]\n'


BOMB = (
    b"key: bomb\n"
    + LOL
    + b"".join(
        b"%c: &%c [%s]\n" % (c, c, b", ".join([b"*%c" % (c - 1)] * 9))
        for c in range(ord("b"), ord("k"))
    )
)


# fmt: off
EXTRA: list[BadInput] = [
    # Size, nesting and aliases: each must cost little however it is built.
    BadInput("file-50mb", write_big("papers/big.yaml", b"key: big\nnotes: ", 50 * MIB),
             "file-too-large", "papers/big.yaml", None, TIGHT),
    BadInput("file-50mb-many-lines", write_big("papers/lines.yaml", b"key: lines\nx:\n" +
             b"  - a\n" * 1000, 50 * MIB), "file-too-large", "papers/lines.yaml", None, TIGHT),
    BadInput("taxonomy-50mb", write_big("taxonomy.yaml", b"axes: ", 50 * MIB),
             "file-too-large", "taxonomy.yaml", None, TIGHT),
    BadInput("second-reader-50mb", write_big(RV, b"key,ann_category\nalpha-rl,", 50 * MIB),
             "agreement-invalid", RV, None, TIGHT),
    BadInput("nested-flow-seq-10000", write("papers/flow.yaml",
             "key: flow\nx: " + "[" * 10_000 + "]" * 10_000 + "\n"),
             "yaml-syntax", "papers/flow.yaml", 2, TIGHT),
    BadInput("nested-flow-map-10000", write("papers/flow.yaml",
             "key: flow\nx: " + "{a: " * 10_000 + "1" + "}" * 10_000 + "\n"),
             "yaml-syntax", "papers/flow.yaml", 2, TIGHT),
    BadInput("nested-block-seq-10000", write("papers/block.yaml",
             "key: block\nx:\n" + "- " * 10_000 + "x\n"),
             "yaml-syntax", "papers/block.yaml", 3, TIGHT),
    # 10,000 indented levels need 50 MB of indentation; 1,200 fit below the size limit.
    BadInput("nested-block-map-10000", write_nested("papers/block.yaml", 10_000),
             "file-too-large", "papers/block.yaml", None, TIGHT),
    BadInput("nested-block-map-1200", write_nested("papers/block.yaml", 1200),
             "yaml-syntax", "papers/block.yaml", 1001, TIGHT),
    BadInput("nested-block-map-40", write_nested("papers/block.yaml", 40),
             "too-deep", "papers/block.yaml", 35, TIGHT),
    BadInput("claims-nested-10000", write("claims.yaml", "[" * 10_000),
             "yaml-syntax", "claims.yaml", 1, TIGHT),
    BadInput("alias-bomb", write("papers/bomb.yaml", BOMB),
             "yaml-alias", "papers/bomb.yaml", 2, TIGHT),
    BadInput("alias-15000-uses", write("papers/aliases.yaml",
             "key: aliases\na: &a x\nb: [" + "*a, " * 15_000 + "]\n"),
             "yaml-alias", "papers/aliases.yaml", 2, TIGHT),
    BadInput("alias-200000-uses", write("papers/aliases.yaml",
             "key: aliases\na: &a x\nb: [" + "*a, " * 200_000 + "]\n"),
             "too-many-items", "papers/aliases.yaml", None, TIGHT),
    BadInput("unknown-fields-6000", write("papers/wide.yaml",
             "key: wide\n" + "".join(f"k{i}: 1\n" for i in range(6_000))),
             "unknown-field", "papers/wide.yaml", 2),
    BadInput("unknown-fields-60000", write("papers/wide.yaml",
             "key: wide\n" + "".join(f"k{i}: 1\n" for i in range(60_000))),
             "too-many-items", "papers/wide.yaml", None, TIGHT),
    BadInput("list-500000-items", write("papers/long.yaml",
             "key: long\nx: [" + "1," * 500_000 + "]\n"),
             "too-many-items", "papers/long.yaml", None, TIGHT),
    BadInput("integer-5000-digits", change(A, "year: 2025", "year: " + "9" * 5000),
             "wrong-type", A, 6),
    # Encodings and layout.
    BadInput("empty-zero-bytes", write("papers/zero.yaml", b""),
             "empty-file", "papers/zero.yaml", 1),
    BadInput("binary-image", write("papers/image.yaml", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"),
             "binary-file", "papers/image.yaml", 3),
    BadInput("invalid-utf8-line-3", write("papers/bad.yaml", b"key: bad\ntitle: x\nvenue: \xff\n"),
             "not-utf8", "papers/bad.yaml", 3),
    BadInput("bom-utf16", write("papers/utf16.yaml", "key: utf16\n".encode("utf-16")),
             "binary-file", "papers/utf16.yaml", 1),
    BadInput("crlf-exclusion", lambda root: (root / X).write_bytes(
             (root / X).read_bytes().replace(b"\n", b"\r\n")), "crlf", X, 1),
    BadInput("tab-before-key", change(A, '  arxiv: "2501.00001"', '\tarxiv: "2501.00001"'),
             "yaml-syntax", A, 10),
    BadInput("duplicate-key-in-ids", change(A, '  arxiv: "2501.00001"',
             '  arxiv: "2501.00001"\n  arxiv: "2501.00009"'), "duplicate-yaml-key", A, 11),
    # Names and paths that try to leave the corpus.
    BadInput("key-dotdot-path", change(A, "key: alpha-rl", "key: ../../etc/passwd"),
             "key-mismatch", A, 1),
    BadInput("key-with-slash", change(A, "key: alpha-rl", "key: papers/alpha-rl"),
             "key-mismatch", A, 1),
    BadInput("exclusion-id-dotdot", change(X, "id: E001", "id: ../E001"),
             "key-mismatch", X, 1),
    BadInput("file-name-inner-dotdot", write("papers/a..b.yaml", "key: a..b\n"),
             "unsafe-key", "papers/a..b.yaml", 1),
    BadInput("file-name-leading-dotdot", write("papers/..evil.yaml", "key: evil\n"),
             "unexpected-file", "papers/..evil.yaml", None),
    BadInput("file-name-not-utf8", odd_name("papers", b"caf\xe9.yaml", b"key: cafe\n"),
             "unsafe-key", "papers/caf\udce9.yaml", 1),
    BadInput("symlink-outside-relative", lambda root: (
             (root.parent / "outside.yaml").write_text("key: outside\n"),
             os.symlink("../../outside.yaml", root / "papers/outside.yaml")),
             "symlink-outside", "papers/outside.yaml", None),
    BadInput("symlink-loop", symlink("papers/loop.yaml", "loop.yaml"),
             "unreadable-file", "papers/loop.yaml", None, TIGHT),
    BadInput("fifo", lambda root: os.mkfifo(root / "papers/pipe.yaml"),
             "unreadable-file", "papers/pipe.yaml", None, TIGHT),
    BadInput("symlink-to-fifo", lambda root: (os.mkfifo(root / "pipe"),
             os.symlink("../pipe", root / "papers/pipe.yaml")),
             "unreadable-file", "papers/pipe.yaml", None, TIGHT),
    BadInput("directory-named-yaml", lambda root: (root / "papers/dir.yaml").mkdir(),
             "unexpected-file", "papers/dir.yaml", None),
    BadInput("second-reader-fifo", replace_file(RV, lambda p: os.mkfifo(p)),
             "agreement-invalid", RV, None, TIGHT),
    BadInput("second-reader-loop", replace_file(RV, lambda p: os.symlink(p.name, p)),
             "agreement-invalid", RV, None, TIGHT),
    # Values that only look right.
    BadInput("date-not-a-date", change(X, "date_screened: 2026-04-26", "date_screened: last week"),
             "bad-date", X, 8),
    BadInput("date-as-number", change(X, "date_screened: 2026-04-26", "date_screened: 20260426"),
             "bad-date", X, 8),
    BadInput("date-month-13", change(X, "date_screened: 2026-04-26", 'date_screened: "2026-13-01"'),
             "bad-date", X, 8),
    BadInput("date-with-time", change(X, "date_screened: 2026-04-26",
             "date_screened: 2026-04-26 10:00:00"), "bad-date", X, 8),
    BadInput("year-next-century", change(B, "year: 2024", "year: 2124"), "out-of-range", B, 6),
    BadInput("year-fraction", change(A, "year: 2025", "year: 2025.5"), "wrong-type", A, 6),
    BadInput("arxiv-float-exclusion", change(X, 'arxiv: "2301.00003"', "arxiv: 2301.00003"),
             "implicit-type", X, 4),
    BadInput("arxiv-float-trailing-zero", change(B, 'arxiv: "2406.00002"', "arxiv: 2406.10"),
             "implicit-type", B, 10),
    # Text that would inject markup, reorder what is shown, or hide in an output.
    BadInput("title-newline-heading", change(A, 'title: "Alpha:', 'title: "## Injected\\nAlpha:'),
             "control-character", A, 2),
    BadInput("title-c1-next-line", change(A, 'title: "Alpha:', 'title: "\\x85Alpha:'),
             "control-character", A, 2),
    BadInput("title-tab", change(A, 'title: "Alpha:', 'title: "\\tAlpha:'),
             "control-character", A, 2),
    BadInput("summary-bidi-isolate", change(A, 'summary: "Trains', 'summary: "\\u2066Trains'),
             "bidi-control", A, 22),
    BadInput("author-nul", change(A, "  - Doe, Jane", '  - "Doe, Jane\\0"'),
             "control-character", A, 4),
    BadInput("id-bidi", change(A, 'arxiv: "2501.00001"', 'arxiv: "2501.00001\\u202e"'),
             "bidi-control", A, 10),
    BadInput("url-quote", change(A, "url: https://arxiv.org/abs/2501.00001",
             "url: 'https://arxiv.org/abs/2501.00001\"onmouseover=x'"), "bad-url", A, 11),
    BadInput("url-angle-brackets", change(A, "url: https://arxiv.org/abs/2501.00001",
             "url: https://a.org/<script>"), "bad-url", A, 11),
    BadInput("url-closes-markdown-link", change(A, "url: https://arxiv.org/abs/2501.00001",
             "url: https://a.org/x)<b>"), "bad-url", A, 11),
    BadInput("url-brace-injects-bibtex", change(A, "url: https://arxiv.org/abs/2501.00001",
             "url: 'https://x.org/a}}@misc{evil, title={x}'"), "bad-url", A, 11),
    BadInput("url-javascript", change(A, "url: https://arxiv.org/abs/2501.00001",
             "url: javascript:alert(1)"), "bad-url", A, 11),
    BadInput("url-scheme-relative", change(A, "url: https://arxiv.org/abs/2501.00001",
             "url: //evil.example/x"), "bad-url", A, 11),
    BadInput("url-bad-port", change(A, "url: https://arxiv.org/abs/2501.00001",
             "url: https://a.org:99999/x"), "bad-url", A, 11),
    BadInput("url-unclosed-ipv6", change(A, "url: https://arxiv.org/abs/2501.00001",
             "url: 'https://[::1/x'"), "bad-url", A, 11),
    BadInput("extra-url-backslash", change(B, "url: https://arxiv.org/abs/2406.00002",
             "url: https://arxiv.org/abs/2406.00002\nextra_urls: ['https://a.org/x\\y']"),
             "bad-url", B, 12),
    BadInput("doi-brace", change(A, '  arxiv: "2501.00001"', '  doi: "10.1234/x}"'),
             "bad-id", A, 10),
    # Look-alike letters and paths that leave the repository.
    BadInput("title-cyrillic-lookalike", write("papers/lookalike.yaml",
             (FIXTURES / "corpus" / A).read_text(encoding="utf-8")
             .replace("key: alpha-rl", "key: lookalike")
             .replace('"2501.00001"', '"2501.00009"').replace("2501.00001", "2501.00009")
             .replace("Alpha: Learning", "\u0410lpha: L\u0435arning")),
             "near-duplicate-title", "papers/lookalike.yaml", 2),
    BadInput("papers-folder-symlink-outside", lambda root: (
             shutil.move(root / "papers", root.parent / "elsewhere"),
             os.symlink(root.parent / "elsewhere", root / "papers")),
             "symlink-outside", "papers/", None),
    # Ids that become file names (tables, figures, record folders, anchors) and try to leave.
    BadInput("gap-id-climbs-to-readme", change(T, "- id: reward-credit-gap",
             '- id: "../../../../README"'), "unsafe-id", T, 363),
    BadInput("crosstab-id-absolute", change(T, "{id: reward-by-credit,", '{id: "/etc/passwd",'),
             "unsafe-id", T, 351),
    BadInput("regime-id-dotdot", change(T, "{id: industrial, label", '{id: "../x", label'),
             "unsafe-id", T, 390),
    BadInput("kind-dir-outside", change(T, "dir: papers", 'dir: "../../papers"'),
             "unsafe-id", T, 43),
    BadInput("axis-id-with-slash", change(T, "  - id: verified\n", '  - id: "ver/ified"\n'),
             "unsafe-id", T, 207),
    BadInput("claim-id-path", change(C, "- id: one-spawner", '- id: "../../one-spawner"'),
             "unsafe-id", C, 8),
    BadInput("agreement-file-outside", change(T, "file: reviews/second-reader.csv",
             "file: ../../etc/passwd"), "taxonomy-invalid", T, 399),
    # Integers beyond what the tables, figures and the site hold.
    BadInput("integer-beyond-tables", change(A, "max_agents: 8", "max_agents: 1" + "0" * 400),
             "out-of-range", A, 21),
    BadInput("claim-count-beyond-tables", change(C, "{count: {eq: 0}}",
             "{count: {eq: 1" + "0" * 30 + "}}"), "out-of-range", C, 7),
    BadInput("search-count-beyond-tables", write("searches.yaml",
             "searches:\n  - {id: S001, source: arxiv, query: agents, date_run: '2026-06-01',"
             f" records_found: {10**20}, duplicates: 0}}\n"), "out-of-range", "searches.yaml", 2),
    # Versions and days as numbers and as one form.
    BadInput("release-month-13", change(R, 'version: "2026.05"', 'version: "2026.13"'),
             "release-invalid", R, 2),
    BadInput("release-month-99", change(R, 'version: "2026.05"', 'version: "2026.99"'),
             "release-invalid", R, 2),
    BadInput("release-date-iso-week", change(R, 'date: "2026-05-04"', 'date: "2026-W19-1"'),
             "release-invalid", R, 3),
    BadInput("release-date-basic-form", change(R, 'date: "2026-05-04"', 'date: "20260504"'),
             "release-invalid", R, 3),
    BadInput("search-date-iso-week", write("searches.yaml", "searches:\n  - {id: S001, source: "
             "arxiv, query: agents, date_run: '2026-W23', records_found: 0}\n"),
             "search-invalid", "searches.yaml", 2),
    # Text of the declarative files, held to the records' rules.
    BadInput("release-title-fake-heading", change(R, 'title: "The fixture',
             'title: "x\\n## Injected\\nThe fixture'), "control-character", R, 4),
    BadInput("claim-text-bidi", change(C, 'text: "No RL', 'text: "\\u202eNo RL'),
             "bidi-control", C, 4),
    BadInput("search-query-bell", write("searches.yaml", "searches:\n  - {id: S001, source: "
             "arxiv, query: \"a\\ab\", date_run: '2026-06-01', records_found: 0}\n"),
             "control-character", "searches.yaml", 2),
    BadInput("taxonomy-label-line-break", change(T, "label: Metadata verified",
             'label: "Metadata\\n# verified"'), "control-character", T, 208),
    # Keys the declarative files do not declare, and what YAML would retype there.
    BadInput("release-unknown-field", change(R, 'title: "The fixture',
             'titel: "x"\n    title: "The fixture'), "unknown-field", R, 4),
    BadInput("searches-misspelt-list", write("searches.yaml", "serches:\n  - {id: S001, "
             "source: arxiv, query: agents, date_run: '2026-06-01', records_found: 0}\n"),
             "unknown-field", "searches.yaml", 1),
    BadInput("search-unknown-field", write("searches.yaml", "searches:\n  - {id: S001, "
             "source: arxiv, qeury: agents, query: x, date_run: '2026-06-01', records_found: 0}\n"),
             "unknown-field", "searches.yaml", 2),
    BadInput("claim-unknown-field", change(C, '    text: "No RL-trained entry learns to stop."\n',
             '    text: "No RL-trained entry learns to stop."\n    boundray: "typo"\n'),
             "unknown-field", C, 5),
    BadInput("claims-unknown-top-level", change(C, "prisma:\n", "prizma: {}\nprisma:\n"),
             "unknown-field", C, 33),
    BadInput("release-version-unquoted", change(R, 'version: "2026.05"', "version: 2026.10"),
             "implicit-type", R, 2),
    BadInput("claim-snapshot-unquoted", change(C, 'snapshot: "2026.05"\n    text: "No RL',
             'snapshot: 2026.05\n    text: "No RL'), "implicit-type", C, 3),
    BadInput("yaml-tag-on-key", change(A, "venue: arXiv", "!custom venue: arXiv"),
             "yaml-tag", A, 7),
    BadInput("taxonomy-field-pattern-unbalanced", change(T, "pattern: '^E\\d{3,}$'",
             "pattern: '^E(\\d{3,}$'"), "taxonomy-invalid", T, 70),
    BadInput("taxonomy-version-suffix-unbalanced", change(T, "version_suffix: 'v\\d+$'",
             "version_suffix: 'v(\\d+$'"), "taxonomy-invalid", T, 13),
    BadInput("claims-symlink-outside", lambda root: (
             shutil.move(root / C, root.parent / "claims.yaml"),
             os.symlink(root.parent / "claims.yaml", root / C)), "symlink-outside", C, None),
    BadInput("releases-symlink-outside", lambda root: (
             shutil.move(root / R, root.parent / "releases.yaml"),
             os.symlink(root.parent / "releases.yaml", root / R)), "symlink-outside", R, None),
    BadInput("second-reader-symlink-outside", lambda root: (
             shutil.move(root / RV, root.parent / "reader.csv"),
             os.symlink(root.parent / "reader.csv", root / RV)), "symlink-outside", RV, None),
    BadInput("second-reader-row-twice", lambda root: (root / RV).write_text(
             (root / RV).read_text() + "alpha-rl,rl_method,yes,shared,agent,swarm\n"),
             "agreement-invalid", RV, 5),
    BadInput("second-reader-column-twice", change(RV, "key,ann_category,",
             "key,ann_category,ann_category,"), "agreement-invalid", RV, 1),
]


ALL: list[BadInput] = [BadInput(*case) for case in CASES + CLAIM_CASES] + EXTRA
